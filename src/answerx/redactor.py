"""Keys out of every text answerx lets go of, whole or in pieces.

A provider that echoes the ``Authorization`` header, and pydantic cutting the echo
to ``input_value='…last 23 characters…'``, put a *fragment* of a key in an error:
replacing the whole key misses it. :class:`Redactor` replaces **every run of 8 or
more characters of a secret** (its start, its end or any piece of its middle) by
``***``, in time linear in the text.

The secrets are the configured keys (:func:`configured_secrets`): the values of
the environment variables that hold credentials (``*_KEY``, ``*_TOKEN``,
``*_SECRET``, ``*_PASSWORD``, of 8 characters or more; every provider's key
variable is one of them) and the keys given to answerx directly
(:func:`register_secret`: a manager built with ``api_key=``).
:func:`redact_keys` uses them all; :func:`answerx.errors.redact` adds key-shaped
patterns for messages. Shorter secrets cannot be cut into 8-character pieces:
they are replaced only whole, where callers know them.

Layer 0: imports nothing of answerx, so that errors, logs, stores and reports can
all use the one redactor.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = [
    "MIN_FRAGMENT",
    "Redactor",
    "configured_secrets",
    "credential_values",
    "redact_keys",
    "redact_keys_deep",
    "register_secret",
]

#: The shortest piece of a secret that is redacted (shorter pieces are too common
#: in ordinary text to mean anything, and too short to help guess a key).
MIN_FRAGMENT: Final = 8
#: What a piece of a secret is replaced with.
MASK: Final = "***"
_SECRET_SUFFIXES: Final = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
_TOKEN_VARIABLE: Final = "ANSWERX_API_TOKEN"
_MAX_REGISTERED: Final = 64  # keys given directly, most recent kept (a bounded set)
# Windows are checked every _STRIDE characters of a run: any 8 characters hold an
# aligned 4-character piece, so a miss there rules the whole window out.
_STRIDE: Final = MIN_FRAGMENT // 2

_registered: dict[str, None] = {}
_lock = threading.Lock()


class Redactor:
    """Replaces every run of :data:`MIN_FRAGMENT` or more characters of ``secrets``
    by ``***`` (secrets shorter than that are ignored).

    >>> Redactor(["sk-0123456789abcdef"])("key: ...456789abcdef'")
    "key: ...***'"

    How: runs of the characters the secrets use are found with one regular
    expression (C speed); within a run, every 4th position is looked up in the set
    of the secrets' 4-character pieces, and only around a hit are the 8-character
    windows checked against the set of their 8-character pieces. Overlapping hits
    merge, so a long fragment becomes one ``***``. Linear in the text; written by
    hand because no maintained library does fragment matching (Aho-Corasick
    libraries find whole patterns, and every substring would be a pattern).
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = tuple(dict.fromkeys(s for s in secrets if len(s) >= MIN_FRAGMENT))
        self._windows = {
            s[i : i + MIN_FRAGMENT] for s in self.secrets for i in range(len(s) - MIN_FRAGMENT + 1)
        }
        self._pieces = {w[i : i + _STRIDE] for w in self._windows for i in range(_STRIDE + 1)}
        alphabet = "".join(sorted(set("".join(self.secrets))))
        self._runs = (
            re.compile(f"[{re.escape(alphabet)}]{{{MIN_FRAGMENT},}}") if self.secrets else None
        )

    def __bool__(self) -> bool:
        return self._runs is not None

    def __call__(self, text: str) -> str:
        """``text`` with every run of 8+ characters of a secret replaced by ``***``."""
        if self._runs is None or len(text) < MIN_FRAGMENT:
            return text
        spans: list[list[int]] = []
        for run in self._runs.finditer(text):
            for start in self._starts(run.group()):
                begin = run.start() + start
                if spans and begin <= spans[-1][1]:
                    spans[-1][1] = max(spans[-1][1], begin + MIN_FRAGMENT)
                else:
                    spans.append([begin, begin + MIN_FRAGMENT])
        if not spans:
            return text
        pieces, last = [], 0
        for begin, end in spans:
            pieces += [text[last:begin], MASK]
            last = end
        pieces.append(text[last:])
        return "".join(pieces)

    def _starts(self, run: str) -> list[int]:
        """The positions in ``run`` where an 8-character piece of a secret starts."""
        found: set[int] = set()
        windows, width = self._windows, MIN_FRAGMENT
        for aligned in range(0, len(run) - _STRIDE + 1, _STRIDE):
            if run[aligned : aligned + _STRIDE] in self._pieces:
                for start in range(max(0, aligned - _STRIDE), aligned + 1):
                    if run[start : start + width] in windows:
                        found.add(start)
        return sorted(found)


def credential_values(environ: Mapping[str, str]) -> list[str]:
    """The values of ``environ``'s variables that hold credentials: every ``*_KEY``,
    ``*_TOKEN``, ``*_SECRET`` and ``*_PASSWORD`` of 8 characters or more (every
    provider's key variable is one), and ``ANSWERX_API_TOKEN`` of any length."""
    return list(
        dict.fromkeys(
            value.strip()
            for name, value in environ.items()
            if value.strip()
            and (
                name.upper() == _TOKEN_VARIABLE
                or (name.upper().endswith(_SECRET_SUFFIXES) and len(value.strip()) >= MIN_FRAGMENT)
            )
        )
    )


def configured_secrets() -> tuple[str, ...]:
    """The keys answerx knows of now: :func:`credential_values` of ``os.environ`` and
    the keys given to answerx directly (:func:`register_secret`)."""
    with _lock:
        registered = list(_registered)
    return tuple(dict.fromkeys([*credential_values(os.environ), *registered]))


def register_secret(secret: str | None) -> None:
    """Redact ``secret`` (a key given to answerx other than through its variable)
    from now on, in this process, wherever :func:`redact_keys` is used."""
    if not secret or len(secret) < MIN_FRAGMENT:
        return
    with _lock:
        _registered.pop(secret, None)
        _registered[secret] = None
        while len(_registered) > _MAX_REGISTERED:
            del _registered[next(iter(_registered))]


def redact_keys(text: str, *extra: str | None) -> str:
    """``text`` with every run of 8+ characters of a configured key (or of ``extra``
    secrets) replaced by ``***``."""
    return _redactor((*configured_secrets(), *(s for s in extra if s)))(text)


def redact_keys_deep(value: Any, *extra: str | None) -> Any:
    """:func:`redact_keys` on every string inside ``value`` (dicts, lists, tuples:
    a record about to be stored), keys of dicts included."""
    redactor = _redactor((*configured_secrets(), *(s for s in extra if s)))
    if not redactor:
        return value
    return _deep(value, redactor)


def _deep(value: Any, redactor: Redactor) -> Any:
    if isinstance(value, str):
        return redactor(value)
    if isinstance(value, dict):
        return {_deep(k, redactor): _deep(v, redactor) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep(v, redactor) for v in value]
    if isinstance(value, tuple):
        return tuple(_deep(v, redactor) for v in value)
    return value


@functools.lru_cache(maxsize=32)
def _redactor(secrets: tuple[str, ...]) -> Redactor:
    return Redactor(secrets)
