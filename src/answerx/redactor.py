"""Keys out of every text answerx lets go of, whole or in pieces.

A provider that echoes the ``Authorization`` header, and pydantic cutting the echo
to ``input_value='…last 23 characters…'``, put a *fragment* of a key in an error:
replacing the whole key misses it. :class:`Redactor` replaces **every run of 6 or
more characters of a secret** (its start, its end or any piece of its middle) by
``***``, in time linear in the text, and does the same for the secret's
**base64** forms (standard and URL-safe, at each of the three byte alignments, so
a key inside an encoded ``user:key`` header is found too) and its **URL-encoded**
forms: a provider that quotes a request back may quote it encoded.

Provider text that reaches a client or a log goes through one sanitiser:
:func:`sanitise_provider_text` for what a provider *said* that is worth passing on
(a judge's reason, a model's answer), and :func:`describe_failure` for a failed
call, which is summarised (who failed, the error type, the HTTP status) and never
quoted: an error body can hold anything the provider was sent, and the message of
an authentication failure names the server's key variable.

The secrets are the configured keys (:func:`configured_secrets`): the values of
the environment variables that hold credentials (``*_KEY``, ``*_TOKEN``,
``*_SECRET``, ``*_PASSWORD``, of 8 characters or more; every provider's key
variable is one of them) and the keys given to answerx directly
(:func:`register_secret`: a manager built with ``api_key=``).
:func:`redact_keys` uses them all; :func:`answerx.errors.redact` adds key-shaped
patterns for messages. Shorter secrets cannot be cut into 6-character pieces:
they are replaced only whole, where callers know them.

Layer 0: imports nothing of answerx, so that errors, logs, stores and reports can
all use the one redactor.
"""

from __future__ import annotations

import base64
import functools
import os
import re
import threading
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = [
    "MIN_FRAGMENT",
    "Redactor",
    "configured_secrets",
    "credential_values",
    "describe_failure",
    "encoded_forms",
    "redact_keys",
    "redact_keys_deep",
    "register_secret",
    "sanitise_provider_text",
]

#: The shortest piece of a secret that is redacted (shorter pieces are too common
#: in ordinary text to mean anything, and too short to help guess a key: a provider
#: that echoed a key in 7-character pieces gave all of it back at 8).
MIN_FRAGMENT: Final = 6
#: What a piece of a secret is replaced with.
MASK: Final = "***"
_SECRET_SUFFIXES: Final = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
_TOKEN_VARIABLE: Final = "ANSWERX_API_TOKEN"
# A variable's value, or a key given directly, counts as a key from this length: a
# shorter ``*_KEY`` value is a setting ("SORT_KEY=name"), not a credential.
_MIN_CREDENTIAL: Final = 8
_MAX_REGISTERED: Final = 64  # keys given directly, most recent kept (a bounded set)
#: From this length on, any piece of a secret is redacted, whatever characters it holds.
_ANY_PIECE: Final = 8
# Windows are checked every _STRIDE characters of a run: any 6 characters hold an
# aligned 3-character piece, so a miss there rules the whole window out.
_STRIDE: Final = MIN_FRAGMENT // 2

_registered: dict[str, None] = {}
_lock = threading.Lock()


