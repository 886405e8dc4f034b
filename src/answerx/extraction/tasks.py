"""Task profiles: how a candidate is validated and normalised for each task.

A rule finds *candidates*; the task's acceptor turns a candidate into the final
answer or rejects it (so the rule tries its next-to-last occurrence). Acceptors
see only the candidate, never the raw output, which keeps them pure.

Each task has two acceptors. The *strict* one (the default of :func:`make_acceptor`)
takes only a candidate of the task's shape: the fallback scans, which have no
marker to go by, need the shape to tell an answer from reasoning, and structured
extraction re-asks on it. The *stated* one (``stated=True``) is for explicit
markers: what a marker states is the answer even when it is wrong or malformed
(``Answer: (11 - 4) * (6 - 2) = 28``, ``32 + 0.8x``, a letter that is not an
option), returned as stated with ``problem`` saying what is wrong with it.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable, Sequence
from typing import NamedTuple, cast

from answerx.errors import UnknownName
from answerx.extraction.cleaning import clean_answer
from answerx.extraction.game24 import as_expression, expression_problem, stated_expression
from answerx.extraction.models import LETTER_CLASS, OPTION_LETTERS, TASKS, Task, option_letters
from answerx.extraction.number_words import words_value
from answerx.extraction.numbers import (
    canonical_number,
    read_european,
    signed_words,
    single_number,
)
from answerx.extraction.option_texts import letter_text_problem, named_option, valued_option
from answerx.extraction.values import comma_is_decimal, value_list

__all__ = [
    "LETTER_LIST",
    "Accepted",
    "Acceptor",
    "check_task",
    "item_task",
    "letter_of",
    "make_acceptor",
    "make_acceptors",
    "several_letters",
]


class Accepted(NamedTuple):
    """A candidate an acceptor took: the answer, its task, and what is wrong with it."""

    answer: str
    task: str
    problem: str | None = None  # None: well-formed
    weak: bool = False  # a doubtful reading (a letter whose text names another option)


#: Takes a raw candidate; returns what it accepted, or None when it is not an answer.
Acceptor = Callable[[str], Accepted | None]

# Made once (an Accepted is immutable): building one per candidate was a measurable
# share of a multiple-choice extraction.
_CHOICE_ANSWERS = {letter: Accepted(letter, "multiple_choice") for letter in OPTION_LETTERS}
# A choice letter as an answer: "B", "(B)", "B)", "B.", "[B]", "(B) the text",
# "B: text", "Option B". Never "A" followed by a word ("A bit more..."): that is prose.
_L = LETTER_CLASS  # the candidate letters; the item's own are kept by option_letters()
_LETTER = re.compile(
    rf"^(?:(?:option|choice)\s*)?(?:\(\s*({_L})\s*\)|\[\s*({_L})\s*\]|({_L})(?=$|[.):\]]|\s*[-–—]\s"
    # "C, and I'll duplicate it as requested": the letter, then a clause about it
    r"|,\s+(?:and|so|because|since|as|which|but)\b))",
    re.IGNORECASE,
)
_STRICT_LETTER = re.compile(rf"^\(?({_L})\)?$")
# A letter written several times, as prompts ask ("duplicate that letter five times"):
# "FFFFF" is F.
_REPEATED_LETTER = re.compile(rf"({_L})\1{{1,9}}")
# Several letters in one answer: "B, C", "(A), (B), (C), or (D)", "A and D", "B、C", "AB".
LETTER_LIST = re.compile(
    rf"\(?{_L}\)?(?:\s*(?:,|，|、|/|&|;|\band\b|\bor\b|和|或|及)\s*(?:and\s+|or\s+)?"
    rf"\(?{_L}\)?(?![A-Za-z]))+"
)
_GLUED_LETTERS = re.compile(rf"{_L}{{2,5}}")
_BARE_FORMS = frozenset(
    form.format(letter) for letter in OPTION_LETTERS for form in ("{}", "({})", "{})", "{}.")
)
# A stated answer that picks no option ("So the answer is (None of the above)."): it is
# the model's answer, so no letter its reasoning mentioned earlier stands in for it. (An
# option whose own text says so was matched by that text first.)
_NO_OPTION = re.compile(
    r"\(?(?:none\s+of\s+(?:the\s+)?(?:above|options|choices|answers|these|them)"
    r"|neither(?:\s+of\s+(?:them|these|the\s+(?:two|options)))?|none)\)?\.?",
    re.IGNORECASE,
)
# A stated letter beyond the options ("The answer is (K)"): only the unmistakable forms.
_ANY_LETTER = re.compile(r"^(?:(?:option|choice)\s*)?[(\[]?([A-Z])[)\]]?[.:]?$", re.IGNORECASE)
_BOOLEAN = re.compile(r"^(yes|no|true|false|correct|incorrect)\b", re.IGNORECASE)
_PLAIN_NUMBER = re.compile(
    r"^[-−]?\s*(?:\\?\$|€|£)?\s*(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?:%|\\%)?$"
)
_THOUSANDS = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_COMMA_PAIR = re.compile(r"[-−]?\d+,\d+")
# What makes a math answer worth reading as a list: a joining word, several formulas, an
# equation followed by more, or set membership.
_LIST_HINT = re.compile(r" and | or |\$.*\$.*\$|=.*[,;]|\\in\b|∈|\\text\{\s*,?\s*(?:and|or)")


def _maybe_list(s: str) -> bool:
    # Substring tests first (the regex is dearer): most math answers have no separator.
    return ("," in s or " and " in s or " or " in s or "\\in" in s or "∈" in s) and (
        _LIST_HINT.search(s) is not None
    )


_SYMBOLS_ONLY = re.compile(r"[\[\](){}<>⟨⟩]+(?:\s+[\[\](){}<>⟨⟩]+)*")
# The value a sentence answer ends on, after its verb: "… is 11.25", "… equals -120 m/s".
_CONCLUDED_VALUE = re.compile(
    r"\b(?:is|are|was|equals|be)\s+(?:approximately\s+|about\s+|roughly\s+)?"
    r"((?:negative\s+|minus\s+)?[-−]?(?:\\?\$|€|£)?\s*\d[\d,]*(?:\.\d+)?"
    r"(?:\s*(?:×|\\times)\s*10\^\(?[-−]?\d+\)?)?\s*%?)"
    r"(?:\s+[A-Za-z][A-Za-z/^()\d-]*){0,2}$"
)
_PROSE = re.compile(r"[A-Za-z]{3,}\s+[A-Za-z]{2,}")
_MATH_HINT = re.compile(r"[\\^_{}=+*/<>]|\d")
# One or two unit words after a number ("72 clips", "12 square feet"), nothing else.
_UNIT_AFTER = re.compile(r"\s+[A-Za-z]{2,}(?:\s+[A-Za-z]{2,})?$")
_SIMPLE_EQUATION = re.compile(r"[A-Za-z]\s*=\s*(.+)")
_MAX_ANSWER_CHARS = 400  # a longer "answer" is a paragraph a rule over-captured


# The task names typed once: check_task runs on every call, a cast() there on every call.
_TASK_NAMES: dict[str, Task] = {name: cast(Task, name) for name in TASKS}


def check_task(task: str) -> Task:
    """Return ``task`` if it is a known task name, else raise ConfigError listing them."""
    try:
        known = _TASK_NAMES.get(task)
    except TypeError:  # not a name at all (a list, a dict)
        known = None
    if known is None:
        raise UnknownName("task", task, TASKS)
    return known


def item_task(
    task: str, choices: Sequence[str] | None = None, numbers: Sequence[int | float] | None = None
) -> Task:
    """``task`` checked, with ``auto`` resolved as far as the item itself says:
    ``multiple_choice`` when it has choices, ``game24`` when it has numbers (``auto``
    otherwise: only grading, which has the gold, reads further).

    >>> item_task("auto", ["red", "blue"]), item_task("auto", numbers=[1, 2, 3, 4])
    ('multiple_choice', 'game24')
    """
    checked = check_task(task)
    if checked != "auto":
        return checked
    return "multiple_choice" if choices else "game24" if numbers else "auto"


def letter_of(candidate: str, choices: Sequence[str] | None = None) -> str | None:
    """The choice letter a cleaned candidate names, or None.

    With ``choices``, the letter must be one of theirs, and an option's text
    (ignoring case, spacing and punctuation) is mapped to its letter.
    """
    if len(candidate) <= 3:  # fast path for the usual "B" / "(B)" / "B)"
        strict = _STRICT_LETTER.match(candidate)
        if strict and strict.group(1) in option_letters(choices):
            return strict.group(1)
    repeated = _REPEATED_LETTER.fullmatch(candidate) if len(candidate) <= 10 else None
    if repeated and repeated.group(1) in option_letters(choices):
        return repeated.group(1)
    m = _LETTER.match(candidate)
    allowed = option_letters(choices)
    if m:
        letter = next(g for g in m.groups() if g)
        # Lower-case "a" is a word, not a choice: only "(a)" or "a)" count.
        if letter.islower() and not (m.group(1) or m.group(2)) and candidate[1:2] != ")":
            letter = ""
        letter = letter.upper()
        if letter and letter in allowed:
            return letter
    if choices:
        wanted = _squash(candidate)
        if wanted:
            index = _squashed(tuple(choices)).get(wanted)
            return None if index is None else OPTION_LETTERS[index]
    return None


_SQUASH = str.maketrans("", "", string.punctuation + " \t\n$")


@functools.lru_cache(maxsize=256)
def _squashed(choices: tuple[str, ...]) -> dict[str, int]:
    """Each option's squashed text and its index (the first, when two squash alike): an
    item's options are compared with many candidates."""
    index: dict[str, int] = {}
    for i, option in enumerate(choices):
        index.setdefault(_squash(option), i)
    return index


