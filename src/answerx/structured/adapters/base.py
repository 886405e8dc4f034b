"""What answerx knows about one provider SDK: the :class:`SdkAdapter` every adapter module fills in.

An adapter is the only place that imports its SDK or reads the shape of its
responses. Everything else (the manager's mode chain and retries, the fast path,
repairs, experiments, search loops) asks the adapter of the provider's ``sdk``:

- **clients**: :meth:`SdkAdapter.client` builds the SDK's sync or async client (its
  own retries off: answerx retries itself, to count and report them), on the SDK's
  aiohttp transport where it has one and it was asked for;
  :meth:`SdkAdapter.instructor_client` wraps it in Instructor for one mode;
- **plain text**: :meth:`SdkAdapter.text_request` sends a conversation and
  :meth:`SdkAdapter.text_of` reads the reply's text;
- **every reply**: :meth:`SdkAdapter.usage`, :meth:`SdkAdapter.finish_reason`, and
  :meth:`SdkAdapter.json_texts` (the strings that may carry the JSON answer, which
  :mod:`answerx.structured.repairs` repairs in place);
- **capabilities**, as class attributes: the modes its Instructor wrapper accepts,
  whether its API takes a ``seed``, whether it can carry a llama.cpp ``grammar``,
  the option that takes stop sequences, and the sampling options the installed SDK
  no longer accepts (:meth:`SdkAdapter.dropped_options`);
- **environment**: the variables the SDK itself reads its key and base URL from
  (a provider's own key variable is its ``api_key_env`` in ``providers.yaml``).

An adapter module (``answerx/structured/adapters/<name>.py``) defines one subclass
and exposes an instance as ``ADAPTER``; the registry finds it by the module's name,
which is the ``sdk:`` of a ``providers.yaml`` row. Adapters import their SDK only
when a client is built, so answerx imports without any SDK installed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar

import instructor

from answerx.structured.callinfo import Usage

__all__ = [
    "MODES",
    "SAMPLING_OPTIONS",
    "FirstReplyJson",
    "SdkAdapter",
    "aiohttp_transport",
    "enum_value",
    "text_content",
]

#: Every structured-output mode answerx knows (see config/providers.yaml for what each is).
MODES: tuple[str, ...] = ("tools", "json_schema", "json", "json_with_schema", "md_json")

#: Sampling options some SDK versions no longer accept.
SAMPLING_OPTIONS: tuple[str, ...] = ("temperature", "top_p", "top_k")

#: Reads the JSON text of a first reply directly, or None to let Instructor's parser run.
FirstReplyJson = Callable[[Any], str | None]


class SdkAdapter(ABC):
    """One provider SDK: client construction, Instructor wrapper, reply reading, capabilities."""

    #: The adapter's name: the ``sdk:`` of a ``providers.yaml`` row (and the module's name).
    name: ClassVar[str]
    #: The modes (of :data:`MODES`) its Instructor wrapper accepts.
    modes: ClassVar[frozenset[str]]
    #: Variables the SDK reads an API key from when none is passed.
    key_env_vars: ClassVar[tuple[str, ...]]
    #: Variables the SDK reads a base URL from when none is passed.
    base_url_env_vars: ClassVar[tuple[str, ...]]
    #: The API takes a ``seed`` (a run sends ``seed + repetition``).
    takes_seed: ClassVar[bool] = False
    #: Requests can carry extra body fields (a llama.cpp ``grammar``, a ``response_format``
    #: schema) through the SDK's ``extra_body``.
    takes_grammar: ClassVar[bool] = False
    #: The create option that takes stop sequences.
    stop_option: ClassVar[str] = "stop_sequences"
    #: The prefix of Instructor's names for this SDK's modes (``ANTHROPIC_TOOLS``): what
    #: ``get_primary_mode()`` reports, as the ml-agents manager does.
    instructor_mode_prefix: ClassVar[str] = ""

    # ------------------------------------------------------------------ clients
    @abstractmethod
    def client(
        self,
        *,
        api_key: str,
        base_url: str | None,
        timeout: float,
        is_async: bool,
        aiohttp: bool = False,
    ) -> Any:
        """The SDK's own client, its retries off (answerx retries with backoff itself).

        ``aiohttp`` (async only): the SDK's aiohttp transport, where it has one and
        aiohttp is installed; otherwise the SDK's default transport.
        """

    @abstractmethod
    def instructor_client(self, client: Any, mode: instructor.Mode) -> Any:
        """``client`` wrapped by Instructor for ``mode``."""

    def first_reply_json(self, mode: str) -> FirstReplyJson | None:
        """A shortcut that reads the JSON of a first reply in ``mode`` where Instructor's
        own parser is slow (see :mod:`answerx.structured.fastpath`); None: no shortcut."""
        return None

    # ------------------------------------------------------------------ plain text
    @abstractmethod
    def text_request(
        self, client: Any, model: str, messages: Sequence[dict[str, Any]], options: dict[str, Any]
    ) -> Any:
        """Send ``messages`` for plain text with ``options`` (the response, or an
        awaitable of it for an async client)."""

    @abstractmethod
    def text_of(self, response: Any) -> str:
        """The generated text of a plain-text response."""

    # ------------------------------------------------------------------ every reply
    @abstractmethod
    def usage(self, response: Any) -> Usage:
        """Token usage as the response reports it (zero when absent)."""

    @abstractmethod
    def finish_reason(self, response: Any) -> str | None:
        """Why the provider stopped, as the SDK says it; None when absent."""

    @abstractmethod
    def json_texts(self, response: Any) -> Iterator[tuple[Any, str]]:
        """(object, attribute) pairs of the response whose text may carry the JSON answer."""

    def dropped_options(self) -> frozenset[str]:
        """Sampling options the installed SDK's create method does not accept."""
        return frozenset()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def aiohttp_transport(sdk_module: Any, timeout: float) -> Any | None:
    """The SDK's ``DefaultAioHttpClient`` (the httpx-over-aiohttp transport the SDKs
    generated by Stainless ship), or None when the SDK has none or aiohttp is not
    installed (the SDK then raises on construction)."""
    factory = getattr(sdk_module, "DefaultAioHttpClient", None)
    if factory is None:
        return None
    try:
        return factory(timeout=timeout)
    except RuntimeError:  # "To use the aiohttp client you must have installed ... aiohttp"
        return None


def text_content(content: Any) -> str:
    """A message's content as text (a string, or a list of text blocks)."""
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)


def enum_value(reason: Any) -> str | None:
    """A finish reason as text (an enum member: its value)."""
    if reason is None:
        return None
    return str(getattr(reason, "value", reason))
