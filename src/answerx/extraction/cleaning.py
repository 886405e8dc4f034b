"""The one answer-cleaning function of answerx.

:func:`clean_answer` is used by every deterministic rule and, later, by the
Pydantic validators of structured extraction, so "The answer is $4$." becomes
``4`` the same way everywhere.
"""

from __future__ import annotations

import re

from answerx.extraction.latex import unwrap_command
from answerx.extraction.models import OPTION_LETTERS

__all__ = ["clean_answer", "repair_json_latex"]

# A JSON decoder turns an unescaped LaTeX command inside a string into a control
# character plus the rest of the word: "\frac" -> "\x0c" + "rac". We only repair
# a control character followed by the rest of a known command (and then a
# non-letter), so real tabs and newlines in text stay what they are.
_CONTROL_COMMANDS: dict[str, tuple[str, ...]] = {
    "\b": (
        "oxed",
        "eta",
        "inom",
        "egin",
        "igg",
        "igl",
        "igr",
        "ig",
        "mod",
        "ar",
        "ullet",
        "ackslash",
        "igcup",
        "igcap",
        "ot",
        "f",
        "ecause",
        "mit",
    ),
    "\f": ("rac", "orall", "box", "lat", "rak", "loor"),
    "\t": (
        "extbf",
        "extit",
        "extrm",
        "extstyle",
        "ext",
        "imes",
        "heta",
        "herefore",
        "ilde",
        "riangle",
        "frac",
        "an",
        "au",
        "op",
        "o",
    ),
    "\n": ("eq", "e", "u", "abla", "ot", "otin", "i", "eg", "mid", "ewline", "leq", "geq"),
    "\r": ("ightarrow", "ight", "ho", "angle", "floor", "ceil", "m", "oot"),
}
_ESCAPE_LETTER = {"\b": "b", "\f": "f", "\t": "t", "\n": "n", "\r": "r"}
_REPAIR = re.compile(
    "|".join(
        f"{re.escape(ctrl)}(?:{'|'.join(sorted(tails, key=len, reverse=True))})(?![A-Za-z])"
        for ctrl, tails in _CONTROL_COMMANDS.items()
    )
)


def repair_json_latex(text: str) -> str:
    """Undo the damage a JSON decoder does to LaTeX written unescaped in a string.

    >>> repair_json_latex("\\x0crac{1}{2}")
    '\\\\frac{1}{2}'
    """
    if text.isprintable():  # fast path: no control character at all
        return text
    return _REPAIR.sub(lambda m: "\\" + _ESCAPE_LETTER[m.group()[0]] + m.group()[1:], text)


_PREFIX = re.compile(
    r"""^(?:\*\*|__)?(?:
        (?:so|thus|hence|therefore|then|and)\s*,?\s*(?:the\s+)?(?:final\s+|correct\s+|best\s+)?
            (?:answer|option|choice)\s*(?:is|:|=)\s*:?
      | (?:the\s+)?(?:final\s+|correct\s+|best\s+)?(?:answer|option|choice)\s*(?:is|:|=)\s*:?
      | (?:final\s+answer|answer)\b\s*[:.-]?
      | (?:therefore|thus|hence|so|then|finally|overall|in\s+conclusion)\s*[,:]
      | (?:=|:|=>|->|→)
    )(?:\*\*|__)?\s*""",
    re.IGNORECASE | re.VERBOSE,
)
# First characters of every _PREFIX alternative: most candidates ("(B)", "42")
# start with none of them, and skip the regex.
_PREFIX_STARTS = frozenset("sthafcboi=:-→*_")
_TRAILING_POLITENESS = re.compile(r"\s*\.?\s*I\s+hope\s+it\s+is\s+correct\.?\s*$", re.IGNORECASE)
_WRAPPERS: tuple[tuple[str, str], ...] = (
    ("$$", "$$"),
    ("\\[", "\\]"),
    ("\\(", "\\)"),
    ("$", "$"),
    ("**", "**"),
    ("__", "__"),
    ("*", "*"),
    ("_", "_"),  # markdown italics: "_D_"
    ("`", "`"),
    ('"', '"'),
    ("'", "'"),
    ("“", "”"),
)
# Every character str.strip() removes (form feed, vertical tab, U+2028, ...), so the
# trailing strip and the first strip of the next call agree (idempotence).
_WHITESPACE = "".join(chr(c) for c in range(0x3000 + 1) if chr(c).isspace())
_DELIMITERS = "$*_`'\"" + _WHITESPACE
_WRAPPER_STARTS = frozenset(left[0] for left, _ in _WRAPPERS)
_TEXT_COMMANDS = ("boxed", "fbox", "text", "textbf", "textit", "textrm", "mathrm", "mathbf")
# Choice letters as models write them: the loop below leaves each one as it is.
_BARE_LETTERS = frozenset(
    form.format(letter) for letter in OPTION_LETTERS for form in ("{}", "({})", "{})", "({}")
)
_MAX_ROUNDS = 12  # cleaning is a fixpoint loop; bounded so it is always linear
# Full-width punctuation and letters (U+FF01-U+FF5E) and the ideographic space, as their
# ASCII characters; full-width digits are digits already, and stay as written.
_FULL_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F) if not 0xFF10 <= c <= 0xFF19} | {
    0x3000: 0x20
}


