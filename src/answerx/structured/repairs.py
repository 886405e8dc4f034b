"""Repairs of what a model writes, made before validation and recorded, never silent.

Every provider's reply goes through :func:`repair_texts` once, as it arrives (the
manager's ``completion:response`` hook, before Instructor parses it), given the
strings of the reply that may carry the JSON answer, as its SDK's adapter finds them
(``SdkAdapter.json_texts``), so one function serves every SDK and every mode:

- **Raw control characters inside JSON strings** (a newline or tab typed into a
  string instead of ``\\n``) are escaped. Python's ``json`` accepts them with
  ``strict=False``, but Pydantic's JSON parser, which Instructor validates with,
  rejects the whole object ("control character (\\u0000-\\u001F) found while
  parsing a string"). Small models write them often; llama.cpp's schema grammar
  allows them. This is the sibling of
  :func:`answerx.extraction.cleaning.repair_json_latex`, which undoes the opposite
  damage (LaTeX backslashes read as JSON escapes).

A bounded number out of range (``confidence`` 1.5) is not repaired here: it is
re-asked with the bound named, and only after the last re-ask is the answer kept
with the number recorded as missing (:func:`keep_answer_without`), which is also
recorded as a repair.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CallRepairs",
    "current_repairs",
    "escape_control_characters",
    "keep_answer_without",
    "repair_texts",
    "repairs_scope",
]

# A JSON string, raw control characters included (DOTALL): the regex engine finds
# the strings, so the scan is linear and runs in C.
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x1f]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    return _ESCAPES.get(c) or f"\\u{ord(c):04x}"


def escape_control_characters(text: str) -> tuple[str, int]:
    """``text`` with every raw control character inside a JSON string escaped, and how many.

    Only the JSON part of the text is touched (from the first ``{`` or ``[`` to
    the last ``}`` or ``]``), so the newlines of a Markdown fence or of the prose
    around it stay; whitespace between JSON tokens is left as it is.

    >>> escape_control_characters('{"a": "line one\\nline two"}')
    ('{"a": "line one\\\\nline two"}', 1)
    """
    if _CONTROL.search(text) is None:  # fast path: nothing to repair
        return text, 0
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return text, 0
    start = min(starts)
    end = max(text.rfind("}"), text.rfind("]")) + 1
    if end <= start:
        return text, 0
    count = 0

    def fix(string: re.Match[str]) -> str:
        nonlocal count
        fixed, n = _CONTROL.subn(_escape, string.group())
        count += n
        return fixed

    region = _JSON_STRING.sub(fix, text[start:end])
    return (text[:start] + region + text[end:], count) if count else (text, 0)


# --------------------------------------------------------------------------- responses


def _set(obj: Any, name: str, value: str) -> None:
    try:
        setattr(obj, name, value)
    except (AttributeError, TypeError, ValueError):  # a frozen model: set it underneath
        object.__setattr__(obj, name, value)


def repair_texts(texts: Iterable[tuple[Any, str]]) -> list[str]:
    """Repair the (object, attribute) strings of a reply in place before it is parsed;
    say what was repaired.

    Returns one message per repair (empty when the reply needed none).
    """
    repairs: list[str] = []
    for owner, name in texts:
        text = getattr(owner, name, None)
        if not isinstance(text, str):
            continue
        fixed, count = escape_control_characters(text)
        if count:
            _set(owner, name, fixed)
            noun = "character" if count == 1 else "characters"
            repairs.append(f"escaped {count} raw control {noun} inside JSON strings")
    return repairs


# --------------------------------------------------------------------------- one call's record


@dataclass(slots=True)
class CallRepairs:
    """The repairs of one manager call, and where the call stands.

    The manager keeps one per call and makes it current while the call runs
    (:func:`repairs_scope`); the response models read it through
    :func:`current_repairs` to keep an answer whose bounded number is still out of
    range on a mode's last attempt, and write down that they did.
    """

    repairs: list[str] = field(default_factory=list)
    mode: str | None = None
    last_attempt: bool = False

    def add(self, message: str) -> None:
        """Record one repair, prefixed with the mode it happened in."""
        self.repairs.append(f"{self.mode}: {message}" if self.mode else message)


_CURRENT: contextvars.ContextVar[CallRepairs | None] = contextvars.ContextVar(
    "answerx_call_repairs", default=None
)


def current_repairs() -> CallRepairs | None:
    """The record of the manager call being validated, or None outside one."""
    return _CURRENT.get()


@contextlib.contextmanager
def repairs_scope(record: CallRepairs) -> Iterator[CallRepairs]:
    """Make ``record`` the current call's record for the block (sync or async code)."""
    token = _CURRENT.set(record)
    try:
        yield record
    finally:
        _CURRENT.reset(token)


def keep_answer_without(name: str, value: object, bound: str) -> bool:
    """On a mode's last attempt inside a manager call, record that ``name`` = ``value``
    (outside ``bound``) is dropped and the answer kept; return whether to do so.

    Outside a manager call, or before the last attempt, returns False: the caller
    raises, and Instructor re-asks with its message.
    """
    record = _CURRENT.get()
    if record is None or not record.last_attempt:
        return False
    record.add(
        f"{name} {value!r} stayed outside {bound} after the re-asks: "
        f"answer kept, {name} recorded as missing"
    )
    return True
