"""Multiple choice: an answer names a choice by its letter or by its option's text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from answerx.extraction.models import LETTER_CLASS, UNLISTED_LETTERS
from answerx.extraction.tasks import letter_of

__all__ = ["STRICT_LETTER", "choice_of"]

#: A gold answer that is only a letter, ``B`` or ``(B)``, read as an option without the
#: item's choices (so only the letters an unlisted item has: a gold "K" is a unit).
STRICT_LETTER = re.compile(rf"\(?[{UNLISTED_LETTERS}]\)?")
_BARE_LETTER = re.compile(rf"[\s(\[]*({LETTER_CLASS})[\s)\].:]*", re.IGNORECASE)


def choice_of(
    answer: str, choices: Sequence[str] | None
) -> tuple[str, Literal["letter", "option_text"]] | None:
    """(letter, how) for an answer naming a choice: a letter form, or an option's text."""
    bare = _BARE_LETTER.fullmatch(answer)
    if bare:  # "b", "(B)", "B." — a lone letter is a choice letter whatever its case
        return bare.group(1).upper(), "letter"
    letter = letter_of(answer)
    if letter:
        return letter, "letter"
    letter = letter_of(answer, choices) if choices else None
    return (letter, "option_text") if letter else None
