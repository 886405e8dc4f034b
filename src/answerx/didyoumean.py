"""The did-you-mean of every "unknown name" message: the valid name a typo was meant to be.

A bottom-layer utility (standard library only), used by :class:`answerx.errors.UnknownName`
and by the YAML error formatter (:mod:`answerx.support.yamlerrors`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["suggest"]


def suggest(word: str, options: Iterable[str]) -> str | None:
    """The option ``word`` was most likely meant to be, or None when none is close.

    difflib finds the candidates; they are ranked by edit distance counting a
    swap of two neighbours as one edit, as difflib alone ranks ``modle`` nearer
    ``modes`` than ``model``.

    >>> suggest("modle", ["model", "modes", "name"])
    'model'
    """
    candidates = difflib.get_close_matches(word, list(options), n=5, cutoff=0.6)
    if not candidates:
        return None
    return min(candidates, key=lambda c: _edits(word.lower(), c.lower()))


def _edits(a: str, b: str) -> int:
    """Optimal-string-alignment distance: insertions, deletions, substitutions, swaps."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(
                rows[i - 1][j] + 1,
                row[j - 1] + 1,
                rows[i - 1][j - 1] + (a[i - 1] != b[j - 1]),
            )
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]
