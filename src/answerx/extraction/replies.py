"""Short replies that state their answer without a marker.

* ``whole_output``: the whole output (after a ``<think>`` section) is one short line
  that is an answer of the task's shape — ``18``, ``$18.00``, ``x = 5``, ``three``,
  ``roughly 15 years``, ``Mars``, ``(C) March and April``, ``\\dfrac{3}{7}``; for
  ``short_answer`` any short phrase (``The Who``). A DSPy answer field or a terse chat
  reply: it *is* the stated answer, and complete.
* ``leading_answer``: a short reply that opens with its answer — ``No, the lamp is
  shorter than the shelf.`` (options Yes/No, or a yes/no question), ``Mars, because its
  surface is rich in iron oxide.`` (an option's text), ``(B) since …`` (a letter).

Both look only at the region's stripped text, at most a few hundred characters, so
they cost nothing on long outputs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import islice

from answerx.extraction.cleaning import clean_answer
from answerx.extraction.expressions import bare_expression
from answerx.extraction.found import Found, RuleFn, accept_words, found
from answerx.extraction.latex import skip_back, skip_forward
from answerx.extraction.models import LETTER_CLASS, UNLISTED_LETTERS
from answerx.extraction.number_words import stated_number_words
from answerx.extraction.tasks import Acceptor

__all__ = ["leading_answer_rule", "whole_output_rule"]

_MAX_LINE = 80  # a longer line is a sentence or a paragraph, not an isolated answer
_MAX_REPLY = 300  # a longer output opening with "No," is reasoning, not a short reply
_MAX_TEXT_WORDS = 6

# A number as a whole reply: an approximation word, "x =", a sign, currency, the number
# (digits, thousands, decimals, a fraction), percent, then at most three unit words.
_NUMBER_REPLY = re.compile(
    r"(?:(?:about|approximately|approx\.?|roughly|around|nearly|almost|exactly|just|only|"
    r"~|≈)\s*)?(?:[a-z]\s*=\s*)?[-−+]?\s*(?:\\?\$|€|£|¥)?\s*(?:\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?"
    r"|\.\d+|\\[dt]?frac\{\d+\}\{\d+\})\s*(?:%|\\%|€|£)?(?:[ \t]*[a-zµ°][a-z.²³/]*){0,3}"
    r"(?:[ \t]*\([^()\n]{1,40}\))?",  # "3 (three)", "12 (4 groups of 3)"
    re.IGNORECASE,
)
# An ``auto`` reply has no options listed: only their letters.
_LETTER_REPLY = re.compile(rf"[(\[]?[{UNLISTED_LETTERS}][)\].:]?")
_L = LETTER_CLASS  # a multiple-choice reply's candidate letters; the acceptor keeps its own
_LETTER_START = re.compile(rf"\s*[(\[]?{_L}(?:[)\].:,]|\s*$)", re.IGNORECASE)
# A refusal or a hedge anywhere in a short reply: it states no answer.
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:do\s+not|don't|cannot|can't|am\s+not|'m\s+not|am\s+unable|'m\s+unable)|"
    r"not\s+sure|no\s+idea|unknown|unsure|n/a|cannot|can't|unable|sorry|apolog|"
    r"insufficient|not\s+enough|it\s+depends|unclear|no\s+answer|none\b|nothing|not\s+found|"
    r"no\s+(?:results?|information|data|relevant))"
    # A reply about the model itself or the next step: "I'll search again", "Let me check".
    r"|^\s*(?:i|i'm|i've|i'll|i'd|we|we're|we'll|let\s+me|let's|please)\b",
    re.IGNORECASE,
)
_YES_NO = re.compile(r"(yes|no|true|false)\b", re.IGNORECASE)
_LETTER_LINE = re.compile(rf"^[ \t]*(?:\*\*)?\(?{_L}[.)]", re.MULTILINE)
_LEADING_LETTER = re.compile(rf"(?:\*\*)?(?:\(({_L})\)|({_L})[.)])(?:\*\*)?\s+\S")
_MATH_HINT = re.compile(r"[\\^_{}=+*/<>()\[\]]|\d")
# Markup left in a line is no answer: a tag, a box never closed, a JSON key.
_MARKUP = re.compile(r"<\s*/?\s*[A-Za-z]|\\boxed|\\fbox|\"")


def _is_markup(line: str) -> bool:
    """Tags, boxes, quotes, unbalanced braces, or no letter or digit at all."""
    return (
        _MARKUP.search(line) is not None
        or line.count("{") != line.count("}")
        or not any(c.isalnum() for c in line)
    )


# Is a one-line output (cleaned, and as written) an isolated answer of the task?
_Shape = Callable[[str, str], bool]
_PROSE_WORD = re.compile(r"[A-Za-z]{2,}")
_COMMAND = re.compile(r"\\[A-Za-z]+")


def _numeric(line: str, raw: str) -> bool:
    return _NUMBER_REPLY.fullmatch(line) is not None or stated_number_words(line) is not None


def _choice(line: str, raw: str) -> bool:
    # A letter form, a letter with text, an option's text or a few words naming one
    # option: the acceptor decides ("Mars" is an option only if it is one). A reply of
    # two clauses ("No, the lamp is shorter") is leading_answer's.
    return (
        len(line.split()) <= 8
        and not raw.endswith("?")
        and not any(mark in line for mark in (", ", "; ", ". "))
    )


def _short_text(line: str, raw: str) -> bool:
    words = line.split()
    if not words or len(words) > _MAX_TEXT_WORDS or _REFUSAL.search(line):
        return False
    if raw.endswith(("?", ":")) or any(mark in line for mark in (". ", "! ", "? ", "; ")):
        return False  # a question, a lead-in or two sentences
    return len(words) <= 3 or not raw.endswith(".")  # "Paris is the capital." is a sentence


def _auto(line: str, raw: str) -> bool:
    if _numeric(line, raw) or _LETTER_REPLY.fullmatch(line) or _YES_NO.fullmatch(line):
        return True
    if not _short_text(line, raw):
        return False
    # A formula ("x^2 + 1", "y = 2x + 1") or a few words ("New York City"); not a
    # sentence about numbers ("Adding 12 and 30 gives 42").
    if _MATH_HINT.search(line) is not None:
        return len(_PROSE_WORD.findall(_COMMAND.sub(" ", line))) <= 1
    return len(line.split()) <= 4


def _boolean(line: str, raw: str) -> bool:
    return _YES_NO.fullmatch(line) is not None


_MAX_SHORT_ANSWER_WORDS = 10


def _short_answer(line: str, raw: str) -> bool:
    # An open-domain reply is any short phrase ("The Who", "Utah, Nevada, Arizona",
    # "roughly 300000 km per second", "24/10/1945 is my guess"); grading weighs hedges
    # and lists. A refusal states nothing, and a question or a lead-in is no reply.
    words = line.split()
    if not words or len(words) > _MAX_SHORT_ANSWER_WORDS or _REFUSAL.search(line):
        return False
    return not raw.endswith(("?", ":")) and not any(m in line for m in (". ", "! ", "? "))


_SHAPES: dict[str, _Shape] = {
    "auto": _auto,
    "numeric": _numeric,
    "multiple_choice": _choice,
    "boolean": _boolean,
    "text": _short_text,
    "short_answer": _short_answer,
}


def _stripped(text: str, lo: int, hi: int) -> tuple[int, int]:
    end = skip_back(text, lo, hi)
    return skip_forward(text, lo, end), end


def whole_output_rule(task: str) -> RuleFn | None:
    """The ``whole_output`` rule of ``task`` (None for ``game24``, whose line scan reads
    a lone expression already). ``math`` takes an output that is one expression."""
    if task == "math":
        return _whole_expression
    shape = _SHAPES.get(task)
    if shape is None:
        return None

    def whole_output(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
        """The whole region, when it is one short line of the task's answer shape."""
        start, end = _stripped(text, lo, hi)
        if not 0 < end - start <= _MAX_LINE or "\n" in text[start:end]:
            return None
        line = clean_answer(text[start:end])
        if not line or _is_markup(line) or not shape(line, text[start:end]):
            return None
        if shape is _numeric and not any(c.isdigit() for c in line):
            got = accept_words(text[start:end], accept)  # "three", "about twenty years"
        else:
            got = accept(text[start:end])
        return found(got, text, start, end, start, end) if got else None

    return whole_output


