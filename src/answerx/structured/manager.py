"""``InstructorClientManager``: structured output from any provider, tools mode first.

One manager talks to one (provider, model). ``create`` tries the provider's chain
of Instructor modes in order and moves on only for failures another mode can fix
(tools or ``response_format`` rejected, no tool call, output still invalid after
the re-asks). Rate limits, 5xx and timeouts are retried with exponential backoff
and jitter, honouring ``Retry-After`` (:mod:`answerx.structured.retries`); 401/403
stop at once with an error that names the key's environment variable and never
contains the key. Everything SDK-specific (clients, the Instructor wrapper, reading
replies, which options the SDK takes) is asked of the provider's adapter
(:mod:`answerx.structured.adapters`).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Literal, TypeVar, cast

import instructor
from instructor.core.hooks import Hooks
from pydantic import BaseModel, ValidationError

from answerx.errors import ConfigError, ProviderError, StructuredOutputError, UnknownName, redact
from answerx.redactor import register_secret
from answerx.structured.adapters import SdkAdapter
from answerx.structured.callinfo import CallInfo, ModeAttempt, Usage
from answerx.structured.extraction import ExtractionLike, ExtractionSettings
from answerx.structured.failures import FALLBACK, Failure, classify
from answerx.structured.fastpath import FirstTry, options_key
from answerx.structured.grammar import fenced_json_grammar, grammar_model
from answerx.structured.models import (
    ReasoningExtraction,
    extraction_prompt_fields,
    get_extraction_model,
)
from answerx.structured.providers import (
    ModeName,
    ProviderSpec,
    UnsupportedProvider,
    get_provider,
)
from answerx.structured.repairs import CallRepairs, repair_texts, repairs_scope
from answerx.structured.retries import Backoff, provider_error
from answerx.structured.sansio import Steps, arun, run
from answerx.support.resources import prompt_template

__all__ = ["InstructorClientManager", "Messages"]

# Instructor logs every failed attempt at ERROR level; answerx records each one in
# CallInfo and raises a clear error when it matters. Without a handler of its own,
# Python's last-resort handler would print them all to stderr. Applications that
# configure logging still receive them.
logging.getLogger("instructor").addHandler(logging.NullHandler())
_log = logging.getLogger("answerx.structured")

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")
Messages = Sequence[dict[str, Any]]

# Instructor is called with strict=False: small local models write raw newlines
# inside JSON strings, which strict parsing rejects at the cost of a re-ask.
_INSTRUCTOR_MODES: dict[str, instructor.Mode] = {
    "tools": instructor.Mode.TOOLS,
    "json_schema": instructor.Mode.JSON_SCHEMA,
    "json": instructor.Mode.JSON,
    "json_with_schema": instructor.Mode.JSON,  # + schema in response_format, see _mode_kwargs
    "md_json": instructor.Mode.MD_JSON,
}


_response_schema: Callable[[Any], Any] | None
try:  # Instructor's own wrapper; its location is an implementation detail of 1.x
    from instructor.v2.core.function_calls import response_schema as _response_schema
except ImportError:  # pragma: no cover - another layout: Instructor wraps on every call
    _response_schema = None


@functools.lru_cache(maxsize=1024)
def _prepared(model: type[T]) -> type[T]:
    """``model`` wrapped by Instructor once (it would otherwise build a new class and
    rebuild its JSON schema on every call: ~1.5 ms of a fake-server round trip of
    ~1 ms). Instructor does not re-wrap a class it has already wrapped."""
    return cast(type[T], _response_schema(model)) if _response_schema is not None else model


class _Tally:
    """Requests, usage and repairs of one manager call, fed by per-call Instructor hooks.

    ``repair``: structured calls repair each reply before it is parsed (see
    :mod:`answerx.structured.repairs`); plain-text calls keep the text as written.
    """

    def __init__(self, adapter: SdkAdapter, *, repair: bool = False, max_retries: int = 0) -> None:
        self._adapter = adapter
        self.requests = 0
        self.usage = Usage()
        self.modes: list[ModeAttempt] = []
        self._mode_start = 0
        self.finish_reason: str | None = None  # of the last response
        self._repair = repair
        self._max_retries = max_retries
        self._replies = 0  # replies in the current attempt: the first, then the re-asks
        self.record = CallRepairs()

    def hooks(self) -> Hooks:
        hooks = Hooks()
        hooks.on("completion:response", self.on_response)
        hooks.on("completion:error", self.on_error)
        return hooks

    def start_mode(self, mode: str) -> None:
        self.record.mode = mode
        self.start_attempt()

    def start_attempt(self) -> None:
        """A try of the mode begins (again after a transient failure): no reply yet."""
        self._replies = 0
        self.record.last_attempt = False

    def on_response(self, response: Any) -> None:
        self.requests += 1
        self.usage = self.usage + self._adapter.usage(response)
        self.finish_reason = self._adapter.finish_reason(response)
        if self._repair:
            self._replies += 1
            # The reply Instructor parses next is the mode's last chance: no re-ask follows.
            self.record.last_attempt = self._replies > self._max_retries
            for message in repair_texts(self._adapter.json_texts(response)):
                self.record.add(message)

    def on_error(self, error: Exception, **_: Any) -> None:
        self.requests += 1

    def close_mode(self, mode: str, reason: str | None) -> None:
        self.modes.append(
            ModeAttempt(
                mode=mode, ok=reason is None, reason=reason,
                requests=self.requests - self._mode_start,
            )
        )  # fmt: skip
        self._mode_start = self.requests


class InstructorClientManager:
    """Structured (Pydantic) output from one provider and model, with a mode fallback chain.

    >>> manager = InstructorClientManager("openai", "gpt-4o-mini")        # doctest: +SKIP
    >>> answer, info = manager.create(messages, ReasoningExtraction)      # doctest: +SKIP
    >>> info.mode, info.usage.total_tokens                                # doctest: +SKIP
    ('tools', 412)

    Each mode's first request skips Instructor's per-call set-up (the same request and
    parsing, computed once per response model; see :mod:`answerx.structured.fastpath`),
    and re-asks go through Instructor's own loop. ``fast_path=False`` sends every
    attempt through Instructor's ``create``.

    ``extraction=`` changes how :meth:`extract_structured` runs (temperature, max_tokens,
    confidence threshold, mode fallback; a preset name such as ``"ml-agents"``), over the
    provider's ``extraction:`` settings (:mod:`answerx.structured.extraction`).
    :attr:`primary_mode` and :attr:`fallback_mode` name the chain's first two modes;
    :meth:`get_primary_mode` and :meth:`get_fallback_mode` name them as the ml-agents
    Instructor phase's manager does, by Instructor's mode (``TOOLS``, ``ANTHROPIC_TOOLS``).
    An unknown provider raises :class:`~answerx.structured.providers.UnsupportedProvider`,
    a ``ValueError`` whose message opens ``Unsupported provider: NAME`` as that manager's.

    ``async_transport="aiohttp"`` gives the async clients their SDK's own aiohttp
    transport where it has one (the ``aiohttp`` extra of the SDK), which costs less
    CPU per call than httpx at high concurrency; experiment runs use it. ``await aclose()``
    closes the current event loop's async client.
    """

    def __init__(
        self,
        provider: str,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        modes: Sequence[ModeName] | None = None,
        max_retries: int = 2,
        transient_retries: int = 4,
        backoff_initial: float = 0.5,
        backoff_max: float = 20.0,
        timeout: float | None = None,
        max_tokens: int | None = None,
        config_path: str | None = None,
        fast_path: bool = True,
        async_transport: Literal["httpx", "aiohttp"] = "httpx",
        extraction: ExtractionLike = None,
        fallback_on: Literal["fixable", "any"] = "fixable",
    ) -> None:
        try:
            self.spec: ProviderSpec = get_provider(provider, config_path)
        except UnknownName as exc:
            raise UnsupportedProvider(provider, exc.valid) from None
        #: The adapter of the provider's SDK: clients, Instructor wrapper, reading replies.
        self.adapter: SdkAdapter = self.spec.adapter
        self.provider = provider
        self.model = model or self.spec.default_model
        self.modes: tuple[str, ...] = tuple(modes) if modes else self.spec.modes
        if modes:  # validate an override against the SDK like the YAML is
            try:
                self.spec = ProviderSpec.model_validate(
                    {**self.spec.model_dump(), "modes": tuple(modes)}
                )
            except ValidationError as exc:
                errors = "; ".join(str(e["msg"]) for e in exc.errors())
                raise ConfigError(f"modes={list(modes)} for {provider!r}: {errors}") from None
        if max_retries < 0 or transient_retries < 0:
            raise ConfigError("max_retries and transient_retries must be >= 0")
        self.max_retries = max_retries
        self._backoff = Backoff(transient_retries, backoff_initial, backoff_max)
        self.timeout = timeout or self.spec.timeout
        self.max_tokens = max_tokens or self.spec.max_tokens
        self.fast_path = fast_path
        if fallback_on not in ("fixable", "any"):
            raise ConfigError(f"fallback_on must be 'fixable' or 'any', not {fallback_on!r}")
        #: Which failures of a mode move on to the next: those another mode can fix, or
        #: ``any`` (the ml-agents manager's ``except Exception``; a wrong key then costs a
        #: second request).
        self.fallback_on = fallback_on
        self.async_transport = async_transport
        #: How the extraction call runs: the provider's ``extraction:`` settings of
        #: providers.yaml, with ``extraction=`` over them (see answerx.structured.extraction).
        self.extraction: ExtractionSettings = (
            ExtractionSettings().updated(self.spec.extraction).updated(extraction)
        )
        self._api_key = self.spec.resolve_api_key(api_key)
        register_secret(self._api_key)  # kept out of logs, stores and reports (any variable)
        self.base_url = self.spec.resolve_base_url(base_url)
        # No URL for an autostart provider: answerx serves the bundled model itself.
        self._autostart = self.base_url is None and self.spec.autostart
        # Clients cached per mode: one scope for sync calls, one per event loop for async.
        self._sync_scope: dict[str, Any] = {}
        self._loop_scopes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Any]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()
        self._warned_dropped = False

    @property
    def transient_retries(self) -> int:
        """Retries of a transient failure (rate limit, 5xx, timeout) before giving up."""
        return self._backoff.retries

    @property
    def backoff_initial(self) -> float:
        """The first pause before a retry, in seconds (doubling, with jitter)."""
        return self._backoff.initial

    @property
    def backoff_max(self) -> float:
        """The longest pause before a retry, in seconds (``Retry-After`` included)."""
        return self._backoff.maximum

    @property
    def primary_mode(self) -> str:
        """The first structured-output mode tried, in answerx's names (``tools`` for most
        providers): the names of :attr:`modes`, ``CallInfo.mode`` and the metadata."""
        return self.modes[0]

    @property
    def fallback_mode(self) -> str:
        """The mode tried after the primary one fails in a way another mode can fix (the
        primary itself when the chain has one mode), in answerx's names. The chain may
        hold more: see :attr:`modes`."""
        return self.modes[1] if len(self.modes) > 1 else self.modes[0]

    def get_primary_mode(self) -> str:
        """The primary mode as the ml-agents manager names it: Instructor's mode for this
        provider (``TOOLS``; ``ANTHROPIC_TOOLS`` for Anthropic, ``COHERE_TOOLS`` for
        Cohere). answerx's own name is :attr:`primary_mode`."""
        return self.instructor_mode_name(self.primary_mode)

    def get_fallback_mode(self) -> str:
        """The fallback mode as the ml-agents manager names it (``JSON``,
        ``ANTHROPIC_JSON``); the primary itself without a fallback, as that manager
        answers. answerx's own name is :attr:`fallback_mode`."""
        return self.instructor_mode_name(self.fallback_mode)

    def instructor_mode_name(self, mode: str) -> str:
        """Instructor's name of answerx's ``mode`` for this provider's SDK: ``tools`` →
        ``TOOLS``, ``json_with_schema`` → ``JSON`` (with a schema), with the SDK's prefix
        where Instructor's mode has one (``ANTHROPIC_``, ``COHERE_``)."""
        return f"{self.adapter.instructor_mode_prefix}{_INSTRUCTOR_MODES[mode].name}"

    def __repr__(self) -> str:  # never shows the key
        return f"InstructorClientManager({self.provider!r}, {self.model!r}, modes={self.modes})"

    # ------------------------------------------------------------------ clients
    def sdk_client(self, *, is_async: bool = False) -> Any:
        """The provider's own SDK client (cached; SDK retries off).

        The async client is cached per event loop (call it from a running loop):
        its connections belong to the loop that opened them, so a manager serves
        one ``asyncio.run()`` after another.
        """
        if self._autostart:
            self._follow_local_server()
        scope = self._scope(is_async)
        with self._lock:
            if "sdk" not in scope:
                scope["sdk"] = self.adapter.client(
                    api_key=self._api_key, base_url=self.base_url, timeout=self.timeout,
                    is_async=is_async, aiohttp=is_async and self.async_transport == "aiohttp",
                )  # fmt: skip
            return scope["sdk"]

    async def aclose(self) -> None:
        """Close the async SDK client of the running event loop (the next call opens anew)."""
        scope = self._scope(is_async=True)
        with self._lock:
            sdk = scope.pop("sdk", None)
            scope.clear()  # the wrapped clients hold the closed SDK client
        if sdk is not None:
            close = getattr(sdk, "close", None) or getattr(sdk, "aclose", None)
            if close is not None:
                result = close()
                if inspect.isawaitable(result):
                    await result

    @property
    def endpoint_identity(self) -> str | None:
        """Where the calls go, as the response cache knows it: the base URL, or for a
        model answerx serves itself, that model (its server takes a new loopback port
        each time it starts, so the URL would make every run a cache miss)."""
        if self._autostart:
            return f"autostart:{self.spec.gguf or 'bundled'}"
        return self.base_url

    def _follow_local_server(self) -> None:
        """Point at the process's shared local model server, starting it if needed and
        starting a new one if it died (the clients of the old URL are dropped)."""
        from answerx.local import ensure_local_server  # only the local provider needs it

        url = ensure_local_server(model_path=self.spec.gguf)
        with self._lock:
            if url != self.base_url:
                self.base_url = url
                self._sync_scope.clear()
                self._loop_scopes.clear()

    def _scope(self, is_async: bool) -> dict[str, Any]:
        if not is_async:
            return self._sync_scope
        loop = asyncio.get_running_loop()
        with self._lock:
            return self._loop_scopes.setdefault(loop, {})

    def _client(self, mode: str, is_async: bool) -> Any:
        if self._autostart:
            self._follow_local_server()
        scope = self._scope(is_async)
        client = scope.get(mode)
        if client is None:
            sdk = self.sdk_client(is_async=is_async)
            client = self.adapter.instructor_client(sdk, _INSTRUCTOR_MODES[mode])
            with self._lock:
                client = scope.setdefault(mode, client)
        return client

    def _first_try(self, mode: str, is_async: bool) -> FirstTry | None:
        """The fast first attempt of ``mode`` (cached beside its client; None if unavailable)."""
        if not self.fast_path:
            return None
        scope = self._scope(is_async)
        name = f"first:{mode}"
        if name not in scope:
            first = FirstTry.for_client(
                self._client(mode, is_async), accept=self.adapter.first_reply_json(mode)
            )
            with self._lock:
                scope.setdefault(name, first)
        return cast(FirstTry | None, scope[name])

    def _request_kwargs(
        self, mode: str, response_model: type[BaseModel], kw: dict[str, Any]
    ) -> dict[str, Any]:
        """What Instructor's ``create`` sends besides the messages, for one mode."""
        return {"model": self.model, **self._mode_kwargs(mode, response_model, kw)}

    def _call_kwargs(
        self,
        mode: str,
        messages: Messages,
        response_model: type[BaseModel],
        tally: _Tally,
        kw: dict[str, Any],
    ) -> dict[str, Any]:
        """Everything Instructor's ``create`` gets for one mode (the same sync and async)."""
        return {
            "response_model": _prepared(response_model),
            "messages": list(messages),
            "max_retries": self.max_retries,
            "hooks": tally.hooks(),
            "strict": False,
            **self._request_kwargs(mode, response_model, kw),
        }

    def _provider_options(self, kw: dict[str, Any]) -> dict[str, Any]:
        """``kw`` with the default ``max_tokens``, minus options the SDK no longer takes."""
        kwargs = {"max_tokens": self.max_tokens, **kw}
        dropped = sorted(self.adapter.dropped_options() & kwargs.keys())
        if dropped:
            for name in dropped:
                del kwargs[name]
            if not self._warned_dropped:
                self._warned_dropped = True
                _log.warning(
                    "%s: the installed %s SDK does not accept %s; sent without (API default)",
                    self.provider, self.spec.sdk, ", ".join(dropped),
                )  # fmt: skip
        return kwargs

    def _mode_kwargs(
        self, mode: str, response_model: type[BaseModel], kw: dict[str, Any]
    ) -> dict[str, Any]:
        kwargs = self._provider_options(kw)
        if mode == "json_with_schema":
            # Instructor's JSON mode sends {"type": "json_object"}; llama.cpp and vLLM
            # enforce a schema given beside it as a grammar. The SDK merges extra_body
            # last (the mode is only offered where it does), so this replaces
            # Instructor's response_format.
            schema = response_model.model_json_schema()
            extra = dict(kwargs.get("extra_body") or {})
            extra["response_format"] = {"type": "json_object", "schema": schema}
            kwargs["extra_body"] = extra
        elif mode == "md_json" and self.spec.grammar_field:
            extra = dict(kwargs.get("extra_body") or {})
            extra["grammar"] = fenced_json_grammar(response_model)
            kwargs["extra_body"] = extra
        return kwargs

    # ------------------------------------------------------------------ structured
    def create(
        self,
        messages: Messages,
        response_model: type[T],
        *,
        modes: Sequence[str] | None = None,
        **kw: Any,
    ) -> tuple[T, CallInfo]:
        """The parsed ``response_model`` and the :class:`CallInfo` of the call.

        ``kw`` goes to the provider (``temperature``, ``max_tokens``, …); ``modes``
        limits this call to some modes of the chain (default: all of them, in order).
        No Instructor ``context=`` is passed: Instructor would render every message
        as a Jinja template, corrupting LaTeX such as ``\\frac{{a}}{b}``; task
        checks are bound into the response model instead (see
        :func:`answerx.structured.get_extraction_model`).
        """
        return run(self._create(messages, response_model, modes, kw, is_async=False))

    async def acreate(
        self,
        messages: Messages,
        response_model: type[T],
        *,
        modes: Sequence[str] | None = None,
        **kw: Any,
    ) -> tuple[T, CallInfo]:
        """Async :meth:`create`."""
        return await arun(self._create(messages, response_model, modes, kw, is_async=True))

    def _create(
        self,
        messages: Messages,
        response_model: type[T],
        modes: Sequence[str] | None,
        kw: dict[str, Any],
        *,
        is_async: bool,
    ) -> Steps[tuple[T, CallInfo]]:
        """:meth:`create`'s body, for either driver: each mode of the chain in turn."""
        tally, started = self._structured_tally(), time.perf_counter()
        key = options_key(kw)
        sent = self._sent_model(response_model, kw)
        for mode in self._chain(modes):
            tally.start_mode(mode)
            attempt = self._attempt(mode, messages, sent, tally, kw, key, is_async=is_async)
            try:
                with repairs_scope(tally.record):
                    result: T = yield self._with_backoff(attempt, is_async)
            except Exception as exc:  # sorted by the one seam: failures.classify
                error = self._after_failure(exc, mode, tally)
            else:
                tally.close_mode(mode, None)
                return _as_model(result, response_model), self._info(tally, mode, started)
            if error is not None:
                # Raised outside the except block, so that neither __cause__ nor
                # __context__ keeps the SDK exception (which may quote the key).
                raise self._with_info(error, tally, started)
        raise self._with_info(self._all_modes_failed(tally), tally, started)

    def _with_backoff(self, attempt: Callable[[], Steps[R]], is_async: bool) -> Callable[[], Any]:
        """The step that runs ``attempt``'s steps, retried whole on transient failures."""
        if is_async:

            async def once() -> R:  # a coroutine function: tenacity awaits only those
                return await arun(attempt())

            return lambda: self._backoff.acall(once)
        return lambda: self._backoff.call(lambda: run(attempt()))

    def _chain(self, modes: Sequence[str] | None) -> tuple[str, ...]:
        """The modes one call tries: ``modes`` (each of the manager's chain), or the chain."""
        if modes is None:
            return self.modes
        unknown = [m for m in modes if m not in self.modes]
        if unknown or not modes:
            raise ConfigError(
                f"modes={list(modes)}: each must be one of this manager's modes {list(self.modes)}"
            )
        return tuple(modes)

    def _structured_tally(self) -> _Tally:
        return _Tally(self.adapter, repair=True, max_retries=self.max_retries)

    def _sent_model(self, response_model: type[T], kw: dict[str, Any]) -> type[T]:
        """The model whose schema is sent: on a grammar server (llama.cpp), one whose
        schema keeps the bounds the server's grammar converter would drop, with caps
        that make the whole object fit in the reply (:mod:`answerx.structured.grammar`)."""
        if self.spec.grammar_field:
            max_tokens = kw.get("max_tokens") or self.max_tokens
            return cast(type[T], grammar_model(response_model, max_tokens))
        return response_model

    def _attempt(
        self,
        mode: str,
        messages: Messages,
        response_model: type[T],
        tally: _Tally,
        kw: dict[str, Any],
        key: Hashable | None,
        *,
        is_async: bool,
    ) -> Callable[[], Steps[T]]:
        """One try of ``mode`` (retried whole on transient failures): the first request
        without Instructor's per-call set-up, then Instructor's own re-asks; Instructor's
        full ``create`` where the fast path does not apply."""
        client = self._client(mode, is_async=is_async)
        first = self._first_try(mode, is_async=is_async) if key is not None else None

        def attempt() -> Steps[T]:
            tally.start_attempt()
            fast = self._fast_request(first, mode, messages, response_model, kw, key)
            if fast is None:
                kwargs = self._call_kwargs(mode, messages, response_model, tally, kw)
                return (yield lambda: client.create(**kwargs))  # type: ignore[no-any-return]
            first_try, model, request = fast
            create = first_try.acreate if is_async else first_try.create
            return cast(T, (yield lambda: create(model, request, **self._first_kw(tally))))

        return attempt

    def _fast_request(
        self,
        first: FirstTry | None,
        mode: str,
        messages: Messages,
        response_model: type[BaseModel],
        kw: dict[str, Any],
        key: Hashable | None,
    ) -> tuple[FirstTry, type[BaseModel], dict[str, Any]] | None:
        """The fast path, the model to parse with and Instructor's first request; or None
        for Instructor's full path."""
        if first is None:
            return None
        # The frame holds everything sent besides the messages: key it by all of it.
        frame_key = (self.model, self.max_tokens, key)
        prepared = first.prepare(
            _prepared(response_model), messages, frame_key,
            lambda: self._request_kwargs(mode, response_model, kw),
        )  # fmt: skip
        return None if prepared is None else (first, *prepared)

    def _first_kw(self, tally: _Tally) -> dict[str, Any]:
        return {"max_retries": self.max_retries, "strict": False, "recorder": tally}

    # ------------------------------------------------------------------ plain text
    def complete_text(self, messages: Messages, **kw: Any) -> tuple[str, CallInfo]:
        """Plain text generation with the same provider settings, retries and usage."""
        return run(self._complete_text(messages, kw, is_async=False))

    async def acomplete_text(self, messages: Messages, **kw: Any) -> tuple[str, CallInfo]:
        """Async :meth:`complete_text`."""
        return await arun(self._complete_text(messages, kw, is_async=True))

    def _complete_text(
        self, messages: Messages, kw: dict[str, Any], *, is_async: bool
    ) -> Steps[tuple[str, CallInfo]]:
        """:meth:`complete_text`'s body, for either driver."""
        tally, started = _Tally(self.adapter), time.perf_counter()
        sdk = self.sdk_client(is_async=is_async)

        def attempt() -> Steps[str]:
            try:
                response = yield lambda: self._text_call(sdk, messages, kw)
            except Exception:
                tally.on_error(Exception())
                raise
            tally.on_response(response)
            return self.adapter.text_of(response)

        try:
            text: str = yield self._with_backoff(attempt, is_async)
        except Exception as exc:  # sorted by the one seam: failures.classify
            error = self._after_failure(exc, "text", tally) or self._all_modes_failed(tally)
        else:
            tally.close_mode("text", None)
            return text, self._info(tally, "text", started)
        # Outside the except block: no SDK exception in the chain.
        raise self._with_info(error, tally, started)

    def _text_call(self, sdk: Any, messages: Messages, kw: dict[str, Any]) -> Any:
        return self.adapter.text_request(sdk, self.model, messages, self._provider_options(kw))

    # ------------------------------------------------------------------ extraction
    def extract_structured(
        self,
        raw_output: str,
        approach: str = "none",
        *,
        question: str | None = None,
        task: str | None = None,
        choices: Sequence[str] | None = None,
        numbers: Sequence[int | float] | None = None,
        settings: ExtractionLike = None,
        **kw: Any,
    ) -> tuple[ReasoningExtraction, CallInfo]:
        """Ask the model to separate the reasoning from the final answer of ``raw_output``.

        ``task`` (and ``choices``) bind the expected answer shape into the response
        model, so a wrong shape is re-asked. The call runs with the manager's
        :attr:`extraction` settings, ``settings`` over them (a mapping of some fields, a
        preset name such as ``"ml-agents"``, or an :class:`ExtractionSettings`): its
        temperature and max_tokens (``kw``, which goes to the provider, wins over both),
        the mode fallback, and the confidence threshold: an extraction whose own
        confidence is below it raises :class:`~answerx.errors.StructuredOutputError`.
        """
        request = (raw_output, approach, question, task, choices, numbers)
        return run(self._extract_structured(request, settings, kw, is_async=False))

    async def aextract_structured(
        self,
        raw_output: str,
        approach: str = "none",
        *,
        question: str | None = None,
        task: str | None = None,
        choices: Sequence[str] | None = None,
        numbers: Sequence[int | float] | None = None,
        settings: ExtractionLike = None,
        **kw: Any,
    ) -> tuple[ReasoningExtraction, CallInfo]:
        """Async :meth:`extract_structured`."""
        request = (raw_output, approach, question, task, choices, numbers)
        return await arun(self._extract_structured(request, settings, kw, is_async=True))

    def _extract_structured(
        self,
        request: tuple[
            str, str, str | None, str | None, Sequence[str] | None, Sequence[int | float] | None
        ],
        settings: ExtractionLike,
        kw: dict[str, Any],
        *,
        is_async: bool,
    ) -> Steps[tuple[ReasoningExtraction, CallInfo]]:
        """:meth:`extract_structured`'s body, for either driver: the call goes through the
        public :meth:`create`/:meth:`acreate`, which a subclass may wrap (a run's limits)."""
        model_cls, messages = _extraction_request(*request)
        used = self.extraction.updated(settings)
        create = self.acreate if is_async else self.create
        options = self._extraction_kw(used, kw)
        obj, info = yield lambda: create(messages, model_cls, **options)
        return self._accepted(obj, info, used)

    def _extraction_kw(self, settings: ExtractionSettings, kw: dict[str, Any]) -> dict[str, Any]:
        """The extraction call's options: the settings' sampling, the caller's ``kw`` over
        them, and the first mode only when the fallback is off."""
        # 0, not 0.0: the request (and an experiment cache's key) stays the one answerx
        # sent before the temperature was a setting.
        temperature = settings.temperature
        options: dict[str, Any] = {
            "temperature": int(temperature) if temperature.is_integer() else temperature
        }
        if settings.max_tokens is not None:
            options["max_tokens"] = settings.max_tokens
        options.update(kw)
        if not settings.enable_fallback:
            options["modes"] = self.modes[:1]
        return options

    def _accepted(
        self, obj: ReasoningExtraction, info: CallInfo, settings: ExtractionSettings
    ) -> tuple[ReasoningExtraction, CallInfo]:
        """``(obj, info)`` when the extraction's confidence reaches the threshold."""
        threshold = settings.confidence_threshold
        confidence = obj.confidence if obj.confidence is not None else 0.0
        if confidence >= threshold:
            return obj, info
        reason = f"confidence {confidence:g} is below the confidence threshold {threshold:g}"
        error = StructuredOutputError(
            "the extraction was not accepted", failures=[(info.mode or "structured", reason)],
            provider=self.provider, model=self.model,
        )  # fmt: skip
        error.call_info = info  # what the call used was paid for
        raise error

    # ------------------------------------------------------------------ failures
    def _after_failure(self, exc: Exception, mode: str, tally: _Tally) -> ProviderError | None:
        """Record a mode's failure and return None if another mode may fix it; otherwise
        return the clear error to raise (the caller raises it outside its except block)."""
        failure = classify(exc)
        # The reason ends up in CallInfo, which callers store and serve: a provider
        # message may quote the key.
        reason = redact(failure.message, self._api_key)
        if (failure.kind in FALLBACK or self.fallback_on == "any") and mode != "text":
            tally.close_mode(mode, reason)
            return None
        tally.close_mode(mode, reason)
        return self._error(failure)

    def _error(self, failure: Failure) -> ProviderError:
        return provider_error(
            failure, provider=self.provider, model=self.model,
            tries=self.transient_retries + 1, timeout=self.timeout,
            key_env=self.spec.api_key_env, api_key=self._api_key,
        )  # fmt: skip

    def _all_modes_failed(self, tally: _Tally) -> StructuredOutputError:
        failures = [(m.mode, m.reason or "") for m in tally.modes if not m.ok]
        return StructuredOutputError(
            "no mode produced a valid object",
            failures=[(m, redact(r, self._api_key)) for m, r in failures],
            provider=self.provider, model=self.model,
        )  # fmt: skip

    def _with_info(self, error: ProviderError, tally: _Tally, started: float) -> ProviderError:
        """``error`` carrying the failed call's CallInfo: the tokens its attempts used
        were paid for, so callers that sum usage (approaches, runs) keep counting them."""
        error.call_info = self._info(tally, None, started)
        return error

    def _info(self, tally: _Tally, mode: str | None, started: float) -> CallInfo:
        first_failure = next((m.reason for m in tally.modes if not m.ok), None)
        return CallInfo(
            provider=self.provider, model=self.model, mode=mode, modes_tried=tuple(tally.modes),
            attempts=tally.requests, fallback_reason=first_failure, usage=tally.usage,
            latency_s=time.perf_counter() - started, finish_reason=tally.finish_reason,
            repairs=tuple(tally.record.repairs),
        )  # fmt: skip


def _as_model(result: T, model: type[T]) -> T:
    """``result`` as an instance of ``model`` itself when it was parsed with a subclass
    that only changes the schema sent (:func:`grammar_model`): callers get the class they
    asked for (which pickles and compares like it). Fields are copied, not revalidated."""
    if type(result) is model:
        return result
    fields = {name: getattr(result, name) for name in type(result).model_fields}
    return model.model_construct(_fields_set=set(result.model_fields_set), **fields)


def _extraction_request(
    raw_output: str,
    approach: str,
    question: str | None,
    task: str | None,
    choices: Sequence[str] | None,
    numbers: Sequence[int | float] | None = None,
) -> tuple[type[ReasoningExtraction], list[dict[str, str]]]:
    model_cls = get_extraction_model(approach, task=task, choices=choices, numbers=numbers)
    template = prompt_template("extraction")
    fields = extraction_prompt_fields(
        raw_output, question=question, task=task, choices=choices, numbers=numbers
    )
    return model_cls, [{"role": "user", "content": template.substitute(fields)}]
