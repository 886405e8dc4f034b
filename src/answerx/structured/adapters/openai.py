"""The OpenAI SDK (``openai``): OpenAI itself and every OpenAI-compatible server
(OpenRouter, llama.cpp, vLLM, Ollama, LM Studio)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import instructor

from answerx.structured.adapters.base import MODES, SdkAdapter, aiohttp_transport, enum_value
from answerx.structured.callinfo import Usage

__all__ = ["ADAPTER", "OpenAIAdapter"]


class OpenAIAdapter(SdkAdapter):
    """Chat completions through ``openai.OpenAI`` / ``AsyncOpenAI``."""

    name = "openai"
    modes = frozenset(MODES)
    key_env_vars = ("OPENAI_API_KEY",)
    base_url_env_vars = ("OPENAI_BASE_URL",)
    takes_seed = True
    # extra_body is merged last into the request: llama.cpp reads a GBNF `grammar`
    # and a response_format schema from it.
    takes_grammar = True
    stop_option = "stop"

    def client(
        self,
        *,
        api_key: str,
        base_url: str | None,
        timeout: float,
        is_async: bool,
        aiohttp: bool = False,
    ) -> Any:
        import openai

        if is_async:
            http = aiohttp_transport(openai, timeout) if aiohttp else None
            return openai.AsyncOpenAI(
                api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0,
                **({"http_client": http} if http is not None else {}),
            )  # fmt: skip
        return openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)

    def instructor_client(self, client: Any, mode: instructor.Mode) -> Any:
        return instructor.from_openai(client, mode=mode)

    def text_request(
        self, client: Any, model: str, messages: Sequence[dict[str, Any]], options: dict[str, Any]
    ) -> Any:
        return client.chat.completions.create(model=model, messages=list(messages), **options)

    def text_of(self, response: Any) -> str:
        return response.choices[0].message.content or ""

    def usage(self, response: Any) -> Usage:
        usage = getattr(response, "usage", None)
        if usage is None:
            return Usage()
        return Usage(
            input_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            output_tokens=getattr(usage, "completion_tokens", 0) or 0,
        )

    def finish_reason(self, response: Any) -> str | None:
        choices = getattr(response, "choices", None)
        return enum_value(getattr(choices[0], "finish_reason", None)) if choices else None

    def json_texts(self, response: Any) -> Iterator[tuple[Any, str]]:
        for choice in getattr(response, "choices", None) or ():
            message = getattr(choice, "message", None)
            if message is None:
                continue
            yield message, "content"
            for call in getattr(message, "tool_calls", None) or ():
                function = getattr(call, "function", None)
                if function is not None:
                    yield function, "arguments"


ADAPTER = OpenAIAdapter()
