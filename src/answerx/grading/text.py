"""SQuAD-style text comparison: case, punctuation, articles and spacing do not count."""

from __future__ import annotations

import re
import string

__all__ = ["ARTICLES", "drop_articles", "normalize_text", "same_text"]

#: The articles SQuAD's normalisation drops (every short-answer measure drops these).
ARTICLES = frozenset({"a", "an", "the"})
_ARTICLES = re.compile(rf"\b(?:{'|'.join(sorted(ARTICLES))})\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def drop_articles(text: str) -> str:
    """``text`` (lower case) with its articles dropped and single spaces, as SQuAD does.

    >>> drop_articles("the cat and a hat")
    'cat and hat'
    """
    return " ".join(_ARTICLES.sub(" ", text).split())


def normalize_text(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces.

    >>> normalize_text("  The  Quick, brown FOX! ")
    'quick brown fox'
    """
    return drop_articles(text.lower().translate(_PUNCTUATION))


def same_text(answer: str, gold: str) -> bool:
    """True when both normalise to the same non-empty text; a gold made only of symbols
    (a Dyck sequence "] > )", an operator, an arrow), which normalisation would empty,
    is compared as written, whitespace aside.

    >>> same_text("]>)", "] > )"), same_text("] )", "] > )")
    (True, False)
    """
    normal = normalize_text(gold)
    if not normal:
        written = "".join(gold.split())
        return bool(written) and "".join(answer.split()) == written
    return normalize_text(answer) == normal
