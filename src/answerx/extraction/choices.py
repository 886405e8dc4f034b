"""The multiple-choice phrases besides "the answer is": :func:`choice_phrase` reads the
letter after "the correct option letter is D", "The correct option is (B)", "Correct
choice: C", "I choose B", "I'll go with option C", and before "Option D is right.",
"(B) is the correct answer". (Option *texts* are read by ``options.py``.)"""

from __future__ import annotations

import re
from collections.abc import Iterator

from answerx.extraction.found import Found, found, keyword_hits
from answerx.extraction.latex import skip_back, skip_forward
from answerx.extraction.models import UNLISTED_LETTERS
from answerx.extraction.sentences import NOT_AN_ANSWER, take_sentence
from answerx.extraction.tasks import Acceptor

__all__ = ["choice_phrase", "final_option_text"]

# Matched on the lowercased text, anchored at a keyword found with rfind (a pattern of many
# alternatives run over prose costs about a microsecond a character): each ``_TAILS`` entry
# reads from its keyword to where the stated choice starts; ``_HEADS`` says what must (or,
# for the nouns, may) come before the keyword.
_NOUN = r"(?:option(?:\s+letter)?|choice|alternative|letter)\s*(?:\*\*)?\s*"
_TAILS = {
    # "the correct option letter is D", "my choice would be (C)", "Correct choice: B"
    "noun": re.compile(
        _NOUN + r"(?:is|would\s+be|should\s+be|must\s+be|will\s+be)\b(?:\*\*)?\s*:?"
    ),
    "noun-colon": re.compile(_NOUN + r":(?:\*\*)?"),
    # "I choose B", "I'll go with (C)", "we would pick option D", "Let's go with B"
    "verb": re.compile(r"(?:choose|pick|select|go\s+with|opt\s+for)\b\s*:?"),
    # "So it's D", "that would be (B)": the acceptor takes only a letter or an option.
    "pronoun": re.compile(r"(?:it|that)(?:'s|\s+is|\s+would\s+be|\s+must\s+be|\s+should\s+be)\b"),
}
_HEADS = {
    "noun": re.compile(
        r"(?:\b(?:the|my|our)\s+)?(?:\b(?:correct|right|best|final|only\s+correct|most\s+"
        r"(?:likely|appropriate|plausible|suitable))\s+)?(?:\banswer\s+)?$"
    ),
    # A colon only after a verdict word or at a line's start: not "consider each choice:"
    "noun-colon": re.compile(
        r"(?:\b(?:correct|right|best|final|my|our|selected|chosen)\s+|(?:^|\n)[ \t]*(?:\*\*)?)$"
    ),
    "verb": re.compile(
        r"(?:\b(?:i|we)(?:'d|'ll|\s+would|\s+will|\s+shall|'m\s+going\s+to|\s+am\s+going\s+to)?"
        r"|\blet's)\s+$"
    ),
    "pronoun": re.compile(r"(?:^|\W)$"),
}
_KINDS = {
    "option": ("noun", "noun-colon"), "choice": ("noun", "noun-colon"),
    "alternative": ("noun", "noun-colon"), "letter": ("noun", "noun-colon"),
    "choose": ("verb",), "pick": ("verb",), "select": ("verb",), "go with": ("verb",),
    "opt for": ("verb",), "it's": ("pronoun",), "it is": ("pronoun",),
    "it would": ("pronoun",), "it must": ("pronoun",), "it should": ("pronoun",),
    "that is": ("pronoun",), "that's": ("pronoun",), "that would": ("pronoun",),
    "that must": ("pronoun",), "that should": ("pronoun",),
}  # fmt: skip
_KEYWORDS = tuple(_KINDS)
_HEAD_REACH = 48
_LETTER_REACH = 32
_PROBES = 48  # keyword occurrences looked at, from the end
# "Option D is right.", "(B) is the correct answer.", "D is correct": the letter comes
# first (read back from the verdict word), and the sentence must end there ("A is correct
# only if..." is not a verdict).
_LETTER_BEFORE = re.compile(
    r"(?:\b(?:option|choice|answer)\s+)?(\(?)\b([a-j])\b\)?(?:\*\*)?\s+is\s+(?:the\s+)?$"
)
_VERDICT = re.compile(
    r"(?:correct|right|best|true)(?:\s+(?:one|answer|option|choice))?(?:\*\*)?"
    r"(?=\s*(?:[.!;\n]|$|,?\s*(?:because|since|as)\b))"
)
_VERDICT_WORDS = (" correct", " right", " best", " true")
_MAX_WORDS = 10  # a letter, or a letter and its option's text


