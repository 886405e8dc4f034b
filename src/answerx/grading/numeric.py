"""Numbers compared as numbers: exactly as fractions, then within a tolerance."""

from __future__ import annotations

import re
from fractions import Fraction

from answerx.extraction.number_words import spelled_number
from answerx.extraction.numbers import canonical_number

__all__ = ["PLAIN_NUMBER", "as_fraction", "exact_number", "numbers_close"]

#: A gold answer that is just a number (currency, separators, percent allowed).
PLAIN_NUMBER = re.compile(
    r"[-−]?\s*(?:\\?\$|€|£)?\s*(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*/\s*\d+)?\s*(?:%|\\%)?"
)
# A number written with nothing around it that math-verify could read differently
# (no percent, unit, variable or "="): integers, decimals, thousands groups, a/b and
# \frac{a}{b}. Only these are compared without math-verify in the math task.
_BARE = re.compile(
    r"(?P<sign>-?)(?:(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<dec>\.\d+)?"
    r"|(?P<num>\d+)\s*/\s*(?P<den>\d+)"
    r"|\\[dt]?frac\s*(?:\{(?P<fnum>\d+)\}|(?P<fnum1>\d))\s*(?:\{(?P<fden>\d+)\}|(?P<fden1>\d)))"
)
_MAX_DIGITS = 15  # beyond this a float (math-verify's Float) no longer holds every digit


def as_fraction(text: str) -> Fraction | None:
    """The number ``text`` states (the first one, see ``canonical_number``), exactly."""
    canonical = canonical_number(text)
    if canonical is None:
        return spelled_number(text)  # "three", "a dozen": a number in words
    try:
        return Fraction(canonical)
    except (ValueError, ZeroDivisionError):  # "1/0"
        return None


def exact_number(text: str) -> tuple[Fraction, bool] | None:
    """(value, is_decimal) for a bare number, or None for anything else.

    ``is_decimal`` tells a float-like ``0.5`` (which math-verify compares rounded to
    6 places) from an exact ``1/2`` (compared exactly).
    """
    m = _BARE.fullmatch(text.strip().replace("−", "-"))
    if m is None:
        words = spelled_number(text)  # "three" is exactly 3
        return None if words is None else (words, False)
    if sum(c.isdigit() for c in text) > _MAX_DIGITS:
        return None
    sign = -1 if m["sign"] else 1
    try:
        if m["int"] is not None:
            value = Fraction(m["int"].replace(",", "") + (m["dec"] or ""))
            return sign * value, m["dec"] is not None
        num, den = (
            (m["num"], m["den"])
            if m["num"] is not None
            else (m["fnum"] or m["fnum1"], m["fden"] or m["fden1"])  # \frac{1}{2}, \frac12
        )
        return sign * Fraction(int(num), int(den)), False
    except ZeroDivisionError:
        return None


def numbers_close(got: Fraction, expected: Fraction, tolerance: float) -> bool:
    """Equal, or within ``tolerance`` relative to ``expected`` (absolute below 1)."""
    return got == expected or abs(got - expected) <= tolerance * max(1.0, abs(float(expected)))
