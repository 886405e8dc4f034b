"""``POST /v1/extract`` and ``POST /v1/extract/batch``: deterministic extraction, no LLM.

These are the hot endpoints (benchmarked in ``bench/service.py``), so they are
``async def`` (a 15 µs extraction costs less than a hop to the thread pool) and
return JSON serialised once by pydantic-core, not validated again by FastAPI.
A batch runs on the event loop too, handing it back every
:data:`_YIELD_EVERY` items so that other requests (``/healthz``) are not held up
for its whole duration. In the thread pool, concurrent batches would fight over
the GIL: measured, 4 batches in flight then gave 40 % fewer extractions/s.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.responses import Response

from answerx.errors import AnswerxError, redact
from answerx.extraction import Extraction, extract
from answerx.service.asgi import JSON
from answerx.service.errors import (
    ERROR_RESPONSES,
    JSON_REQUIRED,
    ApiError,
    validation_message,
)
from answerx.service.metrics import ServiceMetrics
from answerx.service.openapi import BATCH_REQUEST_REF, example_response
from answerx.service.schemas import (
    EXTRACT_EXAMPLE,
    BatchItemResult,
    BatchResponse,
    ErrorDetail,
    ExtractRequest,
)
from answerx.service.settings import ServiceSettings

__all__ = ["extract_router"]

_YIELD_EVERY: Final = 64  # items (about 1 ms of work) between two turns of other requests
_EXTRACTION_EXAMPLE: Final = extract(EXTRACT_EXAMPLE["raw_output"], EXTRACT_EXAMPLE["task"])


class _Envelope(BaseModel):
    """The batch body as parsed: the items are judged one by one afterwards."""

    model_config = ConfigDict(extra="forbid")

    items: list[Any]


def extract_router(settings: ServiceSettings, metrics: ServiceMetrics) -> APIRouter:
    """The extraction endpoints of one app."""
    router = APIRouter(prefix="/v1", tags=["extraction"])
    max_batch = settings.max_batch

    @router.post(
        "/extract",
        response_model=Extraction,
        summary="Extract the final answer from one raw output",
        responses={
            **ERROR_RESPONSES,
            **example_response(_EXTRACTION_EXAMPLE.model_dump(mode="json")),
        },
    )
    async def extract_one(body: ExtractRequest) -> Response:
        """The :class:`Extraction` of ``raw_output``: answer, method, confidence, span.

        No answer is not an error: ``answer`` is null and ``method`` is ``none``.
        """
        extraction = extract(body.raw_output, body.task, choices=body.choices, numbers=body.numbers)
        metrics.count_extraction(extraction)
        return Response(extraction.model_dump_json(), media_type=JSON)

    @router.post(
        "/extract/batch",
        response_model=BatchResponse,
        summary="Extract the final answers from many raw outputs",
        responses={
            **ERROR_RESPONSES,
            **example_response(
                {
                    "results": [
                        {"extraction": _EXTRACTION_EXAMPLE.model_dump(mode="json"), "error": None},
                        {
                            "extraction": None,
                            "error": {
                                "type": "validation_error",
                                "message": "task: Input should be 'auto', 'math', 'numeric', "
                                "'multiple_choice', 'boolean', 'game24' or 'text' "
                                "(got 'algebra')",
                            },
                        },
                    ],
                    "succeeded": 1,
                    "failed": 1,
                }
            ),
        },
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {JSON: {"schema": {"$ref": BATCH_REQUEST_REF}}},
            }
        },
    )
    async def extract_batch(request: Request) -> Response:
        """One result per item, in order. An item that is malformed or names an unknown
        task gets its own ``error``; the others are extracted all the same. More than
        ``ANSWERX_MAX_BATCH`` items: 413 ``batch_too_large``."""
        if not _is_json(request.headers.get("content-type", "")):
            # As FastAPI's own parsing does for /v1/extract (see errors.JSON_REQUIRED).
            raise ApiError(415, "unsupported_media_type", JSON_REQUIRED)
        try:
            envelope = _Envelope.model_validate_json(await request.body())
        except ValidationError as exc:
            raise RequestValidationError(exc.errors(include_url=False)) from None
        if len(envelope.items) > max_batch:
            raise ApiError(
                413,
                "batch_too_large",
                f"a batch holds at most {max_batch} items; this one has {len(envelope.items)}",
            )
        return Response(await _extract_items(envelope.items, metrics), media_type=JSON)

    return router


async def _extract_items(items: list[Any], metrics: ServiceMetrics) -> str:
    results: list[BatchItemResult] = []
    failed = 0
    for n, item in enumerate(items, 1):
        if n % _YIELD_EVERY == 0:
            await asyncio.sleep(0)  # let other requests in
        at = f"items[{n - 1}]"  # errors name the item, as the client indexes it
        try:
            request = ExtractRequest.model_validate(item)
            extraction = extract(
                request.raw_output, request.task, choices=request.choices, numbers=request.numbers
            )
        except ValidationError as exc:
            message = validation_message(exc.errors(include_url=False), at=at)
            results.append(_failure("validation_error", message))
            failed += 1
        except AnswerxError as exc:  # a bad choices list, say: this item only
            results.append(_failure("invalid_request", f"{at}: {redact(str(exc))}"))
            failed += 1
        else:
            metrics.count_extraction(extraction)
            results.append(BatchItemResult.model_construct(extraction=extraction, error=None))
    response = BatchResponse.model_construct(
        results=results, succeeded=len(results) - failed, failed=failed
    )
    return response.model_dump_json()


def _is_json(content_type: str) -> bool:
    media = content_type.partition(";")[0].strip().lower()
    return media == JSON or (media.startswith("application/") and media.endswith("+json"))


def _failure(type_: str, message: str) -> BatchItemResult:
    return BatchItemResult.model_construct(
        extraction=None, error=ErrorDetail(type=type_, message=message)
    )
