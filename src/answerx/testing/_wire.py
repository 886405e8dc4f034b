"""Rendering a :class:`Reply` in each provider's wire format.

Pure functions, no I/O: the request body goes in, ``(status, headers, body)``
comes out. The shapes follow what the official SDKs parse (openai 3.x
``ChatCompletion``, anthropic 2.x ``Message``, cohere 7.x ``V2ChatResponse``).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from typing import Any, Literal

from answerx.testing._replies import Reply, Usage

__all__ = [
    "INVALID_ARGUMENTS_KEY",
    "WIRE_FORMATS",
    "Endpoint",
    "WireFormat",
    "detect_endpoint",
    "render",
    "render_error",
    "tool_name_for",
]

WireFormat = Literal["openai", "anthropic", "cohere"]
WIRE_FORMATS: tuple[WireFormat, ...] = ("openai", "anthropic", "cohere")
Endpoint = Literal["chat", "models", "health", "unknown"]

INVALID_ARGUMENTS_KEY = "_invalid_json"
"""Key of the Anthropic ``input`` object that carries malformed tool arguments."""

Rendered = tuple[int, list[tuple[str, str]], bytes, str]
"""(status, extra headers, body, content type)."""


def detect_endpoint(method: str, path: str) -> tuple[WireFormat | None, Endpoint]:
    """Which API a request path belongs to (the query string already removed).

    Any path ending in ``/chat/completions`` is OpenAI (so ``/v1``, no prefix, or
    OpenRouter's ``/api/v1`` all work), ``/v1/messages`` is Anthropic and
    ``/v2/chat`` is Cohere.
    """
    trimmed = path.rstrip("/") or "/"
    if method == "POST":
        if trimmed.endswith("/chat/completions"):
            return "openai", "chat"
        if trimmed.endswith("/v1/messages"):
            return "anthropic", "chat"
        if trimmed.endswith("/v2/chat"):
            return "cohere", "chat"
    if method == "GET":
        if trimmed.endswith("/models") or "/models/" in trimmed:
            return "openai", "models"
        if trimmed in ("/", "/health"):
            return None, "health"
    return None, "unknown"


def _new_id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


def _as_dict(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def tool_name_for(wire: WireFormat, body: Mapping[str, Any]) -> str | None:
    """The tool a reply should call: the one ``tool_choice`` forces, else ``tools[0]``.

    Returns ``None`` when the request offers no tool.
    """
    choice = _as_dict(body.get("tool_choice"))
    if wire == "openai":
        forced = _as_dict(choice.get("function")).get("name") or _as_dict(choice.get("custom")).get(
            "name"
        )
    elif wire == "anthropic":
        forced = choice.get("name") if choice.get("type") == "tool" else None
    else:  # Cohere's tool_choice is REQUIRED/NONE, never a name
        forced = None
    if isinstance(forced, str) and forced:
        return forced
    tools = body.get("tools")
    if not isinstance(tools, list) or not tools:
        return None
    first = _as_dict(tools[0])
    if wire == "anthropic":
        name = first.get("name")
    else:
        name = _as_dict(first.get("function")).get("name") or _as_dict(first.get("custom")).get(
            "name"
        )
        name = name or first.get("name")
    return name if isinstance(name, str) and name else None


def _tool_forced(wire: WireFormat, body: Mapping[str, Any]) -> bool:
    choice = body.get("tool_choice")
    if wire == "openai":
        return isinstance(choice, Mapping) or choice == "required"
    if wire == "anthropic":
        return isinstance(choice, Mapping) and choice.get("type") in ("tool", "any")
    return isinstance(choice, str) and choice.upper() == "REQUIRED"


def _arguments_text(arguments: Mapping[str, Any] | str | None) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(dict(arguments or {}))


def _arguments_object(arguments: Mapping[str, Any] | str | None) -> dict[str, Any]:
    if not isinstance(arguments, str):
        return dict(arguments or {})
    try:
        # strict=False: raw control characters inside strings are text the API would
        # have decoded into the object it hands out.
        parsed = json.loads(arguments, strict=False)
    except ValueError:
        parsed = None
    # Anthropic's tool input is always an object: malformed arguments arrive as
    # an object that fails the client's validation instead.
    return parsed if isinstance(parsed, dict) else {INVALID_ARGUMENTS_KEY: arguments}


def _json_body(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def render(
    wire: WireFormat,
    reply: Reply,
    body: Mapping[str, Any],
    *,
    default_usage: Usage,
    default_model: str,
) -> Rendered:
    """Render a scripted reply for a chat request in ``wire`` format."""
    if reply.kind == "raw":
        return reply.status, list(reply.headers), reply.body or b"", reply.content_type
    if reply.kind == "error":
        status, headers, data = render_error(
            wire,
            reply.status,
            reply.message or "error",
            error_type=reply.error_type,
            code=reply.error_code,
        )
        return status, [*headers, *reply.headers], data, "application/json"

    usage = reply.usage or default_usage
    model = body.get("model")
    model = model if isinstance(model, str) and model else default_model
    tool_name: str | None = None
    text = reply.content or ""
    if reply.kind == "tool_call":
        tool_name = reply.tool_name or tool_name_for(wire, body)
        if tool_name is None:  # no tool on offer: the payload becomes the JSON answer
            text = _arguments_text(reply.arguments)
    if wire == "openai":
        payload = _openai(reply, body, model, usage, tool_name, text)
        headers = [("x-request-id", _new_id("req_"))]
    elif wire == "anthropic":
        payload = _anthropic(reply, model, usage, tool_name, text)
        headers = [("request-id", _new_id("req_"))]
    else:
        payload = _cohere(reply, usage, tool_name, text)
        headers = []
    return reply.status, [*headers, *reply.headers], _json_body(payload), "application/json"


def _openai(
    reply: Reply,
    body: Mapping[str, Any],
    model: str,
    usage: Usage,
    tool_name: str | None,
    text: str,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
    if tool_name is not None:
        message["tool_calls"] = [
            {
                "id": _new_id("call_"),
                "type": "function",
                "function": {"name": tool_name, "arguments": _arguments_text(reply.arguments)},
            }
        ]
        # Like the real API: a forced tool call ends with "stop".
        finish = "stop" if _tool_forced("openai", body) else "tool_calls"
    else:
        message["content"] = text
        finish = "stop"
    if reply.truncated:
        finish = "length"
    return {
        "id": _new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": "fp_answerx_fake",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens,
        },
    }


def _anthropic(
    reply: Reply, model: str, usage: Usage, tool_name: str | None, text: str
) -> dict[str, Any]:
    content: list[dict[str, Any]]
    if tool_name is not None:
        content = [
            {
                "type": "tool_use",
                "id": _new_id("toolu_"),
                "name": tool_name,
                "input": _arguments_object(reply.arguments),
            }
        ]
        stop = "tool_use"
    else:
        content = [{"type": "text", "text": text}]
        stop = "end_turn"
    if reply.truncated:
        stop = "max_tokens"
    return {
        "id": _new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def _cohere(reply: Reply, usage: Usage, tool_name: str | None, text: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant"}
    if tool_name is not None:
        message["tool_plan"] = f"I will call {tool_name}."
        message["tool_calls"] = [
            {
                "id": _new_id(f"{tool_name}_"),
                "type": "function",
                "function": {"name": tool_name, "arguments": _arguments_text(reply.arguments)},
            }
        ]
        finish = "TOOL_CALL"
    else:
        message["content"] = [{"type": "text", "text": text}]
        finish = "COMPLETE"
    if reply.truncated:
        finish = "MAX_TOKENS"
    counts = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    return {
        "id": str(uuid.uuid4()),
        "finish_reason": finish,
        "message": message,
        "usage": {"billed_units": dict(counts), "tokens": dict(counts)},
    }


_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
_OPENAI_TYPES = {
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
}


def _default_error_type(wire: WireFormat | None, status: int) -> str:
    if wire == "anthropic":
        fallback = "api_error" if status >= 500 else "invalid_request_error"
        return _ANTHROPIC_TYPES.get(status, fallback)
    if status >= 500:
        return "server_error"
    return _OPENAI_TYPES.get(status, "invalid_request_error")


def render_error(
    wire: WireFormat | None,
    status: int,
    message: str,
    *,
    error_type: str | None = None,
    code: str | None = None,
) -> tuple[int, list[tuple[str, str]], bytes]:
    """An error body in ``wire``'s shape (OpenAI's when the format is unknown)."""
    kind = error_type or _default_error_type(wire, status)
    request_id = _new_id("req_")
    payload: dict[str, Any]
    if wire == "anthropic":
        payload = {
            "type": "error",
            "error": {"type": kind, "message": message},
            "request_id": request_id,
        }
        return status, [("request-id", request_id)], _json_body(payload)
    if wire == "cohere":
        return status, [], _json_body({"id": str(uuid.uuid4()), "message": message})
    payload = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return status, [("x-request-id", request_id)], _json_body(payload)
