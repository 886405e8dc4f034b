"""Keeping the server's credentials out of what it answers and what it logs.

answerx's own errors are redacted where they are raised (the manager knows its
key). This is the second line, for text the service passes on that it did not
write: a provider's reply or error quoted in a ``CallInfo``, an answer that
echoes a header, a message another library logs. It knows the credentials by
where they live, the server's environment (:func:`secrets_in`), and removes them
with :mod:`answerx.redactor`: every run of 8 or more characters of a key (a key
cut short by pydantic's ``input_value='…'`` included), and in log lines anything
shaped like a key too (:func:`answerx.errors.redact`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from typing import Final

from answerx.errors import redact
from answerx.redactor import (
    configured_secrets,
    credential_values,
    redact_keys,
    redact_keys_deep,
)

__all__ = ["SafeLogFilter", "scrub_json", "secrets_in"]

# A secret shorter than this is redacted only where it stands as a whole token (not
# inside a word): replacing every "a" of a line for a 1-character token would make
# the log unreadable and point at the token all the same. From 8 characters on, a
# secret is text no word holds by chance: replaced wherever it occurs (and its
# pieces by the redactor, from MIN_FRAGMENT characters on).
_SUBSTRING_MIN: Final = 8
_TOKEN_CHARS: Final = r"[\w\-.~+/]"
_ACCESS_LOGGER: Final = "uvicorn.access"


class SafeLogFilter(logging.Filter):
    """What the server logs loses any traceback, and its text any secret.

    Secrets of 8 characters or more are removed wherever they occur; shorter ones
    (only ``ANSWERX_API_TOKEN`` is taken at that length) where they stand alone.

    A traceback can quote request data or a provider's reply (uvicorn logs one for
    malformed HTTP, asyncio for a failed task). ``secrets`` (the bearer token, the
    provider keys in the environment), the keys configured now, any run of 8 or more
    characters of them, and anything shaped like a key are replaced by ``***`` in the
    formatted line: the errors answerx raises are redacted already; this also covers
    what other libraries log.
    """

    def __init__(self, secrets: Sequence[str] = ()) -> None:
        super().__init__()
        self._secrets = tuple(s for s in secrets if len(s) >= _SUBSTRING_MIN)
        short = sorted({s for s in secrets if 0 < len(s) < _SUBSTRING_MIN}, key=len, reverse=True)
        self._short = (
            re.compile(
                f"(?<!{_TOKEN_CHARS})(?:{'|'.join(map(re.escape, short))})(?!{_TOKEN_CHARS})"
            )
            if short
            else None
        )

    def _redact(self, text: str) -> str:
        text = redact(text, *self._secrets)
        return self._short.sub("***", text) if self._short is not None else text

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        if record.name == _ACCESS_LOGGER and isinstance(record.args, tuple):
            # Argument by argument: uvicorn's access formatter reads ``args`` by position.
            record.msg = self._redact(str(record.msg))
            record.args = tuple(self._clean(arg) for arg in record.args)
            return True
        try:  # the whole line: an argument of any type is text only once formatted
            message = record.getMessage()
        except (TypeError, ValueError):  # arguments that do not fit: logging's own problem
            message = " ".join(map(str, (record.msg, *(record.args or ()))))
        record.msg, record.args = self._redact(message), ()
        return True

    def _clean(self, arg: object) -> object:
        if isinstance(arg, str):
            return self._redact(arg)
        if isinstance(arg, BaseException):
            return self._redact(str(arg))
        return arg


def secrets_in(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of the variables (of ``os.environ`` by default) that may hold
    credentials: every ``*_KEY``, ``*_TOKEN``, ``*_SECRET`` and ``*_PASSWORD`` of 8
    characters or more (provider keys), ``ANSWERX_API_TOKEN`` of any length, and the
    keys given to answerx directly (:func:`answerx.redactor.configured_secrets`: only
    when ``environ`` is not given)."""
    if environ is None:
        return list(configured_secrets())
    return credential_values(environ)


def scrub_json(body: str, secrets: Sequence[str]) -> str:
    """A JSON document with every run of 8+ characters of ``secrets`` (and of the
    configured keys), and every shorter one of ``secrets`` whole, replaced by ``***``.

    No key-shaped patterns: reasoning text may hold such strings legitimately.
    String by string, so the result stays valid JSON whatever a key holds.
    """
    for secret in secrets:
        if 0 < len(secret) < _SUBSTRING_MIN:
            written = json.dumps(secret)[1:-1]  # as it appears inside a JSON string
            body = body.replace(written, "***")
    if redact_keys(body, *secrets) == body:  # the usual case: nothing to redact
        return body
    document = redact_keys_deep(json.loads(body), *secrets)
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))
