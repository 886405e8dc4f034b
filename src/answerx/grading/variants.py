"""Short answers as tokens in one spelling: the variants exact match misses count as one.

:func:`variant_tokens` reads a short text the way a reader compares two answers:
accents folded (``Sao Paulo`` = ``São Paulo``), ``&`` = ``and``, British = American
spelling (``metres`` = ``meters``), unit and place abbreviations spelled out
(``km``, ``St.``), numbers as digits (``twenty-one`` = ``21``, ``2 million`` =
``2000000``, ``third`` = ``3rd``), dates in one order (``March 3, 1921`` =
``3 March 1921`` = ``1921-03-03``), SQuAD's articles dropped. Both sides go through
the same function, so a rule can never make an answer match a different one; it can
only make two spellings of one answer meet.

Written by hand: the libraries that read dates or number words (dateparser,
word2number) parse one value out of a whole string, where this must rewrite every
date and number *inside* a reply and keep the words around them.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["variant_tokens"]

_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH_OF = {m: i for i, m in enumerate(_MONTHS, 1)} | {m[:3]: i for i, m in enumerate(_MONTHS, 1)}
_MONTH_OF["sept"] = 9
# "may" is a month only beside a day or a year: "May 4" yes, "it may be" no.
_MONTH = (
    r"(?P<{0}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(?P<{0}>[0-3]?\d)(?!\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{0}>\d{{3,4}})"
_DATES = re.compile(
    "|".join(
        [
            # March 3, 1921 / March 3rd 1921 / March 3
            rf"\b{_MONTH.format('m1')}\s+{_DAY.format('d1')}(?:(?:\s*,\s*|\s+){_YEAR.format('y1')})?\b",
            # 3 March 1921 / the 3rd of March, 1921 / 3 March
            rf"\b{_DAY.format('d2')}\s+(?:of\s+)?{_MONTH.format('m2')}(?:(?:\s*,\s*|\s+){_YEAR.format('y2')})?\b",
            # 1921-03-03
            r"\b(?P<y3>\d{4})-(?P<m3>[01]\d)-(?P<d3>[0-3]\d)\b",
        ]
    ),
    re.IGNORECASE,
)


def _date(m: re.Match[str]) -> str:
    for k in "123":
        if m.group(f"d{k}") is None:
            continue
        month_text = m.group(f"m{k}").lower().rstrip(".")
        month = int(month_text) if month_text.isdigit() else _MONTH_OF.get(month_text[:4])
        month = month or _MONTH_OF.get(month_text[:3])
        day = int(m.group(f"d{k}"))
        if month is None or not 1 <= month <= 12 or not 1 <= day <= 31:
            return m.group(0)
        year = m.group(f"y{k}")
        return f" {day} {_MONTHS[month - 1]}" + (f" {int(year)} " if year else " ")
    return m.group(0)


_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_UNITS |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_UNITS |= {"thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17}
_UNITS |= {"eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70}
_TENS |= {"eighty": 80, "ninety": 90}
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
_ORDINALS |= {"seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11}
_ORDINALS |= {"twelfth": 12, "twentieth": 20, "hundredth": 100}

# British -> American, and abbreviations spelled out: one spelling per word.
_SPELLING = {
    "metre": "meter", "metres": "meters", "centre": "center", "centres": "centers",
    "kilometre": "kilometer", "kilometres": "kilometers", "centimetre": "centimeter",
    "centimetres": "centimeters", "millimetre": "millimeter", "millimetres": "millimeters",
    "litre": "liter", "litres": "liters", "theatre": "theater", "theatres": "theaters",
    "colour": "color", "colours": "colors", "honour": "honor", "honours": "honors",
    "favour": "favor", "favourite": "favorite", "labour": "labor", "neighbour": "neighbor",
    "harbour": "harbor", "armour": "armor", "humour": "humor", "behaviour": "behavior",
    "defence": "defense", "offence": "offense", "licence": "license", "catalogue": "catalog",
    "programme": "program", "aluminium": "aluminum", "grey": "gray", "tonne": "ton",
    "tonnes": "tons", "jewellery": "jewelry", "plough": "plow", "cheque": "check",
    "km": "kilometers", "kg": "kilograms", "cm": "centimeters", "mm": "millimeters",
    "mph": "miles per hour", "kph": "kilometers per hour", "lbs": "pounds", "lb": "pounds",
    "st": "saint", "ste": "sainte", "mt": "mount", "ft": "feet", "percent": "percent",
    "pct": "percent", "%": "percent", "vs": "versus",
}  # fmt: skip
_ISATION = re.compile(r"isation(s?)$")
_ARTICLES = frozenset({"a", "an", "the"})
_TOKEN = re.compile(r"\d+th\b|\d+(?:\.\d+)?|[^\W\d_]+|%", re.UNICODE)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_ACRONYM_DOT = re.compile(r"\b([A-Za-z])\.(?=[A-Za-z]\b\.?)")
_DIGIT_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b", re.IGNORECASE)
_PER_CENT = re.compile(r"\bper\s+cent\b", re.IGNORECASE)
_FOLD = str.maketrans({"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ł": "l", "ı": "i"})


def _fold_accents(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return "".join(c for c in text if not unicodedata.combining(c))


@lru_cache(maxsize=8192)
def variant_tokens(text: str) -> tuple[str, ...]:
    """``text`` as lower-case tokens in one spelling (see the module docstring).

    >>> variant_tokens("March 3rd, 1921") == variant_tokens("the 3rd of March 1921")
    True
    >>> variant_tokens("Twenty-one metres")
    ('21', 'meters')
    """
    text = _fold_accents(text).replace("&", " and ").replace("’", "'")
    text = _DATES.sub(_date, text)
    text = _PER_CENT.sub(" percent ", _THOUSANDS.sub("", text))
    text = _DIGIT_ORDINAL.sub(lambda m: f" {int(m.group(1))}th ", _ACRONYM_DOT.sub(r"\1", text))
    text = re.sub(r"'s\b", "", text).replace("'", "")
    words = [_spelling(w) for w in _TOKEN.findall(text.lower())]
    return tuple(_numbers([t for w in words for t in w.split() if t not in _ARTICLES]))


def _spelling(word: str) -> str:
    if word in _SPELLING:
        return _SPELLING[word]
    return _ISATION.sub(r"ization\1", word) if word.endswith(("isation", "isations")) else word


def _numbers(tokens: list[str]) -> list[str]:
    """Runs of number words (and a digit before a scale word) as one number in digits."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        value, used = _read_number(tokens, i)
        if used:
            out.append(_digits(value))
            i += used
        elif tokens[i] in _ORDINALS:
            out.append(f"{_ORDINALS[tokens[i]]}th")
            i += 1
        else:
            out.append(_plain(tokens[i]))
            i += 1
    return out


