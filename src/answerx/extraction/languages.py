"""Answer markers in other languages: "the answer is" and "Answer:" as models write them
in Chinese, Japanese, Korean, Spanish, French, German, Portuguese, Italian and Russian.

:func:`foreign_phrase` reads what follows the last such marker — a letter (``答案：A``,
``故选B``, ``正确答案为（B）``, ``Respuesta: C``), a number (``答案：42``, ``La réponse
est 3,5 kg.``) or a formula — with full-width colons and brackets, and the sentence ends
of those languages (``。``, ``, porque``, ``, car``, ``, weil``). In the languages that
write decimals with a comma (all of them here but Chinese, Japanese and Korean), a
number such as ``3,5`` after the marker is 3.5, and a dot or a space between groups of
three digits separates thousands, as those languages write them (``1.248`` in German or
Spanish, ``1 248`` in French or Russian, is 1248).
"""

from __future__ import annotations

import re

from answerx.extraction.found import Found, found, matches_near
from answerx.extraction.models import LETTER_CLASS
from answerx.extraction.sentences import take_sentence
from answerx.extraction.tasks import LETTER_LIST, Acceptor

__all__ = ["cjk_letter_verdict", "foreign_phrase"]

# Matched on the lowercased text. Each alternative ends where the answer starts; its
# group names the language family: "cjk" (decimal point) or "eu" (decimal comma).
_MARKER = re.compile(
    r"(?P<cjk>"
    # Chinese: 答案：A, 答案是 C, 最终答案为 42, 故选B, 所以选 D, 正确答案为（B）, 答：42
    # (in exam brackets too: 【答案】D, [答案] 240, 〔答案〕：C)
    r"(?:最终|最后的?|正确的?|因此|所以|故)?答案\s*[】\]〕」』）)]?\s*(?:应该?|就)?\s*"
    r"(?:是|为|為|选|選|應為)?\s*[:：]?"
    r"|(?:故|所以|因此|因而|则|則|应|應|我|我们)\s*(?:应该|應該)?\s*[选選](?:择|擇)?\s*[:：]?"
    r"|正确(?:的)?[选選]项\s*(?:是|为|為)\s*[:：]?|(?:^|\n|(?<=[。！？.!?]))[ \t]*答\s*[:：]"
    # Japanese: 答え：B, 答えは 3 です, 正解は C, 解答：42
    r"|(?:答え|解答|正解|回答)\s*(?:は|[:：])"
    # Korean: 정답은 B, 답: 42
    r"|정답\s*(?:은|:|：)|(?:^|\n)[ \t]*(?:\*\*|__)?답\s*(?:은|:|：)"
    # Arabic: الإجابة هي (B), الجواب: 42
    r"|(?:الإجابة|الاجابة|الجواب)\s*(?:الصحيحة\s*)?(?:هي|هو|[:：])\s*:?"
    # MGSM's answer words of the languages that write a decimal point: Bengali উত্তর (হল),
    # Telugu సమాధానం, Thai คำตอบ (คือ), Swahili Jibu (ni)
    r"|উত্তর\s*[】\]]?\s*(?:হল|হলো|হবে|[:：])\s*:?|సమాధానం\s*[】\]]?\s*(?:[:：]|(?=\s*[-−]?\d))"
    r"|คำตอบ\s*[】\]]?\s*(?:คือ|[:：])\s*:?|\bjibu\s*[】\]]?\s*(?:ni\b|sahihi\s+ni\b|[:：])\s*:?"
    r")|(?P<eu>"
    # Spanish: La respuesta es C, Respuesta: 42, la opción correcta es B
    r"\brespuesta(?:\s+(?:correcta|final))?\s*(?:es|sería|seria|:|[】\]])\s*:?"
    r"|\bopci[óo]n\s+correcta\s*(?:es|:|[】\]])\s*:?"
    # Portuguese: A resposta é C, Resposta: 42, a alternativa correta é B
    r"|\bresposta(?:\s+(?:correta|final|certa))?\s*(?:é|e|seria|:|[】\]])\s*:?"
    r"|\balternativa\s+corret[ao]\s*(?:é|e|:|[】\]])\s*:?"
    # French: La réponse est C, Réponse : 42, la bonne réponse est B
    r"|\br[ée]ponse(?:\s+(?:correcte|finale|exacte))?\s*(?:est|serait|:|[】\]])\s*:?"
    # German: Die Antwort ist C, Antwort: 42, die richtige Antwort lautet B, Lösung: 7
    r"|\bantwort\s*(?:ist|lautet|:|[】\]])\s*:?|\bl(?:ö|oe)sung\s*(?:ist|lautet|:|[】\]])\s*:?"
    # Italian: La risposta è C, Risposta: 42
    r"|\brisposta(?:\s+(?:corretta|finale|giusta|esatta))?\s*(?:è|e|:|[】\]])\s*:?"
    # Russian: Ответ: B, Правильный ответ — C, ответ будет 42
    r"|ответ\s*(?::|—|–|-|это|будет|равен|[】\]])\s*:?"
    # An article or "letter"/"option" before a choice letter: "la (B)", "a letra B".
    r")(?:(?:\s*(?:la|el|a|o|le|l'|die|der|das)\b)?(?:\s*(?:letra|lettre|buchstabe|opci[óo]n|"
    r"op[çc][ãa]o|alternativa|option|variante|вариант)\b)?(?=\s*\(?[a-j]\)?(?:[^\w]|$)))?"
)
# Every marker holds one of these (found first, with rfind).
_STEMS = (
    "答", "选", "選", "正解", "정답", "답", "ответ", "respuesta", "resposta", "ponse",
    "antwort", "sung", "risposta", "opci", "alternativa", "উত্তর", "సమాధానం", "คำตอบ",
    "الإجابة", "الاجابة", "الجواب",
    "jibu",
)  # fmt: skip
_ASCII_STEMS = (
    "respuesta", "resposta", "reponse", "antwort", "sung", "risposta", "opcion", "alternativa",
    "jibu",
)  # fmt: skip
# Where an answer after a marker ends, besides take_sentence's ends.
_FOREIGN_BREAK = re.compile(
    r",?\s+(?:porque|ya\s+que|pues|car|parce\s+que|puisque|weil|denn|pois|perché|poiché|"
    r"так\s+как|потому\s+что|поскольку)\b"
    r"|[，、（(]\s*(?:因为|因為|由于|由於|因此|所以)"
)
# After a CJK marker: the answer is what comes before the first CJK word ("B 选项",
# "42 个", "42です"); a CJK answer ("北京") is kept whole.
_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_CJK_TAIL = re.compile("[，,、]")
_DECIMAL_COMMA = re.compile(r"(?<![\d,.])([-−]?\d+),(\d{1,2}|\d{4,})(?![\d,])")
# Thousands grouped by one separator throughout ("1.248", "12 000 000"), a decimal comma
# allowed after ("1.248,5"): in a decimal-comma language a dot cannot be a decimal point.
_GROUPED_THOUSANDS = re.compile(
    r"(?<![\d,.])([-−]?[1-9]\d{0,2})(?P<sep>[. \u00a0\u202f])\d{3}(?:(?P=sep)\d{3})*"
    r"(?![\d]|\.\d)"
)


