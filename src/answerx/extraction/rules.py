"""The deterministic extraction rules, as small functions and an ordered table.

Each rule looks at ``text[lo:hi]`` (spans stay in raw-output coordinates), walks
its marker's occurrences from the last to the first, and returns the first
candidate the task's acceptor takes. The engine runs the rules tier by tier
(see :data:`RULES`); inside a tier the candidate that ends last wins, because
reasoning quotes earlier drafts and the final statement comes last.

The rules of one job live in modules of their own and are listed here: the choice
phrases (``choices.py``), other languages' markers (``languages.py``), short replies
(``replies.py``). Every scan is bounded (``found.MAX_TRIES`` occurrences,
``found.SENTENCE_WINDOW`` chars per candidate; a marker found by keyword with
``str.rfind`` before any pattern runs) so extraction stays linear on adversarial input.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import replace
from itertools import islice

from answerx.extraction.choices import choice_phrase, final_option_text
from answerx.extraction.cleaning import clean_answer
from answerx.extraction.expressions import last_expression
from answerx.extraction.found import (
    FALLBACK_TIER,
    MAX_TRIES,
    Found,
    Rule,
    RuleFn,
    accept_words,
    found,
    last_matches,
)
from answerx.extraction.languages import cjk_letter_verdict, foreign_phrase
from answerx.extraction.latex import FRACTION, find_boxes, skip_back, skip_forward
from answerx.extraction.models import LETTER_CLASS, OPTION_LETTERS, UNLISTED_LETTERS
from answerx.extraction.number_words import number_word_spans
from answerx.extraction.numbers import NUMBER
from answerx.extraction.replies import leading_answer_rule, whole_output_rule
from answerx.extraction.sentences import NOT_AN_ANSWER, take_sentence
from answerx.extraction.tasks import Accepted, Acceptor
from answerx.extraction.values import (
    BOX_JOIN,
    comma_is_decimal,
    decimal_comma_language,
)

__all__ = [
    "FALLBACK_TIER",
    "RULES",
    "Found",
    "Rule",
    "decode_json_string",
    "fallback_rules",
    "marker_rules",
    "rules_for",
    "take_sentence",
]

_MAX_TRIES = MAX_TRIES
# Boxes: each rejected box may rescan to its closing brace, so try fewer.
_MAX_BOX_TRIES = 8


# --------------------------------------------------------------------------- answer blocks
# Tag patterns run on the lowercased text: case-sensitive patterns with a literal
# first character are scanned far faster than IGNORECASE ones.
# (LiveBench's puzzles ask for a <solution> block: the same marker under another name.)
_OPEN = re.compile(r"<\s*(?:answer|solution)\s*>")
_CLOSE = re.compile(r"<\s*/\s*(?:answer|solution)\s*>")
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
    if "<" not in text or ("answer" not in lower and "solution>" not in lower):
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
            return found(a, text, c0, c1, o_start, c_end)
    # An output cut off inside its final block: "<answer>42" at the very end.
    o_start, o_end = opens[-1]
    if (close_starts and close_starts[-1] > o_start) or _MENTION_AFTER.match(text, o_end, hi):
        return None
    if text[o_start - 1 : o_start] in "`'\"" and o_start > lo:
        return None
    got = _accept_block(text, o_end, hi, accept)
    if got:
        (a, c0, c1) = got
        return found(a, text, c0, c1, o_start, hi)._replace(weak=True)
    return None


# --------------------------------------------------------------------------- \boxed{}
def boxed(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last complete ``\\boxed{…}`` / ``\\fbox{…}`` (nested braces allowed), with the
    boxes just before it that it lists values with (``\\boxed{a = 7}`` and
    ``\\boxed{b = 3}``, ``\\boxed{1} \\text{ or } \\boxed{2}``)."""
    if "\\" not in text or ("\\boxed" not in text and "\\fbox" not in text):
        return None  # a backslash's memchr first: many outputs have none
    boxes = find_boxes(text, lo, hi)
    for marker, c0, c1 in islice(boxes, _MAX_BOX_TRIES):
        got = accept(text[c0:c1])
        if got:
            end = c1 + 1 if text[c1 : c1 + 1] == "}" else c1
            # A box listed with earlier ones closes right before it (one rfind spares the
            # usual lone box the brace matching of the box before it).
            if text.rfind("}", max(lo, marker - _BOX_JOIN_CHARS), marker) != -1:
                listed = _box_list(text, marker, c0, c1, boxes, accept)
                if listed is not None:
                    return listed._replace(marker_end=end)
            return Found(
                got.answer, got.task, text[c0:c1], c0, c1, marker, end, got.weak, got.problem
            )
    return None


