"""The requests an approach makes, and the one place that performs them, sync or async.

Approaches are written once, as generators that *yield* requests and receive
their results (see :mod:`answerx.reasoning.engine`); they never call the manager
themselves. So the same step logic serves :meth:`~BaseReasoning.execute` (sync
SDK clients, threads for concurrent requests, no event loop needed: it also
works inside a notebook's running loop) and :meth:`~BaseReasoning.aexecute`
(async clients, ``asyncio.gather``). Each request maps to its sync and async
function once (``_call``); :func:`perform` and :func:`aperform` differ by an ``await``.

A batch is performed whole: :func:`perform_batch` returns every request's
:class:`Done` or exception, so the caller can count the calls that failed too
(a :class:`~answerx.errors.ProviderError` carries the failed call's ``call_info``).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

from pydantic import BaseModel

from answerx.agent.final import afinal_attempt, aforce_answer, final_attempt, force_answer
from answerx.agent.termination import Termination
from answerx.errors import ConfigError
from answerx.extraction.spec import AnswerSpec
from answerx.reasoning.sandbox import SandboxMode, arun_python, run_python
from answerx.structured.callinfo import CallInfo
from answerx.structured.models import ReasoningExtraction

__all__ = [
    "Batch",
    "CodeRun",
    "Done",
    "ExtractCall",
    "FinalCall",
    "Message",
    "ReasoningManager",
    "Request",
    "Settled",
    "StructuredCall",
    "TextCall",
    "ToolCall",
    "aperform_batch",
    "perform_batch",
]

T = TypeVar("T", bound=BaseModel)
Message = dict[str, Any]


class ReasoningManager(Protocol):
    """What approaches need of a manager (:class:`~answerx.structured.InstructorClientManager`
    has it; a test double may too)."""

    provider: str
    model: str

    def create(
        self, messages: Sequence[Message], response_model: type[T], **kw: Any
    ) -> tuple[T, CallInfo]: ...

    async def acreate(
        self, messages: Sequence[Message], response_model: type[T], **kw: Any
    ) -> tuple[T, CallInfo]: ...

    def complete_text(self, messages: Sequence[Message], **kw: Any) -> tuple[str, CallInfo]: ...

    async def acomplete_text(
        self, messages: Sequence[Message], **kw: Any
    ) -> tuple[str, CallInfo]: ...

    def extract_structured(
        self,
        raw_output: str,
        approach: str = "none",
        *,
        question: str | None = None,
        task: str | None = None,
        choices: Sequence[str] | None = None,
        numbers: Sequence[int | float] | None = None,
        **kw: Any,
    ) -> tuple[ReasoningExtraction, CallInfo]: ...

    async def aextract_structured(
        self,
        raw_output: str,
        approach: str = "none",
        *,
        question: str | None = None,
        task: str | None = None,
        choices: Sequence[str] | None = None,
        numbers: Sequence[int | float] | None = None,
        **kw: Any,
    ) -> tuple[ReasoningExtraction, CallInfo]: ...


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True, slots=True)
class TextCall:
    """Free text: ``manager.complete_text(messages, **options)``."""

    step: str
    messages: tuple[Message, ...]
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StructuredCall:
    """One structured object: ``manager.create(messages, response_model, **options)``."""

    step: str
    messages: tuple[Message, ...]
    response_model: type[ReasoningExtraction]
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ExtractCall:
    """Structured extraction of a free-text reply: ``manager.extract_structured(...)``."""

    step: str
    raw_output: str
    approach: str
    question: str
    spec: AnswerSpec
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def messages(self) -> tuple[Message, ...]:
        # For context-size checks: what the extraction request carries.
        return ({"role": "user", "content": self.raw_output},)


@dataclass(frozen=True, slots=True)
class CodeRun:
    """The model's program in the sandbox (no LLM call, no budget)."""

    step: str
    code: str
    time_limit_s: float
    memory_limit_mb: int
    sandbox: SandboxMode = "isolated"


