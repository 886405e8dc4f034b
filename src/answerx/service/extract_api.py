"""``POST /v1/extract`` and ``POST /v1/extract/batch``: deterministic extraction, no LLM.

These are the hot endpoints (benchmarked in ``bench/service.py``), so they are
``async def`` and return JSON serialised once by pydantic-core, not validated
again by FastAPI. Small inputs are extracted on the event loop (a 15 µs
extraction costs less than a hop elsewhere); large outputs and batches go to the
app's :class:`~answerx.service.pool.ExtractionPool` of worker processes, so that a
megabyte of adversarial text never holds up other requests (``/healthz``). A
thread pool would not do: concurrent batches would fight over the GIL (measured,
4 batches in flight gave 40 % fewer extractions/s) and hold up the loop besides.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
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
from answerx.service.pool import ExtractionJob, ExtractionPool
from answerx.service.schemas import (
    EXTRACT_EXAMPLE,
    BatchItemResult,
    BatchResponse,
    ErrorDetail,
    ExtractRequest,
)
from answerx.service.settings import ServiceSettings

__all__ = ["extract_router"]

_EXTRACTION_EXAMPLE: Final = extract(EXTRACT_EXAMPLE["raw_output"], EXTRACT_EXAMPLE["task"])


class _Envelope(BaseModel):
    """The batch body as parsed: the items are judged one by one afterwards."""

    model_config = ConfigDict(extra="forbid")

    items: list[Any]


def extract_router(settings: ServiceSettings, metrics: ServiceMetrics) -> APIRouter:
    """The extraction endpoints of one app (and its pool of extraction processes,
    stopped when the app shuts down)."""
    pool = ExtractionPool(settings.extract_workers)

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            pool.close()

    router = APIRouter(prefix="/v1", tags=["extraction"], lifespan=lifespan)
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
        extraction = await pool.extract(_job(body))
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
        return Response(await _extract_items(envelope.items, pool, metrics), media_type=JSON)

    return router


async def _extract_items(items: list[Any], pool: ExtractionPool, metrics: ServiceMetrics) -> str:
    # Validated here (fast), extracted by the pool: a result per item, in order.
    results: list[BatchItemResult | None] = []
    jobs: list[ExtractionJob] = []
    for n, item in enumerate(items):
        try:
            jobs.append(_job(ExtractRequest.model_validate(item)))
            results.append(None)  # filled in below
        except ValidationError as exc:  # errors name the item as the client indexes it
            message = validation_message(exc.errors(include_url=False), at=f"items[{n}]")
            results.append(_failure("validation_error", message))
    extracted = iter(await pool.extract_many(jobs))
    failed = 0
    for n, result in enumerate(results):
        if result is not None:
            failed += 1
            continue
        outcome = next(extracted)
        if isinstance(outcome, AnswerxError):  # a bad choices list, say: this item only
            results[n] = _failure("invalid_request", f"items[{n}]: {redact(str(outcome))}")
            failed += 1
        else:
            metrics.count_extraction(outcome)
            results[n] = BatchItemResult.model_construct(extraction=outcome, error=None)
    done = [result for result in results if result is not None]  # every one, by now
    response = BatchResponse.model_construct(
        results=done, succeeded=len(done) - failed, failed=failed
    )
    return response.model_dump_json()


def _job(request: ExtractRequest) -> ExtractionJob:
    return ExtractionJob(
        request.raw_output,
        request.task,
        tuple(request.choices) if request.choices is not None else None,
        tuple(request.numbers) if request.numbers is not None else None,
    )


def _is_json(content_type: str) -> bool:
    media = content_type.partition(";")[0].strip().lower()
    return media == JSON or (media.startswith("application/") and media.endswith("+json"))


def _failure(type_: str, message: str) -> BatchItemResult:
    return BatchItemResult.model_construct(
        extraction=None, error=ErrorDetail(type=type_, message=message)
    )
