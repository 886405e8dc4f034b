"""Reading numbers the way answers write them: "$1,234.50", "-3", "50%", "3/4", "2,74", and
in words ("three", "twenty-one", "one hundred and five", "a dozen", "half")."""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal

from answerx.extraction.number_words import stated_number_words

__all__ = [
    "NUMBER",
    "ascii_digits",
    "canonical_number",
    "plain_scientific",
    "read_european",
    "signed_words",
    "single_number",
]

# Thousands separators only in proper groups of three, so "1,2,3" stays three numbers.
NUMBER = re.compile(
    r"(?<![\w.])(?P<num>[-−]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)"
    r"(?:\s*/\s*\d+(?!\.\d))?)(?![\w])"
)
# "-$5" and "$-5": the sign belongs to the number, the currency symbol does not.
_SIGNED_CURRENCY = re.compile(r"([-−])\s*(?:\\?\$|€|£)\s*|(?:\\?\$|€|£)\s*(?=[-−]\d)")
_LATEX_FRAC = re.compile(
    r"\\[dt]?frac\s*(?:\{\s*(-?\d+)\s*\}|(\d))\s*(?:\{\s*(\d+)\s*\}|(\d))"
)  # \frac{1}{2}, \dfrac34, \frac 1 2 (see latex.FRACTION)


def _as_slash(m: re.Match[str]) -> str:
    return f"{m.group(1) or m.group(2)}/{m.group(3) or m.group(4)}"


# "negative 0.5", "minus 3": the sign said in words belongs to the number.
_SIGN_WORD = re.compile(r"\b(?:negative|minus)\s+(?=(?:\\?\$|€|£)?\s*\.?\d)", re.IGNORECASE)


def signed_words(text: str) -> str:
    """``text`` with a sign said in words written as a minus: ``"negative 0.5"`` → ``"-0.5"``."""
    if "inus" not in text and "egative" not in text:
        return text
    return _SIGN_WORD.sub("-", text)


# Scientific notation as answers write it: "1.28e-06", "1.28 × 10^(-6)", "3 \times 10^{8}".
_SCIENTIFIC = re.compile(
    r"(?<![\w.])([-−]?\d+(?:\.\d+)?)(?:[eE]([-+−]?\d{1,3})(?![\w.])"
    r"|\s*(?:×|\\times|\\cdot|\*|x)\s*10\s*\^\s*(?:\{\s*([-+−]?\d{1,3})\s*\}"
    r"|\(\s*([-+−]?\d{1,3})\s*\)|([-+−]?\d{1,3})))"
)


_E_NOTATION = re.compile(r"\d[eE][-+−]?\d")


def _plain_scientific(m: re.Match[str]) -> str:
    exponent = next(g for g in m.groups()[1:] if g is not None).replace("−", "-")
    value = Decimal(m.group(1).replace("−", "-")).scaleb(int(exponent))
    return format(value, "f")


def plain_scientific(text: str) -> str:
    """``text`` with numbers in scientific notation written out: ``"1.28 × 10^(-6)"`` →
    ``"0.00000128"``."""
    if not ("^" in text or (("e" in text or "E" in text) and _E_NOTATION.search(text))):
        return text  # the usual number: no power of ten, no "1.28e-06"
    return _SCIENTIFIC.sub(_plain_scientific, text)


def canonical_number(text: str) -> str | None:
    """The first number in ``text`` written canonically, or None.

    Drops thousands separators, currency and units, and trailing zeros of
    decimals (``"$1,234.50"`` → ``"1234.5"``, ``"6.0"`` → ``"6"``); keeps
    fractions as ``a/b`` and a leading minus.
    """
    text = _SIGNED_CURRENCY.sub(
        r"\1", _LATEX_FRAC.sub(_as_slash, plain_scientific(signed_words(text)))
    )
    # "x = 5" or "2 + 3 = 5": the value is what follows the last "=".
    if "=" in text:
        text = text.rsplit("=", 1)[1]
    m = NUMBER.search(text.replace("\\!", "").replace("{,}", ","))
    if m is None:
        return None
    return _normalise(m.group("num"))


def ascii_digits(text: str) -> str:
    """``text`` with every digit written in ASCII: full-width ``"１８"`` (NFKC) and the
    digits of other scripts (``"٣"``, ``"३"``), which the number pattern reads as digits
    too, are ``"18"``, ``"3"``.

    >>> ascii_digits("１８．５"), ascii_digits("٣٤")
    ('18.5', '34')
    """
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", text)
    return "".join(str(unicodedata.decimal(c, c)) for c in text)


