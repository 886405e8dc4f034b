"""Balanced-brace scanning for LaTeX boxes.

Hand-written because no regular expression can match nested braces, and the
scan must stay linear on adversarial input (megabytes of ``\\boxed{``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = [
    "FRACTION",
    "brace_fractions",
    "find_boxes",
    "match_brace",
    "skip_back",
    "skip_forward",
    "unwrap_command",
]

_CHUNK = 4096


def skip_back(text: str, lo: int, hi: int, chars: str | None = None) -> int:
    """``hi`` moved back over trailing ``chars`` (default: whitespace), not below ``lo``.

    Works in chunks with ``str.rstrip`` (C speed): a Python step per character would
    take seconds on megabytes of newlines."""
    while hi > lo:
        start = max(lo, hi - _CHUNK)
        kept = len(text[start:hi].rstrip(chars))
        if kept:
            return start + kept
        hi = start
    return lo


def skip_forward(text: str, lo: int, hi: int, chars: str | None = None) -> int:
    """``lo`` moved forward over leading ``chars`` (default: whitespace), not past ``hi``."""
    while lo < hi:
        end = min(hi, lo + _CHUNK)
        chunk = text[lo:end]
        dropped = len(chunk) - len(chunk.lstrip(chars))
        if dropped < len(chunk):
            return lo + dropped
        lo = end
    return hi


# `\boxed 5` (no braces): the argument is the next run of non-space characters.
_BARE_ARG = re.compile(r"[ \t]+([^\s$\\{}]+)")


def match_brace(text: str, open_at: int, limit: int | None = None) -> int | None:
    """Index of the ``}`` closing the ``{`` at ``open_at``, or None when it is not
    closed before ``limit`` (default: end of text).

    Jumps from one ``}`` to the next with ``str.find`` and counts the ``{`` between
    with ``str.count`` (both in C), so megabytes of ``{`` cost one pass, not a Python
    step per brace; it gives up as soon as the ``}`` left cannot close what is open.
    """
    end = len(text) if limit is None else limit
    closes_left = text.count("}", open_at, end)
    depth = 0
    pos = open_at
    while closes_left:
        close = text.find("}", pos, end)
        depth += text.count("{", pos, close) - text.count("\\{", pos, close)
        closes_left -= 1
        pos = close + 1
        if text[close - 1 : close] == "\\":
            continue  # an escaped brace is a literal
        depth -= 1
        if depth == 0:
            return close
        if depth > closes_left:
            return None
    return None


def _box_markers(text: str, start: int, stop: int) -> Iterator[int]:
    """Where each ``\\boxed`` / ``\\fbox`` of ``text[start:stop]`` starts, last first:
    the matches of the pattern ``\\\\(?:boxed|fbox)\\b``, found with ``str.rfind`` from
    the end, so the usual output, whose last box is its answer, is not read to its start."""
    boxed = text.rfind("\\boxed", start, stop)
    fbox = text.rfind("\\fbox", start, stop)
    while boxed != -1 or fbox != -1:
        # A marker has one backslash, its first character: two never overlap, so the next
        # search ends where this marker starts.
        if boxed > fbox:
            pos, after = boxed, boxed + 6
            boxed = text.rfind("\\boxed", start, boxed)
        else:
            pos, after = fbox, fbox + 5
            fbox = text.rfind("\\fbox", start, fbox)
        # The pattern's closing ``\b``: not "\\boxedx" (``stop`` ends the text for it).
        if after == stop or not (text[after].isalnum() or text[after] == "_"):
            yield pos


def find_boxes(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int, int]]:
    """Complete ``\\boxed{…}`` / ``\\fbox{…}`` boxes in ``text[start:end]``, last first (lazily).

    Each item is ``(marker_start, content_start, content_end)``. A box that is not
    closed is skipped. Linear time: when a later box is unclosed, an earlier box
    can only close before that later box starts, so each stretch is scanned once.
    """
    stop = len(text) if end is None else end
    limit = stop
    for pos in _box_markers(text, start, stop):
        after = text.find("{", pos, min(pos + 8, limit))
        name_end = pos + (6 if text.startswith("\\boxed", pos) else 5)
        if after != -1 and text[name_end:after].strip() == "":
            close = match_brace(text, after, limit)
            if close is None:
                limit = pos  # unclosed: earlier boxes must close before this one
                continue
            yield pos, after + 1, close
        else:
            bare = _BARE_ARG.match(text, name_end, limit)
            if bare:
                yield pos, bare.start(1), bare.end(1)


def unwrap_command(text: str, names: tuple[str, ...]) -> str | None:
    """If ``text`` is entirely ``\\name{…}`` for one of ``names``, return the inside."""
    if not text.startswith("\\"):
        return None
    for name in names:
        prefix = "\\" + name
        if text.startswith(prefix):
            rest = len(prefix)
            while rest < len(text) and text[rest] in " \t":
                rest += 1
            if rest < len(text) and text[rest] == "{":
                close = match_brace(text, rest)
                if close == len(text) - 1:
                    return text[rest + 1 : close]
    return None


# A numeric fraction however LaTeX lets it be written: \frac{1}{2}, \dfrac34, \tfrac{1}2,
# \frac 1 2. An argument without braces is one token: one digit (\frac123 is 1/2 then 3).
#: Groups ``num`` and ``den``: the numerator (with its sign) and the denominator.
FRACTION = re.compile(
    r"\\[dt]?frac\s*(?:\{\s*(?P<num>-?\d+)\s*\}|(?P<num1>\d))"
    r"\s*(?:\{\s*(?P<den>\d+)\s*\}|(?P<den1>\d))"
)
_UNBRACED = re.compile(r"(\\[dt]?frac)\s*(\{[^{}]*\}|[0-9A-Za-z])\s*(\{[^{}]*\}|[0-9A-Za-z])")


def brace_fractions(text: str) -> str:
    """``text`` with every fraction whose arguments are not braced written with braces,
    as LaTeX reads it: ``\\frac12`` and ``\\frac 1 2`` are one half, not twelve.

    >>> brace_fractions("\\dfrac34 + \\frac{1}2")
    '\\dfrac{3}{4} + \\frac{1}{2}'
    """
    if "frac" not in text:
        return text

    def braced(m: re.Match[str]) -> str:
        num, den = (arg if arg.startswith("{") else "{" + arg + "}" for arg in m.group(2, 3))
        return m.group(1) + num + den

    return _UNBRACED.sub(braced, text)