def _squash(text: str) -> str:
    return text.lower().translate(_SQUASH)


def make_acceptor(
    task: str,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    *,
    stated: bool = False,
) -> Acceptor:
    """The acceptor for ``task`` (already resolved from "auto" where possible):
    strict (the task's shape only), or ``stated=True`` for explicit markers."""
    accept = (_STATED if stated else _ACCEPTORS)[check_task(task)]
    return lambda candidate: accept(candidate, choices, numbers)


def make_acceptors(
    task: str,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
) -> tuple[Acceptor, Acceptor]:
    """``(stated, strict)``: both acceptors of :func:`make_acceptor` for ``task``, in
    one call (``extract`` needs both for every output)."""
    stated, strict = _STATED[check_task(task)], _ACCEPTORS[task]
    return (
        lambda candidate: stated(candidate, choices, numbers),
        lambda candidate: strict(candidate, choices, numbers),
    )


def _cleaned(candidate: str) -> str | None:
    s = clean_answer(candidate)
    return s if s and len(s) <= _MAX_ANSWER_CHARS else None


def _accept_math(candidate: str, choices: _Choices, numbers: _Numbers) -> Accepted | None:
    s = _cleaned(candidate)
    if not s:
        return None
    if s[0] in "nmNM":
        s = signed_words(s)  # "negative 0.5" is -0.5
    # "2,74", "1 000" and "1,000" are one number each, "-3,4" two (README, "How
    # extraction decides"); "x = -1, x = 2, and x = -2" is the list "-1, 2, -2".
    if "," in s or " " in s or "\\" in s or "~" in s or "$" in s:  # most answers have none
        european = read_european(s)
        if european is not None and _COMMA_PAIR.fullmatch(s) and not comma_is_decimal(s):
            european = None  # "\boxed{-3,4}": two values, not -3.4
        if european is None and _THOUSANDS.fullmatch(s):
            european = s.replace(",", "")
        if european is not None:
            return Accepted(european, "math")
        listed = value_list(s) if _maybe_list(s) else None
        return Accepted(listed or s, "math")
    return Accepted(s, "math")