class Redactor:
    """Replaces every run of :data:`MIN_FRAGMENT` or more characters of ``secrets``,
    or of their :func:`encoded_forms`, by ``***`` (secrets shorter than that are
    ignored).

    >>> Redactor(["sk-0123456789abcdef"])("key: ...456789abcdef'")
    "key: ...***'"
    >>> Redactor(["sk-0123456789abcdef"])("Basic c2stMDEyMzQ1Njc4OWFiY2RlZg==")
    'Basic ***g=='

    A piece of 6 or 7 characters counts only where it mixes at least two of lower
    case, upper case and digits, as nearly every piece of a generated key does; from
    8 characters on, every piece counts. So a key made of words
    (``sk-test-judge-runner-key``) does not take the words "judge-" or "runner" out
    of every text, while a random key echoed in 7-character pieces is still caught.

    How: runs of the characters the secrets use are found with one regular
    expression (C speed); within a run, every 3rd position is looked up in the set
    of the secrets' 3-character pieces, and only around a hit are the 6- and
    8-character windows checked against the sets of the secrets' pieces of those
    lengths. Overlapping hits merge, so a long fragment becomes one ``***``. Linear
    in the text; written by hand because no maintained library does fragment
    matching (Aho-Corasick libraries find whole patterns, and every substring would
    be a pattern).
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = tuple(dict.fromkeys(s for s in secrets if len(s) >= MIN_FRAGMENT))
        forms = [form for s in self.secrets for form in (s, *encoded_forms(s))]
        short = {w for w in _windows(forms, MIN_FRAGMENT) if _mixed(w)}
        self._widths = ((MIN_FRAGMENT, short), (_ANY_PIECE, _windows(forms, _ANY_PIECE)))
        self._pieces = {
            w[i : i + _STRIDE]
            for width, windows in self._widths
            for w in windows
            for i in range(width - _STRIDE + 1)
        }
        alphabet = "".join(sorted(set("".join(forms))))
        self._runs = (
            re.compile(f"[{re.escape(alphabet)}]{{{MIN_FRAGMENT},}}") if self.secrets else None
        )

    def __bool__(self) -> bool:
        return self._runs is not None

    def __call__(self, text: str) -> str:
        """``text`` with every run of 6+ characters of a secret (or of an encoded form
        of it) replaced by ``***`` (6 or 7 only where they mix character classes)."""
        if self._runs is None or len(text) < MIN_FRAGMENT:
            return text
        spans: list[list[int]] = []
        for run in self._runs.finditer(text):
            for start, width in self._starts(run.group()):
                begin = run.start() + start
                if spans and begin <= spans[-1][1]:
                    spans[-1][1] = max(spans[-1][1], begin + width)
                else:
                    spans.append([begin, begin + width])
        if not spans:
            return text
        pieces, last = [], 0
        for begin, end in spans:
            pieces += [text[last:begin], MASK]
            last = end
        pieces.append(text[last:])
        return "".join(pieces)

    def _starts(self, run: str) -> list[tuple[int, int]]:
        """Where in ``run`` a piece of a secret starts, and how long it is, in order."""
        found: dict[int, int] = {}
        for aligned in range(0, len(run) - _STRIDE + 1, _STRIDE):
            if run[aligned : aligned + _STRIDE] not in self._pieces:
                continue
            for width, windows in self._widths:
                # A window of ``width`` holding this aligned piece starts at most
                # ``width - _STRIDE`` before it.
                for start in range(max(0, aligned - width + _STRIDE), aligned + 1):
                    if run[start : start + width] in windows:
                        found[start] = max(found.get(start, 0), width)
        return sorted(found.items())


def _windows(forms: Iterable[str], width: int) -> set[str]:
    return {f[i : i + width] for f in forms for i in range(len(f) - width + 1)}


def _mixed(piece: str) -> bool:
    """Whether ``piece`` mixes two or more of lower case, upper case and digits."""
    return (
        any(c.islower() for c in piece) + any(c.isupper() for c in piece)
        + any(c.isdigit() for c in piece)
    ) >= 2  # fmt: skip


def encoded_forms(secret: str) -> list[str]:
    """The forms ``secret`` takes when a provider quotes it encoded: base64 (standard
    and URL-safe) at each of the three byte offsets it may start at inside a longer
    encoded text (``Basic`` auth encodes ``user:key``), cut to the characters that
    depend on the secret alone, and URL-encoding (upper- and lower-case escapes,
    ``+`` for a space or not). Forms equal to the secret are left out.

    >>> encoded_forms("abc/def=")
    ['YWJjL2RlZj', 'FiYy9kZWY9', 'hYmMvZGVmP', 'abc%2Fdef%3D', 'abc%2fdef%3d']
    """
    data = secret.encode("utf-8")
    forms: list[str] = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode("ascii")
        # Characters 6 bits wide: keep those lying wholly within the secret's bytes.
        begin, end = -(-8 * offset // 6), 8 * (offset + len(data)) // 6
        forms += [encoded[begin:end], encoded[begin:end].replace("+", "-").replace("/", "_")]
    quoted = urllib.parse.quote(secret, safe="")
    forms += [quoted, re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), quoted)]
    forms.append(urllib.parse.quote_plus(secret, safe=""))
    return [form for form in dict.fromkeys(forms) if form != secret]


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
                or (
                    name.upper().endswith(_SECRET_SUFFIXES)
                    and len(value.strip()) >= _MIN_CREDENTIAL
                )
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
    if not secret or len(secret) < _MIN_CREDENTIAL:
        return
    with _lock:
        _registered.pop(secret, None)
        _registered[secret] = None
        while len(_registered) > _MAX_REGISTERED:
            del _registered[next(iter(_registered))]


# A password written in a URL (postgresql://user:PASSWORD@host/db, a proxy's
# http://user:PASSWORD@host): known to no variable, and of any length, so found by its place.
_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^:/@\s]*):[^@\s/]+@")


def redact_keys(text: str, *extra: str | None) -> str:
    """``text`` with every run of 6+ characters of a configured key (or of ``extra``
    secrets), plain or encoded, and every password written in a URL, replaced by ``***``.

    >>> redact_keys("cannot reach postgresql://team:hunter2@db.lab/answerx")
    'cannot reach postgresql://team:***@db.lab/answerx'
    """
    text = _URL_PASSWORD.sub(r"\1:***@", text)
    return _redactor((*configured_secrets(), *(s for s in extra if s)))(text)


def redact_keys_deep(value: Any, *extra: str | None) -> Any:
    """:func:`redact_keys` on every string inside ``value`` (dicts, lists, tuples:
    a record about to be stored), keys of dicts included."""
    redactor = _redactor((*configured_secrets(), *(s for s in extra if s)))
    if not redactor:
        return value
    return _deep(value, redactor)


def sanitise_provider_text(text: str) -> str:
    """What a provider wrote (a judge's reason, a model's answer), fit to reach a
    client, a log or a store: every piece of a configured key removed, plain or
    encoded (:func:`redact_keys`). A *failed* call's text is never passed on at all:
    see :func:`describe_failure`."""
    return redact_keys(text)


def describe_failure(error: BaseException) -> str:
    """A failed call, summarised for a client or a log: who failed, the error type
    and the HTTP status, never the provider's message.

    A provider's error body can quote anything it was sent (a key, in pieces or
    encoded), and the message of an authentication failure names the server's key
    variable: neither is anyone's business but the operator's, whose log is the
    place for it. Errors other than a provider's (no ``provider`` attribute) are
    answerx's own words and keep their message, redacted of keys.

    >>> class ProviderUnavailable(Exception):
    ...     provider, model, status_code = "openai", "gpt-4o-mini", 500
    >>> describe_failure(ProviderUnavailable("HTTP 500: your key sk-... is wrong"))
    'openai/gpt-4o-mini: ProviderUnavailable (HTTP 500)'
    """
    kind = type(error).__name__
    provider = getattr(error, "provider", None)
    if not isinstance(provider, str):
        return redact_keys(f"{kind}: {error}")
    model = getattr(error, "model", None)
    status = getattr(error, "status_code", None)
    where = f"{provider}/{model}" if isinstance(model, str) and model else provider
    # The provider and model are the caller's own settings, not provider text.
    return f"{where}: {kind}" + (f" (HTTP {status})" if isinstance(status, int) else "")


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
