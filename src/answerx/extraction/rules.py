"""The deterministic extraction rules, as small functions and an ordered table.

Each rule looks at ``text[lo:hi]`` (spans stay in raw-output coordinates), walks
its marker's occurrences from the last to the first, and returns the first
candidate the task's acceptor takes. The engine runs the rules tier by tier
(see :data:`RULES`); inside a tier the candidate that ends last wins, because
reasoning quotes earlier drafts and the final statement comes last.

Every scan is bounded (``_MAX_TRIES`` occurrences, ``_SENTENCE_WINDOW`` chars per
candidate) so extraction stays linear on adversarial input.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from typing import NamedTuple

from answerx.extraction.cleaning import clean_answer
from answerx.extraction.expressions import last_expression
from answerx.extraction.latex import find_boxes, skip_back
from answerx.extraction.models import Method
from answerx.extraction.numbers import NUMBER
from answerx.extraction.tasks import Accepted, Acceptor

__all__ = [
    "FALLBACK_TIER",
    "RULES",
    "Found",
    "Rule",
    "decode_json_string",
    "fallback_rules",
    "take_sentence",
]

#: Rules of this tier and above are fallbacks: they guess from the reasoning when no
#: explicit marker states an answer, so they need the task's shape and a finished output.
FALLBACK_TIER = 800

_MAX_TRIES = 24  # occurrences of one marker tried before giving up on it
# Boxes: each rejected box may rescan to its closing brace, so try fewer.
_MAX_BOX_TRIES = 8
_SENTENCE_WINDOW = 400  # chars after a phrase marker that may hold its answer


class Found(NamedTuple):
    """A candidate a rule found and the task's acceptor took.

    (A NamedTuple rather than a frozen dataclass: it is built on the hot path,
    and a NamedTuple is several times cheaper to construct.)
    """

    answer: str
    task: str
    candidate: str
    start: int  # candidate span in raw_output
    end: int
    marker_start: int  # whole marker span (removed from `reasoning`)
    marker_end: int
    weak: bool = False  # e.g. an <answer> block cut off before its closing tag
    problem: str | None = None  # why the stated answer is not well-formed (None: it is)

    @property
    def stated_empty(self) -> bool:
        """The model explicitly gave an empty answer (``"answer": ""``): no answer,
        and no fallback may guess one from the reasoning."""
        return self.answer == ""


# (text, ascii-lowercased text of the same length, lo, hi, acceptor) -> Found | None
RuleFn = Callable[[str, str, int, int, Acceptor], Found | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the rule table: its reported name, tier and base confidence."""

    name: Method
    tier: int
    confidence: float
    find: RuleFn


# --------------------------------------------------------------------------- answer blocks
# Tag patterns run on the lowercased text: case-sensitive patterns with a literal
# first character are scanned far faster than IGNORECASE ones.
_OPEN = re.compile(r"<\s*answer\s*>")
_CLOSE = re.compile(r"<\s*/\s*answer\s*>")
_PLACEHOLDER = re.compile(
    r"^(?:\.{2,}|…|x|your (?:final )?answer(?: here)?|answer(?: here)?|final answer|\s*)$",
    re.IGNORECASE,
)
# Used with .match(text, pos): no "^" (it only matches at the real string start).
_MENTION_AFTER = re.compile(r"\s*(?:tags?|blocks?|and|or|element)\b|[`'\")]", re.IGNORECASE)


def _accept_block(
    text: str, start: int, end: int, accept: Acceptor
) -> tuple[Accepted, int, int] | None:
    content = text[start:end]
    if _PLACEHOLDER.match(content.strip()):
        return None
    if "\\boxed" in content or "\\fbox" in content:
        for _, c0, c1 in islice(find_boxes(text, start, end), _MAX_BOX_TRIES):
            got = accept(text[c0:c1])
            if got:
                return got, c0, c1
    got = accept(content)
    return (got, start, end) if got else None


