"""Numbers written in English words: "three", "twenty-one", "one hundred and five",
"a dozen", "half", "two thirds".

Read where an answer is one number in words (``words_value``, ``stated_number_words``:
extraction keeps the words as stated, grading compares their value) and where a
fallback looks for the last number of a sentence answer (``number_word_spans``: "There
are three objects left"), never in a name ("Section Three"), a pronoun ("the red one",
"one of the") or an adjective ("three-dimensional").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

__all__ = [
    "ORDINALS",
    "SCALES",
    "number_run",
    "number_text",
    "number_word_spans",
    "spelled_number",
    "stated_number_words",
    "words_value",
]


# Hand-written: the packages that read number words (word2number, text2num) either accept
# any sentence with a number word in it or need a locale model, and neither says where the
# number stands in the text, which the fallbacks need to compete with digits by position.
def _words(text: str) -> list[str]:
    return text.split()


_CARDINALS: dict[str, int] = {
    word: value
    for value, word in enumerate(
        _words(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen"
        )
    )
} | {
    word: 10 * (i + 2)
    for i, word in enumerate(_words("twenty thirty forty fifty sixty seventy eighty ninety"))
}
_SCALES: dict[str, int] = {
    "hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12,
}  # fmt: skip
#: The scale words a number in digits may take ("2.5 million"), with their values.
SCALES: dict[str, int] = {word: value for word, value in _SCALES.items() if value >= 1000}
#: Ordinal words and their numbers ("third" is 3): grading writes them as "3th" so that
#: "the third" meets "3rd".
ORDINALS: dict[str, int] = {
    word: i
    for i, word in enumerate(
        _words("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"),
        1,
    )
} | {"twentieth": 20, "hundredth": 100}
# Denominators of the fractions a numeric answer may be ("half", "two thirds"): read only
# in a whole answer, never by the fallbacks ("half of the apples" states no number).
_PARTS: dict[str, int] = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
    "fourth": 4, "fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6,
    "eighth": 8, "eighths": 8, "tenth": 10, "tenths": 10,
}  # fmt: skip
_NUMBER_WORDS = frozenset(_CARDINALS) | frozenset(_SCALES) | {"dozen"}
_AFTER_ARTICLE = frozenset(_SCALES) | {"dozen"}
_TOKEN = re.compile(r"[a-z]+")  # on lowercased text
_DIGITS_THEN_PAREN = re.compile(r"\d\s*\(\s*$")
_WORDS_ONLY = re.compile(r"[a-z]+(?:(?:[ \t]+|[ \t]*-[ \t]*)[a-z]+)*")
_MAX_PHRASE_WORDS = 12
# Words that make a number word a pronoun or part of a name, not a count.
_PRONOUN_BEFORE = frozenset(
    _words(
        "the this that which each every no any some another a last first next right wrong "
        "correct other same little big new old such"
    )
)
_APPROXIMATELY = frozenset(
    _words("about approximately roughly around nearly almost exactly just only some over under")
)
_NOT_UNITS = frozenset(_words("of or and to than more less fewer out by times plus minus"))
_COUNT_BEFORE = frozenset(
    _words(
        "is are was were be been remains remain left only exactly just has have had get gets "
        "got makes make total about approximately answer equals"
    )
)
_NOT_NOUN = frozenset(
    _words(
        "is are was were of another by or and that which who more in at to for on with can "
        "will would should could has have had does did we i you it here there than"
    )
)


def words_value(text: str) -> Fraction | None:
    """The value of ``text`` when it is one number written in English words, else None.

    Cardinals up to the trillions (``"twenty-one"``, ``"one hundred and five"``),
    ``"a dozen"``, and simple fractions (``"half"``, ``"two thirds"``,
    ``"one and a half"``); case, a trailing period and surrounding spaces are ignored.

    >>> words_value("Twenty-one."), words_value("a dozen"), words_value("one of them")
    (Fraction(21, 1), Fraction(12, 1), None)
    """
    s = text.strip().rstrip(".!").strip().lower()
    if not s or len(s) > 120 or not s[0].isalpha():
        return None
    if not _WORDS_ONLY.fullmatch(s):
        return None  # only words, spaces and hyphens: "3 three" is not one number
    words = _TOKEN.findall(s)
    return _fraction_value(words) if words[-1] in _PARTS else _phrase_value(words)


def stated_number_words(text: str) -> tuple[int, int, Fraction] | None:
    """``(start, end, value)`` of the number words ``text`` states as its answer: the whole
    text, after an approximation word ("about three") and before unit words ("three
    apples", "twenty-one years old"); None when it states none or more than one."""
    s = text.lower()
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(s)]
    if not tokens or len(tokens) > _MAX_PHRASE_WORDS + 6:
        return None
    i = 0
    while i < len(tokens) - 1 and tokens[i][2] in _APPROXIMATELY:
        i += 1
    if _TOKEN.sub("", s[: tokens[i][0]]).strip(" \t~≈*,") or not (
        tokens[i][2] in _NUMBER_WORDS or tokens[i][2] in _PARTS or tokens[i][2] in ("a", "an")
    ):
        return None  # something other than an approximation before the number
    for j in range(len(tokens), i, -1):
        phrase = text[tokens[i][0] : tokens[j - 1][1]]
        value = words_value(phrase)
        if value is None:
            continue
        rest = tokens[j:]
        if len(rest) > 3 or (rest and rest[0][2] in _NOT_UNITS):
            return None
        tail = s[tokens[j - 1][1] :]
        if any(c.isdigit() for c in tail) or _TOKEN.sub("", tail).strip(" .,!°%$-'\t"):
            return None
        return tokens[i][0], tokens[j - 1][1], value
    return None