def _read_number(tokens: list[str], start: int) -> tuple[float, int]:
    """The number spelled from ``tokens[start]`` on and how many tokens it took (0: none)."""
    total = current = 0.0
    i, seen, hundreds = start, False, False
    while i < len(tokens):
        t = tokens[i]
        if t in _UNITS:
            current += _UNITS[t]
        elif t in _TENS and 10 <= current < 100 and not hundreds:
            current = current * 100 + _TENS[t]  # a year said in pairs: "nineteen eighty"
        elif t in _TENS:
            current += _TENS[t]
        elif t == "hundred" and seen:
            current *= 100
            hundreds = True
        elif t in _SCALES and seen:
            total += current * _SCALES[t]
            current = 0.0
        elif t == "and" and seen and i + 1 < len(tokens) and _is_number_word(tokens[i + 1]):
            pass  # "one hundred and five"
        elif not seen and _is_decimal(t) and i + 1 < len(tokens) and tokens[i + 1] in _SCALES:
            current = float(t)  # "2.5 million"
        else:
            break
        seen = True
        i += 1
    return total + current, (i - start if seen else 0)


def _is_number_word(token: str) -> bool:
    return token in _UNITS or token in _TENS


def _is_decimal(token: str) -> bool:
    return token.replace(".", "", 1).isdigit()


_TRAILING_ZEROS = re.compile(r"^(\d+)\.0+$|^(\d+\.\d*?)0+$")


def _plain(token: str) -> str:
    """A decimal without its trailing zeros ("72.0" is "72", "2.50" is "2.5")."""
    m = _TRAILING_ZEROS.match(token)
    return token if m is None else (m.group(1) or m.group(2))


def _digits(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"
