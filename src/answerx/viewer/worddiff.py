"""Two outputs' difference, word by word, as HTML: what only the first says in ``<del>``,
what only the second says in ``<ins>``, the rest as it is.

The standard library's :class:`difflib.SequenceMatcher` matches the words (runs of word
characters, of other characters, and of whitespace, so the text reads back unchanged).
Its cost grows with the product of the lengths, so each output is compared up to
:data:`DIFF_WORDS` words, and the page says where it stopped.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from markupsafe import Markup, escape

__all__ = ["DIFF_WORDS", "word_diff"]

#: Words of each output compared at most (about 15 KB of text each).
DIFF_WORDS = 3_000
_WORDS = re.compile(r"\s+|\w+|[^\w\s]")


def word_diff(first: str, second: str, limit: int = DIFF_WORDS) -> tuple[Markup, bool]:
    """The word diff of ``first`` and ``second`` (escaped; ``<del>``: only in the first,
    ``<ins>``: only in the second), and whether either was cut at ``limit`` words.

    >>> html, cut = word_diff("the answer is 12", "the answer is 13")
    >>> str(html), cut
    ('the answer is <del>12</del><ins>13</ins>', False)
    """
    a, b = _WORDS.findall(first), _WORDS.findall(second)
    cut = len(a) > limit or len(b) > limit
    a, b = a[:limit], b[:limit]
    parts: list[Markup] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b).get_opcodes():
        if tag == "equal":
            parts.append(escape("".join(a[i1:i2])))
            continue
        if i2 > i1:
            parts.append(Markup("<del>{}</del>").format("".join(a[i1:i2])))
        if j2 > j1:
            parts.append(Markup("<ins>{}</ins>").format("".join(b[j1:j2])))
    return Markup("").join(parts), cut