def spelled_number(text: str) -> Fraction | None:
    """The value of the number ``text`` states in words (see :func:`stated_number_words`):
    ``"three"`` and ``"about three apples"`` are 3; None when it states none."""
    if "\\" in text or not text.lstrip(" \t~≈*")[:1].isalpha():
        return None  # the usual digits or LaTeX: no scan
    got = stated_number_words(text)
    return None if got is None else got[2]


def number_word_spans(text: str, lower: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """The spans of the numbers written in words in ``text[lo:hi]`` that state a count
    ("There are three objects left"), in order: never a pronoun ("the red one", "one of
    the"), part of a name ("Section Three"), an adjective ("three-dimensional") or a
    word of a LaTeX command. Reads ``lower[lo:hi]`` once, token by token."""
    runs: list[list[tuple[int, int, str]]] = []
    article: tuple[int, int, str] | None = None  # an "a"/"an" that may start "a dozen"
    prev_end = -1  # end of the previous number word, -1 after any other word
    for m in _TOKEN.finditer(lower, lo, hi):
        word = m.group()
        if word in _NUMBER_WORDS or (word == "and" and prev_end != -1):
            token = (m.start(), m.end(), word)
            if prev_end != -1 and _joins(lower, prev_end, m.start()):
                runs[-1].append(token)
            elif (
                article is not None
                and word in _AFTER_ARTICLE
                and _joins(lower, article[1], m.start())
            ):
                runs.append([article, token])  # "a dozen", "a hundred"
            elif word != "and":
                runs.append([token])
            prev_end = m.end() if runs and runs[-1][-1] is token else -1
            article = None
        else:
            article = (m.start(), m.end(), word) if word in ("a", "an") else None
            prev_end = -1
    spans = []
    for whole in runs:
        # "one hundred and five" is one number, "two and three" two.
        parts = [whole] if _phrase_value([w for *_, w in whole]) else _split_at_and(whole)
        for run in parts:
            while run and run[-1][2] in ("and", "a", "an"):
                run.pop()
            if not run:
                continue
            start, end = run[0][0], run[-1][1]
            if _phrase_value([w for *_, w in run]) is not None and _states_a_count(
                text, lower, lo, start, end
            ):
                spans.append((start, end))
    return spans


def number_run(words: Sequence[str], start: int = 0) -> tuple[Fraction, int] | None:
    """The number spelled by the longest run of cardinal words from ``words[start]`` on
    that is one number, and how many words it takes; None when ``words[start]`` starts
    none. ``words`` are lower-case tokens.

    >>> number_run(["one", "hundred", "and", "five", "pages"])
    (Fraction(105, 1), 4)
    >>> number_run(["two", "and", "three"]), number_run(["hundred"])
    ((Fraction(2, 1), 1), None)
    """
    end = start
    while end < len(words) and (words[end] in _NUMBER_WORDS or words[end] == "and"):
        end += 1
    for stop in range(end, start, -1):
        value = _phrase_value(list(words[start:stop]))
        if value is not None:
            return value, stop - start
    return None


def _split_at_and(run: list[tuple[int, int, str]]) -> list[list[tuple[int, int, str]]]:
    parts: list[list[tuple[int, int, str]]] = [[]]
    for token in run:
        if token[2] == "and":
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _joins(lower: str, end: int, start: int) -> bool:
    """Whether the gap ``lower[end:start]`` joins two words of one number: spaces or a hyphen."""
    gap = lower[end:start]
    return len(gap) <= 3 and gap.strip(" \t-") == "" and gap.count("-") <= 1


def _states_a_count(text: str, lower: str, lo: int, start: int, end: int) -> bool:
    after = lower[end : end + 24]
    if after.startswith((" of ", "-")) or text[start - 1 : start] in ("\\", "{", "-"):
        return False  # "one of the", "three-dimensional", "\\text{one}"
    before = lower[max(lo, start - 12) : start]
    if before.endswith(("not ", "no ")) or _DIGITS_THEN_PAREN.search(before):
        return False  # "not twelve", "3 (three)": a negation, a restatement
    if end - start == 3 and lower.startswith("one", start):
        # "one" is a pronoun as often as a count: it counts after a verb or a word of
        # quantity ("is one", "only one") or before a noun ("one apple"), not in "the red
        # one is bigger" or "one by one".
        prev_words = lower[max(lo, start - 24) : start].split()
        next_words = after.split()
        prev_word = prev_words[-1] if prev_words else ""
        next_word = next_words[0].strip(".,;:!?") if next_words else ""
        if prev_word in _PRONOUN_BEFORE or prev_word == "by":
            return False
        if prev_word not in _COUNT_BEFORE and (not next_word.isalpha() or next_word in _NOT_NOUN):
            return False
    if text[start].isupper():
        # Capitalised after the start of a sentence: a name ("Section Three", "Formula One").
        head = text[max(lo, start - 3) : start].rstrip(" \t*\"'(")
        if head and head[-1] not in ".!?:\n":
            return False
    return True


def _phrase_value(words: list[str]) -> Fraction | None:
    """The value of a run of cardinal words ("one hundred and five", "a dozen"); None when
    they do not form one number ("one two", "hundred twenty")."""
    total = current = 0
    last = ""  # the kind of the previous word: unit, teen, ten, hundred, scale
    seen_scales: list[int] = []
    for i, word in enumerate(words):
        if word == "and":
            if last not in ("hundred", "scale") or i == len(words) - 1:
                return None
            continue
        if word in ("a", "an"):
            if i != 0 or len(words) == 1 or words[1] not in (*_SCALES, "dozen"):
                return None
            current, last = 1, "unit"
            continue
        value = _CARDINALS.get(word)
        if value is not None:
            kind = "ten" if value >= 20 else "teen" if value >= 10 else "unit"
            if value == 0 and len(words) > 1:
                return None
            if last == "ten" and kind != "unit":
                return None
            if last in ("unit", "teen") or (last == "ten" and value == 0):
                return None
            current += value
            last = kind
        elif word == "hundred":
            if last not in ("unit", "teen", "ten") or (current % 100 == 0 and current >= 100):
                return None
            current *= 100
            last = "hundred"
        elif word == "dozen":
            if last == "scale":
                return None
            current = max(current, 1) * 12
            last = "hundred"
        else:
            scale = _SCALES.get(word, 0)
            if not scale or last in ("", "scale") or any(s <= scale for s in seen_scales):
                return None
            total += current * scale
            current = 0
            seen_scales.append(scale)
            last = "scale"
    if last == "":
        return None
    return Fraction(total + current)


def _fraction_value(words: list[str]) -> Fraction | None:
    """ "half", "a half", "two thirds", "one and a half", "three quarters"."""
    part = _PARTS[words[-1]]
    head = words[:-1]
    if not head:
        return Fraction(1, part) if words[-1] in ("half", "quarter") else None
    whole = Fraction(0)
    if "and" in head:  # "one and a half": a whole number, then the fraction
        k = head.index("and")
        whole_value = _phrase_value(head[:k])
        if whole_value is None:
            return None
        whole, head = whole_value, head[k + 1 :]
    if head in (["a"], ["an"]) or head == ["one"]:
        count = Fraction(1)
    else:
        count_value = _phrase_value(head)
        if count_value is None or count_value == 0:
            return None
        count = count_value
    if count > 1 and not words[-1].endswith(("s", "halves")):
        return None  # "two third" is not English
    return whole + count / part


def number_text(value: Fraction) -> str:
    """``value`` written as answerx writes numbers: ``3``, ``1/2``, ``-3/2``."""
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )
