"""Keeping the server's credentials out of what it answers and what it logs.

answerx's own errors are redacted where they are raised (the manager knows its
key). This is the second line, for text the service passes on that it did not
write: a provider's error quoted in a ``CallInfo`` failure reason, or a message
another library logs. It knows the credentials by where they live, the server's
environment (:func:`secrets_in`), and removes them, and anything shaped like a
key, with :func:`answerx.errors.redact`.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping, Sequence
from typing import Final

from answerx.errors import redact

__all__ = ["SafeLogFilter", "scrub_json", "secrets_in"]

_SECRET_SUFFIXES: Final = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
_MIN_SECRET: Final = 8  # shorter values ("1", "true") are settings, not credentials
#: Always a credential, whatever its length: the service's own bearer token.
_TOKEN_VARIABLE: Final = "ANSWERX_API_TOKEN"
# A secret shorter than this is redacted only where it stands as a whole token (not
# inside a word): replacing every "a" of a line for a 1-character token would make
# the log unreadable and point at the token all the same.
_SUBSTRING_MIN: Final = 8
_TOKEN_CHARS: Final = r"[\w\-.~+/]"


class SafeLogFilter(logging.Filter):
    """What the server logs loses any traceback, and its text any secret.

    Secrets of 8 characters or more are removed wherever they occur; shorter ones
    (only ``ANSWERX_API_TOKEN`` is taken at that length) where they stand alone.

    A traceback can quote request data or a provider's reply (uvicorn logs one for
    malformed HTTP, asyncio for a failed task). ``secrets`` (the bearer token, the
    provider keys in the environment) and anything shaped like a key are replaced
    by ``***`` in the message and its arguments: the errors answerx raises are
    redacted already; this also covers what other libraries log.
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
        record.msg = self._redact(str(record.msg))  # log.error(exc) logs an object
        if isinstance(record.args, tuple):
            # Argument by argument, so that a formatter reading ``args`` (uvicorn's
            # access log does) still finds them where it expects them.
            record.args = tuple(self._clean(arg) for arg in record.args)
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
    characters or more (provider keys), and ``ANSWERX_API_TOKEN`` of any length."""
    env = os.environ if environ is None else environ
    return [
        value
        for name, value in env.items()
        if value.strip()
        and (
            name.upper() == _TOKEN_VARIABLE
            or (name.upper().endswith(_SECRET_SUFFIXES) and len(value.strip()) >= _MIN_SECRET)
        )
    ]


def scrub_json(body: str, secrets: Sequence[str]) -> str:
    """A JSON document with every one of ``secrets`` replaced by ``***``.

    Exact values only (no key-shaped patterns: reasoning text may hold such
    strings legitimately); each as JSON writes it, so the result stays valid JSON.
    """
    for secret in secrets:
        written = json.dumps(secret)[1:-1]  # as it appears inside a JSON string
        if written in body:
            body = body.replace(written, "***")
    return body