def clean_answer(text: str) -> str:
    """Normalise an answer candidate: strip answer prefixes (repeatedly, any case),
    surrounding ``$``/``**``/quotes/brackets, ``\\text{}``/``\\boxed{}`` wrappers
    and a trailing period, and repair JSON-corrupted LaTeX.

    >>> clean_answer("The final answer is $\\\\boxed{4}$.")
    '4'
    """
    if text.isdigit() or text in _BARE_LETTERS:
        return text  # already clean ("42", "(B)"): the usual candidate, and no step changes it
    return _clean(text)


def _clean(text: str) -> str:
    """:func:`clean_answer` without its fast path for already clean candidates."""
    if not text.isascii():
        text = text.translate(_FULL_WIDTH)  # "（B）", "：" as CJK text writes them
    s = repair_json_latex(text).strip()  # repaired first: strip() would eat a "\f" of "\frac"
    # A round only removes characters from s: once it is printable (no control
    # character, the usual case) no later round has anything to repair.
    controls = not s.isprintable()
    for _ in range(_MAX_ROUNDS):
        # Repaired every round: stripping a wrapper or a trailing phrase can leave a
        # control character followed by a command's tail where none was before.
        if controls:
            s = repair_json_latex(s)
        before = s
        if "hope" in s:
            s = _TRAILING_POLITENESS.sub("", s)
        prefix = _PREFIX.match(s) if s[:1].lower() in _PREFIX_STARTS else None
        if prefix and prefix.end():
            s = s[prefix.end() :].strip()
        s = _strip_trailing_punctuation(s)
        if s and s[0] in _WRAPPER_STARTS:
            for left, right in _WRAPPERS:
                if len(s) >= len(left) + len(right) and s.startswith(left) and s.endswith(right):
                    inner = s[len(left) : len(s) - len(right)].strip()
                    # "$1$ and $2$" is two formulas, not one wrapped in "$".
                    if inner and right not in inner and left not in inner:
                        s = inner
                        break
        # A bold marker whose partner the sentence scanner left behind ("42**").
        for mark in ("**", "__"):
            if s.strip("*_") == "":
                break  # "___" is a (template) value of its own, not a bold marker
            if s.endswith(mark) and mark not in s[: -len(mark)]:
                s = s[: -len(mark)].rstrip()
            elif s.startswith(mark) and mark not in s[len(mark) :]:
                s = s[len(mark) :].lstrip()
        # JSON the phrase rules read past: a key's tail before its value ('": "2401"'),
        # the quote that closes the string an answer ended ('Answer: 54"').
        if s.startswith(('":', "':")):
            s = s[2:].lstrip()
        if s.count('"') == 1 and (s[0] == '"' or s[-1] == '"') and "'" not in s:
            s = s.strip('"').strip()  # (with a "'" it may be 5'10": feet and inches)
        if s.startswith("\\"):
            unwrapped = unwrap_command(s, _TEXT_COMMANDS)
            if unwrapped is not None:
                s = unwrapped.strip()
        if s == before:
            break
    # Only delimiters left ("$$", "$ $", "**"): there is no answer in it.
    return "" if not s.strip(_DELIMITERS) else s


def _strip_trailing_punctuation(s: str) -> str:
    # "3.5." -> "3.5" (a "." with nothing after it ends the sentence), but an
    # ellipsis stays. One rstrip, not a loop of copies: linear on any input.
    if s.endswith("..."):
        return s
    return s.rstrip(_TRAILING)


_TRAILING = ".,;:!" + _WHITESPACE