@dataclass(frozen=True, slots=True)
class FinalCall:
    """The engine's last resort after a budget hit: ``final_attempt`` or, when the
    context is full, ``force_answer`` (``answerx.agent.final``)."""

    step: str
    messages: tuple[Message, ...]
    reason: Termination
    spec: AnswerSpec
    prompt_dir: str | Path | None
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def forced(self) -> bool:
        return self.reason in (Termination.TOKEN_LIMIT_ANSWER, Termination.TOKEN_LIMIT_FORMAT_ERROR)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The caller's own step of an agent loop (a search, a tool): ``fn(*args)``, awaited
    under the async driver when it returns an awaitable. No LLM call, no budget."""

    step: str
    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()


Request = TextCall | StructuredCall | ExtractCall | CodeRun | FinalCall | ToolCall
LLMRequest = TextCall | StructuredCall | ExtractCall
Batch = tuple[Request, ...]
"""Requests made together: concurrently when there are several."""


class Done(NamedTuple):
    """A performed request: its value and the CallInfo of the LLM call (None for code runs,
    or a final attempt whose call failed without one)."""

    value: Any
    info: CallInfo | None


Settled = Done | Exception
"""How one request of a batch ended: performed, or the exception it raised."""


# --------------------------------------------------------------------------- performing


class _Call(NamedTuple):
    """How to perform a request: its sync and async functions and their arguments."""

    sync: Callable[..., Any]
    async_: Callable[..., Awaitable[Any]]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def _call(manager: ReasoningManager, request: Request) -> _Call:
    match request:
        case TextCall(_, messages, options):
            return _Call(manager.complete_text, manager.acomplete_text, (messages,), {**options})
        case StructuredCall(_, messages, model, options):
            return _Call(manager.create, manager.acreate, (messages, model), {**options})
        case ExtractCall(_, raw, approach, question, spec, options):
            kwargs = {
                "question": question, "task": spec.bound_task, "choices": spec.choices,
                "numbers": spec.numbers, **options,
            }  # fmt: skip
            return _Call(
                manager.extract_structured, manager.aextract_structured, (raw, approach), kwargs
            )
        case CodeRun(_, code, time_limit_s, memory_limit_mb, sandbox):
            limits = {
                "time_limit_s": time_limit_s, "memory_limit_mb": memory_limit_mb,
                "sandbox": sandbox,
            }  # fmt: skip
            return _Call(run_python, arun_python, (code,), limits)
        case ToolCall(step, fn, args):
            return _Call(_sync_tool(step, fn), _async_tool(fn), args, {})
        case FinalCall():
            sync, async_ = (
                (force_answer, aforce_answer) if request.forced else (final_attempt, afinal_attempt)
            )
            return _Call(sync, async_, (manager, list(request.messages)), _final_kwargs(request))
    raise TypeError(f"not a request: {request!r}")  # pragma: no cover - exhaustive match


def _sync_tool(step: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        result = fn(*args)
        if inspect.isawaitable(result):
            close = getattr(result, "close", None)
            if close is not None:
                close()  # never awaited: no "coroutine was never awaited" warning
            raise ConfigError(f"the {step} is async: run it with the async driver (aexecute, …)")
        return result

    return call


def _async_tool(fn: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    async def call(*args: Any) -> Any:
        result = fn(*args)
        return await result if inspect.isawaitable(result) else result

    return call


def _done(request: Request, result: Any) -> Done:
    if isinstance(request, CodeRun | ToolCall):
        return Done(result, None)
    if isinstance(request, FinalCall):
        return Done(result, result.info)
    value, info = result  # the manager's (value, CallInfo)
    return Done(value, info)


def perform(manager: ReasoningManager, request: Request) -> Done:
    """Perform one request with the manager's sync methods."""
    call = _call(manager, request)
    return _done(request, call.sync(*call.args, **call.kwargs))


async def aperform(manager: ReasoningManager, request: Request) -> Done:
    """Perform one request with the manager's async methods."""
    call = _call(manager, request)
    return _done(request, await call.async_(*call.args, **call.kwargs))


def perform_batch(manager: ReasoningManager, batch: Batch) -> list[Settled]:
    """Perform a batch; several requests run in threads at once (the sync SDK clients
    are thread-safe). Each request's failure is returned in its place, after every
    request has ended."""
    if len(batch) == 1:
        try:
            return [perform(manager, batch[0])]
        except Exception as exc:
            return [exc]
    with ThreadPoolExecutor(max_workers=len(batch), thread_name_prefix="answerx-step") as pool:
        futures = [pool.submit(perform, manager, request) for request in batch]
    return _settled([f.exception() or f.result() for f in futures])


async def aperform_batch(manager: ReasoningManager, batch: Batch) -> list[Settled]:
    """Async :func:`perform_batch`: several requests run with ``asyncio.gather``."""
    if len(batch) == 1:
        try:
            return [await aperform(manager, batch[0])]
        except Exception as exc:
            return [exc]
    outcomes = await asyncio.gather(
        *(aperform(manager, request) for request in batch), return_exceptions=True
    )
    return _settled(outcomes)


# --------------------------------------------------------------------------- shared


def _final_kwargs(request: FinalCall) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "spec": request.spec,
        "prompt_dir": request.prompt_dir,
        **request.options,
    }
    if not request.forced:
        kwargs["reason"] = request.reason
    return kwargs


def _settled(outcomes: Sequence[Done | BaseException]) -> list[Settled]:
    """``outcomes`` as they are, except that an interrupt or a cancellation (not an
    ``Exception``) is raised: it must stop the approach, not be handed to it."""
    for outcome in outcomes:
        if not isinstance(outcome, Done | Exception):
            raise outcome
    return [outcome for outcome in outcomes if isinstance(outcome, Done | Exception)]
