"""Yes/no answers in any spelling: yes, true, correct; no, false, incorrect."""

from __future__ import annotations

import re

__all__ = ["BOOLEAN_WORD", "boolean_of"]

#: A gold answer that is only a boolean word.
BOOLEAN_WORD = re.compile(r"(?i:yes|no|true|false)")
_BOOLEAN = re.compile(r"(?i:(yes|true|correct)|(no|false|incorrect))\b")


def boolean_of(answer: str) -> bool | None:
    """The truth value an answer starts with ("Yes, because ..." is True), or None."""
    m = _BOOLEAN.match(answer)
    return None if m is None else m.group(1) is not None
