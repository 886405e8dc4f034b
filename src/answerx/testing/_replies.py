"""What the fake provider server answers: :class:`Reply` and :class:`Usage`.

A :class:`Reply` is a wire-format-neutral script for one response. The server
renders it in the format of the request it answers (OpenAI chat completions,
Anthropic messages or Cohere v2 chat), so one script serves every provider.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

__all__ = ["INVALID_JSON", "Reply", "ReplyKind", "Usage"]

ReplyKind = Literal["tool_call", "text", "error", "raw"]

INVALID_JSON = '{"answer_value": "4", "confidence": '
"""The truncated JSON that :meth:`Reply.invalid_json` sends by default."""


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts reported in a reply, rendered as each provider names them.

    OpenAI: ``prompt_tokens`` / ``completion_tokens`` / ``total_tokens``;
    Anthropic: ``input_tokens`` / ``output_tokens``; Cohere v2: the same pair
    under both ``usage.billed_units`` and ``usage.tokens``.

    Example::

        Reply.json({"answer": "4"}, usage=Usage(input_tokens=120, output_tokens=30))
    """

    input_tokens: int = 10
    output_tokens: int = 5

    def __post_init__(self) -> None:
        if self.input_tokens < 0 or self.output_tokens < 0:
            raise ValueError("token counts must not be negative")

    @property
    def total_tokens(self) -> int:
        """``input_tokens + output_tokens``."""
        return self.input_tokens + self.output_tokens


UsageLike = Usage | tuple[int, int]


def _usage(value: UsageLike | None) -> Usage | None:
    if value is None or isinstance(value, Usage):
        return value
    input_tokens, output_tokens = value
    return Usage(input_tokens=input_tokens, output_tokens=output_tokens)


_RAW = {"\\n": "\n", "\\t": "\t", "\\r": "\r"}
# An escape sequence in json.dumps output, an escaped backslash first so "\\\\n" stays.
_ESCAPE = re.compile(r"\\\\|\\[ntr]")


def _with_raw_control_characters(text: str) -> str:
    """JSON text from ``json.dumps`` with its ``\\n``, ``\\t`` and ``\\r`` escapes written
    as the raw characters."""
    return _ESCAPE.sub(lambda m: _RAW.get(m.group(), m.group()), text)