def _accept_text(candidate: str, choices: _Choices, numbers: _Numbers) -> Accepted | None:
    s = _cleaned(candidate)
    return Accepted(s, "text") if s else None


def _accept_short(candidate: str, choices: _Choices, numbers: _Numbers) -> Accepted | None:
    s = _cleaned(candidate)
    return Accepted(s, "short_answer") if s else None


def _accept_numeric(candidate: str, choices: _Choices, numbers: _Numbers) -> Accepted | None:
    s = _cleaned(candidate)
    # Digits only: a number in words is read by the rules that find one (they check its
    # value here), and a structured answer must be written in digits.
    n = (read_european(s) if "," in s else None) or canonical_number(s) if s else None
    return Accepted(n, "numeric") if n is not None else None


def _stated_numeric(candidate: str, choices: _Choices, numbers: _Numbers) -> Accepted | None:
    s = _cleaned(candidate)
    if not s:
        return None
    value, count = single_number(s)
    if value is not None:
        return Accepted(value, "numeric")
    if count == 0:
        return None  # states no number at all: not an answer to a numeric task
    concluded = _CONCLUDED_VALUE.search(s) if s[-1:].isalnum() or s[-1:] in ")%" else None
    if concluded is not None and _PROSE.search(s, 0, concluded.start()):
        # A sentence that concludes on its value: "that the area under the curve between
        # x=-1 and x=3 is 11.25", "her expected utility is 250", "should be 51,200 bits".
        value, _ = single_number(concluded.group(1))
        if value is not None:
            return Accepted(value, "numeric")
    # "32 + 0.8x", "4 blue, 6 red": never cut down to the first number.
    return Accepted(s, "numeric", "not a single number")


