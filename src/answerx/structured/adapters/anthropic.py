"""The Anthropic SDK (``anthropic``): the Messages API."""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

import instructor

from answerx.structured.adapters.base import (
    SAMPLING_OPTIONS,
    FirstReplyJson,
    SdkAdapter,
    aiohttp_transport,
    enum_value,
    text_content,
)
from answerx.structured.callinfo import Usage

__all__ = ["ADAPTER", "AnthropicAdapter"]


class AnthropicAdapter(SdkAdapter):
    """Messages through ``anthropic.Anthropic`` / ``AsyncAnthropic``.

    The API has no ``seed``; ``from_anthropic`` rejects Markdown JSON (Instructor 1.17).
    """

    name = "anthropic"
    modes = frozenset({"tools", "json"})
    instructor_mode_prefix = "ANTHROPIC_"
    key_env_vars = ("ANTHROPIC_API_KEY",)
    base_url_env_vars = ("ANTHROPIC_BASE_URL",)
    takes_seed = False
    takes_grammar = False
    stop_option = "stop_sequences"

    def client(
        self,
        *,
        api_key: str,
        base_url: str | None,
        timeout: float,
        is_async: bool,
        aiohttp: bool = False,
    ) -> Any:
        import anthropic

        if is_async:
            http = aiohttp_transport(anthropic, timeout) if aiohttp else None
            return anthropic.AsyncAnthropic(
                api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0,
                **({"http_client": http} if http is not None else {}),
            )  # fmt: skip
        return anthropic.Anthropic(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0
        )

    def instructor_client(self, client: Any, mode: instructor.Mode) -> Any:
        return instructor.from_anthropic(client, mode=mode)

    def first_reply_json(self, mode: str) -> FirstReplyJson | None:
        return _tool_json if mode == "tools" else None

    def text_request(
        self, client: Any, model: str, messages: Sequence[dict[str, Any]], options: dict[str, Any]
    ) -> Any:
        # The Messages API takes the system prompt apart from the conversation.
        system = "\n\n".join(
            text_content(m["content"]) for m in messages if m.get("role") == "system"
        )
        turns = [m for m in messages if m.get("role") != "system"]
        if system:
            options = {**options, "system": system}
        return client.messages.create(model=model, messages=turns, **options)

    def text_of(self, response: Any) -> str:
        content = getattr(response, "content", None) or []
        return "".join(getattr(part, "text", "") or "" for part in content)

    def usage(self, response: Any) -> Usage:
        usage = getattr(response, "usage", None)
        if usage is None:
            return Usage()
        return Usage(
            input_tokens=getattr(usage, "input_tokens", 0) or 0,
            output_tokens=getattr(usage, "output_tokens", 0) or 0,
        )

    def finish_reason(self, response: Any) -> str | None:
        return enum_value(getattr(response, "stop_reason", None))

    def json_texts(self, response: Any) -> Iterator[tuple[Any, str]]:
        # A tool_use block's input is an object already: only text blocks carry JSON text.
        content = getattr(response, "content", None)
        if isinstance(content, list):
            for block in content:
                if getattr(block, "type", None) == "text":
                    yield block, "text"

    def dropped_options(self) -> frozenset[str]:
        return _dropped_options()


@cache
def _dropped_options() -> frozenset[str]:
    """anthropic 2.x removed ``temperature``, ``top_p`` and ``top_k`` from
    ``Messages.create`` (the API answers 400 to them on current models), so passing
    one raises ``TypeError`` before any request. Read from the installed signature
    rather than a version table, so an SDK that brings them back works."""
    from anthropic.resources.messages import Messages

    accepted = inspect.signature(Messages.create).parameters
    return frozenset(name for name in SAMPLING_OPTIONS if name not in accepted)


def _tool_json(response: Any) -> str | None:
    """The arguments of the one ``tool_use`` block, where Instructor's TOOLS parser would
    validate exactly them; None otherwise (it then runs and raises its own error).

    Hand-written because that parser builds a pydantic ``TypeAdapter`` on every call
    (~0.1 ms) to check that there is exactly one tool call."""
    if getattr(response, "stop_reason", None) == "max_tokens":
        return None
    content = getattr(response, "content", None) or ()
    blocks = [c for c in content if getattr(c, "type", None) == "tool_use"]
    return json.dumps(blocks[0].input) if len(blocks) == 1 else None


ADAPTER = AnthropicAdapter()