_BOX_JOIN_CHARS = 60


def _box_list(
    text: str,
    marker: int,
    c0: int,
    c1: int,
    earlier: Iterator[tuple[int, int, int]],
    accept: Acceptor,
) -> Found | None:
    """The boxes before the one at ``marker`` joined to it by "and", "or" or a comma, read
    as one list of values; None when no box is joined to it (or the task takes no list)."""
    contents = [text[c0:c1].strip()]
    first_marker, first_c0 = marker, c0
    for prev_marker, p0, p1 in islice(earlier, _MAX_BOX_TRIES):
        between = text[p1 + 1 : first_marker]
        if len(between) > _BOX_JOIN_CHARS or BOX_JOIN.fullmatch(between) is None:
            break
        contents.append(text[p0:p1].strip())
        first_marker, first_c0 = prev_marker, p0
    values = list(dict.fromkeys(reversed(contents)))  # in order, each value once
    if len(values) < 2:
        return None
    got = accept(", ".join(values))
    return found(got, text, first_c0, c1, first_marker, c1) if got else None


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


def _last_json_keys(lower: str, lo: int, hi: int) -> Iterator[tuple[int, int]]:
    """(start, end) of the last :data:`_JSON_KEY` matches in ``lower[lo:hi]``, last first
    (lazily: the usual output's last key is its answer, and the scan stops there).

    Found from the end with ``rfind("answer")`` and checked around each hit: the
    same matches as ``_JSON_KEY.finditer`` (two keys can never overlap: a key's only
    quotes are its own two), but a scan of the whole text with a pattern that starts
    with a character class was most of a JSON output's extraction time. A text with
    many "answer"s that are no key is left to the regex after a few, so the worst
    case stays one scan at C speed."""
    keys = 0
    end = hi
    for _ in range(_MAX_KEY_PROBES):
        if keys >= _MAX_TRIES:
            return
        at = lower.rfind("answer", lo, end)
        if at == -1:
            return
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
            keys += 1
            yield start, tail.end()
    # The keys whose "answer" starts before `end` (every hit from `end` on was checked).
    rest = [
        m.span()
        for m in _JSON_KEY.finditer(lower, lo, hi)
        if m.start() + (1 if lower.startswith("answer", m.start() + 1) else 7) < end
    ]
    yield from rest[::-1][: _MAX_TRIES - keys]


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
            return found(got, text, c0, c1, key_start, m_end)
    return None


# --------------------------------------------------------------------------- phrases
# The marker is found by searching backwards for the literal "answer" (fast, and
# the last occurrence is what we want), then checking what follows it.
# The marker in any bracket or dash style: "Answer:", "**Answer:**", "[Answer] C",
# "【Answer】C", "Answer — C".
_PHRASE_TAIL = re.compile(  # matched on `lower`
    r"(?:\*\*|__)?\s*(?:is\b|should\s+be\b|would\s+be\b|:)(?:\*\*|__)?\s*:?"
)
# The rarer styles, tried only when a bracket or a dash follows "answer" (the usual tail
# above stays a short pattern: it runs at every "answer" of every output).
_BRACKET_TAIL = re.compile(
    r"(?:\*\*|__)?\s*(?:[\]】](?:\*\*|__)?\s*(?:is\b|[:：])?|：|[—–](?![—–]))(?:\*\*|__)?\s*:?"
)
_BRACKET_OR_DASH = frozenset("]】—–：")
# "The final answer to 'What is 2+2?' is 4": the question may sit between.
_PHRASE_TO = re.compile(r"\s+(?:to|for)\s+(?:(['\"“‘]).{1,300}?['\"”’]|[^.\n]{1,120}?)\s+is\b\s*:?")
_GSM8K_MARK = re.compile(r"^[ \t]*####(?!#)", re.MULTILINE)
_FINAL_A_LINE = re.compile(r"^[ \t]*A:[ \t]*(\S.*?)\s*$", re.MULTILINE)
_NOT_AN_ANSWER = NOT_AN_ANSWER


