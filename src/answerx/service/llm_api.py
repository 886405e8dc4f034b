"""``POST /v1/extract/structured`` and ``POST /v1/ask``: the endpoints that call a provider."""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter
from pydantic import BaseModel
from starlette.responses import Response

from answerx.reasoning.response import StandardResponse
from answerx.service.asgi import JSON
from answerx.service.errors import ERROR_RESPONSES, error_responses
from answerx.service.llm import LLMGateway
from answerx.service.llm_schemas import (
    AskRequest,
    ProviderErrorResponse,
    StructuredRequest,
    StructuredResponse,
)
from answerx.service.openapi import example_response
from answerx.service.redaction import scrub_json, secrets_in

__all__ = ["llm_router"]

_LLM_ERRORS: Final = {
    **ERROR_RESPONSES,
    **error_responses(429, 502, 504, model=ProviderErrorResponse),
}

_CALL_INFO_EXAMPLE: Final = {
    "provider": "openai",
    "model": "gpt-4o-mini",
    "mode": "tools",
    "modes_tried": [{"mode": "tools", "ok": True, "reason": None, "requests": 1}],
    "attempts": 1,
    "fallback_reason": None,
    "usage": {"input_tokens": 212, "output_tokens": 48},
    "latency_s": 0.84,
}
_STRUCTURED_EXAMPLE: Final = {
    "extraction": {
        "reasoning_type": "chain_of_thought",
        "full_reasoning_text": "Each box holds 12 eggs, so 3 boxes hold 36.",
        "steps": ["3 boxes of 12 eggs", "3 * 12 = 36"],
        "answer_value": "36",
        "confidence": 0.95,
    },
    "call_info": _CALL_INFO_EXAMPLE,
}
_ASK_EXAMPLE: Final = {
    "question": "Which planet is largest? A) Mars B) Jupiter C) Venus",
    "text": "Jupiter is the largest planet of the solar system.",
    "extracted_answer": "B",
    "extraction": {
        "answer": "B",
        "method": "structured_llm",
        "confidence": 0.9,
        "task": "multiple_choice",
        "candidate": "B",
        "span": None,
        "reasoning": "Jupiter is the largest planet of the solar system.",
        "raw_output": "Jupiter is the largest planet of the solar system.",
    },
    "provider": "openai",
    "model": "gpt-4o-mini",
    "usage": {"input_tokens": 180, "output_tokens": 40},
    "generation_time": 1.2,
    "parameters": {"approach": "chain_of_thought", "strategy": "structured"},
    "metadata": {
        "reasoning_type": "chain_of_thought",
        "strategy": "structured",
        "stage": "structured",
        "confidence": 0.9,
        "instructor_mode": "tools",
        "modes_tried": ["tools"],
        "attempts": 1,
        "fallbacks": 0,
        "calls": 1,
        "termination": "answer",
    },
}


def _answer(result: BaseModel) -> Response:
    # A CallInfo's failure reasons quote the provider, which may quote the key.
    return Response(scrub_json(result.model_dump_json(), secrets_in()), media_type=JSON)


def llm_router(gateway: LLMGateway) -> APIRouter:
    """The LLM endpoints of one app."""
    router = APIRouter(prefix="/v1", tags=["llm"])

    @router.post(
        "/extract/structured",
        response_model=StructuredResponse,
        summary="Have an LLM split a raw output into reasoning and final answer",
        responses={**_LLM_ERRORS, **example_response(_STRUCTURED_EXAMPLE)},
    )
    async def extract_structured(body: StructuredRequest) -> Response:
        """The approach's extraction model as the provider filled it, and the call's
        :class:`CallInfo` (mode, attempts, fallbacks, tokens). The provider's key is
        the server's; at most ``ANSWERX_LLM_CONCURRENCY`` such requests run at once
        (429 beyond) and each within ``ANSWERX_LLM_TIMEOUT_S`` (504)."""
        return _answer(await gateway.extract_structured(body))

    @router.post(
        "/ask",
        response_model=StandardResponse,
        summary="Answer a question with a reasoning approach",
        responses={**_LLM_ERRORS, **example_response(_ASK_EXAMPLE)},
    )
    async def ask(body: AskRequest) -> Response:
        """The approach's :class:`StandardResponse`: reasoning text, extracted answer,
        usage, timing and how the answer was reached. Same limits as
        ``/v1/extract/structured``."""
        return _answer(await gateway.ask(body))

    return router
