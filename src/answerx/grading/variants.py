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
from fractions import Fraction
from functools import lru_cache

from answerx.extraction.number_words import ORDINALS, SCALES, number_run
from answerx.grading.text import ARTICLES

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
    return tuple(_numbers([t for w in words for t in w.split() if t not in ARTICLES]))


def _spelling(word: str) -> str:
    if word in _SPELLING:
        return _SPELLING[word]
    return _ISATION.sub(r"ization\1", word) if word.endswith(("isation", "isations")) else word


def _numbers(tokens: list[str]) -> list[str]:
    """Runs of number words (and digits before a scale word) as one number in digits."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        value, used = _read_number(tokens, i)
        if used:
            out.append(_digits(value))
            i += used
        elif tokens[i] in ORDINALS:
            out.append(f"{ORDINALS[tokens[i]]}th")
            i += 1
        else:
            out.append(_plain(tokens[i]))
            i += 1
    return out


def _read_number(tokens: list[str], start: int) -> tuple[Fraction, int]:
    """The number written from ``tokens[start]`` on and how many tokens it took (0: none):
    number words as extraction reads them, digits before a scale word ("2.5 million"), and
    a year said in pairs ("nineteen eighty-four")."""
    if _is_decimal(tokens[start]) and start + 1 < len(tokens) and tokens[start + 1] in SCALES:
        return Fraction(tokens[start]) * SCALES[tokens[start + 1]], 2
    run = number_run(tokens, start)
    if run is None:
        return Fraction(0), 0
    value, used = run
    if 10 <= value < 100:  # "nineteen eighty(-four)": two digits, then a tens word
        pair = number_run(tokens, start + used)
        if pair is not None and 20 <= pair[0] < 100:
            return value * 100 + pair[0], used + pair[1]
    return value, used


def _is_decimal(token: str) -> bool:
    return token.replace(".", "", 1).isdigit()


_TRAILING_ZEROS = re.compile(r"^(\d+)\.0+$|^(\d+\.\d*?)0+$")


def _plain(token: str) -> str:
    """A decimal without its trailing zeros ("72.0" is "72", "2.50" is "2.5")."""
    m = _TRAILING_ZEROS.match(token)
    return token if m is None else (m.group(1) or m.group(2))


def _digits(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"