def _whole_expression(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The whole region, when it is one mathematical expression (or a number in words)."""
    start, end = _stripped(text, lo, hi)
    if end <= start:
        return None
    if end - start <= _MAX_LINE and stated_number_words(text[start:end]) is not None:
        got = accept_words(text[start:end], accept)  # "three"
    else:
        got = bare_expression(text, start, end, accept)
    if got is None and end - start <= _MAX_LINE and "\n" not in text[start:end]:
        return _number_reply(text, start, end, accept)  # "roughly 300000 km per second"
    return found(got, text, start, end, start, end) if got else None


_REPLY_NUMBER = re.compile(
    r"[-−]?\s*(?:\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?|\.\d+|\\[dt]?frac\{\d+\}\{\d+\})"
)


def _number_reply(text: str, start: int, end: int, accept: Acceptor) -> Found | None:
    """A one-line reply that is a number with its approximation word and units: the
    number, signed, is the stated answer."""
    line = text[start:end]
    if _NUMBER_REPLY.fullmatch(clean_answer(line)) is None:
        return None
    number = _REPLY_NUMBER.search(line)
    if number is None:
        return None
    got = accept(number.group())
    if got is None:
        return None
    return found(got, text, start + number.start(), start + number.end(), start, end)


def leading_answer_rule(task: str) -> RuleFn | None:
    """The ``leading_answer`` rule of ``task``: ``multiple_choice`` (an option's text or a
    letter the reply opens with), ``boolean`` and ``auto`` (yes or no); None for others.
    Runs with the task's strict acceptor: the opening must be an answer as it stands."""
    if task not in ("multiple_choice", "boolean", "auto"):
        return None
    letters = task == "multiple_choice"

    def leading_answer(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
        """A short reply's opening answer, up to a separator that follows it."""
        start, end = _stripped(text, lo, hi)
        if not 0 < end - start <= _MAX_REPLY:
            return None
        if letters:
            letter = _LEADING_LETTER.match(text, start, end)
            # "A. … \nB. … \nC. …" goes through the options; it does not answer with A.
            if letter is not None and not _LETTER_LINE.search(text, letter.end(), end):
                group = 1 if letter.group(1) else 2
                got = accept(letter.group(group))
                if got:
                    return found(got, text, letter.start(group), letter.end(group), start, end)
        else:
            head = _YES_NO.match(text, start, end)
            if head is None or _SEPARATOR.match(text, head.end(), end) is None:
                return None
            if _REFUSAL.search(text, head.end(), end):
                return None  # "No, I don't know.", "No, sorry": a refusal, not a "no"
            got = accept(head.group())
            return found(got, text, start, head.end(), start, head.end()) if got else None
        # An option's text up to one of the first separators ("Paris, France, because"); a
        # lone letter before a separator is not one ("A: The question is ambiguous").
        for sep in islice(_SEPARATOR.finditer(text, start, min(end, start + _MAX_LINE)), 4):
            opening = text[start : sep.start()]
            got = accept(opening) if not _LETTER_START.match(opening) else None
            if got:
                return found(got, text, start, sep.start(), start, sep.start())
        return None

    return leading_answer


_SEPARATOR = re.compile(r"\s*(?:[,.;:!—–]|\s-\s)")