def several_letters(candidate: str, choices: Sequence[str] | None = None) -> list[str] | None:
    """The distinct option letters of an answer that lists several ("B, C", "(A), (B), or
    (D)", "A and D", "B、C"), in order; None when it is not such a list."""
    if len(candidate) < 2 or len(candidate) > 60 or not candidate[:2].strip("([").isupper():
        return None
    if _GLUED_LETTERS.fullmatch(candidate):
        # "AB", "ACD": several letters written together, in order (a word such as "BAD"
        # or a repeated "FFFFF" is not a list of options).
        if list(candidate) != sorted(set(candidate)):
            return None
    elif LETTER_LIST.fullmatch(candidate) is None:
        return None
    letters = list(dict.fromkeys(re.findall(_L, candidate)))
    allowed = option_letters(choices)
    if len(letters) < 2 or any(letter not in allowed for letter in letters):
        return None
    return letters


def _several(letters: list[str]) -> Accepted:
    listed = ", ".join(letters)
    return Accepted(listed, "multiple_choice", f"several options: {listed}")


def _accept_choice(candidate: str, choices: _Choices, numbers: _Numbers) -> Accepted | None:
    s = _cleaned(candidate)
    # (A lone letter, "B" or "(B)", the usual candidate, lists nothing.)
    letters = several_letters(s, choices) if s and s not in _BARE_FORMS else None
    if letters is not None:
        return _several(letters)
    letter = letter_of(s, choices) if s else None
    if s is None:
        return None
    if letter is None:
        # A reply that states one option's value ("… is 2256 square feet."), in any script.
        valued = valued_option(s, choices, reply=True) if choices else None
        return None if valued is None else _CHOICE_ANSWERS[OPTION_LETTERS[valued]]
    return _CHOICE_ANSWERS[letter] if len(s) <= 3 else _lettered(s, letter, choices)


def _lettered(s: str, letter: str, choices: _Choices) -> Accepted:
    """The letter a candidate names; when it comes with another option's text ("(C) March
    and April" where that is B's), the letter (what the model marked), doubted."""
    if len(s) <= 3 or not choices:
        return _CHOICE_ANSWERS[letter]  # "B", "(B)": no option text to check
    problem = letter_text_problem(s, letter, choices)
    if problem is None:
        return _CHOICE_ANSWERS[letter]
    return Accepted(letter, "multiple_choice", problem, weak=True)