def choice_phrase(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last choice stated by a choice phrase ("the correct option is (B)", "I choose
    B", "Option D is right."), the later of the two forms when both appear."""
    best = _after_phrase(text, lower, lo, hi, accept)
    first = _letter_first(text, lower, lo, hi, accept)
    if first is not None and (best is None or first.end > best.end):
        best = first
    return best


def _phrase_markers(lower: str, lo: int, hi: int) -> Iterator[tuple[int, int]]:
    """(marker start, answer start) of the choice phrases, last first."""
    for at, keyword in keyword_hits(lower, lo, hi, _KEYWORDS, _PROBES):
        for kind in _KINDS[keyword]:
            tail = _TAILS[kind].match(lower, at, hi)
            if tail is None:
                continue
            head = _HEADS[kind].search(lower, max(lo, at - _HEAD_REACH), at)
            if head is None and not (at == lo and kind != "verb"):
                continue  # a verb needs its subject ("I choose"); at the region's start
                # the pattern's "^" cannot match, but a noun or pronoun may stand there
            yield (head.start() if head is not None else at), tail.end()
            break


def _after_phrase(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    for start, after in _phrase_markers(lower, lo, hi):
        c0, c1 = take_sentence(text, after, hi)
        if c1 <= c0 or NOT_AN_ANSWER.match(lower, c0) or lower.count(" ", c0, c1) > _MAX_WORDS:
            continue  # "I choose to look at (A) first, since ..." states no choice
        got = accept(text[c0:c1])
        if got:
            return found(got, text, c0, c1, start, c1)
    return None


def _letter_first(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    for at, _ in keyword_hits(lower, lo, hi, _VERDICT_WORDS, _PROBES):
        verdict = _VERDICT.match(lower, at + 1, hi)
        if verdict is None:
            continue  # "correct only if", "the right side": no verdict that ends there
        # The letter right before "is (the)": a few characters back, read by a small search.
        letter = _LETTER_BEFORE.search(lower, max(lo, at + 1 - _LETTER_REACH), at + 1)
        if letter is None:
            continue
        letter_at = letter.start(2)
        # A lower-case letter is a word ("a is..."), unless it is "(b)" or "option b".
        if text[letter_at].islower() and not (letter.group(1) or letter_at > letter.start()):
            continue
        got = accept(text[letter_at].upper())
        if got:
            return found(got, text, letter_at, letter_at + 1, letter.start(), verdict.end())
    return None


# (Not after a lone capital: "8:10 P.M." and "U.S." end no sentence.)
_SENTENCE_START = re.compile(r"(?<!\b[A-Z])[.!?\n。！？][\s*_]*")
_WORD_START = re.compile(r"(?<![\w'’-])\w")
_ENUMERATION = re.compile(r",.*,|\bor\b|\beither\b|\bnot\b|\bneither\b")
_MAX_OPTION_WORDS = 8
# (The first ten letters only: the pattern ignores case, and "I", "x" or "s" open many an
# option's words; a later letter is still choice_letter's to read as a letter.)
_A_LETTER = re.compile(
    rf"(?:option\s+|choice\s+)?[(\[]?[{UNLISTED_LETTERS}](?:[)\].:,]|\s|$)", re.IGNORECASE
)
_LAST_SENTENCE = 300


def final_option_text(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The option whose whole text ends a short reply's last sentence ("… the planet with
    the large rings is Saturn."), the longest such; not in an enumeration of options ("…
    Venus, Mars, or Saturn") nor after a negation. The sentence must end with a period:
    a long output, or one that stops on an option's words, is more often reasoning cut
    there than a reply."""
    end = skip_back(text, lo, hi, _TRAILING)
    if end - skip_forward(text, lo, end) > _LAST_SENTENCE or not _ENDS_SENTENCE.search(
        text, end, hi
    ):
        return None  # a sentence that ends ("… is Saturn."), not words cut off ("… is Sat")
    start = max(lo, end - _LAST_SENTENCE)
    stops = list(_SENTENCE_START.finditer(text, start, end))
    if stops:
        start = stops[-1].end()
    if end <= start or _ENUMERATION.search(lower, start, end):
        return None
    words = [m.start() for m in _WORD_START.finditer(text, start, end)]
    # A reply with formulas is worked reasoning: a value ending it is a step, not a choice.
    worked = text.find("$", lo, hi) != -1 or text.find("\\", lo, hi) != -1
    for at in words[-_MAX_OPTION_WORDS:]:  # the longest suffix first
        if _A_LETTER.match(text, at, end):
            continue  # "vitamin B", "B) is the one": letters are choice_letter's to read
        if worked and any(c.isdigit() for c in text[at:end]):
            continue
        got = accept(text[at:end])
        if got:
            return found(got, text, at, end, at, end)
    return None


_TRAILING = " \t\r\n.*_\"'。"
_ENDS_SENTENCE = re.compile("[.。]")