def _headers(value: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    return tuple((str(k), str(v)) for k, v in (value or {}).items())


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted response of the fake provider server.

    Build replies with the class methods rather than the constructor:

    - :meth:`tool_call` -- a structured payload, delivered as a tool call when the
      request offers tools (else as the assistant's JSON text); :meth:`control_characters`
      and :meth:`out_of_range` -- the same with raw control characters inside its JSON
      strings, or numbers outside their bounds, as small models write them;
    - :meth:`text`, :meth:`json`, :meth:`invalid_json` -- assistant text;
    - :meth:`error` and its shortcuts :meth:`reject_tools`,
      :meth:`reject_response_format`, :meth:`rate_limited`, :meth:`server_error`,
      :meth:`unauthorized` -- an HTTP error in the provider's own error shape;
    - :meth:`hang` -- answer only after a long wait (past the client's timeout);
    - :meth:`raw` -- any status, body and content type, verbatim.

    Every reply takes ``delay`` (seconds to wait before answering; ``None`` uses
    the server's ``default_delay``) and successful ones take ``usage``.

    Example::

        fake.enqueue(
            Reply.reject_tools(),                      # 1st request: 400
            Reply.json({"answer": "4"}, delay=0.1),    # 2nd request: JSON text
        )
    """

    kind: ReplyKind
    content: str | None = None
    arguments: Mapping[str, Any] | str | None = None
    tool_name: str | None = None
    status: int = 200
    message: str | None = None
    error_type: str | None = None
    error_code: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None
    content_type: str = "application/json"
    delay: float | None = None
    usage: Usage | None = None
    truncated: bool = False
    label: str | None = None

    def __post_init__(self) -> None:
        if self.delay is not None and self.delay < 0:
            raise ValueError("delay must not be negative")
        if not 100 <= self.status <= 599:
            raise ValueError(f"not an HTTP status: {self.status}")

    # ----------------------------------------------------------------- successes

    @classmethod
    def tool_call(
        cls,
        arguments: Mapping[str, Any] | str,
        *,
        name: str | None = None,
        usage: UsageLike | None = None,
        delay: float | None = None,
        truncated: bool = False,
    ) -> Reply:
        """A call of the request's tool with these arguments.

        The tool name is ``name`` when given, else the tool forced by the request's
        ``tool_choice``, else the first tool of its ``tools``. Rendering: OpenAI
        ``message.tool_calls[0].function.arguments`` (a JSON string), Anthropic a
        ``tool_use`` content block whose ``input`` is the dict, Cohere v2
        ``message.tool_calls[0].function.arguments`` (a JSON string).

        When the request offers no tool (JSON modes, or Instructor's prompt-based
        Cohere ``TOOLS`` mode) and no ``name`` is given, the arguments are sent as
        the assistant's JSON text instead -- what a model told to answer in JSON does.

        ``arguments`` may be a string, sent verbatim (for malformed arguments;
        see :meth:`invalid_json` for Anthropic).

        Example::

            fake.enqueue(Reply.tool_call({"answer": "4"}, usage=(100, 20)))
        """
        if not isinstance(arguments, str):
            arguments = dict(arguments)
            json.dumps(arguments)  # fail here, not in the server thread
        return cls(
            kind="tool_call",
            arguments=arguments,
            tool_name=name,
            usage=_usage(usage),
            delay=delay,
            truncated=truncated,
        )

    @classmethod
    def text(
        cls,
        content: str,
        *,
        usage: UsageLike | None = None,
        delay: float | None = None,
        truncated: bool = False,
    ) -> Reply:
        """The assistant answers with this text (plain, JSON or Markdown-fenced JSON).

        ``truncated=True`` reports the output as cut by the token limit
        (OpenAI ``finish_reason="length"``, Anthropic ``stop_reason="max_tokens"``,
        Cohere ``finish_reason="MAX_TOKENS"``).

        Example::

            fake.enqueue(Reply.text('```json\\n{"answer": "4"}\\n```'))
        """
        return cls(
            kind="text", content=content, usage=_usage(usage), delay=delay, truncated=truncated
        )

    @classmethod
    def json(
        cls,
        obj: Any,
        *,
        usage: UsageLike | None = None,
        delay: float | None = None,
    ) -> Reply:
        """The assistant answers with ``obj`` serialised as JSON text.

        Example::

            fake.enqueue(Reply.json({"answer": "4", "confidence": 0.9}))
        """
        return cls.text(json.dumps(obj), usage=usage, delay=delay)

    @classmethod
    def control_characters(
        cls,
        arguments: Mapping[str, Any],
        *,
        usage: UsageLike | None = None,
        delay: float | None = None,
    ) -> Reply:
        """A structured payload whose JSON text has *raw* control characters inside its
        strings (a newline typed where ``\\n`` belongs), as small models write it.

        Python's ``json`` reads such text only with ``strict=False``; Pydantic's JSON
        parser rejects it. Sent like :meth:`tool_call`: OpenAI and Cohere tool-call
        arguments or assistant JSON text carry the raw characters; an Anthropic
        ``tool_use`` block carries the decoded object (the API hands objects, not
        text), so there the raw characters reach the client only in JSON text modes.

        Example::

            fake.enqueue(Reply.control_characters({"answer_value": "4", "steps": "a\nb"}))
        """
        text = _with_raw_control_characters(json.dumps(dict(arguments)))
        return replace(cls.tool_call(text, usage=usage, delay=delay), label="control_characters")

    @classmethod
    def out_of_range(
        cls,
        arguments: Mapping[str, Any],
        *,
        usage: UsageLike | None = None,
        delay: float | None = None,
        **values: float,
    ) -> Reply:
        """A structured payload with numbers outside their schema bounds, e.g.
        ``Reply.out_of_range(good, confidence=1.5)`` (a percentage-minded model writes
        ``confidence: 90``). Sent like :meth:`tool_call`.

        Example::

            fake.enqueue(Reply.out_of_range(good, confidence=3), Reply.tool_call(good))
        """
        if not values:
            raise ValueError("name at least one field and its out-of-range value")
        return replace(
            cls.tool_call({**arguments, **values}, usage=usage, delay=delay),
            label="out_of_range",
        )

    @classmethod
    def invalid_json(
        cls,
        content: str = INVALID_JSON,
        *,
        usage: UsageLike | None = None,
        delay: float | None = None,
    ) -> Reply:
        """Output that is not valid JSON, wherever the client looks for it.

        Sent as the tool-call arguments when the request offers tools, else as the
        assistant text. Anthropic's tool ``input`` is always an object, so there it
        arrives as ``{"_invalid_json": "<the broken text>"}``, which fails the
        client's validation just the same.

        Example::

            fake.enqueue(Reply.invalid_json(), Reply.tool_call({"answer": "4"}))  # re-ask
        """
        return replace(cls.tool_call(content, usage=usage, delay=delay), label="invalid_json")

    # -------------------------------------------------------------------- errors

    @classmethod
    def error(
        cls,
        status: int,
        message: str,
        *,
        type: str | None = None,
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
        delay: float | None = None,
    ) -> Reply:
        """An HTTP error with the provider's error JSON.

        OpenAI ``{"error": {"message", "type", "param", "code"}}``, Anthropic
        ``{"type": "error", "error": {"type", "message"}}``, Cohere
        ``{"id", "message"}``. ``type`` defaults to the provider's name for the
        status (``invalid_request_error``, ``authentication_error``,
        ``rate_limit_error``, ...).

        Example::

            fake.enqueue(Reply.error(404, "model not found"))
        """
        if status < 400:
            raise ValueError(f"an error reply needs a 4xx or 5xx status, not {status}")
        return cls(
            kind="error",
            status=status,
            message=message,
            error_type=type,
            error_code=code,
            headers=_headers(headers),
            delay=delay,
        )

    @classmethod
    def reject_tools(
        cls, *, status: int = 400, message: str | None = None, delay: float | None = None
    ) -> Reply:
        """The provider refuses tool calling (400 by default; vLLM and Ollama say so).

        Example::

            fake.enqueue(Reply.reject_tools(), Reply.json({"answer": "4"}))
        """
        return replace(
            cls.error(
                status,
                message or "tools are not supported by this model",
                code="tools_not_supported",
                delay=delay,
            ),
            label="reject_tools",
        )

    @classmethod
    def reject_response_format(
        cls, *, status: int = 400, message: str | None = None, delay: float | None = None
    ) -> Reply:
        """The provider refuses ``response_format`` / JSON mode (400 by default).

        Example::

            fake.enqueue(Reply.reject_response_format())
        """
        return replace(
            cls.error(
                status,
                message or "response_format is not supported by this model",
                code="response_format_not_supported",
                delay=delay,
            ),
            label="reject_response_format",
        )

    @classmethod
    def rate_limited(
        cls,
        retry_after: float | None = 0.05,
        *,
        message: str = "rate limit exceeded, please retry later",
        delay: float | None = None,
    ) -> Reply:
        """429 with ``Retry-After`` (seconds, may be fractional) and ``retry-after-ms``.

        The official SDKs read ``retry-after-ms`` first (Cohere only reads whole
        seconds from ``Retry-After``). ``retry_after=None`` sends neither header.

        Example::

            fake.enqueue(Reply.rate_limited(retry_after=0.05), Reply.tool_call({...}))
        """
        headers: dict[str, str] = {}
        if retry_after is not None:
            if retry_after < 0:
                raise ValueError("retry_after must not be negative")
            headers["retry-after"] = f"{retry_after:g}"
            headers["retry-after-ms"] = f"{retry_after * 1000:g}"
        return replace(
            cls.error(429, message, code="rate_limit_exceeded", headers=headers, delay=delay),
            label="rate_limited",
        )

    @classmethod
    def server_error(
        cls,
        status: int = 500,
        message: str = "the server had an error while processing your request",
        *,
        delay: float | None = None,
    ) -> Reply:
        """A 5xx (500 by default).

        Example::

            fake.enqueue(Reply.server_error(503))
        """
        if status < 500:
            raise ValueError(f"a server error needs a 5xx status, not {status}")
        return replace(cls.error(status, message, delay=delay), label="server_error")

    @classmethod
    def unauthorized(
        cls,
        message: str = "invalid API key provided",
        *,
        status: int = 401,
        delay: float | None = None,
    ) -> Reply:
        """401 (or 403 with ``status=403``): the key was refused.

        Example::

            fake.enqueue(Reply.unauthorized())
        """
        return replace(
            cls.error(status, message, code="invalid_api_key", delay=delay), label="unauthorized"
        )

    # ------------------------------------------------------------------- others

    @classmethod
    def hang(cls, seconds: float = 30.0, *, then: Reply | None = None) -> Reply:
        """Wait ``seconds`` before answering (with ``then``, else a short text).

        Use it to make the client's own timeout fire. The wait never holds up other
        requests, and :meth:`FakeProviderServer.stop` cuts it short.

        Example::

            fake.enqueue(Reply.hang(5))
            client = openai.OpenAI(base_url=fake.openai_base_url, api_key="k", timeout=0.2)
        """
        if seconds < 0:
            raise ValueError("seconds must not be negative")
        late = then if then is not None else cls.text("(late reply)")
        return replace(late, delay=seconds, label="hang")

    @classmethod
    def raw(
        cls,
        body: bytes | str,
        *,
        status: int = 200,
        content_type: str = "application/json",
        headers: Mapping[str, str] | None = None,
        delay: float | None = None,
    ) -> Reply:
        """Send exactly this body (e.g. an HTML 502 page from a proxy).

        Example::

            fake.enqueue(Reply.raw("<html>Bad gateway</html>", status=502,
                                   content_type="text/html"))
        """
        data = body.encode() if isinstance(body, str) else body
        return cls(
            kind="raw",
            status=status,
            body=data,
            content_type=content_type,
            headers=_headers(headers),
            delay=delay,
        )

    def with_delay(self, delay: float) -> Reply:
        """A copy of this reply that waits ``delay`` seconds before answering."""
        return replace(self, delay=delay)

    @property
    def name(self) -> str:
        """A short name for messages and recordings (``tool_call``, ``rate_limited``...)."""
        return self.label or self.kind