def _without_group_separators(m: re.Match[str]) -> str:
    return m.group().replace(m.group("sep"), "")


def foreign_phrase(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The answer after the last "the answer is" / "Answer:" marker of another language."""
    stems = _ASCII_STEMS if text.isascii() else _STEMS
    for m in matches_near(_MARKER, lower, lo, hi, stems, reach=32):
        c0, c1 = take_sentence(text, m.end(), hi)
        if c1 <= c0:
            continue
        brk = _FOREIGN_BREAK.search(text, c0, c1)
        if brk is not None:
            c1 = brk.start()
        listed = LETTER_LIST.match(text, c0, c1)
        if listed is not None:
            c1 = listed.end()  # "【答案】: B, C": several options, not the first
        elif m.group("cjk") is not None:
            c1 = _before_cjk_words(text, c0, c1)
        candidate = text[c0:c1]
        if m.group("eu") is not None:
            if "." in candidate or " " in candidate or not candidate.isascii():
                candidate = _GROUPED_THOUSANDS.sub(_without_group_separators, candidate)
            if "," in candidate:
                candidate = _DECIMAL_COMMA.sub(r"\1.\2", candidate)  # "3,5 kg" is 3.5 kg
        got = accept(candidate) if c1 > c0 else None
        if got:
            return found(got, text, c0, c1, m.start(), c1)
    return None


def _before_cjk_words(text: str, c0: int, c1: int) -> int:
    """``c1`` moved back to where a non-CJK answer is followed by CJK words or a CJK comma."""
    comma = _CJK_TAIL.search(text, c0, c1)
    if comma is not None and comma.start() > c0:
        c1 = comma.start()
    cjk = _CJK.search(text, c0, c1)
    if cjk is not None and text[c0 : cjk.start()].strip(" \t（(【[：:"):
        return cjk.start()
    return c1


# The letter first, then the verdict, as Chinese and Japanese exam answers write it:
# 选项A正确, A选项正确, 所以D是正确答案, (B) 是正确的选项, A が正解, 正确的是 C.
_VERDICT_AFTER = re.compile(
    rf"(?:[选選]项|[选選]項|选择|選擇)?\s*[（(【\[]?\s*({LETTER_CLASS})\s*[)）】\]]?\s*(?:[选選]项|[选選]項)?\s*"
    r"(?:是|为|為|が|は)?\s*(?:最)?(?:正确|正確|正解|(?:对|對)(?![于於应應比称稱象]))(?:的)?(?:答案|[选選]项|[选選]項|です)?"
    r"(?![吗嗎?？])"
)
_VERDICT_BEFORE = re.compile(
    r"(?:正确|正確)的?(?:答案|[选選]项|[选選]項)?\s*(?:是|为|為)\s*[:：]?\s*"
    rf"[（(【\[]?\s*({LETTER_CLASS})(?![A-Za-z])"
)
_VERDICT_STEMS = ("正确", "正確", "正解", "对", "對")


def cjk_letter_verdict(text: str, lower: str, lo: int, hi: int, accept: Acceptor) -> Found | None:
    """The last option letter a Chinese or Japanese verdict names ("选项A正确", "所以D是正确
    答案", "正确的是 C", "A が正解"); a question ("A正确吗？") or a negation ("A不正确") is none."""
    if text.isascii():
        return None
    best: Found | None = None
    for pattern in (_VERDICT_AFTER, _VERDICT_BEFORE):
        for m in matches_near(pattern, text, lo, hi, _VERDICT_STEMS, reach=24):
            got = accept(m.group(1))
            if got:
                hit = found(got, text, m.start(1), m.end(1), m.start(), m.end())
                if best is None or hit.end > best.end:
                    best = hit
                break
    return best
