"""The multiple-choice phrases besides "the answer is": :func:`choice_phrase` reads the
letter after "the correct option letter is D", "The correct option is (B)", "Correct
choice: C", "I choose B", "I'll go with option C", and before "Option D is right.",
"(B) is the correct answer". (Option *texts* are read by ``options.py``.)"""

from __future__ import annotations

import re

from answerx.extraction.found import Found, found, last_matches
from answerx.extraction.latex import skip_back, skip_forward
from answerx.extraction.sentences import NOT_AN_ANSWER, take_sentence
from answerx.extraction.tasks import Acceptor

__all__ = ["choice_phrase", "final_option_text"]

# Matched on the lowercased text. Each alternative ends where the stated choice starts.
_PHRASE = re.compile(
    # "the correct option letter is D", "my choice would be (C)", "Correct choice: B"
    r"\b(?:(?:the|my|our)\s+)?(?:(?:correct|right|best|final|only\s+correct|most\s+"
    r"(?:likely|appropriate|plausible|suitable))\s+)?(?:option(?:\s+letter)?|choice|"
    r"alternative|letter|answer\s+(?:choice|option|letter))\s*(?:\*\*)?\s*(?:is|would\s+be|"
    r"should\s+be|must\s+be|will\s+be)(?:\*\*)?\s*:?"
    # A colon only after a verdict word or at a line's start: not "consider each choice:"
    r"|(?:\b(?:correct|right|best|final|my|our|selected|chosen)\s+|^[ \t]*(?:\*\*)?)"
    r"(?:option(?:\s+letter)?|choice|alternative|letter)\s*(?:\*\*)?\s*:(?:\*\*)?"
    # "I choose B", "I'll go with (C)", "we would pick option D", "Let's go with B"
    r"|\b(?:i|we)(?:'d|'ll|\s+would|\s+will|\s+shall|'m\s+going\s+to|\s+am\s+going\s+to)?"
    r"\s+(?:choose|pick|select|go\s+with|opt\s+for)\b\s*:?|\blet's\s+go\s+with\b"
    # "So it's D", "that would be (B)": the acceptor takes only a letter or an option.
    r"|\b(?:it|that)(?:'s|\s+is|\s+would\s+be|\s+must\s+be|\s+should\s+be)\b",
    re.MULTILINE,
)
# "Option D is right.", "(B) is the correct answer.", "D is correct": the letter comes
# first, and the sentence must end there ("A is correct only if..." is not a verdict).
_LETTER_IS_RIGHT = re.compile(
    r"(?:\b(?:option|choice|answer)\s+)?(\(?)\b([a-j])\b\)?(?:\*\*)?\s+is\s+(?:the\s+)?"
    r"(?:correct|right|best|true)(?:\s+(?:one|answer|option|choice))?(?:\*\*)?"
    r"(?=\s*(?:[.!;\n]|$|,?\s*(?:because|since|as)\b))"
)
_MAX_WORDS = 10  # a letter, or a letter and its option's text
_HINTS = (
    "option", "choice", "letter", "choose", "pick", "select", " go with", "opt for", "it", "that",
)  # fmt: skip
_HINTS_LETTER_FIRST = ("correct", "right", "best", "true")


def choice_phrase(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last choice stated by a choice phrase ("the correct option is (B)", "I choose
    B", "Option D is right."), the later of the two forms when both appear."""
    best: Found | None = None
    if any(hint in lower for hint in _HINTS):
        best = _after_phrase(text, lower, lo, hi, accept)
    if any(hint in lower for hint in _HINTS_LETTER_FIRST):
        first = _letter_first(text, lower, lo, hi, accept)
        if first is not None and (best is None or first.end > best.end):
            best = first
    return best


def _after_phrase(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    for m in last_matches(_PHRASE, lower, lo, hi):
        c0, c1 = take_sentence(text, m.end(), hi)
        if c1 <= c0 or NOT_AN_ANSWER.match(lower, c0) or lower.count(" ", c0, c1) > _MAX_WORDS:
            continue  # "I choose to look at (A) first, since ..." states no choice
        got = accept(text[c0:c1])
        if got:
            return found(got, text, c0, c1, m.start(), c1)
    return None


def _letter_first(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    for m in last_matches(_LETTER_IS_RIGHT, lower, lo, hi):
        letter_at = m.start(2)
        # A lower-case letter is a word ("a is..."), unless it is "(b)" or "option b".
        if text[letter_at].islower() and not (m.group(1) or m.start(2) > m.start()):
            continue
        got = accept(text[letter_at].upper())
        if got:
            return found(got, text, letter_at, letter_at + 1, m.start(), m.end())
    return None


_SENTENCE_START = re.compile(r"[.!?\n][\s*_]*")
_WORD_START = re.compile(r"(?<![\w'’-])\w")
_ENUMERATION = re.compile(r",.*,|\bor\b|\beither\b|\bnot\b|\bneither\b")
_MAX_OPTION_WORDS = 8
_A_LETTER = re.compile(r"(?:option\s+|choice\s+)?[(\[]?[A-J](?:[)\].:,]|\s|$)", re.IGNORECASE)
_LAST_SENTENCE = 300


def final_option_text(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The option whose whole text ends a short reply's last sentence ("… the planet with
    the large rings is Saturn."), the longest such; not in an enumeration of options ("…
    Venus, Mars, or Saturn") nor after a negation. The sentence must end with a period:
    a long output, or one that stops on an option's words, is more often reasoning cut
    there than a reply."""
    end = skip_back(text, lo, hi, _TRAILING)
    if end - skip_forward(text, lo, end) > _LAST_SENTENCE or "." not in text[end:hi]:
        return None  # a sentence that ends ("… is Saturn."), not words cut off ("… is Sat")
    start = max(lo, end - _LAST_SENTENCE)
    stops = list(_SENTENCE_START.finditer(text, start, end))
    if stops:
        start = stops[-1].end()
    if end <= start or _ENUMERATION.search(lower, start, end):
        return None
    words = [m.start() for m in _WORD_START.finditer(text, start, end)]
    for at in words[-_MAX_OPTION_WORDS:]:  # the longest suffix first
        if _A_LETTER.match(text, at, end):
            continue  # "vitamin B", "B) is the one": letters are choice_letter's to read
        got = accept(text[at:end])
        if got:
            return found(got, text, at, end, at, end)
    return None


_TRAILING = " \t\r\n.*_\"'"
