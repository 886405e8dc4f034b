"""A small Python client of the answerx HTTP service (``answerx serve``).

:class:`Client` (sync) and :class:`AsyncClient` have one method per endpoint and
return answerx's own models, so code written against :func:`answerx.extract`
moves to the service by swapping one call::

    from answerx.client import Client

    with Client("http://127.0.0.1:8000", token=None) as client:
        extraction = client.extract("... so the answer is 42.", task="numeric")
        assert extraction.answer == "42"

Any non-2xx answer raises :class:`ServiceError` with the server's message;
a service that cannot be reached raises it too (``status_code`` None). A request
holding NaN or Infinity (a gold answer, a number), which JSON cannot carry and the
service refuses, raises :class:`~answerx.errors.InputError` naming it before anything
is sent. The
LLM endpoints' models are imported only when those methods are first called
(they load Instructor and the provider SDKs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Self, TypeVar

import httpx
from pydantic import BaseModel

from answerx.errors import InputError, ServiceError  # defined in the one exception tree
from answerx.extraction.models import Extraction
from answerx.grading.golds import nonfinite_spelling
from answerx.grading.models import Verdict
from answerx.service.schemas import (
    ApproachesResponse,
    BatchResponse,
    ExtractRequest,
    HealthResponse,
    TasksResponse,
)
from answerx.service.verify_schemas import RewardResponse, VerifyBatchResponse, VerifyRequest

if TYPE_CHECKING:
    from answerx.reasoning.response import StandardResponse
    from answerx.service.llm_schemas import StructuredResponse

__all__ = ["DEFAULT_URL", "AsyncClient", "BatchItem", "Client", "ServiceError", "VerifyItem"]

DEFAULT_URL: Final = "http://127.0.0.1:8000"
_DEFAULT_TIMEOUT: Final = 120.0  # the LLM endpoints may take their ANSWERX_LLM_TIMEOUT_S (60 s)

M = TypeVar("M", bound=BaseModel)

#: One item of :meth:`Client.extract_batch`: a raw output, or the fields of ``/v1/extract``.
BatchItem = str | Mapping[str, Any] | ExtractRequest
#: One item of :meth:`Client.verify_batch`: a (raw output, gold) pair, or ``/v1/verify``'s fields.
VerifyItem = tuple[str, Any] | Mapping[str, Any] | VerifyRequest


# --------------------------------------------------------------------------- shared


def _headers(token: str | None) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"} if token else {}


def _extract_body(
    raw_output: str, task: str, choices: Sequence[str] | None, numbers: Sequence[float] | None
) -> dict[str, Any]:
    body: dict[str, Any] = {"raw_output": raw_output, "task": task}
    if choices is not None:
        body["choices"] = list(choices)
    if numbers is not None:
        body["numbers"] = list(numbers)
    return body


def _batch_body(items: Iterable[BatchItem], task: str) -> dict[str, Any]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, str):
            out.append({"raw_output": item, "task": task})
        elif isinstance(item, ExtractRequest):
            out.append(item.model_dump(exclude_none=True))
        else:
            out.append(dict(item))
    return {"items": out}


def _verify_body(
    raw_output: str,
    gold: Any,
    task: str,
    choices: Sequence[str] | None,
    numbers: Sequence[float] | None,
    finish_reason: str | None,
    question: str | None = None,
    judge: bool = True,
) -> dict[str, Any]:
    body = _extract_body(raw_output, task, choices, numbers)
    body["gold"] = list(gold) if isinstance(gold, tuple) else gold
    if finish_reason is not None:
        body["finish_reason"] = finish_reason
    if question is not None:
        body["question"] = question
    if not judge:
        body["judge"] = False
    return body


def _verify_batch_body(items: Iterable[VerifyItem], task: str) -> dict[str, Any]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, tuple):
            out.append({"raw_output": item[0], "gold": item[1], "task": task})
        elif isinstance(item, VerifyRequest):
            out.append(item.model_dump(exclude_none=True) | {"gold": item.gold})
        else:
            out.append(dict(item))
    return {"items": out}


def _reward_body(
    queries: Sequence[str], prompts: Sequence[str] | None, labels: Sequence[Any], task: str
) -> dict[str, Any]:
    return _without_none(
        query=list(queries), prompts=list(prompts) if prompts is not None else None,
        labels=list(labels), task=task,
    )  # fmt: skip


def _structured_body(
    raw_output: str,
    provider: str,
    model: str | None,
    approach: str,
    question: str | None,
    task: str | None,
    choices: Sequence[str] | None,
) -> dict[str, Any]:
    return _without_none(
        raw_output=raw_output, provider=provider, model=model, approach=approach,
        question=question, task=task, choices=list(choices) if choices else None,
    )  # fmt: skip


def _ask_body(
    question: str,
    provider: str,
    model: str | None,
    approach: str,
    strategy: str,
    task: str,
    choices: Sequence[str] | None,
    numbers: Sequence[float] | None,
) -> dict[str, Any]:
    return _without_none(
        question=question, provider=provider, model=model, approach=approach,
        strategy=strategy, task=task, choices=list(choices) if choices else None,
        numbers=list(numbers) if numbers else None,
    )  # fmt: skip


def _check_finite(body: Any, where: str = "the request") -> None:
    """Raise :class:`InputError` naming the first NaN or ±Infinity in ``body`` (httpx would
    refuse it with a bare ``ValueError``; the service with a 422)."""
    if isinstance(body, float):
        spelled = nonfinite_spelling(body)
        if spelled is not None:
            raise InputError(
                f"{where} is {spelled}, which JSON cannot carry: a gold answer must be text or "
                "a finite number (a missing one is None), and numbers must be finite"
            )
    elif isinstance(body, Mapping):
        for key, value in body.items():
            _check_finite(value, f"{where}.{key}" if where != "the request" else str(key))
    elif isinstance(body, list | tuple):
        for i, value in enumerate(body):
            _check_finite(value, f"{where}[{i}]")


def _without_none(**fields: Any) -> dict[str, Any]:
    return {name: value for name, value in fields.items() if value is not None}


def _parse(response: httpx.Response, model: type[M]) -> M:
    _raise_for_error(response)
    return model.model_validate_json(response.content)


def _raise_for_error(response: httpx.Response) -> None:
    if response.is_success:
        return
    error_type, message = "http_error", response.reason_phrase or "error"
    detail: dict[str, Any] = {}
    try:
        error = response.json()["error"]
        error_type, message = str(error["type"]), str(error["message"])
        detail = dict(error)
    except (ValueError, KeyError, TypeError):
        pass  # not the service's JSON (a proxy in between, say): keep the HTTP reason
    raise ServiceError(
        message,
        status_code=response.status_code,
        error_type=error_type,
        retry_after=_retry_after(response),
        detail=detail,
    )


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers["retry-after"])
    except (KeyError, ValueError):
        return None


def _unreachable(base_url: str, exc: httpx.TransportError) -> ServiceError:
    kind = "timeout" if isinstance(exc, httpx.TimeoutException) else "connection_error"
    return ServiceError(
        f"no answer from {base_url}: {type(exc).__name__}", status_code=None, error_type=kind
    )


def _structured_response() -> type[StructuredResponse]:
    from answerx.service.llm_schemas import StructuredResponse

    return StructuredResponse


def _standard_response() -> type[StandardResponse]:
    from answerx.reasoning.response import StandardResponse

    return StandardResponse


# --------------------------------------------------------------------------- sync


class Client:
    """The answerx service, from synchronous code. Use it as a context manager, or
    call :meth:`close`.

    ``token`` is sent as ``Authorization: Bearer``; ``timeout`` (seconds) bounds
    each request, so leave it above the server's ``ANSWERX_LLM_TIMEOUT_S``.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        token: str | None = None,
        *,
        timeout: float = _DEFAULT_TIMEOUT,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(
            base_url=self.base_url, headers=_headers(token), timeout=timeout, transport=transport
        )

    def __repr__(self) -> str:  # never shows the token
        return f"Client({self.base_url!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def _request(self, method: str, path: str, body: Any = None) -> httpx.Response:
        _check_finite(body)
        try:
            return self._http.request(method, path, json=body)
        except httpx.TransportError as exc:
            raise _unreachable(self.base_url, exc) from exc

    def extract(
        self,
        raw_output: str,
        task: str = "auto",
        *,
        choices: Sequence[str] | None = None,
        numbers: Sequence[float] | None = None,
    ) -> Extraction:
        """``POST /v1/extract``: what :func:`answerx.extract` would return, from the service."""
        body = _extract_body(raw_output, task, choices, numbers)
        return _parse(self._request("POST", "/v1/extract", body), Extraction)

    def extract_batch(self, items: Iterable[BatchItem], *, task: str = "auto") -> BatchResponse:
        """``POST /v1/extract/batch``: one result per item, in order; an item's own error
        is in its ``error``. A plain string item is a raw output of ``task``."""
        body = _batch_body(items, task)
        return _parse(self._request("POST", "/v1/extract/batch", body), BatchResponse)

    def verify(
        self,
        raw_output: str,
        gold: Any,
        task: str = "auto",
        *,
        choices: Sequence[str] | None = None,
        numbers: Sequence[float] | None = None,
        finish_reason: str | None = None,
        question: str | None = None,
        judge: bool = True,
    ) -> Verdict:
        """``POST /v1/verify``: what :func:`answerx.verify` would return, from the service.

        ``gold`` may be a list of accepted answers; ``question`` is what was asked; the
        server's judge (``answerx serve --judge``), when it has one, is asked about an
        item the rules cannot decide unless ``judge=False``."""
        body = _verify_body(
            raw_output, gold, task, choices, numbers, finish_reason, question, judge
        )
        return _parse(self._request("POST", "/v1/verify", body), Verdict)

    def verify_batch(
        self, items: Iterable[VerifyItem], *, task: str = "auto"
    ) -> VerifyBatchResponse:
        """``POST /v1/verify/batch``: one result per item, in order; an item's own error is
        in its ``error``. A ``(raw_output, gold)`` pair is an item of ``task``."""
        body = _verify_batch_body(items, task)
        return _parse(self._request("POST", "/v1/verify/batch", body), VerifyBatchResponse)

    def reward(
        self,
        queries: Sequence[str],
        labels: Sequence[Any],
        *,
        prompts: Sequence[str] | None = None,
        task: str = "auto",
    ) -> RewardResponse:
        """``POST /v1/reward``: OpenRLHF's remote reward for rollouts (prompt + response)."""
        body = _reward_body(queries, prompts, labels, task)
        return _parse(self._request("POST", "/v1/reward", body), RewardResponse)

    def extract_structured(
        self,
        raw_output: str,
        *,
        provider: str,
        model: str | None = None,
        approach: str = "none",
        question: str | None = None,
        task: str | None = None,
        choices: Sequence[str] | None = None,
    ) -> StructuredResponse:
        """``POST /v1/extract/structured``: the LLM's split of ``raw_output`` (with the
        server's credentials for ``provider``) and the call's ``CallInfo``."""
        body = _structured_body(raw_output, provider, model, approach, question, task, choices)
        response = self._request("POST", "/v1/extract/structured", body)
        return _parse(response, _structured_response())

    def ask(
        self,
        question: str,
        *,
        provider: str,
        model: str | None = None,
        approach: str = "chain_of_thought",
        strategy: str = "structured",
        task: str = "auto",
        choices: Sequence[str] | None = None,
        numbers: Sequence[float] | None = None,
    ) -> StandardResponse:
        """``POST /v1/ask``: the approach's :class:`StandardResponse` for ``question``."""
        body = _ask_body(question, provider, model, approach, strategy, task, choices, numbers)
        return _parse(self._request("POST", "/v1/ask", body), _standard_response())

    def approaches(self) -> ApproachesResponse:
        """``GET /v1/approaches``: approach, strategy and provider names."""
        return _parse(self._request("GET", "/v1/approaches"), ApproachesResponse)

    def tasks(self) -> TasksResponse:
        """``GET /v1/tasks``: the task names."""
        return _parse(self._request("GET", "/v1/tasks"), TasksResponse)

    def health(self) -> HealthResponse:
        """``GET /healthz``: the service is up (raises :class:`ServiceError` if not)."""
        return _parse(self._request("GET", "/healthz"), HealthResponse)


