"""LaTeX answers as a short list of tokens, or None for anything outside the small grammar.

Answer-sized input only (``MAX_CHARS``): the fast rung never reads a whole document.
Spacing, ``$`` and sizing commands (``\\left``, ``\\big``) are dropped; every command
the grammar does not know makes the whole answer unreadable here, so that it goes on
to math-verify instead of being guessed at.
"""

from __future__ import annotations

import importlib.util
import re
from functools import cache
from pathlib import Path
from typing import Final, NamedTuple

__all__ = [
    "LAYOUT_COMMANDS",
    "MAX_CHARS",
    "MAX_TOKENS",
    "SPACING",
    "SYNONYMS",
    "Token",
    "ends_in_unit",
    "tokenize",
]

#: Longer answers are left to math-verify.
MAX_CHARS: Final = 400
MAX_TOKENS: Final = 240


class Token(NamedTuple):
    """``kind`` is one of num, id, cmd, op, cmp, pct, deg; ``text`` its spelling."""

    kind: str
    text: str


_UNICODE = str.maketrans(
    {"−": "-", "–": "-", "×": "*", "·": "*", "⋅": "*", "÷": "/", "≤": "<=", "≥": ">=",
     "≠": "!=", "∞": "\\infty ", "π": "\\pi ", "√": "\\sqrt ", "∪": "\\cup ", "∈": "\\in ",
     "°": "^\\circ ", "∅": "\\emptyset ", "²": "^2", "³": "^3"}
)  # fmt: skip

#: Commands that only size or space things out: the one table of LaTeX layout, dropped by
#: this lexer and by grading's plain comparison (``normalised_math``) alike.
LAYOUT_COMMANDS: Final = frozenset(
    [
        "left",
        "right",
        "big",
        "Big",
        "bigg",
        "Bigg",
        "bigl",
        "bigr",
        "Bigl",
        "Bigr",
        "biggl",
        "biggr",
        "Biggl",
        "Biggr",
        "displaystyle",
        "textstyle",
        "quad",
        "qquad",
        "limits",
    ]
)
_COMPARE: Final = {
    "le": "<=", "leq": "<=", "leqslant": "<=", "ge": ">=", "geq": ">=", "geqslant": ">=",
    "lt": "<", "gt": ">", "ne": "!=", "neq": "!=",
}  # fmt: skip
#: Spellings of one command (``\\dfrac`` is ``\\frac``), read the same way everywhere.
SYNONYMS: Final = {
    "dfrac": "frac", "tfrac": "frac", "cfrac": "frac", "cdot": "*", "times": "*", "ast": "*",
    "div": "/", "lbrace": "{{", "rbrace": "}}", "varnothing": "emptyset", "degree": "deg",
    "lvert": "|", "rvert": "|", "vert": "|", "mid": "|", "varpi": "pi",
}  # fmt: skip

# "2 or 3", "x = 2 \text{ or } x = 3": a list of values, as math-verify reads it.
_OR_AND = re.compile(r"\s*(?:\\(?:text|mbox|textrm)\{\s*(?:or|and)\s*\}|\s(?:or|and)\s)\s*")

# "2*sqrt(26)", "2pi": plain-text spellings of \sqrt and \pi (whole words only).
_PLAIN_WORDS = re.compile(r"(?<![A-Za-z\\])(sqrt|pi)(?![A-Za-z])")

# "√69" in plain text is the root of 69 (LaTeX's \sqrt69 would be \sqrt{6}9).
_ROOT_OF_DIGITS = re.compile(r"√\s*(\d+(?:\.\d+)?)")

#: Spacing that is not a command word: ``$``, ``~``, ``\\,``, ``\\;``, ``\\:``, ``\\!``, ``\\ ``.
SPACING: Final = r"\$|~|\\[,;:! ]"

_TOKEN = re.compile(
    rf"(?P<space>\s+|{SPACING})"
    r"|(?P<deg>\^\s*(?:\{\s*\\circ\s*\}|\\circ\b))"
    r"|(?P<num>\d+(?:\.\d+)?|\.\d+)"
    r"|(?P<cmd>\\[A-Za-z]+)"
    r"|(?P<brace>\\[{}])"
    r"|(?P<pct>\\?%)"
    r"|(?P<cmp><=|>=|!=|=|<|>)"
    r"|(?P<id>[A-Za-z])"
    r"|(?P<op>[-+*/^_()\[\]{},|!'.])"
)


# Without math-verify's own pattern: any word or letter after a value at the end is a unit.
_ANY_UNIT = re.compile(r"(?:\d|\}|\s)\s*[A-Za-z]+\s*$")


@cache
def _units() -> re.Pattern[str]:
    """math-verify's own pattern of a trailing unit (``latex2sympy2_extended``'s
    ``units_regex``: ``12 cm``, ``7 ways``, ``5\\,km``), read from its module alone: the
    package's ``__init__`` imports sympy, a quarter of a second this rung never pays."""
    package = importlib.util.find_spec("latex2sympy2_extended")
    folders = package.submodule_search_locations if package is not None else None
    if not folders:
        return _ANY_UNIT
    path = Path(next(iter(folders))) / "math_normalization.py"
    spec = importlib.util.spec_from_file_location("_answerx_math_normalization", path)
    if spec is None or spec.loader is None:
        return _ANY_UNIT
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception:  # another release's layout: the cautious pattern still holds
        return _ANY_UNIT
    pattern = getattr(module, "units_regex", None)
    return pattern if isinstance(pattern, re.Pattern) else _ANY_UNIT


def ends_in_unit(text: str) -> bool:
    """Whether math-verify would strip a unit off the end of ``text`` (``12 apples``,
    ``12 cm``): it then compares the bare value, where this grammar would multiply it by
    variables; such answers are left to math-verify."""
    return _units().search(text) is not None


def tokenize(text: str) -> list[Token] | None:
    """The tokens of ``text``; None when it is too long, ends in a unit or holds anything
    unknown."""
    if len(text) > MAX_CHARS or ends_in_unit(text):
        return None
    text = _OR_AND.sub(",", _PLAIN_WORDS.sub(r"\\\1 ", text))
    text = _ROOT_OF_DIGITS.sub(r"\\sqrt{\1}", text).translate(_UNICODE)
    tokens: list[Token] = []
    pos, end = 0, len(text)
    while pos < end:
        m = _TOKEN.match(text, pos)
        if m is None:
            return None
        pos = m.end()
        kind = m.lastgroup
        word = m.group()
        if kind == "space":
            continue
        if kind == "cmd":
            name = word[1:]
            if name in LAYOUT_COMMANDS:
                continue
            if name in _COMPARE:
                tokens.append(Token("cmp", _COMPARE[name]))
                continue
            name = SYNONYMS.get(name, name)
            if name in ("*", "/", "|") or name == "{{" or name == "}}":
                tokens.append(Token("op", name))
            elif name == "deg":
                tokens.append(Token("deg", "deg"))
            else:
                tokens.append(Token("cmd", name))
        elif kind == "brace":
            tokens.append(Token("op", word[1] * 2))
        elif kind is not None:
            tokens.append(Token(kind, word))
        if len(tokens) > MAX_TOKENS:
            return None
    return tokens