def _stated_choice(candidate: str, choices: _Choices, numbers: _Numbers) -> Accepted | None:
    s = _cleaned(candidate)
    if not s:
        return None
    letters = several_letters(s, choices) if s not in _BARE_FORMS else None
    if letters is not None:
        return _several(letters)
    letter = letter_of(s, choices)
    if letter:
        return _CHOICE_ANSWERS[letter] if len(s) <= 3 else _lettered(s, letter, choices)
    if choices:
        named = named_option(s, choices)
        if named is None:  # "2256 square feet" for the option "2256"
            named = valued_option(s, choices)
        if named is not None:  # "Mars", "No, the lamp is shorter than the shelf."
            return _CHOICE_ANSWERS[OPTION_LETTERS[named]]
    if len(s) <= 40 and _NO_OPTION.fullmatch(s):
        return Accepted(s, "multiple_choice", "it states that no option is right")
    if len(s) > 12:
        return None
    m = _ANY_LETTER.match(s)
    if m is None or (m.group(1).islower() and not s.startswith(("(", "["))):
        return None
    letter = m.group(1).upper()
    allowed = option_letters(choices)
    if letter in allowed:
        return None  # an allowed letter letter_of rejected: not a plain statement of it
    return Accepted(letter, "multiple_choice", f"letter {letter} is not an option")


def _accept_boolean(candidate: str, choices: _Choices, numbers: _Numbers) -> Accepted | None:
    s = _cleaned(candidate)
    if s and s[0] in "`'\"‘“":  # "the answer is `True'": a quoted verdict
        s = s.lstrip("`'\"‘“")
    m = _BOOLEAN.match(s) if s else None
    if not m:
        return None
    return Accepted("yes" if m.group(1).lower() in ("yes", "true", "correct") else "no", "boolean")


def _accept_game24(candidate: str, choices: _Choices, numbers: _Numbers) -> Accepted | None:
    s = _cleaned(candidate)
    expr = as_expression(s, numbers) if s else None
    return Accepted(expr, "game24", expression_problem(expr, numbers)) if expr else None


def _stated_game24(candidate: str, choices: _Choices, numbers: _Numbers) -> Accepted | None:
    s = _cleaned(candidate)
    expr = stated_expression(s) if s else None
    return Accepted(expr, "game24", expression_problem(expr, numbers)) if expr else None


def _accept_auto(candidate: str, choices: _Choices, numbers: _Numbers) -> Accepted | None:
    s = _cleaned(candidate)
    if not s:
        return None
    if _STRICT_LETTER.match(s):
        return Accepted(s.strip("()"), "multiple_choice")
    repeated = _REPEATED_LETTER.fullmatch(s) if len(s) <= 10 else None
    if repeated is not None:
        return Accepted(repeated.group(1), "multiple_choice")
    b = _BOOLEAN.match(s)
    if b and b.end() == len(s) and b.group(1).lower() in ("yes", "no"):
        return Accepted(s.lower(), "boolean")
    if s[0] in "nmNM":
        s = signed_words(s)  # "negative 0.5" is -0.5
    equation = _SIMPLE_EQUATION.fullmatch(s)
    if equation is not None and _PLAIN_NUMBER.match(equation.group(1)):
        s = equation.group(1)  # "x = 5": the value
    unit = _UNIT_AFTER.search(s) if s[0].isdigit() or s[0] in "-−$€£" else None
    if unit is not None and _PLAIN_NUMBER.match(s[: unit.start()]):
        s = s[: unit.start()]  # "72 clips", "4.5 hours": the number, whatever it counts
    if _PLAIN_NUMBER.match(s):
        n = canonical_number(s)
        if n is not None:
            return Accepted(n, "numeric")
    elif s[0].isalpha() and len(s) < 60 and words_value(s) is not None:
        return Accepted(s, "numeric")  # "three", "a dozen": a number in words
    if _SYMBOLS_ONLY.fullmatch(s):
        return Accepted(s, "text")  # "] > )": a sequence of symbols, compared as written
    return Accepted(s, ("math" if _MATH_HINT.search(s) else "text"))


_Choices = Sequence[str] | None
_Numbers = Sequence[int | float] | None
_AcceptFn = Callable[[str, _Choices, _Numbers], Accepted | None]
_ACCEPTORS: dict[str, _AcceptFn] = {
    "auto": _accept_auto,
    "math": _accept_math,
    "numeric": _accept_numeric,
    "multiple_choice": _accept_choice,
    "boolean": _accept_boolean,
    "game24": _accept_game24,
    "text": _accept_text,
    "short_answer": _accept_short,  # an open-domain reply: any short text, graded by meaning
}
_STATED: dict[str, _AcceptFn] = _ACCEPTORS | {
    "numeric": _stated_numeric,
    "multiple_choice": _stated_choice,
    "game24": _stated_game24,
}