def answer_block(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """``<answer>…</answer>``: the last complete block; else an unclosed last one."""
    if "<" not in text or "answer" not in lower:
        return None
    opens = [(m.start(), m.end()) for m in _OPEN.finditer(lower, lo, hi)]
    if not opens:
        return None
    closes = [(m.start(), m.end()) for m in _CLOSE.finditer(lower, lo, hi)]
    close_starts = [c[0] for c in closes]
    tried = 0
    for o_start, o_end in reversed(opens):
        i = bisect_right(close_starts, o_end - 1)
        if i == len(closes):
            continue
        tried += 1
        if tried > _MAX_TRIES:
            break
        if text[o_start - 1 : o_start] in "`'\"" and o_start > lo:
            continue  # a quoted mention of the tag
        c_start, c_end = closes[i]
        got = _accept_block(text, o_end, c_start, accept)
        if got:
            (a, c0, c1) = got
            return Found(a.answer, a.task, text[c0:c1], c0, c1, o_start, c_end, problem=a.problem)
    # An output cut off inside its final block: "<answer>42" at the very end.
    o_start, o_end = opens[-1]
    if (close_starts and close_starts[-1] > o_start) or _MENTION_AFTER.match(text, o_end, hi):
        return None
    if text[o_start - 1 : o_start] in "`'\"" and o_start > lo:
        return None
    got = _accept_block(text, o_end, hi, accept)
    if got:
        (a, c0, c1) = got
        return Found(a.answer, a.task, text[c0:c1], c0, c1, o_start, hi, True, a.problem)
    return None


# --------------------------------------------------------------------------- \boxed{}
def boxed(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last complete ``\\boxed{…}`` / ``\\fbox{…}`` (nested braces allowed)."""
    if "\\" not in text or ("\\boxed" not in text and "\\fbox" not in text):
        return None  # a backslash's memchr first: many outputs have none
    for marker, c0, c1 in islice(find_boxes(text, lo, hi), _MAX_BOX_TRIES):
        got = accept(text[c0:c1])
        if got:
            end = c1 + 1 if text[c1 : c1 + 1] == "}" else c1
            return Found(
                got.answer, got.task, text[c0:c1], c0, c1, marker, end, problem=got.problem
            )
    return None


# --------------------------------------------------------------------------- JSON answer
_JSON_KEY = re.compile(r"""(["'])(?:final_answer|answer|final answer)\1\s*:\s*""")  # on `lower`
_JSON_STRING_BODY = re.compile(r"""(?:[^"\\]|\\.)*""", re.DOTALL)
_JSON_BARE = re.compile(r"""[^,}\n]*""")
_JSON_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_JSON_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_JSON_VALUE_WINDOW = 4000


def decode_json_string(body: str) -> str:
    """Decode the inside of a JSON string leniently.

    Hand-written because ``json.loads`` rejects what models write: raw newlines
    and LaTeX such as ``\\sqrt`` (an invalid escape). A valid escape is decoded
    (``\\frac`` becomes a form feed, repaired later by ``clean_answer``); an
    invalid one is kept as the LaTeX it is.
    """
    if "\\" not in body:
        return body

    def one(m: re.Match[str]) -> str:
        esc = m.group(1)
        if esc in _JSON_ESCAPES:
            return _JSON_ESCAPES[esc]
        if len(esc) == 5:
            return chr(int(esc[1:], 16))
        return m.group()

    return _JSON_ESCAPE.sub(one, body)


def _last_json_keys(lower: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """(start, end) of the last :data:`_JSON_KEY` matches in ``lower[lo:hi]``, last first.

    Found from the end with ``rfind("answer")`` and checked around each hit: the
    same matches as ``_JSON_KEY.finditer`` (two keys can never overlap: a key's only
    quotes are its own two), but a scan of the whole text with a pattern that starts
    with a character class was most of a JSON output's extraction time. A text with
    many "answer"s that are no key is left to the regex after a few, so the worst
    case stays one scan at C speed."""
    found: list[tuple[int, int]] = []
    end = hi
    for _ in range(_MAX_KEY_PROBES):
        if len(found) >= _MAX_TRIES:
            return found
        at = lower.rfind("answer", lo, end)
        if at == -1:
            return found
        end = at  # "answer" cannot overlap itself: the next hit ends before this one
        quote = lower[at + 6 : at + 7]
        if at + 7 > hi or quote not in ('"', "'"):
            continue
        if at > lo and lower[at - 1] == quote:
            start = at - 1
        elif (
            at - 7 >= lo
            and lower[at - 7] == quote
            and (lower.startswith("final_", at - 6) or lower.startswith("final ", at - 6))
        ):
            start = at - 7
        else:
            continue
        tail = _JSON_KEY_TAIL.match(lower, at + 7, hi)
        if tail is not None:
            found.append((start, tail.end()))
    # The keys whose "answer" starts before `end` (every hit from `end` on was checked).
    rest = [
        m.span()
        for m in _JSON_KEY.finditer(lower, lo, hi)
        if m.start() + (1 if lower.startswith("answer", m.start() + 1) else 7) < end
    ]
    return (found + rest[::-1])[:_MAX_TRIES]


_MAX_KEY_PROBES = 64
_JSON_KEY_TAIL = re.compile(r"\s*:\s*")


def json_answer(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last ``"answer": …`` (or ``"final_answer"``) field of a JSON object."""
    # Cheap test: no quoted "answer" key anywhere (a quote's memchr first: most prose
    # has no double quote, and a substring scan costs more).
    if not (('"' in lower and 'answer"' in lower) or ("'" in lower and "answer'" in lower)):
        return None
    for key_start, v in _last_json_keys(lower, lo, hi):
        limit = min(hi, v + _JSON_VALUE_WINDOW)
        if text.startswith('"', v):
            body = _JSON_STRING_BODY.match(text, v + 1, limit)
            end = body.end() if body else v + 1
            if end >= limit or text[end : end + 1] != '"':
                continue  # unterminated string
            raw, c0, c1, m_end = decode_json_string(text[v + 1 : end]), v + 1, end, end + 1
            if not clean_answer(raw):
                # "" or the prompt's "___" placeholder: the model stated no answer.
                return Found("", "", raw, c0, c1, key_start, m_end)
        elif text.startswith("[", v):
            close = text.find("]", v, limit)
            if close == -1:
                continue
            raw, c0, c1, m_end = text[v : close + 1], v, close + 1, close + 1
        else:
            bare = _JSON_BARE.match(text, v, limit)
            if bare is None:
                continue
            raw = bare.group().strip()
            c0, c1, m_end = v, v + len(bare.group().rstrip()), bare.end()
            if raw in ("null", "None", ""):
                continue
        got = accept(raw)
        if got:
            return Found(
                got.answer, got.task, text[c0:c1], c0, c1, key_start, m_end, problem=got.problem
            )
    return None


# --------------------------------------------------------------------------- phrases
# The marker is found by searching backwards for the literal "answer" (fast, and
# the last occurrence is what we want), then checking what follows it.
_PHRASE_TAIL = re.compile(  # matched on `lower`
    r"(?:\*\*|__)?\s*(?:is\b|should\s+be\b|would\s+be\b|:)(?:\*\*|__)?\s*:?"
)
# "The final answer to 'What is 2+2?' is 4": the question may sit between.
_PHRASE_TO = re.compile(r"\s+(?:to|for)\s+(?:(['\"“‘]).{1,300}?['\"”’]|[^.\n]{1,120}?)\s+is\b\s*:?")
_GSM8K_MARK = re.compile(r"^[ \t]*####(?!#)", re.MULTILINE)
_FINAL_A_LINE = re.compile(r"^[ \t]*A:[ \t]*(\S.*?)\s*$", re.MULTILINE)
_SENTENCE_BREAK = re.compile(
    r",\s+(?:because|since|which|as|so|and\s+therefore|but|where|given|that|if|when)\b"
    r"|\s+(?:because|since)\b",
    re.IGNORECASE,
)
_WHOLE_SENTENCE_TOKEN = re.compile(
    r"(\(?[A-Za-z0-9]{1,12}\)?|-?\d{1,12}(?:\.\d{1,12})?)(?:[.!?;]?(?:\s*$|\n)|[.!?;]\s)"
)
_NOT_AN_ANSWER = re.compile(r"(?:not|never|unclear|unknown|undefined by)\b")  # on `lower`
_SPECIAL = re.compile(r"[$\\{}()\[\]\n.!?;]")


def take_sentence(text: str, pos: int, hi: int) -> tuple[int, int]:
    """The span of the answer that starts at ``pos``: up to the end of its sentence.

    Hand-written scanner (a regex cannot track nesting): it never cuts inside
    ``$…$``, ``\\(…\\)``, ``\\[…\\]``, braces, brackets or parentheses, and never at a
    decimal point (``3.5.`` ends after ``3.5``). It jumps from one special
    character to the next, so plain prose costs nothing in Python.
    """
    end_limit = min(hi, pos + _SENTENCE_WINDOW)
    # The answer may start on a following line ("The final answer is:\n\n\\[ 5 \\]").
    while pos < end_limit and text[pos] in " \t\r\n*_":
        pos += 1
    # Fast path: a short token that is the whole sentence ("(B).", "42.\n").
    simple = _WHOLE_SENTENCE_TOKEN.match(text, pos, end_limit)
    if simple:
        return pos, simple.end(1)
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
        elif depth == 0:  # one of . ! ? ;
            nxt = text[i + 1 : i + 2]
            if c == "." and nxt.isdigit() and text[i - 1 : i].isdigit():
                pass  # a decimal point
            elif nxt == "" or nxt.isspace() or nxt in "*_\"'":
                break
        i += 1
    brk = _SENTENCE_BREAK.search(text, start, end)
    if brk:
        end = brk.start()
    return start, end


def _phrase_head(lower: str, lo: int, at: int) -> int:
    """Where the phrase before "answer" at ``at`` starts ("the final answer"), so that
    ``reasoning`` loses the whole phrase. (``endswith`` checks: a regex search
    here cost more than the rest of the rule.)"""
    for words in (("**", "__"), ("final ", "correct ", "best "), ("the ", "my ", "our ")):
        for word in words:
            if lower.endswith(word, lo, at):
                at -= len(word)
                break
    return at


def _phrase_markers(text: str, lower: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """(marker position, answer start) of the last phrase markers, last first."""
    found: list[tuple[int, int]] = []
    if "#" in text and "####" in text:  # "#": one memchr, cheaper than the scan
        found.extend((m.start(), m.end()) for m in _GSM8K_MARK.finditer(text, lo, hi))
    end = hi
    while len(found) < _MAX_TRIES * 2:
        at = lower.rfind("answer", lo, end)
        if at == -1:
            break
        end = at
        tail = _PHRASE_TAIL.match(lower, at + 6, hi) or _PHRASE_TO.match(lower, at + 6, hi)
        if tail is not None:
            found.append((at, tail.end()))
    found.sort(reverse=True)
    return found[:_MAX_TRIES]


def final_answer_phrase(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """ "The (final) answer is X", "Answer: X", "#### X", or a final "A: X" line."""
    last_line = _last_line(text, lo, hi) if "A" in text and "A:" in text else None
    if last_line is not None and "A:" in text[last_line[0] : last_line[0] + 8]:
        m = _FINAL_A_LINE.match(text, last_line[0], last_line[1])
        if m:
            got = accept(m.group(1))
            if got:
                return Found(
                    got.answer,
                    got.task,
                    m.group(1),
                    m.start(1),
                    m.end(1),
                    m.start(),
                    m.end(),
                    problem=got.problem,
                )
    for at, after in _phrase_markers(text, lower, lo, hi):
        c0, c1 = take_sentence(text, after, hi)
        if c1 <= c0 or _NOT_AN_ANSWER.match(lower, c0) or text.startswith("?", c1):
            continue  # "the answer is not 12", "is the answer 12?"
        got = accept(text[c0:c1])
        if got:
            return Found(
                got.answer,
                got.task,
                text[c0:c1],
                c0,
                c1,
                _phrase_head(lower, lo, at),
                c1,
                problem=got.problem,
            )
    return None


def _last_line(text: str, lo: int, hi: int) -> tuple[int, int] | None:
    end = skip_back(text, lo, hi)
    if end <= lo:
        return None
    return max(text.rfind("\n", lo, end) + 1, lo), end


# --------------------------------------------------------------------------- Output: lines
_OUTPUT = re.compile(
    r"^[ \t]*(?:\*\*)?output(?:\*\*)?[ \t]*:[ \t]*(?:\*\*)?[ \t]*(\S.*?)[ \t]*$"
    # A program's printed result in a fenced block (ToRA / program-of-thought).
    r"|^```output[ \t]*\n[ \t]*(\S[^\n]*?)[ \t]*\n```",
    re.MULTILINE,  # matched on `lower`; groups are read back from the original text
)
_EQUALS_24 = re.compile(r"\s*=\s*24(?:\.0+)?\s*\.?$")


def output_line(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last ``Output: …`` line (Game of 24 / Graph of Thoughts), ``= 24`` stripped,
    or the last one-line ```` ```output ```` block of a program's printed result."""
    if "output" not in lower:
        return None
    lines = list(_OUTPUT.finditer(lower, lo, hi))
    for m in reversed(lines[-_MAX_TRIES:]):
        g = 1 if m.group(1) is not None else 2
        value = text[m.start(g) : m.end(g)]
        eq = _EQUALS_24.search(value)
        c0 = m.start(g)
        c1 = c0 + (eq.start() if eq else len(value))
        got = accept(text[c0:c1])
        if got:
            return Found(
                got.answer, got.task, text[c0:c1], c0, c1, m.start(), m.end(), problem=got.problem
            )
    return None


# --------------------------------------------------------------------------- task fallbacks
_CHOICE_FORMS = re.compile(
    r"\(([A-J])\)|\b([A-J])\)|\*\*\(?([A-J])\)?\*\*|\$\(?([A-J])\)?\$"
    r"|\b(?:option|choice)\s+\(?([A-J])\b|^[ \t]*\(?([A-J])[.):]?[ \t]*$",
    re.MULTILINE,
)


_A_TO_J = re.compile("[A-J]")
_DIGIT = re.compile("[0-9]")


def _last_matches(
    pattern: re.Pattern[str], text: str, lo: int, hi: int, needs: re.Pattern[str] | None = None
) -> list[re.Match[str]]:
    """The last matches of ``pattern`` in ``text[lo:hi]``, last first, found by searching
    windows that grow from the end, so a match near the end costs little. ``needs`` is a
    character class every match contains: one fast scan for it spares megabytes of
    text without it (all braces, all newlines) the slower full pattern."""
    if hi - lo > 65_536 and needs is not None and needs.search(text, lo, hi) is None:
        return []
    window = 512
    while True:
        start = max(lo, hi - window)
        # A match near the window's start may be cut short by it: keep only those
        # well inside, and widen the window when there are none.
        found = [
            m for m in pattern.finditer(text, start, hi) if start == lo or m.start() > start + 64
        ]
        if found or start == lo:
            return found[::-1][:_MAX_TRIES]
        window *= 4


_BIG = 65_536
_LETTERS_AJ = "ABCDEFGHIJ"
_MAX_PROBES = 4096


def _last_choice_forms(text: str, lo: int, hi: int) -> list[re.Match[str]]:
    """:func:`_last_matches` for the choice forms on a big text: every form holds an
    upper-case A-J letter, so probe around those letters from the last one back (found
    with ``str.rfind``, C speed) instead of running the slow pattern over megabytes."""
    last = {c: text.rfind(c, lo, hi) for c in _LETTERS_AJ}
    last = {c: p for c, p in last.items() if p != -1}
    found: list[re.Match[str]] = []
    seen: set[tuple[int, int]] = set()
    for _ in range(_MAX_PROBES):
        if not last or len(found) >= _MAX_TRIES:
            break
        letter, p = max(last.items(), key=lambda item: item[1])
        nxt = text.rfind(letter, lo, p)
        if nxt == -1:
            del last[letter]
        else:
            last[letter] = nxt
        newline = text.find("\n", p, min(hi, p + 256))
        end = newline if newline != -1 else min(hi, p + 256)
        for m in _CHOICE_FORMS.finditer(text, max(lo, p - 64), end):
            if any(m.start(g) == p for g in range(1, 7)) and m.span() not in seen:
                seen.add(m.span())
                found.append(m)
    return found


def choice_letter(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last choice letter written as a choice: "(B)", "B)", "**B**", "$B$", a lone line."""
    found = (
        _last_matches(_CHOICE_FORMS, text, lo, hi, _A_TO_J)
        if hi - lo <= _BIG
        else _last_choice_forms(text, lo, hi)
    )
    for m in found:
        group = next(g for g in range(1, 7) if m.group(g))
        got = accept(m.group(group))
        if got:
            return Found(
                got.answer, got.task, m.group(group), m.start(group), m.end(group),
                m.start(), m.end(), problem=got.problem,
            )  # fmt: skip
    return None


def last_expression_rule(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last complete mathematical expression (``math``; see ``expressions.py``)."""
    got = last_expression(text, lower, lo, hi, accept)
    if got is None:
        return None
    answer, task, problem, c0, c1, m0, m1 = got
    return Found(answer, task, text[c0:c1], c0, c1, m0, m1, problem=problem)


def last_number_rule(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last number in the text (a low-confidence fallback)."""
    for m in _last_matches(NUMBER, text, lo, hi, _DIGIT)[:1]:
        start, end = m.start("num"), m.end("num")
        got = accept(text[start:end])
        if got:
            return Found(
                got.answer, got.task, text[start:end], start, end, start, end, problem=got.problem
            )
    return None


# A number that closes a LaTeX fraction's denominator: "$\\frac{1}{2}$" ends on "2",
# but the number stated is the fraction (read back to its optional minus sign).
_FRAC_BEFORE = re.compile(r"(?:-\s*)?\\[dt]?frac\s*\{\s*-?[\d.,]+\s*\}\s*\{\s*$")
_FRAC_AFTER = re.compile(r"\s*\}")


def last_number_or_fraction_rule(
    text: str, lower: str, lo: int, hi: int, accept: Acceptor
) -> Found | None:
    """``last_number`` for ``numeric``, reading a last LaTeX fraction as one number
    (``\\frac{1}{2}`` gives ``1/2``, as it does after a marker), not its denominator."""
    found = last_number_rule(text, lower, lo, hi, accept)
    if found is None:
        return None
    after = _FRAC_AFTER.match(text, found.end, hi)
    before = _FRAC_BEFORE.search(text, max(lo, found.start - 80), found.start)
    if after is None or before is None:
        return found
    start, end = before.start(), after.end()
    got = accept(text[start:end])
    if not got:
        return found
    return Found(got.answer, got.task, text[start:end], start, end, start, end, problem=got.problem)


def bottom_scan(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """Lines from the bottom up: the first one the task accepts (Game of 24: the last
    arithmetic expression using the given numbers; boolean: a line starting yes/no)."""
    end = hi
    for _ in range(_MAX_TRIES * 8):
        end = skip_back(text, lo, end, "\r\n")
        if end <= lo:
            return None
        start = max(text.rfind("\n", lo, end) + 1, lo)
        line = text[start:end]
        if line.strip():
            got = accept(line)
            if got:
                s = start + (len(line) - len(line.lstrip()))
                return Found(
                    got.answer,
                    got.task,
                    line.strip(),
                    s,
                    s + len(line.strip()),
                    start,
                    end,
                    problem=got.problem,
                )
        end = start
    return None


_LONE_YES_NO = re.compile(r"[\W_]*(yes|no)[\W_]*", re.IGNORECASE)


def final_yes_no_line(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """A last line that is only "Yes" or "No" (with punctuation or markup): a boolean answer."""
    line = _last_line(text, lo, hi)
    if line is None or line[1] - line[0] > 16:
        return None
    m = _LONE_YES_NO.fullmatch(text, line[0], line[1])
    if m is None:
        return None
    answer = m.group(1).lower()
    return Found(answer, "boolean", m.group(1), m.start(1), m.end(1), line[0], line[1])


RULES: tuple[Rule, ...] = (
    Rule("answer_block", 100, 0.95, answer_block),
    Rule("boxed", 200, 0.95, boxed),
    Rule("json_answer", 200, 0.95, json_answer),
    Rule("final_answer_phrase", 300, 0.9, final_answer_phrase),
    Rule("output_line", 300, 0.85, output_line),
)
"""Explicit markers, by tier. Within a tier the candidate that ends last wins."""

_FALLBACKS: dict[str, tuple[Rule, ...]] = {
    # math: the last expression, or a number stated after it (same tier: the later wins).
    "math": (
        Rule("last_expression", 900, 0.35, last_expression_rule),
        Rule("last_number", 900, 0.3, last_number_rule),
    ),
    "numeric": (Rule("last_number", 900, 0.3, last_number_or_fraction_rule),),
    # auto: whichever fallback form comes last in the text wins (same tier).
    "auto": (
        Rule("bottom_scan", 900, 0.4, final_yes_no_line),
        Rule("choice_letter", 900, 0.4, choice_letter),
        Rule("last_number", 900, 0.3, last_number_rule),
    ),
    "multiple_choice": (Rule("choice_letter", 800, 0.5, choice_letter),),
    "boolean": (Rule("bottom_scan", 800, 0.4, bottom_scan),),
    "game24": (Rule("bottom_scan", 800, 0.7, bottom_scan),),
    "text": (Rule("bottom_scan", 800, 0.2, bottom_scan),),
    "short_answer": (Rule("bottom_scan", 800, 0.2, bottom_scan),),
}


def fallback_rules(task: str) -> tuple[Rule, ...]:
    """The task's fallback rules, tried only when no explicit marker was accepted."""
    return _FALLBACKS[task]