def _normalise(num: str) -> str:
    if not num.isascii():  # (checked here: the usual number is ASCII and skips a call)
        num = ascii_digits(num)
    num = num.replace("−", "-").replace(",", "").replace(" ", "")
    if "/" in num:
        return num
    if "." in num:
        num = num.rstrip("0").rstrip(".")
    if num.startswith(("-.", ".")):
        num = num.replace(".", "0.", 1)  # ".75" -> "0.75"
    if num in ("-0", ""):
        num = "0"
    return num


# One number written with a decimal comma or spaced thousands, and nothing else:
# "2,74" (a comma followed by 1-2 or 4+ digits cannot be a thousands separator),
# "1 000" / "1\,000" / "1 000 000" (groups of three after a space), "1 000,5".
# "1,000" stays one thousand, and "1,2" inside a list or an interval is not touched
# (the whole candidate must be the number).
_DECIMAL_COMMA = re.compile(r"[-−]?\d+,(?:\d{1,2}|\d{4,})")
_SPACED_THOUSANDS = re.compile(
    r"[-−]?\d{1,3}(?:(?: |\u00a0|\u202f|\\,|\\ |~|\{,\})\d{3})+(?:[.,]\d+)?"
)
_SPACES = re.compile(r" |\u00a0|\u202f|\\,|\\ |~|\{,\}")
# A decimal comma with a currency or a unit around it: "4,35 €", "€ 4,35", "3,5 kg".
_WITH_UNIT = re.compile(
    r"(€|£|\\?\$|R\$)?\s*([-−]?\d+,(?:\d{1,2}|\d{4,}))"
    r"\s*(€|£|%|\\%|[a-zA-Zµ°]{1,12}\.?(?:[ \t]+[a-zA-Z]{1,12}){0,2})?"
)


def read_european(text: str) -> str | None:
    """``text`` as one number when it is written with a decimal comma or spaced
    thousands (``"2,74"`` → ``"2.74"``, ``"1 000,5"`` → ``"1000.5"``), else None.

    >>> read_european("1 000"), read_european("2,74"), read_european("1,000")
    ('1000', '2.74', None)
    >>> read_european("4,35 €"), read_european("3,5 kg")
    ('4.35', '3.5')
    """
    s = text.strip()
    if _DECIMAL_COMMA.fullmatch(s):
        return _normalise(s.replace(",", "."))
    if _SPACED_THOUSANDS.fullmatch(s):
        digits = _SPACES.sub("", s)
        if digits.count(",") == 1 and "." not in digits:
            digits = digits.replace(",", ".")
        return _normalise(digits)
    priced = _WITH_UNIT.fullmatch(s) if "," in s else None
    if priced is not None and (priced.group(1) or priced.group(3)):
        return _normalise(priced.group(2).replace(",", "."))  # "4,35 €", "3,5 kg"
    return None


# Digits that NUMBER does not read as a number of their own ("0.8" in "0.8x", "2" in "x^2").
_PLAIN = re.compile(r"-?\d{1,15}(?:\.\d{1,15})?")
_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_TRAILING_ASIDE = re.compile(r"\s*\([^()]*\)\s*$")
_TEXT_UNIT = re.compile(r"\\(?:text|mbox|mathrm)\{\s*[A-Za-z][A-Za-z .]*\}")


def single_number(text: str) -> tuple[str | None, int]:
    """``(canonical value, 1)`` when ``text`` states one number (units, currency,
    thousands separators, a trailing "(aside)" and a leading "x =" allowed), else
    ``(None, how many numbers it states)``: ``"32 + 0.8x"`` is 2, ``"none"`` is 0."""
    if _PLAIN.fullmatch(text):  # the usual "42" / "-3.5": nothing to drop
        return _normalise(text), 1
    european = read_european(text)
    if european is not None:
        return european, 1
    s = _SIGNED_CURRENCY.sub(
        r"\1", _LATEX_FRAC.sub(_as_slash, plain_scientific(signed_words(text)))
    )
    s = _TEXT_UNIT.sub(" ", s).replace("\\!", "").replace("{,}", ",").replace("\\%", "%")
    if "=" in s:
        s = s.rsplit("=", 1)[1]
    bare = _TRAILING_ASIDE.sub("", s)
    if bare.strip() and bare != s and any(c.isdigit() for c in bare):
        s = bare  # "12 (3 groups of 4)": the aside is not a second answer
    european = read_european(s)
    if european is not None:
        return european, 1
    matches = list(NUMBER.finditer(s))
    covered = NUMBER.sub(" ", s) if matches else s
    count = len(matches) + len(_DIGITS.findall(covered))
    if count == 1 and matches:
        return _normalise(matches[0].group("num")), 1
    if count == 1:
        return _normalise(_DIGITS.findall(covered)[0]), 1
    if count == 0:
        words = stated_number_words(text)
        if words is not None:  # "three", "about twenty-one years": the words as stated
            return text[words[0] : words[1]], 1
    return None, count
