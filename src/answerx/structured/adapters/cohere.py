"""The Cohere SDK (``cohere``): the v2 chat API."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import instructor

from answerx.structured.adapters.base import SdkAdapter, enum_value
from answerx.structured.callinfo import Usage

__all__ = ["ADAPTER", "CohereAdapter"]


class CohereAdapter(SdkAdapter):
    """v2 chat through ``cohere.ClientV2`` / ``AsyncClientV2`` (always on httpx: the SDK
    has no aiohttp transport). ``from_cohere`` rejects plain JSON mode (Instructor 1.17)."""

    name = "cohere"
    modes = frozenset({"tools", "json_schema"})
    instructor_mode_prefix = "COHERE_"
    key_env_vars = ("CO_API_KEY", "COHERE_API_KEY")
    base_url_env_vars = ("CO_API_URL",)
    takes_seed = True
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
        import cohere

        cls = cohere.AsyncClientV2 if is_async else cohere.ClientV2
        kwargs: dict[str, Any] = {
            "api_key": api_key,
            "timeout": timeout,
            "max_retries": 0,
            # Instructor's JSON_SCHEMA mode uses response_format.schema, which the SDK
            # would otherwise announce as "experimental" on every call.
            "log_warning_experimental_features": False,
        }
        if base_url:
            kwargs["base_url"] = base_url
        return cls(**kwargs)

    def instructor_client(self, client: Any, mode: instructor.Mode) -> Any:
        return instructor.from_cohere(client, mode=mode)

    def text_request(
        self, client: Any, model: str, messages: Sequence[dict[str, Any]], options: dict[str, Any]
    ) -> Any:
        return client.chat(model=model, messages=list(messages), **options)

    def text_of(self, response: Any) -> str:
        content = getattr(getattr(response, "message", None), "content", None) or []
        return "".join(getattr(part, "text", "") or "" for part in content)

    def usage(self, response: Any) -> Usage:
        usage = getattr(response, "usage", None)
        for part in ("tokens", "billed_units"):
            counts = getattr(usage, part, None)
            if counts is not None and getattr(counts, "input_tokens", None) is not None:
                return Usage(
                    input_tokens=int(counts.input_tokens or 0),
                    output_tokens=int(counts.output_tokens or 0),
                )
        return Usage()

    def finish_reason(self, response: Any) -> str | None:
        return enum_value(getattr(response, "finish_reason", None))

    def json_texts(self, response: Any) -> Iterator[tuple[Any, str]]:
        message = getattr(response, "message", None)
        if message is None:
            return
        for block in getattr(message, "content", None) or ():
            if getattr(block, "type", None) == "text":
                yield block, "text"
        for call in getattr(message, "tool_calls", None) or ():
            function = getattr(call, "function", None)
            if function is not None:
                yield function, "arguments"


ADAPTER = CohereAdapter()