def _phrase_head(lower: str, lo: int, at: int) -> int:
    """Where the phrase before "answer" at ``at`` starts ("the final answer"), so that
    ``reasoning`` loses the whole phrase. (``endswith`` checks: a regex search
    here cost more than the rest of the rule.)"""
    for words in _HEAD_WORDS:
        if lower.endswith(words, lo, at):  # one call for the group: most have no such word
            for word in words:
                if lower.endswith(word, lo, at):
                    at -= len(word)
                    break
    return at


_HEAD_WORDS = (("**", "__"), ("final ", "correct ", "best "), ("the ", "my ", "our "))


def _phrase_markers(text: str, lower: str, lo: int, hi: int) -> Iterator[tuple[int, int]]:
    """(marker position, answer start) of the last phrase markers, last first (lazily:
    the last marker usually states the answer, and the text before it is never read)."""
    hashes = []
    if "#" in text and "####" in text:  # "#": one memchr, cheaper than the scan
        hashes = [(m.start(), m.end()) for m in _GSM8K_MARK.finditer(text, lo, hi)]
    # At most _MAX_TRIES * 2 markers of both kinds are read, the "####" ones first.
    markers = _answer_markers(lower, lo, hi, _MAX_TRIES * 2 - len(hashes))
    if hashes:
        markers = heapq.merge(reversed(hashes), markers, reverse=True)
    return islice(markers, _MAX_TRIES)


def _answer_markers(lower: str, lo: int, hi: int, limit: int) -> Iterator[tuple[int, int]]:
    """The last ``limit`` "answer" phrase markers ("the answer is", "Answer:"), last first."""
    end = hi
    while limit > 0:
        at = lower.rfind("answer", lo, end)
        if at == -1:
            return
        end = at
        tail = _PHRASE_TAIL.match(lower, at + 6, hi) or _PHRASE_TO.match(lower, at + 6, hi)
        if tail is None and not _BRACKET_OR_DASH.isdisjoint(lower[at + 6 : at + 10]):
            tail = _BRACKET_TAIL.match(lower, at + 6, hi)
        if tail is not None:
            limit -= 1
            yield at, tail.end()


