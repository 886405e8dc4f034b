"""Options named by their text, where a marker states an answer to a multiple-choice item.

* :func:`named_option` — the whole text ("Mars"), the text a reply opens with ("No, the
  lamp is shorter than the shelf."), or the one option a short answer mentions ("the
  planet Mars"); DSPy answer fields and short chat replies look like this;
* :func:`letter_text_problem` — a letter given with the text of *another* option
  ("(C) March and April" when that is B's text): the letter is what the model marked,
  and the mismatch is reported.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from answerx.extraction.models import LETTER_CLASS, OPTION_LETTERS
from answerx.extraction.numbers import canonical_number

__all__ = ["letter_text_problem", "named_option", "option_at_start", "valued_option"]

_SEPARATORS = frozenset(",.;:!?)—–-")
_MAX_NAMED_CHARS = 80  # a longer text "mentioning" an option is an explanation
_MAX_OTHER_WORDS = 3
_TOKEN = re.compile(r"\w+(?:[.,/]\w+)*")
_NEGATION = frozenset(("not", "no", "never", "neither", "nor", "except", "isn", "t", "without"))
_LETTER_WITH_TEXT = re.compile(
    rf"^\s*(?:option\s+)?[(\[]?\s*({LETTER_CLASS})\s*[)\]:.]?\s*[-–—:]?\s+(\S.*)$"
)


def _normalised(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .")


class _Options(NamedTuple):
    """The options of an item, prepared once (an item's candidates are many)."""

    texts: tuple[str, ...]  # normalised
    initials: frozenset[str]  # their first characters: most candidates start with none
    words: tuple[tuple[str, ...], ...]
    first_words: tuple[str, ...]  # a candidate naming an option holds its first word
    phrases: tuple[str, ...]  # each option's words, joined and padded with spaces
    most_words: int
    negations: frozenset[str]  # negation words that are no option's word


@functools.lru_cache(maxsize=256)
def _prepared(choices: tuple[str, ...]) -> _Options:
    words = tuple(tuple(t.lower() for t in _TOKEN.findall(option)) for option in choices)
    texts = tuple(_normalised(option) for option in choices)
    return _Options(
        texts,
        frozenset(text[:1] for text in texts),
        words,
        tuple({w[0] for w in words if w}),
        tuple(" " + " ".join(w) + " " for w in words),
        max((len(w) for w in words), default=0),
        _NEGATION.difference(*words),  # "No" is no negation where it is an option
    )


def option_at_start(candidate: str, choices: Sequence[str]) -> int | None:
    """The index of the option whose text ``candidate`` opens with, followed by the end or
    a separator ("No, the lamp is shorter" opens with "No"); the longest such option."""
    options = _prepared(tuple(choices))
    if candidate.lstrip()[:1].lower() not in options.initials:
        return None  # the usual rejected candidate: no option starts like it
    s = _normalised(candidate)
    best: int | None = None
    best_len = 0
    for i, o in enumerate(options.texts):
        if o and len(o) > best_len and s.startswith(o):
            rest = s[len(o) :]
            if not rest or rest[0] in _SEPARATORS or (rest[0] == " " and rest[1:2] == "-"):
                best, best_len = i, len(o)
    return best


def named_option(candidate: str, choices: Sequence[str]) -> int | None:
    """The index of the one option a stated answer names by its text: the text a reply
    opens with ("No, it is second from the right."), else the only option a short
    answer mentions as whole words ("the planet Mars"); None when it names none or more
    than one ("either Venus or Mars")."""
    start = option_at_start(candidate, choices)
    if start is not None or len(candidate) > _MAX_NAMED_CHARS:
        return start
    options = _prepared(tuple(choices))
    lowered = candidate.lower()
    if not any(word in lowered for word in options.first_words):
        return None  # the usual rejected candidate names no option at all
    words = [t.lower() for t in _TOKEN.findall(lowered)]
    if not words or len(words) > options.most_words + _MAX_OTHER_WORDS:
        return None
    if options.negations.intersection(words):
        return None  # "not Mars", "neither Venus nor Mars"
    joined = " " + " ".join(words) + " "
    # Whole words in order: " mars " in " the planet mars " (a C-speed substring test).
    named = [(i, o) for i, o in enumerate(options.phrases) if len(o) > 2 and o in joined]
    named = [(i, o.strip()) for i, o in named]
    # An option inside a longer named one ("Mars" in "Mars and Venus") is not named.
    named = [(i, o) for i, o in named if not any(o != p and o in p for _, p in named)]
    if len(named) != 1:
        return None
    # The option's text and a few words around it ("the planet Mars"), no other value.
    rest = len(words) - len(named[0][1].split())
    others = " ".join(words).replace(named[0][1], " ", 1)
    if rest > _MAX_OTHER_WORDS or any(c.isdigit() for c in others):
        return None
    return named[0][0]


def letter_text_problem(candidate: str, letter: str, choices: Sequence[str] | None) -> str | None:
    """What is wrong when a letter comes with the text of another option: ``"(C) March and
    April"`` where that text is option B's; None when the text is the letter's own, or
    names no option."""
    if not choices:
        return None
    m = _LETTER_WITH_TEXT.match(candidate)
    if m is None or m.group(1) != letter:
        return None
    rest = _normalised(m.group(2))
    for i, option in enumerate(choices):
        if _normalised(option) == rest and OPTION_LETTERS[i] != letter:
            return f"letter {letter}, but {option!r} is option {OPTION_LETTERS[i]}"
    return None


_MAX_VALUED_CHARS = 160  # a short reply; a longer text quotes several options' values
# What an option may hold besides its number: a currency, a unit in any script ("米",
# "square feet", "cm²"), a percent. Two or more numbers make it no single value.
_OPTION_UNIT = re.compile(r"[^\d]{0,24}")
# A number in any script's text: "4.40米" has no word boundary between the two.
_DIGIT = re.compile(r"\d")
_FORMULA = re.compile(r"[$=\\^]")
_CONCLUDED = re.compile(
    r"(?:\bis|\bequals|=|为|為|是|等于|等於)\s*([-−]?\d+(?:,\d{3})*(?:\.\d+)?)(?![\d.,]*\d)[^\d]{0,24}$"
)
_VALUE = re.compile(r"(?<![\d.,A-Za-z])[-−]?\d+(?:,\d{3})*(?:\.\d+)?(?![\d,A-Za-z]|\.\d)")
# A reply that ends on one value and its unit ("The area is 2256 square feet", "10 m/s"):
# no formula, and nothing but unit words after the number.
_ENDS_ON_A_VALUE = re.compile(
    r"[^$=\\^(){}\[\]]{0,80}?[-−]?\d[\d,.]*\s*[^\d$=\\^\s]*(?:\s+[^\d\s]+){0,2}"
)


@functools.lru_cache(maxsize=256)
def _option_values(choices: tuple[str, ...]) -> tuple[str | None, ...]:
    """Each option's value when the option is one number (with a unit or currency in any
    script: "4.40米", "$2,256", "191.5 square feet"), else None."""
    values: list[str | None] = []
    for option in choices:
        found = list(_VALUE.finditer(option))
        rest = _VALUE.sub(" ", option) if len(found) == 1 else ""
        values.append(
            canonical_number(found[0].group()) if len(found) == 1 and _OPTION_UNIT.fullmatch(rest)
            else None
        )  # fmt: skip
    return tuple(values)


def valued_option(candidate: str, choices: Sequence[str], *, reply: bool = False) -> int | None:
    """The index of the one option whose value a short reply states ("The area of the
    figure is 2256 square feet." with options 191.5 / 1128 / 2256 / 4512; "4.40 meters"
    for the option "4.40米"); None when the reply states no option's value, or the values
    of several ("1128 * 2 = 2256") without concluding on one. ``reply``: the candidate was
    found without a marker (a fallback, a reply's opening words), so it must end on its
    value and hold no formula ("We have $-2(x" names no option "-2")."""
    if len(candidate) > _MAX_VALUED_CHARS or _DIGIT.search(candidate) is None:
        return None  # the usual rejected candidate: no number at all
    if reply and (_FORMULA.search(candidate) or not _ENDS_ON_A_VALUE.fullmatch(candidate)):
        return None  # read without a marker: only a reply that ends on its value
    values = _option_values(tuple(choices))
    if values.count(None) == len(values):
        return None  # no option is a number
    stated = {canonical_number(m.group()) for m in _VALUE.finditer(candidate)}
    named = {i for i, value in enumerate(values) if value is not None and value in stated}
    if len(stated) > 1:
        # Several numbers: only the one the reply concludes on counts ("物体5秒末的速度为
        # 10 m/s", "after 5 s the speed is 10 m/s"), when it ends on it; a reply that
        # names two values ("between $268,000 and $100,000") names no option.
        concluded = _CONCLUDED.search(candidate)
        value = canonical_number(concluded.group(1)) if concluded is not None else None
        named = {i for i, v in enumerate(values) if v is not None and v == value}
    if len(named) != 1:
        return None  # a reply that works with several numbers is reasoning, not a reply
    return named.pop()
