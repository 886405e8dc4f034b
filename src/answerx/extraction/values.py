"""Answers that state several values: lists of solutions, sets, several boxes, tuples.

Olympiad-style answers often have more than one value (``\\boxed{10, 11, 12}``,
``x = -1, x = 2, and x = -2``, ``x \\in \\{-1, 0, 1\\}``). The answer is the whole list
as stated, written ``v1, v2, v3``; :func:`count_values` says how many values it holds.

A comma between two numbers is a list separator or a decimal comma; inside a math
answer that lists values (``\\boxed{-3,4}``) it is a separator, with a unit or a
currency (``4,35 €``, ``3,5 kg``) or in a decimal-comma language a decimal comma
(:func:`comma_is_decimal`, :func:`decimal_comma_language`).

Hand-written scanners (a regex cannot track nesting); each is bounded by the answer's
length (at most 400 characters) or by a fixed window.
"""

from __future__ import annotations

import re

__all__ = [
    "BOX_JOIN",
    "comma_is_decimal",
    "count_values",
    "decimal_comma_language",
    "split_values",
    "value_list",
]

_SEPARATORS = (",", ";", " and ", " or ", "\\pm", "±", "\\quad")
_OPEN = "([{"
_CLOSE = ")]}"
# Words and marks that join values at the top level: ", ", "; ", " and ", " or ",
# "\text{ and }", "\quad".
_JOINER = re.compile(
    r"\s*(?:,|;)\s*(?:(?:and|or)\s+)?"
    r"|\s*(?:\\text\{\s*,?\s*(?:and|or)\s*\}|\\quad|\\qquad)\s*(?:,\s*)?"
    r"|\s+(?:and|or)\s+"
)
# "2,500": a comma between a digit and a group of exactly three digits is a thousands mark.
_THOUSANDS_GROUP = re.compile(r"\d,\d{3}(?![\d,])")
_SET = re.compile(r"\\\{(.*)\\\}|\\left\s*\\\{(.*)\\right\s*\\\}", re.DOTALL)
_MEMBER = re.compile(r"^\s*(?:[A-Za-z](?:_\{?\w+\}?)?)\s*(?:\\in|∈)\s*")
_EQUATION = re.compile(r"^\s*((?:[A-Za-z]|\\[a-z]+)(?:_\{?\w+\}?)?)\s*=\s*(?!=)(.+)$", re.DOTALL)
_PLUS_MINUS = re.compile(r"^\s*(?:\\pm|±)\s*\S")
_WORD = re.compile(r"[A-Za-z]{2,}")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_TEXT = re.compile(r"\\(?:text|mathrm|mbox)\s*\{[^{}]*\}")
#: What may stand between two boxes of one answer: "} and \boxed{", "}$, $\boxed{",
#: "} \text{ and } \boxed{", "}, x = \boxed{". Matched on at most 60 characters.
BOX_JOIN = re.compile(
    r"[\s$]*(?:,|;|&|and|or|\\text\{\s*,?\s*(?:and|or)?\s*\}|\\quad|\\qquad|\\,|\\;)?"
    r"[\s$,]*(?:(?:[A-Za-z]|\\[a-z]+)(?:_\{?\w+\}?)?\s*=\s*)?[\s$]*"
)


def split_values(answer: str) -> list[str]:
    """The values of ``answer`` at its top level: ``"-1, 0, 1"`` gives three, ``"(1, 3),
    (4, 0)"`` two pairs, ``"\\{-1, 0, 1\\}"`` the set's three members, ``"[1, 2, 4, 8]"``
    the list's four, ``"\\pm 2"`` and ``"x = \\pm 2"`` two; an interval ``"(2,5]"``, one
    pair ``"(1, 3)"`` or one triple ``"(1, 2, 3)"`` is one value."""
    s = answer.strip()
    inner = _SET.fullmatch(s)
    if inner is not None:
        s = inner.group(1) if inner.group(1) is not None else inner.group(2)
    equation = _EQUATION.match(s)
    if equation is not None and _PLUS_MINUS.match(equation.group(2)):
        s = equation.group(2)  # "x = \pm 3": the values of x
    if _PLUS_MINUS.match(s):
        value = s.strip()[3:].strip() if s.strip().startswith("\\pm") else s.strip()[1:].strip()
        return ["+" + value, "-" + value]
    items = _top_level(s)
    if len(items) == 1 and s.startswith("[") and s.endswith("]"):
        listed = _top_level(s[1:-1])
        if len(listed) >= 3:  # "[1, 2, 3]" is a list; "[a, b]" an interval
            return listed
    return items


def _top_level(s: str) -> list[str]:
    """``s`` cut at its top-level separators (see :data:`_JOINER`)."""
    items: list[str] = []
    depth = 0
    start = i = 0
    while i < len(s):
        c = s[i]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth = max(depth - 1, 0)
        elif (
            depth == 0
            and c in ",; \\"
            and not _THOUSANDS_GROUP.match(s, i - 1)
            and s[i - 1 : i] != "\\"  # "1\\,000": a LaTeX thin space
        ):
            joiner = _JOINER.match(s, i)
            if joiner is not None and joiner.end() > i:
                items.append(s[start:i])
                start = i = joiner.end()
                continue
        i += 1
    items.append(s[start:])
    return [item.strip() for item in items if item.strip()]