def final_answer_phrase(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """ "The (final) answer is X", "Answer: X", "#### X", or a final "A: X" line."""
    last_line = _last_line(text, lo, hi) if "A" in text and "A:" in text else None
    if last_line is not None and "A:" in text[last_line[0] : last_line[0] + 8]:
        m = _FINAL_A_LINE.match(text, last_line[0], last_line[1])
        if m:
            got = accept(m.group(1))
            if got:
                c0, c1 = m.span(1)
                return Found(
                    got.answer,
                    got.task,
                    m.group(1),
                    c0,
                    c1,
                    m.start(),
                    m.end(),
                    got.weak,
                    got.problem,
                )
    for at, after in _phrase_markers(text, lower, lo, hi):
        c0, c1 = take_sentence(text, after, hi)
        if c1 <= c0 or _NOT_AN_ANSWER.match(lower, c0) or text.startswith("?", c1):
            continue  # "the answer is not 12", "is the answer 12?"
        got = accept(text[c0:c1])
        if got:
            head = _phrase_head(lower, lo, at)
            return Found(got.answer, got.task, text[c0:c1], c0, c1, head, c1, got.weak, got.problem)
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
            return found(got, text, c0, c1, m.start(), m.end())
    return None


# --------------------------------------------------------------------------- a bold last phrase
# LiveBench asks for the answer "in **bold**": a bold phrase that ends the output, on a
# line of its own or after a finished sentence, states the answer.
_BOLD_END = re.compile(
    r"(?:^|(?<=[.!?:;。])[ \t]+)(\*\*|__)([^*_\n]{1,100}?)\1[ \t.]*$", re.MULTILINE
)
_BOLD_REACH = 120
# (Only the letters an unlisted item has: "**K**" ends many a text answer, and with an
# item's eighteen options its acceptor reads the bold letter anyway.)
_BOLD_LETTER = re.compile(rf"\s*\(?[{UNLISTED_LETTERS}]\)?\s*")


def bold_answer(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """A bold phrase that ends the output: ``…each a right triangle.\n\n**triangle**``."""
    end = skip_back(text, lo, hi)
    if not text.endswith(("**", "__", "**.", "__."), lo, end):
        return None
    m = _BOLD_END.search(text, max(lo, end - _BOLD_REACH), end)
    if m is None or m.start() <= skip_forward(text, lo, end):
        return None  # a bold reply and nothing else is whole_output's to read
    if _BOLD_LETTER.fullmatch(m.group(2)):
        return None  # "**D**": a choice letter, choice_letter's to read (as it always was)
    got = accept(m.group(2))
    return found(got, text, m.start(2), m.end(2), m.start(), m.end()) if got else None


# --------------------------------------------------------------------------- task fallbacks
_L = LETTER_CLASS  # the candidate letters; the acceptor keeps the item's own
_CHOICE_FORMS = re.compile(
    rf"\(({_L})\)|\b({_L})\)|\*\*\(?({_L})\)?\*\*|\$\(?({_L})\)?\$"
    rf"|\b(?:option|choice)\s+\(?({_L})\b|^[ \t]*\(?({_L})[.):]?[ \t]*$",
    re.MULTILINE,
)
_CHOICE_GROUPS = range(1, 7)
# A letter written four times or more, as prompts ask ("… five times: CCCCC"): looked for
# near the end only (a form of its own: in the pattern above it slowed every scan).
_REPEATED_LETTER = re.compile(rf"(?<![A-Za-z])({_L})\1{{3,9}}(?![A-Za-z])")
_REPEAT_REACH = 80  # the letters end the output ("… as requested: FFFFF.")
# A sentence, then the letter on its own at the very end: "… so the left bar is the
# tallest. A" (read on the last line only: an extra form costs the whole scan above).
_LETTER_AFTER_SENTENCE = re.compile(rf"(?<=[.!?:;])[ \t]+({_L})\.?[ \t]*$")
_LAST_LINE_CHARS = 400


_OPTION_LETTER = re.compile(_L)
_DIGIT = re.compile("[0-9]")


_BIG = 65_536
_MAX_PROBES = 4096


def _last_choice_forms(text: str, lo: int, hi: int) -> list[re.Match[str]]:
    """:func:`_last_matches` for the choice forms on a big text: every form holds an
    upper-case option letter, so probe around those letters from the last one back (found
    with ``str.rfind``, C speed) instead of running the slow pattern over megabytes."""
    last = {c: text.rfind(c, lo, hi) for c in OPTION_LETTERS}
    last = {c: p for c, p in last.items() if p != -1}
    hits: list[re.Match[str]] = []
    seen: set[tuple[int, int]] = set()
    for _ in range(_MAX_PROBES):
        if not last or len(hits) >= _MAX_TRIES:
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
            if any(m.start(g) == p for g in _CHOICE_GROUPS) and m.span() not in seen:
                seen.add(m.span())
                hits.append(m)
    return hits


def choice_letter(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last choice letter written as a choice: "(B)", "B)", "**B**", "$B$", a lone line."""
    matches = (
        last_matches(_CHOICE_FORMS, text, lo, hi, _OPTION_LETTER)
        if hi - lo <= _BIG
        else _last_choice_forms(text, lo, hi)
    )
    last = _last_line(text, lo, hi)
    if last is not None:
        end = last[1]
        tail = _LETTER_AFTER_SENTENCE.search(text, max(last[0], end - _LAST_LINE_CHARS), end)
        got = accept(tail.group(1)) if tail is not None else None
        if tail is not None and got:
            return found(got, text, tail.start(1), tail.end(1), tail.start(1), tail.end())
    repeated = None
    if hi - lo >= 4:
        for r in _REPEATED_LETTER.finditer(text, max(lo, hi - _REPEAT_REACH), hi):
            repeated = r
    for m in matches:
        if repeated is not None and repeated.start() > m.start():
            break
        group = next(g for g in _CHOICE_GROUPS if m.group(g))
        got = accept(m.group(group))
        if got:
            return found(got, text, m.start(group), m.end(group), m.start(), m.end())
    if repeated is not None:
        got = accept(repeated.group(1))
        if got:
            return found(
                got, text, repeated.start(), repeated.end(), repeated.start(), repeated.end()
            )
    return None


def last_expression_rule(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last complete mathematical expression (``math``; see ``expressions.py``)."""
    got = last_expression(text, lower, lo, hi, accept)
    if got is None:
        return None
    answer, task, problem, c0, c1, m0, m1 = got
    return Found(answer, task, text[c0:c1], c0, c1, m0, m1, problem=problem)


def last_number_rule(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last number in the text, in digits or in words ("three objects left"): a
    low-confidence fallback."""
    digits = last_matches(NUMBER, text, lo, hi, _DIGIT)[:1]
    after = digits[0].end("num") if digits else lo
    # Words count only after the last number in digits, near the end (bounded).
    words = _last_words(text, lower, max(after, hi - _WORDS_WINDOW), hi)
    if words is not None:
        got = accept_words(text[words[0] : words[1]], accept)
        if got:
            return found(got, text, words[0], words[1], words[0], words[1])
    for m in digits:
        start, end = m.start("num"), m.end("num")
        signed = _sign_word_before(lower, lo, start)
        if signed is not None:  # "the curvature is negative 0.5": the sign is the word
            got = accept(text[signed:end])
            if got:
                return found(got, text, signed, end, signed, end)
        decimal = _decimal_comma_start(text, lo, start, end)
        if decimal is not None:  # "Soit 3,5 kg": the number is 3.5, not 5
            got = accept(text[decimal:end].replace(",", "."))
            if got:
                return found(got, text, decimal, end, decimal, end)
        got = accept(text[start:end])
        if got:
            return found(got, text, start, end, start, end)
    return None


_WORDS_WINDOW = 240  # a number in words answers at the end of a short reply
_SIGN_WORD_BEFORE = re.compile(r"\b(?:negative|minus)\s+$")


def _sign_word_before(lower: str, lo: int, start: int) -> int | None:
    """Where a sign said in words right before the number at ``start`` begins ("negative
    0.5"); None when there is none or it is an operation on a number before it ("5 minus 3")."""
    if not lower.endswith((" ", "\t"), lo, start):
        return None
    m = _SIGN_WORD_BEFORE.search(lower, max(lo, start - 16), start)
    if m is None:
        return None
    before = lower[max(lo, m.start() - 8) : m.start()].rstrip()
    return None if before[-1:].isdigit() or before[-1:] in ")}]" else m.start()


_COMMA_HEAD = re.compile(r"(?<![\d,.])[-−]?\d+,$")


def _decimal_comma_start(text: str, lo: int, start: int, end: int) -> int | None:
    """Where the number ending at ``end`` starts when the digits at ``start`` are the
    decimals of a decimal comma ("3,5 kg", "4,35 €", "Donc x = 2,5."), else None."""
    if text[start - 1 : start] != "," or start - 1 <= lo:
        return None
    head = _COMMA_HEAD.search(text, max(lo, start - 16), start)
    if head is None:
        return None
    number = text[head.start() : end]
    before, after = text[max(lo, head.start() - 4) : head.start()], text[end : end + 16]
    if comma_is_decimal(number, before, after) or (
        end - start != 3 and decimal_comma_language(text[lo:end])
    ):
        return head.start()
    return None


def _last_words(text: str, lower: str, lo: int, hi: int) -> tuple[int, int] | None:
    if hi <= lo or not _HAS_LETTERS.search(lower, lo, hi):
        return None
    spans = number_word_spans(text, lower, lo, hi)
    return spans[-1] if spans else None


_HAS_LETTERS = re.compile("[a-z]")


# A number that closes a LaTeX fraction's denominator: "$\\frac{1}{2}$" ends on "2",
# but the number stated is the fraction (read back to its optional minus sign).
_FRAC_BEFORE = re.compile(r"(?:-\s*)?\\[dt]?frac\s*\{\s*-?[\d.,]+\s*\}\s*\{\s*$")
_FRAC_AFTER = re.compile(r"\s*\}")


_GLUED_WINDOW = 400


def _last_glued_fraction(text: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last fraction near the end written without braces (``\\frac12``, ``\\frac 3 4``),
    whose digits the number pattern does not read as one number."""
    start = max(lo, hi - _GLUED_WINDOW)
    if text.find("frac", start, hi) == -1:
        return None
    fractions = [m for m in FRACTION.finditer(text, start, hi) if m["num1"] or m["den1"]]
    if not fractions:
        return None
    m = fractions[-1]
    got = accept(m.group())
    return found(got, text, m.start(), m.end(), m.start(), m.end()) if got else None


def last_number_or_fraction_rule(
    text: str, lower: str, lo: int, hi: int, accept: Acceptor
) -> Found | None:
    """``last_number`` for ``numeric``, reading a last LaTeX fraction as one number
    (``\\frac{1}{2}`` gives ``1/2``, as it does after a marker), not its denominator."""
    last = last_number_rule(text, lower, lo, hi, accept)
    glued = _last_glued_fraction(text, lo, hi, accept)
    if glued is not None and (last is None or glued.end >= last.end):
        return glued  # "\frac12", "\dfrac 3 4": the digits are a fraction's two arguments
    if last is None:
        return None
    after = _FRAC_AFTER.match(text, last.end, hi)
    before = _FRAC_BEFORE.search(text, max(lo, last.start - 80), last.start)
    if after is None or before is None:
        return last
    start, end = before.start(), after.end()
    got = accept(text[start:end])
    if not got:
        return last
    return found(got, text, start, end, start, end)


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
                return found(got, text, s, s + len(line.strip()), start, end)
        end = start
    return None


# A verdict stated as a sentence's predicate, as prompts that want "True/False" get it
# (TheoremQA, proof checks): "So the given statement is true.", "…, the claim is not
# correct." Read only in the last two sentences of the last paragraph, so a premise
# judged earlier in the reasoning ("the assumption … is false. Therefore …") is not taken
# for the conclusion; "not" turns the verdict round.
_TRUTH_PREDICATE = re.compile(
    r"\b(?:is|are|was|were|be|holds?)[ \t]+(not[ \t]+)?"
    r"(?:(?:indeed|therefore|thus|hence|also|actually|always|necessarily|in[ \t]+fact)[ \t]+)?"
    r"[`'\"‘“*_]*(true|false|correct|incorrect)\b"
    # not "is true that …" (what follows is the claim), nor the pair "True/False" itself
    r"(?![ \t]+that\b)(?![ \t]*(?:/|or[ \t]+(?:true|false|correct|incorrect)\b))",
    re.IGNORECASE,
)
# A predicate inside a condition or a check is not a verdict: "Check if the solution is
# true:", "whether the claim is correct".
_CONDITION = re.compile(r"\b(?:if|whether|unless|check|verify|determine)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\s\"'”’]+(?=\S)")
_TRUTH_SENTENCES = 2


def truth_predicate(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last "… is true/false/(in)correct" among the last two sentences of the last
    paragraph: a boolean answer ("is not true" is no)."""
    blank = text.rfind("\n\n", lo, hi)
    para = lo if blank == -1 else blank + 2
    ends = [m.start() for m in _SENTENCE_END.finditer(text, para, hi)]
    first = ends[-_TRUTH_SENTENCES] if len(ends) >= _TRUTH_SENTENCES else para
    for m in reversed(list(_TRUTH_PREDICATE.finditer(text, first, hi))):
        clause = max(text.rfind(",", first, m.start()), text.rfind(";", first, m.start()))
        if not _CONDITION.search(text, max(clause + 1, first), m.start()):
            break
    else:
        return None
    yes = m.group(2).lower() in ("true", "correct")
    answer = "yes" if yes != bool(m.group(1)) else "no"
    return Found(answer, "boolean", m.group(0), m.start(), m.end(), m.start(), m.end())


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


# --------------------------------------------------------------------------- guesses
# What makes a sentence answer's last number a qualifier rather than the answer: "with
# values below 40", "taller than 50", "3 of the 10 cities", "between 10 and 20", "out of 30".
_QUALIFIER_BEFORE = re.compile(
    r"(?:\b(?:below|above|under|over|than|per|within|beyond|exceeding|exceeds|exceed|least|"
    r"most|up\s+to|out\s+of|among|after|before|since|until|outside|inside|except|besides|"
    r"with|across|during)"
    r"|\bbetween\s+\S+\s+and|\bfrom\s+\S+\s+to|\d\s+(?:[a-z]+\s+)?of)"
    r"[ \t]+(?:the[ \t]+)?(?:(?:first|last|next|other|remaining)[ \t]+)?(?:\\?\$|€|£)?[ \t]*$"
)
_SHORT_REPLY = 240  # a longer output is reasoning, whose last number is its usual answer


def number_guess_rule(last: RuleFn) -> RuleFn:
    """``last`` (a last-number rule) for a short sentence answer that states several
    numbers and whose last one qualifies something ("There are 13 bars with values below
    40.", "3 of the 10 cities"): which number answers cannot be read by rules, so the
    result is reported as a guess (``number_guess``, low confidence) for two-stage
    extraction or a judge to take over. None in every other case (then ``last_number``
    answers)."""

    def number_guess(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
        end = skip_back(text, lo, hi)
        start = skip_forward(text, lo, end)
        if end - start > _SHORT_REPLY or text.count("\n", start, end) > 1:
            return None
        got = last(text, lower, start, end, accept)
        if got is None or not _QUALIFIER_BEFORE.search(
            lower, max(start, got.start - 24), got.start
        ):
            return None
        before = NUMBER.search(text, start, got.start) or number_word_spans(
            text, lower, start, got.start
        )
        return got if before else None

    return number_guess


# A list of numbers ending at the last one: "-1, 0 and 1", "2, 3, 5, or 7".
_NUMBER_LIST = re.compile(
    r"(?<![\w.,])[-−]?\d+(?:\.\d+)?(?:[ \t]*,[ \t]+[-−]?\d+(?:\.\d+)?)*"
    r"(?:,?[ \t]+(?:and|or)[ \t]+|[ \t]*,[ \t]+)[-−]?\d+(?:\.\d+)?$"
)
_LIST_WINDOW = 160


def last_values_rule(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """``last_number`` for ``math``, reading a last list of numbers whole ("the integer
    values are -1, 0 and 1" gives ``-1, 0, 1``), not its last member."""
    last = last_number_rule(text, lower, lo, hi, accept)
    if last is None or not text[last.start : last.end].lstrip("-−").replace(".", "").isdigit():
        return last
    listed = _NUMBER_LIST.search(text, max(lo, last.start - _LIST_WINDOW), last.end)
    if listed is None:
        return last
    start, end = listed.start(), last.end
    # "(2, -3)" or "[1, 4]": the tuple or interval the numbers are written in.
    opening = text[start - 1 : start] if start > lo else ""
    if opening in ("(", "[") and text[end : end + 1] in (")", "]"):
        start, end = start - 1, end + 1
    got = accept(text[start:end])
    return found(got, text, start, end, start, end) if got else last


# --------------------------------------------------------------------------- the table
RULES: tuple[Rule, ...] = (
    Rule("answer_block", 100, 0.95, answer_block),
    Rule("boxed", 200, 0.95, boxed),
    Rule("json_answer", 200, 0.95, json_answer),
    Rule("final_answer_phrase", 300, 0.9, final_answer_phrase),
    Rule("output_line", 300, 0.85, output_line),
    # A bold last phrase: tried only when no phrase marker answered.
    Rule("output_line", 380, 0.85, bold_answer),
    # The same phrases in other languages: tried only when no English marker answered.
    Rule("final_answer_phrase", 350, 0.9, foreign_phrase),
)
"""Explicit markers of every task, by tier. Within a tier the candidate that ends last wins."""


def _task_markers(task: str) -> tuple[Rule, ...]:
    """Markers of one task: the multiple-choice phrases, and short replies that are
    their own answer (the whole output, or its opening words)."""
    rules = []
    if task in ("multiple_choice", "auto"):
        rules.append(Rule("choice_phrase", 350, 0.9, choice_phrase))
        rules.append(Rule("choice_phrase", 350, 0.9, cjk_letter_verdict))
    whole = whole_output_rule(task)
    if whole is not None:
        # A short reply of multiple choice names its option as it likes ("the right bar is
        # the tallest"): what it states counts, with the stated acceptor's checks.
        strict = task != "multiple_choice"
        rules.append(Rule("whole_output", 400, 0.9, whole, strict=strict))
    leading = leading_answer_rule(task)
    if leading is not None:
        rules.append(Rule("leading_answer", 400, 0.85, leading, strict=True))
    return tuple(rules)


_FALLBACKS: dict[str, tuple[Rule, ...]] = {
    # math: the last expression, or a number (or list) stated after it (same tier: the
    # later wins); a short sentence answer's last number is a guess.
    "math": (
        Rule("number_guess", 900, 0.15, number_guess_rule(last_values_rule)),
        Rule("last_expression", 900, 0.35, last_expression_rule),
        Rule("last_number", 900, 0.3, last_values_rule),
    ),
    "numeric": (
        Rule("number_guess", 900, 0.15, number_guess_rule(last_number_or_fraction_rule)),
        Rule("last_number", 900, 0.3, last_number_or_fraction_rule),
    ),
    # auto: whichever fallback form comes last in the text wins (same tier).
    "auto": (
        Rule("bottom_scan", 900, 0.4, final_yes_no_line),
        Rule("choice_letter", 900, 0.4, choice_letter),
        Rule("number_guess", 900, 0.15, number_guess_rule(last_number_rule)),
        Rule("last_number", 900, 0.3, last_number_rule),
    ),
    # multiple choice: a last choice letter, or a last sentence ending on an option's text.
    "multiple_choice": (
        Rule("choice_letter", 800, 0.5, choice_letter),
        Rule("choice_text", 800, 0.45, final_option_text),
    ),
    "boolean": (
        Rule("bottom_scan", 800, 0.4, bottom_scan),
        Rule("truth_predicate", 800, 0.35, truth_predicate),
    ),
    "game24": (Rule("bottom_scan", 800, 0.7, bottom_scan),),
    "text": (Rule("bottom_scan", 800, 0.2, bottom_scan),),
    "short_answer": (Rule("bottom_scan", 800, 0.2, bottom_scan),),
}


def fallback_rules(task: str) -> tuple[Rule, ...]:
    """The task's fallback rules, tried only when no explicit marker was accepted; each
    needs the task's shape (``strict``)."""
    return tuple(replace(rule, strict=True) for rule in _FALLBACKS[task])


def marker_rules(task: str) -> tuple[Rule, ...]:
    """The explicit rules of ``task`` (every fallback left out), in tier order."""
    return tuple(sorted(RULES + _task_markers(task), key=lambda rule: rule.tier))


def rules_for(task: str) -> tuple[Rule, ...]:
    """Every rule ``extract`` runs for ``task``, in tier order."""
    return marker_rules(task) + fallback_rules(task)
