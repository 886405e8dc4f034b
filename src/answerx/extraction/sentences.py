"""Where a stated answer ends: :func:`take_sentence`, the end of the sentence a marker
starts ("The answer is $\\frac{1}{2}$, since ..." ends before ", since")."""

from __future__ import annotations

import re

from answerx.extraction.found import SENTENCE_WINDOW

__all__ = ["NOT_AN_ANSWER", "take_sentence"]

#: What a marker may be followed by that states no answer: "the answer is not 12".
NOT_AN_ANSWER = re.compile(r"(?:not|never|unclear|unknown|undefined by)\b")  # on `lower`
_FULL_WIDTH_ENDS = "。！？；।"  # (and the Bengali/Hindi danda)
_SENTENCE_BREAK = re.compile(
    r",\s+(?:because|since|which|as|so|and\s+therefore|but|where|given|that|if|when)\b"
    r"|\s+(?:because|since)\b",
    re.IGNORECASE,
)
# A capital letter after a name's capitalised word or another initial, then a stop and
# the next name word: the stop of an initial ("John F. Kennedy"), not a sentence's end.
_INITIAL = re.compile(r"(?:\b[A-Z][a-z]+|\b[A-Z]\.)\s[A-Z]\.\s[A-Z]$")
_INITIALS = re.compile(r"\b[A-Z]\.\s?[A-Z]\.")  # "J. R. R. Tolkien" from its first stop
_TITLES = frozenset(("Mr", "Mrs", "Ms", "Dr", "St", "Jr", "Sr", "Prof", "Mt", "Ft", "vs"))
# A short token that is the whole sentence ("(B).", "42.\n"), never a name's initials nor a
# title ("J. R. R. Tolkien", "Mrs. Robinson"): the lookaheads keep that check inside the
# one match this fast path costs.
_WHOLE_SENTENCE_TOKEN = re.compile(
    r"(?!" + _INITIALS.pattern + r")(?!(?:" + "|".join(sorted(_TITLES)) + r")(?![A-Za-z0-9)]))"
    r"(\(?[A-Za-z0-9]{1,12}\)?|-?\d{1,12}(?:\.\d{1,12})?)(?:[.!?;]?(?:\s*$|\n)|[.!?;]\s)"
)
_ABBREVIATION = re.compile(r"(?<![A-Za-z])(?:" + "|".join(_TITLES) + r")$")
# A Dyck answer closes what is open: it starts with a closing bracket ("(B)" does not).
_BRACKETS = frozenset(")]}>⟩")
_BRACKETS_TO_LINE_END = re.compile(
    r"([\[\](){}<>⟨⟩]+(?:[ \t]+[\[\](){}<>⟨⟩]+)*)[ \t]*\.?[ \t*_]*(?:\n|$)"
)
_SPECIAL = re.compile(r"[$\\{}()\[\]\n.!?;。！？；।]")


def take_sentence(text: str, pos: int, hi: int) -> tuple[int, int]:
    """The span of the answer that starts at ``pos``: up to the end of its sentence.

    Hand-written scanner (a regex cannot track nesting): it never cuts inside
    ``$…$``, ``\\(…\\)``, ``\\[…\\]``, braces, brackets or parentheses, and never at a
    decimal point (``3.5.`` ends after ``3.5``). It jumps from one special
    character to the next, so plain prose costs nothing in Python.
    """
    end_limit = min(hi, pos + SENTENCE_WINDOW)
    # The answer may start on a following line ("The final answer is:\n\n\\[ 5 \\]").
    while pos < end_limit and text[pos] in " \t\r\n*_":
        pos += 1
    # Fast path: a short token that is the whole sentence ("(B).", "42.\n").
    simple = _WHOLE_SENTENCE_TOKEN.match(text, pos, end_limit)
    if simple:
        return pos, simple.end(1)
    # An answer made of brackets (BIG-Bench-Hard's Dyck languages: "] > )") is kept
    # whole, to the end of its line: every character is part of it. (It starts with a
    # closing bracket, which the fast path's token never does.)
    symbols = (
        _BRACKETS_TO_LINE_END.match(text, pos, end_limit)
        if text[pos : pos + 1] in _BRACKETS
        else None
    )
    if symbols is not None:
        return pos, symbols.end(1)
    start = end = pos
    depth = 0
    math: str | None = None  # the closing delimiter of the math mode we are in
    i = start
    while True:
        m = _SPECIAL.search(text, i, end_limit)
        if m is None:
            end = end_limit
            break
        i = m.start()
        c = text[i]
        end = i
        if math is not None:
            if text.startswith(math, i):
                i += len(math)
                math = None
            elif c == "\n" and text.startswith("\n", i + 1):
                break  # a blank line ends even an unclosed formula
            else:
                i += 2 if c == "\\" else 1
            continue
        if c == "$":
            math = "$$" if text.startswith("$$", i) else "$"
            i += len(math)
            continue
        if c == "\\":
            nxt = text[i + 1 : i + 2]
            if nxt in ("(", "["):
                math = "\\)" if nxt == "(" else "\\]"
            i += 2
            continue
        if c in "{([":
            depth += 1
        elif c in "})]":
            if depth == 0:
                break
            depth -= 1
        elif c == "\n":
            if depth == 0 or text.startswith("\n", i + 1):
                break
        elif depth == 0 and c in _FULL_WIDTH_ENDS:
            break  # "答案是 C。": a full-width stop needs no space after it
        elif depth == 0:  # one of . ! ? ;
            nxt = text[i + 1 : i + 2]
            if c == "." and nxt.isdigit() and text[i - 1 : i].isdigit():
                pass  # a decimal point
            elif c == "." and (
                _INITIAL.search(text, max(start, i - 40), i + 3) or _INITIALS.match(text, i - 1)
            ):
                pass  # a name's initial: "Harry S. Truman", "J. R. R. Tolkien"
            elif c == "." and nxt == " " and _ABBREVIATION.search(text, max(start, i - 5), i):
                pass  # "Mrs. Robinson", "Dr. No": a title's full stop ends no sentence
            elif nxt == "" or nxt.isspace() or nxt in "*_\"'":
                break
        i += 1
    brk = _SENTENCE_BREAK.search(text, start, end)
    if brk:
        end = brk.start()
    return start, end