def count_values(answer: str, task: str) -> int:
    """How many values ``answer`` (an answer of ``task``) holds; 1 for a letter, a yes/no,
    a Game-of-24 expression or a text answer."""
    if task == "multiple_choice":
        # "B, C": the letters a stated answer lists (a letter is otherwise one value).
        return max(sum(1 for c in answer if "A" <= c <= "J"), 1) if "," in answer else 1
    if task in ("boolean", "game24", "text"):
        return 1
    if not any(mark in answer for mark in _SEPARATORS):
        return 1  # the usual "42", "\frac{1}{2}", "x + 1": one value, no scan
    return max(len(split_values(answer)), 1)


def value_list(answer: str) -> str | None:
    """``answer`` written as a list ``v1, v2, v3`` when it states several values in one of
    the ways lists are written (``"$x = -1$, $x = 2$, and $x = -2$"``, ``"-1, 0 and 1"``,
    ``"x \\in \\{-1, 0, 1\\}"``, ``"x = 1 or x = 2"``); None when it states one value or is
    not a list of values ("all real numbers except 1 and 2" is prose)."""
    member = _MEMBER.match(answer)
    if member is not None and _SET.fullmatch(answer[member.end() :].strip()):
        return answer[member.end() :].strip()  # "x \in \{-1, 0, 1\}": the set
    items = [item.strip("$ ").strip() for item in split_values(answer.replace("$", " "))]
    items = [item for item in items if item]
    if len(items) < 2 or _SET.fullmatch(answer.strip()):
        return None
    if any(_WORD.search(_COMMAND.sub(" ", _TEXT.sub(" ", item))) for item in items):
        return None  # prose between the values
    equations = [_EQUATION.match(item) for item in items]
    names = {m.group(1) for m in equations if m is not None}
    if len(names) == 1 and "=" not in "".join(m.group(2) for m in equations if m is not None):
        # "x = 1, x = 2" (or "x = 1 or 2"): the values of the one unknown.
        items = [
            m.group(2).strip() if m is not None else item
            for m, item in zip(equations, items, strict=True)
        ]
    return ", ".join(items)


# A comma between digits: "-3,4", "2,74", "3,5 kg" (the number and what follows it).
_COMMA_NUMBER = re.compile(r"[-−]?(\d+),(\d+)")
_UNIT_AFTER = re.compile(
    r"\s*(?:€|£|¥|%|\\%|\\text\{|°|(?:[a-zA-Zµ]{1,3}|euros?|dollars?|mètres?|meters?|metres?|"
    r"liters?|litres?|grams?|kilos?|heures?|stunden|horas|minutes?|minuten|minutos)\b)"
)
_UNIT_BEFORE = re.compile(r"(?:€|£|\$|\\\$|R\$)\s*$")


def comma_is_decimal(number: str, before: str = "", after: str = "") -> bool:
    """Whether the comma of ``number`` (``"a,b"``) is a decimal comma, from the number and
    the text just around it: yes with a unit or currency (``4,35 €``, ``3,5 kg``), or
    when ``b`` has four digits or more (``3,14159``) or two after a one-digit ``a``
    (``2,74``); no when ``b`` has one digit (``\\boxed{-3,4}``, ``\\boxed{5,9}`` list two
    values) or ``a`` has several (``10,11``). Groups of three are thousands (never here)."""
    m = _COMMA_NUMBER.fullmatch(number.strip())
    if m is None:
        return False
    whole, part = m.group(1), m.group(2)
    if len(part) == 3:
        return False
    if _UNIT_AFTER.match(after) or _UNIT_BEFORE.search(before):
        return True
    return len(part) >= 4 or (len(part) == 2 and len(whole) == 1)


# Words that are common in the decimal-comma languages answers are written in (French,
# German, Spanish, Portuguese, Italian, Dutch) and rare in English prose; Cyrillic counts too.
_DECIMAL_LANGUAGE_WORDS = re.compile(
    r"\b(?:soit|donc|alors|est|sont|nous|avec|pour|dans|les|des|und|ist|sind|wir|mit|"
    r"für|die|der|das|also|daher|somit|es|son|por|para|con|los|las|entonces|luego|são|"
    r"então|portanto|logo|com|não|uma|dunque|quindi|sono|che|dus|het|een)\b",
    re.IGNORECASE,
)
_ENGLISH_WORDS = re.compile(
    r"\b(?:the|is|are|so|we|and|of|to|that|this|with|for|then|therefore|thus)\b",
    re.IGNORECASE,
)
_CYRILLIC = re.compile("[\u0400-\u04ff]")
_LANGUAGE_WINDOW = 2000


def decimal_comma_language(text: str) -> bool:
    """Whether ``text`` is written in a language that writes decimals with a comma: more
    of its common words than of English ones in its last 2,000 characters, or Cyrillic."""
    tail = text[-_LANGUAGE_WINDOW:]
    if tail.isascii() is False and _CYRILLIC.search(tail):
        return True
    foreign = len(_DECIMAL_LANGUAGE_WORDS.findall(tail))
    return foreign > 0 and foreign > len(_ENGLISH_WORDS.findall(tail))
