"""Instructor's first request of a mode, with its per-call set-up done once: ``FirstTry``.

On every ``create``, Instructor 1.17 redoes work that depends only on the response
model and the mode: ``reject_async_validators`` walks the model's classes seven
times, ``prepare_response_model`` runs twice, the mode handler rebuilds the request
(one SDK's handler builds the model's JSON schema into its prompt every time), usage
objects are deep-copied, and one SDK's tool parser builds a pydantic ``TypeAdapter``
(its adapter offers a shortcut: ``SdkAdapter.first_reply_json``). Against
a provider that answers in about a millisecond this is +40 % to +120 %.

``FirstTry`` sends the request Instructor would send for the first attempt and
parses the reply with Instructor's own parser for the mode. The request is
Instructor's own: the mode handler (``prepare_request``) and message converter build
it for two probe conversations, once per (response model, provider options), and the
frame around the probe messages — tools, ``tool_choice``, ``response_format``, the
schema instructions a mode adds before or after the conversation — is reused for
every conversation of plain, alternating user/assistant text. Any other conversation
goes through the handler on each call, exactly as Instructor does.

When the first reply does not validate, Instructor's handler builds the re-ask from
that reply and Instructor's own retry loop (``instructor.core.retry_sync``) makes the
remaining ``max_retries`` attempts: the same requests, in the same order, as a plain
``client.create`` — nothing is sent twice.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from instructor.core import IncompleteOutputException, retry_async, retry_sync
from instructor.core.hooks import Hooks
from instructor.mode import Mode
from pydantic import BaseModel

__all__ = ["FirstTry", "Recorder", "options_key"]

try:  # Instructor's own internals for the first attempt; a new layout turns the fast path off
    from instructor.v2 import mode_registry
    from instructor.v2.core.response_model import prepare_response_model
    from instructor.v2.core.retry import _RETRYABLE_PARSE_ERRORS, _finalize_parsed_response
except ImportError:  # pragma: no cover - another Instructor layout: always the full path
    mode_registry = None

#: Keyword arguments that Instructor's ``create`` consumes itself instead of sending them
#: (or that change how it parses): a call with one of them takes Instructor's full path.
_INSTRUCTOR_OWN = frozenset(
    {
        "autodetect_images", "cache", "cache_namespace", "cache_ttl", "context", "hooks",
        "max_retries", "messages", "response_model", "stream", "strict", "token_budget",
    }
)  # fmt: skip

_MARK = "answerx-probe-5b1e"  # ASCII: json.dumps escapes control characters
#: The conversations the frame is learnt from: a frame must treat both the same way.
_PROBES: tuple[tuple[dict[str, str], ...], ...] = (
    ({"role": "user", "content": f"{_MARK}-1"},),
    (
        {"role": "user", "content": f"{_MARK}-1"},
        {"role": "assistant", "content": f"{_MARK}-2"},
        {"role": "user", "content": f"{_MARK}-3"},
    ),
)
_FRAME_CACHE_LIMIT = 256
#: The handler edits the conversation itself (Markdown JSON appends to the last turn):
#: it runs on every call, as in Instructor.
_EACH_CALL = "each call"


class Recorder(Protocol):
    """Counts requests and usage: the first request directly, the re-asks through hooks."""

    def on_response(self, response: Any) -> None: ...

    def on_error(self, error: Exception, **_: Any) -> None: ...

    def hooks(self) -> Hooks: ...


def options_key(options: Mapping[str, Any]) -> Hashable | None:
    """A hashable key for provider options (``temperature``, ``stop_sequences``, …), or
    None when the fast path does not apply: an option Instructor consumes itself, or a
    value that is not plain JSON data."""
    if not options:
        return ()
    if not _INSTRUCTOR_OWN.isdisjoint(options):
        return None
    try:
        return _freeze(options)
    except TypeError:
        return None


def _freeze(value: Any) -> Hashable:
    # Types are part of the key: 1, 1.0 and True hash alike but are sent differently.
    if isinstance(value, Mapping):
        return ("map", tuple(sorted((str(k), _freeze(v)) for k, v in value.items())))
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(_freeze(v) for v in value))
    if value is None or isinstance(value, str | int | float | bool):
        return (type(value).__name__, value)
    raise TypeError(type(value).__name__)


@dataclass(frozen=True, slots=True)
class _Frame:
    """Instructor's request for one (response model, options), around the conversation."""

    model: type[BaseModel]  # the model Instructor's handler returned, to parse with
    kwargs: dict[str, Any]  # everything but the messages
    head: tuple[dict[str, Any], ...]  # messages the mode puts before the conversation
    tail: tuple[dict[str, Any], ...]  # ... and after it

    def request(self, messages: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return {**self.kwargs, "messages": [*self.head, *messages, *self.tail]}


def _templatable(messages: Sequence[Any]) -> bool:
    """Plain text turns alternating user/assistant from a user turn: what the probes cover."""
    expected = "user"
    for message in messages:
        if (
            type(message) is not dict
            or message.keys() - {"role", "content"}
            or message.get("role") != expected
            or type(message.get("content")) is not str
        ):
            return False
        expected = "assistant" if expected == "user" else "user"
    return bool(messages)


class FirstTry:
    """The first attempt of one Instructor client's mode, without Instructor's per-call work.

    Build one with :meth:`for_client` (None when the installed Instructor is laid out
    differently); :meth:`create` and :meth:`acreate` return the parsed object and raise
    what Instructor's ``create`` would raise, unwrapped.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        provider: Any,
        mode: Mode,
        defaults: Any,
        accept: Callable[[Any], str | None] | None = None,
    ) -> None:
        self._func = func
        self._provider = provider
        self._mode = mode
        self._defaults: dict[str, Any] = dict(defaults or {})
        self._handlers = mode_registry.get_handlers(provider, mode)
        self._frames: dict[tuple[type[BaseModel], Hashable], _Frame | str | None] = {}
        # The adapter's reader of a reply's JSON, where it is faster than Instructor's parser.
        self._accept = accept

    @classmethod
    def for_client(
        cls, client: Any, accept: Callable[[Any], str | None] | None = None
    ) -> FirstTry | None:
        """The fast first attempt for an Instructor client built by an adapter's
        ``instructor_client``; ``accept`` reads the JSON of a reply directly (None when
        it cannot tell: Instructor's parser then runs)."""
        # functools.wraps in Instructor's patch keeps the SDK call it wraps.
        func = getattr(getattr(client, "create_fn", None), "__wrapped__", None)
        if mode_registry is None or func is None:
            return None
        try:
            return cls(func, client.provider, client.mode, getattr(client, "kwargs", None), accept)
        except Exception:  # no handlers for this mode: Instructor's full path decides
            return None

    # ------------------------------------------------------------------ the request
    def prepare(
        self,
        response_model: type[BaseModel],
        messages: Sequence[dict[str, Any]],
        key: Hashable,
        make_kwargs: Callable[[], dict[str, Any]],
    ) -> tuple[type[BaseModel], dict[str, Any]] | None:
        """The model to parse with and the request to send, or None where Instructor's
        full path should run (it would reject the model, say).

        ``key`` identifies ``make_kwargs()`` (everything sent besides the messages:
        model, max_tokens, options) for this response model.
        """
        frame = self._frame(response_model, key, make_kwargs)
        if frame is None:
            return None
        if isinstance(frame, _Frame) and _templatable(messages):
            return frame.model, frame.request([dict(m) for m in messages])
        # Any other conversation: Instructor's handler on this call, as Instructor does.
        return self._handle(response_model, [dict(m) for m in messages], make_kwargs())

    def _frame(
        self,
        response_model: type[BaseModel],
        key: Hashable,
        make_kwargs: Callable[[], dict[str, Any]],
    ) -> _Frame | str | None:
        cache_key = (response_model, key)
        try:
            return self._frames[cache_key]
        except KeyError:
            pass
        frame = self._learn(response_model, make_kwargs())
        if len(self._frames) >= _FRAME_CACHE_LIMIT:
            self._frames.clear()
        self._frames[cache_key] = frame
        return frame

    def _learn(
        self, response_model: type[BaseModel], kwargs: dict[str, Any]
    ) -> _Frame | str | None:
        """The frame Instructor's handler puts around every probe conversation, if it is the
        same for all of them and leaves their messages untouched; else ``_EACH_CALL``, or
        None when the handler refuses the model or the options."""
        frames: list[_Frame] = []
        for probe in _PROBES:
            try:
                model, request = self._handle(response_model, [dict(m) for m in probe], kwargs)
            except Exception:  # Instructor's own create will raise it, with its own message
                return None
            frame = _split(model, request, probe)
            if frame is None:
                return _EACH_CALL
            frames.append(frame)
        first = frames[0]
        if any(f != first for f in frames[1:]):
            return _EACH_CALL
        # Owned by the frame: Instructor's handlers may hand out cached dicts.
        return _Frame(
            first.model, copy.deepcopy(first.kwargs), copy.deepcopy(first.head),
            copy.deepcopy(first.tail),
        )  # fmt: skip

    def _handle(
        self, response_model: type[BaseModel], messages: list[dict[str, Any]], kwargs: Any
    ) -> tuple[type[BaseModel], dict[str, Any]]:
        """What Instructor's patched ``create`` sends for the first attempt (1.17's order:
        defaults, prepare_response_model, the handler, the message converter)."""
        request = {"messages": messages, **kwargs}
        for name, value in self._defaults.items():
            request.setdefault(name, value)
        prepared = prepare_response_model(response_model)
        model, request = self._handlers.request_handler(response_model=prepared, kwargs=request)
        request.pop("autodetect_images", None)
        converter = self._handlers.message_converter
        if converter is not None and "messages" in request:
            request["messages"] = converter(request["messages"], autodetect_images=False)
        return model, request

    # ------------------------------------------------------------------ the attempt
    def _parse(self, response: Any, model: type[BaseModel], strict: bool, is_async: bool) -> Any:
        if self._accept is not None:
            text = self._accept(response)
            if text is not None:
                parsed: Any = model.model_validate_json(text, strict=strict)
                return _finalize_parsed_response(parsed, response)
        parsed = self._handlers.response_parser(
            response=response, response_model=model, validation_context=None,
            strict=strict, stream=False, is_async=is_async,
        )  # fmt: skip
        return _finalize_parsed_response(parsed, response)

    def _reask(self, request: dict[str, Any], response: Any, error: Exception) -> dict[str, Any]:
        # Deep-copied: the frame's dicts are shared by every call, and re-ask handlers
        # append to the messages (rarely edit them) in place.
        reask: dict[str, Any] = self._handlers.reask_handler(
            kwargs=copy.deepcopy(request), response=response, exception=error
        )
        return reask

    def create(
        self,
        model: type[BaseModel],
        request: dict[str, Any],
        *,
        max_retries: int,
        strict: bool,
        recorder: Recorder,
    ) -> Any:
        """Send ``request``; parse, or re-ask through Instructor's loop ``max_retries`` times."""
        try:
            response = self._func(**request)
        except Exception as exc:
            recorder.on_error(exc)
            raise
        recorder.on_response(response)
        try:
            return self._parse(response, model, strict, is_async=False)
        except IncompleteOutputException:
            raise
        except _RETRYABLE_PARSE_ERRORS as exc:
            if max_retries <= 0:
                raise
            reask = self._reask(request, response, exc)
        return retry_sync(
            func=self._func, response_model=model, args=(), kwargs=reask, context=None,
            max_retries=max_retries - 1, strict=strict, mode=self._mode,
            provider=self._provider, hooks=recorder.hooks(),
        )  # fmt: skip

    async def acreate(
        self,
        model: type[BaseModel],
        request: dict[str, Any],
        *,
        max_retries: int,
        strict: bool,
        recorder: Recorder,
    ) -> Any:
        """Async :meth:`create`."""
        try:
            response = await self._func(**request)
        except Exception as exc:
            recorder.on_error(exc)
            raise
        recorder.on_response(response)
        try:
            return self._parse(response, model, strict, is_async=True)
        except IncompleteOutputException:
            raise
        except _RETRYABLE_PARSE_ERRORS as exc:
            if max_retries <= 0:
                raise
            reask = self._reask(request, response, exc)
        return await retry_async(
            func=self._func, response_model=model, args=(), kwargs=reask, context=None,
            max_retries=max_retries - 1, strict=strict, mode=self._mode,
            provider=self._provider, hooks=recorder.hooks(),
        )  # fmt: skip


def _split(
    model: type[BaseModel], request: dict[str, Any], probe: Sequence[dict[str, str]]
) -> _Frame | None:
    """The request around ``probe``: None unless its messages appear once, in order and
    untouched, and nothing else quotes them."""
    messages = request.get("messages")
    if not isinstance(messages, list):
        return None
    n = len(probe)
    starts = [i for i in range(len(messages) - n + 1) if messages[i : i + n] == list(probe)]
    if len(starts) != 1:
        return None
    i = starts[0]
    frame = _Frame(
        model,
        {k: v for k, v in request.items() if k != "messages"},
        tuple(messages[:i]),
        tuple(messages[i + n :]),
    )
    outside = json.dumps([frame.kwargs, frame.head, frame.tail], default=repr)
    return None if _MARK in outside else frame