# --------------------------------------------------------------------------- async


class AsyncClient:
    """:class:`Client` for asyncio code: the same methods, awaited.

    ``async with AsyncClient(url) as client: await client.extract(...)``.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        token: str | None = None,
        *,
        timeout: float = _DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = httpx.AsyncClient(
            base_url=self.base_url, headers=_headers(token), timeout=timeout, transport=transport
        )

    def __repr__(self) -> str:  # never shows the token
        return f"AsyncClient({self.base_url!r})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections."""
        await self._http.aclose()

    async def _request(self, method: str, path: str, body: Any = None) -> httpx.Response:
        _check_finite(body)
        try:
            return await self._http.request(method, path, json=body)
        except httpx.TransportError as exc:
            raise _unreachable(self.base_url, exc) from exc

    async def extract(
        self,
        raw_output: str,
        task: str = "auto",
        *,
        choices: Sequence[str] | None = None,
        numbers: Sequence[float] | None = None,
    ) -> Extraction:
        """Async :meth:`Client.extract`."""
        body = _extract_body(raw_output, task, choices, numbers)
        return _parse(await self._request("POST", "/v1/extract", body), Extraction)

    async def extract_batch(
        self, items: Iterable[BatchItem], *, task: str = "auto"
    ) -> BatchResponse:
        """Async :meth:`Client.extract_batch`."""
        body = _batch_body(items, task)
        return _parse(await self._request("POST", "/v1/extract/batch", body), BatchResponse)

    async def verify(
        self,
        raw_output: str,
        gold: Any,
        task: str = "auto",
        *,
        choices: Sequence[str] | None = None,
        numbers: Sequence[float] | None = None,
        finish_reason: str | None = None,
        question: str | None = None,
        judge: bool = True,
    ) -> Verdict:
        """Async :meth:`Client.verify`."""
        body = _verify_body(
            raw_output, gold, task, choices, numbers, finish_reason, question, judge
        )
        return _parse(await self._request("POST", "/v1/verify", body), Verdict)

    async def verify_batch(
        self, items: Iterable[VerifyItem], *, task: str = "auto"
    ) -> VerifyBatchResponse:
        """Async :meth:`Client.verify_batch`."""
        body = _verify_batch_body(items, task)
        return _parse(await self._request("POST", "/v1/verify/batch", body), VerifyBatchResponse)

    async def reward(
        self,
        queries: Sequence[str],
        labels: Sequence[Any],
        *,
        prompts: Sequence[str] | None = None,
        task: str = "auto",
    ) -> RewardResponse:
        """Async :meth:`Client.reward`."""
        body = _reward_body(queries, prompts, labels, task)
        return _parse(await self._request("POST", "/v1/reward", body), RewardResponse)

    async def extract_structured(
        self,
        raw_output: str,
        *,
        provider: str,
        model: str | None = None,
        approach: str = "none",
        question: str | None = None,
        task: str | None = None,
        choices: Sequence[str] | None = None,
    ) -> StructuredResponse:
        """Async :meth:`Client.extract_structured`."""
        body = _structured_body(raw_output, provider, model, approach, question, task, choices)
        response = await self._request("POST", "/v1/extract/structured", body)
        return _parse(response, _structured_response())

    async def ask(
        self,
        question: str,
        *,
        provider: str,
        model: str | None = None,
        approach: str = "chain_of_thought",
        strategy: str = "structured",
        task: str = "auto",
        choices: Sequence[str] | None = None,
        numbers: Sequence[float] | None = None,
    ) -> StandardResponse:
        """Async :meth:`Client.ask`."""
        body = _ask_body(question, provider, model, approach, strategy, task, choices, numbers)
        return _parse(await self._request("POST", "/v1/ask", body), _standard_response())

    async def approaches(self) -> ApproachesResponse:
        """Async :meth:`Client.approaches`."""
        return _parse(await self._request("GET", "/v1/approaches"), ApproachesResponse)

    async def tasks(self) -> TasksResponse:
        """Async :meth:`Client.tasks`."""
        return _parse(await self._request("GET", "/v1/tasks"), TasksResponse)

    async def health(self) -> HealthResponse:
        """Async :meth:`Client.health`."""
        return _parse(await self._request("GET", "/healthz"), HealthResponse)
