"""The ``short_answer`` verdict: cover match made safe, for open-domain QA replies.

Cover match ("an accepted answer appears in the reply") agrees with people far more
often than exact match, but it accepts replies no reader would: the alias negated
(``not Paris``), offered beside other candidates (``either Paris or Lyon``, a long
list), hedged or conditional (``I'm not sure, perhaps Paris``), or found inside
another word (``paris`` in ``comparison``). And it misses spellings of the same
answer (``meters``/``metres``, ``&``/``and``, accents, number words, dates in
another order, a person's surname). The verdict here is a table of named rules, in
order; the first that decides names itself in ``Verdict.how``:

==================  ==============================================================
``exact_match``     SQuAD-normalised equality with an accepted answer
``variant_match``   the same tokens once spellings are unified (:mod:`.variants`)
``item_set``        a list answer with the same items in another order
``cover_match``     an accepted answer appears as whole tokens, no guard fired
``core_match``      an accepted answer without its qualifiers (``around``, ``in``,
                    ``between``) appears: ``2.45 billion years ago`` for ``around
                    2.45 billion years ago``
``words_match``     every word of an accepted answer of two or three words appears
                    in one sentence, in another order (``started in 1881 and finished
                    in 1885`` for ``between 1881 and 1885``)
``name_match``      a person's full name with a middle name, initials or a title
                    (``B. R. Ambedkar`` for ``Bhimrao Ramji Ambedkar``; never an
                    initial the accepted name lacks: ``George H. W. Bush`` is not
                    ``George W. Bush``)
``surname_match``   the surname alone, when the question asks for a person and the
                    reply names a person with it (not ``Lincoln, Nebraska``, ``the
                    Ford Motor Company``: those are ``no_match`` with a doubt)
``part_match``      the reply is a whole part of an accepted answer (``Madison`` for
                    ``Madison, Wisconsin``, ``1965`` for ``1 August 1965``): a coarser
                    answer, accepted with a doubt
``refusal``         the reply declines to answer (``no_answer``)
``alias_negated``   every mention of the answer is negated
``several_candidates``  the answer is one of several candidates offered
``hedged_answer``   the answer comes with a hedge or a condition
``no_match``        no accepted answer in the reply
==================  ==============================================================

Numbers compare as numbers before any token measure: ``1.5`` is not ``15`` even
though SQuAD's normaliser, deleting the point, makes them equal (``exact_match`` is
then refused); ``2.50`` = ``2.5``, ``1,000`` = ``1000``, ``2.5 million`` =
``2,500,000`` (:mod:`.variants`). A name's initials are not sentence ends (``John
F. Kennedy``).

Where the rules decide without confidence (a guard fired on a match; cover and F1
disagree: a reply that shares most words with an answer without containing it, or
one that contains it inside a long text), the decision carries a ``doubt``: an
LLM judge, when one is configured, is asked about those items only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from answerx.grading.qa_metrics import ShortAnswerScores, short_answer_scores
from answerx.grading.text import normalize_text
from answerx.grading.variants import variant_tokens

__all__ = ["ShortDecision", "decide_short_answer", "looks_like_person_name", "opening_answer"]


@dataclass(frozen=True, slots=True)
class ShortDecision:
    """What the short-answer rules decided: reason, rule, the alias that matched,
    the field's three measures, and why the decision is unsure (None: it is not)."""

    reason: str
    how: str
    matched: str | None
    scores: ShortAnswerScores
    doubt: str | None = None


# F1 at or above this without a match: the reply shares most words with an answer
# ("New York" for "New York City", "Pierre Curie" for "Marie Curie").
_PARTIAL_F1 = 0.5
# F1 below this with a match: the answer is a small part of a long reply.
_DILUTED_F1 = 0.15

_REFUSAL = re.compile(
    r"\b(?:i\s+(?:do\s*n[o']?t|don't|cannot|can't|can\s*not|am\s+unable\s+to)\s+"
    r"(?:know|answer|tell|say|determine|find|be\s+sure)"
    r"|no\s+(?:idea|answer|information|way\s+to\s+(?:know|tell))"
    r"|(?:not\s+enough|insufficient)\s+(?:information|context|data|details)"
    r"|(?:cannot|can't|can\s*not|could\s*not|couldn't|unable\s+to)\s+(?:be\s+)?"
    r"(?:determined?|answered?|found|find|answer|verify|identify)"
    r"|(?:is|was|are)\s+(?:not\s+(?:mentioned|provided|specified|stated|given|known|clear)"
    r"|unknown|unclear|ambiguous)"
    r"|(?:question|context|passage|documents?)\s+(?:seems?\s+to\s+be|is|are|appears?\s+to\s+be)\s+"
    r"(?:missing|incomplete|unclear|ambiguous)"
    r"|(?:missing|lacks?|lacking)\s+(?:some\s+)?(?:information|context|details)"
    r"|^\s*(?:unknown|n/?a|none|no\s+answer|unanswerable)\s*[.!]?\s*$)",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:not\s+(?:sure|certain|confident)|unsure|uncertain|perhaps|maybe|possibly"
    r"|might\s+be|could\s+be|(?:my\s+(?:best\s+)?|a\s+|i)\s*guess|no\s+idea"
    r"|(?:hard|difficult)\s+to\s+(?:say|tell)|if\s+you\s+mean|if\s+(?:the\s+question|it)\s+"
    r"(?:refers|means|asks)|assuming|it\s+depends)\b",
    re.IGNORECASE,
)
# Within two tokens before a mention ("not Paris", "rather than Paris", "neither
# Paris"); "no" only right before it ("No, it is Paris" states Paris).
_NEGATORS = frozenset(
    [
        "not",
        "never",
        "neither",
        "nor",
        "isnt",
        "wasnt",
        "arent",
        "werent",
        "doesnt",
        "didnt",
        "except",
        "besides",
        "excluding",
        "unlike",
        "instead",
        "rather",
    ]
)
_AFTER_NEGATION = re.compile(
    r"^(?:(?:is|was|are|were)\s+(?:not|incorrect|wrong)|isnt|wasnt|arent|werent)\b"
)
# Separators of candidates: "or" (and "either ... or", "and/or", a slash) offers
# alternatives; commas, semicolons and "and" list items.
_ALTERNATIVES = re.compile(r"\s*(?:\band/or\b|\bor\b|/)\s*", re.IGNORECASE)
_EITHER = re.compile(r"\b(?:either|whether)\b", re.IGNORECASE)
_LIST_SEPARATORS = re.compile(r"\s*(?:[,;]\s*(?:and\s+)?|\band\b|&)\s*", re.IGNORECASE)
_DATE_COMMA = re.compile(r"(\b[A-Z][a-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?),(?=\s*\d{4}\b)")
# An accepted answer of at most this many words may be stated in another order; a
# longer one in another order may say the opposite ("air is denser than vapour").
_SCATTERED_WORDS = 3
_MANY_CANDIDATES = 3  # a list of this many items or more offers candidates
_CANDIDATE_TOKENS = 5  # a list item longer than this is prose, not a candidate

# "Who ..." opening a line, after a "Question:" or "Q:" label too: harness and trainer
# prompts put the question on a line of its own ("Question: Who ...?\nAnswer:").
_PERSON_QUESTION = re.compile(
    r"^\W*(?:(?:question|q)\s*:\s*)?(?:who|whom|whose)\b"
    r"|\b(?:which|what)\s+(?:\w+\s+)?(?:person|man|woman|scientist|"
    r"author|writer|novelist|poet|president|prime\s+minister|king|queen|emperor|pope|actor|"
    r"actress|player|singer|composer|artist|painter|leader|explorer|inventor|physicist|"
    r"chemist|philosopher|general|director|founder|architect|mathematician)\b"
    r"|\bname\s+(?:of\s+)?the\s+(?:person|man|woman)\b",
    re.IGNORECASE | re.MULTILINE,
)
_NAME_WORD = (
    r"(?:[A-Z][a-z'’\-]+|[A-Z]\.(?:\s?[A-Z]\.)*|(?:de|da|van|von|der|la|le|di|del|bin|ibn)\b)"
)
_PERSON_NAME = re.compile(rf"{_NAME_WORD}(?:\s+{_NAME_WORD}){{1,3}}")
_TITLES = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "miss",
        "madame",
        "mme",
        "dr",
        "sir",
        "dame",
        "lord",
        "lady",
        "saint",
        "president",
        "king",
        "queen",
        "general",
        "professor",
        "prof",
        "captain",
        "pope",
        "emperor",
    ]
)
_NOT_NAMES = frozenset(
    [
        "university",
        "college",
        "river",
        "mountain",
        "mount",
        "lake",
        "city",
        "state",
        "kingdom",
        "republic",
        "company",
        "church",
        "war",
        "battle",
        "treaty",
        "act",
        "party",
        "street",
        "island",
        "islands",
        "ocean",
        "sea",
        "north",
        "south",
        "east",
        "west",
        "new",
        "san",
        "saint",
        "united",
    ]
)


def looks_like_person_name(text: str) -> bool:
    """Two to four capitalised words (initials and particles allowed), none of them a
    place or institution word: ``Marie Curie``, ``J. R. R. Tolkien``, ``Vincent van Gogh``.

    >>> looks_like_person_name("Marie Curie"), looks_like_person_name("New York City")
    (True, False)
    """
    text = text.strip()
    if not _PERSON_NAME.fullmatch(text):
        return False
    return not any(t in _NOT_NAMES for t in variant_tokens(text))


def decide_short_answer(
    answer: str | None, golds: Sequence[str], question: str | None = None
) -> ShortDecision:
    """The short-answer verdict on ``answer`` (already extracted) against the accepted
    answers ``golds``; ``question``, when given, allows the surname rule.

    >>> d = decide_short_answer("either Paris or Lyon", ["Paris"])
    >>> d.reason, d.how, d.doubt
    ('different', 'several_candidates', 'guard_fired')
    """
    scores = short_answer_scores(answer, golds)
    if not answer or not answer.strip():
        return ShortDecision("no_answer", "none", None, scores)
    tokens = variant_tokens(answer)
    if scores.em:
        pred = normalize_text(answer)
        # SQuAD's normaliser deletes a decimal point ("1.5" = "15"): the numbers decide.
        same = [g for g in golds if normalize_text(g) == pred]
        matched = next((g for g in same if _numbers(variant_tokens(g)) == _numbers(tokens)), None)
        if matched is not None:
            return ShortDecision("equivalent", "exact_match", matched, scores)
    for gold in golds:
        if tokens and _singular(variant_tokens(gold)) == _singular(tokens):
            return ShortDecision("equivalent", "variant_match", gold, scores)
    for gold in golds:
        if _same_items(answer, gold):
            return ShortDecision("equivalent", "item_set", gold, scores)
    refused = _REFUSAL.search(answer) is not None
    found = _find(answer, tokens, golds, question)
    if found is None:
        if refused:
            return ShortDecision("no_answer", "refusal", None, scores)
        part = _part_of(answer, tokens, golds) or _year_of(tokens, golds, question)
        if part is not None:
            return ShortDecision("equivalent", "part_match", part, scores, "cover_f1_disagree")
        told = _told_by_sentence(tokens, golds, question)
        if told is not None:
            return ShortDecision("equivalent", "sentence_match", told, scores, "cover_f1_disagree")
        if _surname_elsewhere(tokens, golds, question):
            return ShortDecision("different", "no_match", None, scores, "name_unclear")
        doubt = "cover_f1_disagree" if _partial(tokens, golds, scores) else None
        return ShortDecision("different", "no_match", None, scores, doubt)
    gold, how, clean = found
    guard = _guard(answer, golds, clean, refused)
    if guard is not None:
        return ShortDecision("different", guard, None, scores, "guard_fired")
    # A match diluted in a long reply is sure when the reply's main claim states it.
    diluted = scores.f1 < _DILUTED_F1 and not _in_main_claim(answer, gold)
    doubt = "cover_f1_disagree" if diluted else None
    return ShortDecision("equivalent", how, gold, scores, doubt)


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _numbers(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """The numbers among ``tokens`` (:func:`variant_tokens` writes each one way)."""
    return tuple(t for t in tokens if _NUMBER.fullmatch(t))


def _in_main_claim(answer: str, gold: str) -> bool:
    """Whether the accepted answer stands in the reply's main claim: its first sentence
    (the sentence that answers, in a QA reply) or an answer block (a line of its own)."""
    want = variant_tokens(gold)
    first = _SENTENCES.split(answer.strip(), maxsplit=1)[0]
    if _spans(variant_tokens(first), want):
        return True
    return any(_spans(variant_tokens(line), want) for line in answer.splitlines()[1:] if
               len(variant_tokens(line)) <= len(want) + _CANDIDATE_TOKENS)  # fmt: skip


# Words that qualify an answer without being it: "around 2.45 billion years ago",
# "in the Gospel of Luke", "between 1881 and 1885".
_QUALIFIERS = frozenset(
    ["in", "at", "on", "around", "approximately", "about", "roughly", "nearly", "almost",
     "circa", "c", "between", "from", "by", "of", "and", "to", "some", "over", "under"]
)  # fmt: skip


def _core(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """An answer's tokens without its qualifiers at either end."""
    start, end = 0, len(tokens)
    while start < end and tokens[start] in _QUALIFIERS:
        start += 1
    while end > start and tokens[end - 1] in _QUALIFIERS:
        end -= 1
    return tokens[start:end]


def _content(tokens: tuple[str, ...]) -> frozenset[str]:
    return frozenset(t for t in tokens if t not in _QUALIFIERS)


def _part_of(answer: str, tokens: tuple[str, ...], golds: Sequence[str]) -> str | None:
    """The accepted answer of which the whole reply is a part that stands on its own
    (``Madison`` of ``Madison, Wisconsin``, ``1965`` of ``1 August 1965``): a coarser
    answer people mostly accept. Not a given name of a person's name (``Andrew`` of
    ``Andrew Harrison``), nor a piece of a hyphenated word (``Spanish`` of
    ``Spanish-French``), nor a part that leaves out a number of the answer other than
    a date's day or month (``group`` of ``group 1``)."""
    core = _core(tokens)
    if not core:
        return None
    for gold in golds:
        want = variant_tokens(gold)
        if not len(core) < len(want) <= _CANDIDATE_TOKENS or not _head_of(want, core, gold):
            continue  # a part of a sentence says nothing of the sentence
        if _a_list(gold) or any(t in _MONTH_NAMES for t in want):
            continue  # part of a list is not the list; a date is coarsened by _year_of
        if looks_like_person_name(gold) and core[-1:] != want[-1:]:
            continue
        left_out = [t for t in want if t not in core]
        if any(_NUMBER.fullmatch(t) and not _date_part(t, want) for t in left_out):
            continue
        if _cuts_a_word(answer, gold):
            continue
        return gold
    return None


_YEAR = re.compile(r"1\d{3}|20\d{2}")
_WHEN = re.compile(
    r"^\W*(?:(?:question|q)\s*:\s*)?when\b|\b(?:what|which)\s+year\b", re.IGNORECASE | re.MULTILINE
)


def _year_of(tokens: tuple[str, ...], golds: Sequence[str], question: str | None) -> str | None:
    """The accepted date whose year the reply gives, with no other date (``in 2015``
    for ``March 5, 2015``), when the question asks when: a coarser answer."""
    if question is not None and not _WHEN.search(question):
        return None
    years = {t for t in tokens if _YEAR.fullmatch(t)}
    if len(years) != 1 or any(t in _MONTH_NAMES for t in tokens):
        return None
    for gold in golds:
        want = variant_tokens(gold)
        if years <= set(want) and any(t in _MONTH_NAMES for t in want):
            return gold
    return None


# A gold this many words long, not a list, is a sentence that states the answer.
_SENTENCE_GOLD = 5
_SHORT_REPLY = 8


def _told_by_sentence(
    tokens: tuple[str, ...], golds: Sequence[str], question: str | None
) -> str | None:
    """The gold sentence whose subject or closing words the reply is: FRAMES-style golds
    are written as sentences ("Ang Lee won the award for best director for Life of Pi.",
    "The capital of the 7th largest country in Asia is Ulaanbaatar") whose answer stands
    first or last; a short reply naming either is that answer. Words in its middle
    ("…was 5 years old when Oprah Winfrey was 8", "This sounds like Hillary Clinton,
    except…") are not, nor is one item of a gold list, nor the subject of a sentence that
    goes on past a comma: it may concede and turn ("Elon Musk izan liteke, baina ez da…",
    Basque for "It could be Elon Musk, but he is not…"). A reply made only of the
    question's words answers nothing, wherever the sentence holds them."""
    want = _core(tokens)
    if not want or len(tokens) > _SHORT_REPLY:
        return None
    if question is not None and _content(want) <= _content(variant_tokens(question)):
        return None
    n = len(want)
    for gold in golds:
        words = variant_tokens(gold)
        if len(words) < max(_SENTENCE_GOLD, 2 * n) or _a_list(gold):
            continue
        one_clause = "," not in gold and ";" not in gold
        if (one_clause and words[:n] == want) or words[-n:] == want:
            return gold
    return None


def _a_list(gold: str) -> bool:
    """A list of items ("red, green and blue"), not a place and its region ("Cambridge,
    Massachusetts")."""
    items = _items(gold)
    return items is not None and (len(items) >= 3 or bool(re.search(r"\band\b|&", gold)))


def _head_of(want: tuple[str, ...], core: tuple[str, ...], gold: str) -> bool:
    """Whether ``core`` opens the accepted answer (``virtual reality`` of ``virtual reality
    simulator``, ``Madison`` of ``Madison, Wisconsin``) or follows a comma or ``in`` in
    it (``Landover, Maryland`` of ``FedExField in Landover, Maryland``); ``York`` of
    ``New York`` is neither."""
    start = _core(want)
    if start[: len(core)] == core:
        return True
    for i in range(1, len(want) - len(core) + 1):
        if want[i : i + len(core)] == core and want[i - 1] == "in":
            return True
    tail = gold.rsplit(",", 1)[-1] if "," in gold else ""
    return bool(tail) and variant_tokens(tail) == core


def _date_part(token: str, want: tuple[str, ...]) -> bool:
    """A day of a date (``1`` in ``1 august 1965``): leaving it out makes the date coarser."""
    i = want.index(token)
    near = want[max(0, i - 1) : i + 2]
    return any(m in near for m in _MONTH_NAMES) and len(token) <= 2


_MONTH_NAMES = frozenset(
    "january february march april may june july august september october november december".split()  # noqa: SIM905
)


def _cuts_a_word(answer: str, gold: str) -> bool:
    """Whether the reply, found in the accepted answer, ends at a hyphen of one of its
    words (``Spanish`` in ``Spanish-French``)."""
    text = re.sub(r"\s+", " ", answer.strip(" .!\n\t")).lower()
    whole = gold.lower()
    at = whole.find(text)
    if at < 0 or not text:
        return False
    before, after = whole[at - 1 : at], whole[at + len(text) : at + len(text) + 1]
    return before == "-" or after == "-"


def opening_answer(
    raw_output: str, golds: Sequence[str], question: str | None = None
) -> str | None:
    """The complete first sentence of a reply cut off later, when it states an accepted
    answer with no guard firing (``Mahatma Gandhi led the Salt March. He was born in``):
    the sentence that answers was finished, so the cut does not take the answer away.
    None when it does not (the reply stays ``unfinished``).

    >>> opening_answer("Canberra is the capital. It was chosen as a compromise in", ["Canberra"])
    'Canberra is the capital.'
    """
    parts = _SENTENCES.split(raw_output.strip(), maxsplit=1)
    if len(parts) < 2 or len(parts[0]) > _OPENING_CHARS:
        return None  # no finished first sentence before the cut
    first = parts[0]
    decision = decide_short_answer(first, golds, question)
    if decision.reason != "equivalent" or decision.doubt is not None:
        return None
    return first + raw_output.strip()[len(first) : len(first) + 1]


# A first sentence longer than this is no opening answer but prose.
_OPENING_CHARS = 300


def _partial(tokens: tuple[str, ...], golds: Sequence[str], scores: ShortAnswerScores) -> bool:
    """F1 says close, cover says no, and the reply is part of an accepted answer ("New
    York" of "New York City", "1912" of "15 April 1912"): a reader might accept it. A
    reply that adds words of its own ("Atlantic Ocean" for "Pacific Ocean", "Pierre
    Curie") names something else."""
    if scores.f1 < _PARTIAL_F1 or not tokens:
        return False
    return any(set(tokens) <= set(variant_tokens(g)) for g in golds)


def _find(
    answer: str, tokens: tuple[str, ...], golds: Sequence[str], question: str | None
) -> tuple[str, str, bool] | None:
    """The first accepted answer the reply contains as whole tokens: (alias, rule,
    whether one mention of it is not negated); None when none is found."""
    best: tuple[str, str, bool] | None = None
    for gold in golds:
        want = variant_tokens(gold)
        how = "cover_match" if _spans(tokens, want) else ""
        person = looks_like_person_name(gold)
        if not how and person:
            how = _name_rule(tokens, want, answer, question)
        if not how and not person:
            core = _core(want)
            if core != want and core and _spans(tokens, core):
                how, want = "core_match", core
            elif 2 <= len(_content(want)) <= _SCATTERED_WORDS and _words_in_a_sentence(
                answer, _content(want)
            ):
                how, want = "words_match", tuple(_content(want))
        if not how:
            continue
        if _mentioned_plainly(answer, gold, want, how):
            return gold, how, True
        best = best or (gold, how, False)
    return best


def _words_in_a_sentence(answer: str, words: frozenset[str]) -> bool:
    """Every one of ``words`` in one sentence of the reply, in any order."""
    return any(words <= set(variant_tokens(s)) for s in _SENTENCES.split(answer))


def _mentioned_plainly(answer: str, gold: str, want: tuple[str, ...], how: str) -> bool:
    """Whether one mention of the answer is not negated, clause by clause (a negation
    does not reach across a full stop or a "but": "Not Toronto. Ottawa.")."""
    for clause in _CLAUSES.split(answer):
        if _CONCEDED.match(clause):  # "While the Amazon is the largest, ..."
            continue
        tokens = variant_tokens(clause)
        if how in ("cover_match", "core_match"):
            spans = _spans(tokens, want)
        elif how == "words_match":
            spans = [(i, i + 1) for i, t in enumerate(tokens) if t in want]
            if not set(want) <= set(tokens):
                continue
        else:
            spans = _surname_spans(tokens, want)
        if any(not _negated(tokens, s, e) for s, e in spans):
            return True
    return False


def _surname_spans(tokens: tuple[str, ...], want: tuple[str, ...]) -> list[tuple[int, int]]:
    return [(i, i + 1) for i, t in enumerate(tokens) if t == want[-1]]


# A stop ends a sentence, except after a name's initial ("John F. Kennedy") or a title.
_STOP = (
    r"(?<!\b[A-Z])(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bSt)(?<!\bJr)(?<!\bSr)"
    r"(?<!\bMt)(?<!\bvs)[.;!?]"
)
_SENTENCES = re.compile(rf"{_STOP}\s+")
_CLAUSES = re.compile(rf"{_STOP}\s+|\bbut\b|\bhowever\b|,\s*(?=the\b|it\b)", re.IGNORECASE)
# A clause that concedes a mention before stating the answer elsewhere, or reports a
# belief it then corrects ("Many people believe Paris ..., but ... Bonn").
_CONCEDED = re.compile(
    r"\s*(?:although|though|even\s+though|while|whereas|despite|unlike"
    r"|(?:many|some|most)\s+(?:people\s+)?(?:believe|think|assume|say|claim)"
    r"|(?:it\s+is\s+)?(?:a\s+)?(?:common(?:ly)?\s+)?(?:misconception|myth|mistake)"
    r"|(?:it\s+is\s+)?(?:often|commonly|widely)\s+(?:believed|thought|assumed|said))\b",
    re.IGNORECASE,
)


def _singular(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """The whole answer with its last word in the singular ("diamonds" = "diamond"):
    only ever compared as a whole, never searched for inside a reply."""
    last = tokens[-1] if tokens else ""
    if len(last) > 3 and last.endswith("s") and not last.endswith("ss") and last.isalpha():
        cut = 2 if last.endswith(("ches", "shes", "xes", "zes", "sses")) else 1
        return (*tokens[:-1], last[:-cut])
    return tokens


def _spans(tokens: tuple[str, ...], want: tuple[str, ...]) -> list[tuple[int, int]]:
    n = len(want)
    if not n:
        return []
    return [(i, i + n) for i in range(len(tokens) - n + 1) if tokens[i : i + n] == want]


def _name_rule(
    tokens: tuple[str, ...], want: tuple[str, ...], answer: str, question: str | None
) -> str:
    """``name_match`` for a person's name written longer (a middle name or a title
    added: ``Marie Sklodowska Curie``); ``surname_match`` for the surname alone when the
    question asks for a person (``Curie``), but not beside another first name
    (``Pierre Curie``); "" for neither."""
    surname, given = want[-1], want[:-1]
    for i, t in enumerate(tokens):
        if t == surname and given and _same_given_names(tokens[max(0, i - 5) : i], given):
            return "name_match"
    if question is None or not _PERSON_QUESTION.search(question) or surname not in tokens:
        return ""
    if not _names_a_person(answer, surname):
        return ""
    before = _capitalised_word_before(answer, surname)
    # A first name of the accepted name ("Marie Curie") stands with the surname; an
    # initial ("W. Bush" beside "George H. W. Bush") leaves it unsure.
    named = before is not None and len(before) > 1 and before in want
    return "surname_match" if before is None or before in _TITLES or named else ""


def _same_given_names(before: tuple[str, ...], given: tuple[str, ...]) -> bool:
    """Whether the words before a surname name the same given names: each one, or its
    initial (``B R`` for ``Bhimrao Ramji``), with middle names added (``Marie Sklodowska``)
    but no initial the accepted name lacks (``George H W`` is not ``George W``)."""
    start = next((i for i, t in enumerate(before) if _initial_of(t, given[0])), None)
    if start is None:
        return False
    words, want = before[start + 1 :], list(given[1:])
    for w in words:
        if want and _initial_of(w, want[0]):
            want.pop(0)
        elif len(w) == 1:
            return False  # an initial of another name: another person
    return not want


def _initial_of(word: str, name: str) -> bool:
    """``word`` is ``name``, or the initial of one (either way: ``F`` and ``Fitzgerald``)."""
    if word == name:
        return True
    return (len(word) == 1 or len(name) == 1) and word[:1] == name[:1]


# What follows a surname that names no person: a place ("Lincoln, Nebraska",
# "Washington, D.C."), a company or an institution ("the Ford Motor Company").
_PLACE_AFTER = re.compile(r"^\s*,\s*(?:[A-Z][a-z]+|[A-Z]\.)")  # case matters: "Lincoln, who"
_NOT_A_PERSON_AFTER = re.compile(
    r"^\s*(?:(?:motor|motors|company|corporation|corp|inc|ltd|university|college|county|city|"
    r"street|avenue|square|memorial|monument|bridge|airport|station|administration|family|"
    r"foundation|institute|museum|river|lake|mountains?|island|state|park|award|prize|"
    r"hall|center|centre|building|tower|school|hospital)\b)",
    re.IGNORECASE,
)
_PLACE_BEFORE = re.compile(r"\b(?:in|at|to|near|from|of|the)\s+$", re.IGNORECASE)


def _names_a_person(answer: str, surname: str) -> bool:
    """Whether some mention of ``surname`` (a token) names a person, not a place, a
    company or an administration."""
    mentions = list(re.finditer(rf"\b{re.escape(surname)}\b", answer, re.IGNORECASE))
    if not mentions:
        return True  # spelled with accents or apart: nothing says it is no person
    for m in mentions:
        after, before = answer[m.end() :], answer[: m.start()]
        place = _PLACE_AFTER.match(after) or _PLACE_BEFORE.search(before[-12:])
        if place or _NOT_A_PERSON_AFTER.match(after):
            continue
        if re.match(r"\s*(?:'s|’s)?\s+administration\b", after, re.IGNORECASE):
            continue
        return True
    return False


def _surname_elsewhere(tokens: tuple[str, ...], golds: Sequence[str], question: str | None) -> bool:
    """The surname of an accepted person's name is in the reply, but not naming that
    person (a place, a company, another person with that surname): unsure."""
    if question is None or not _PERSON_QUESTION.search(question):
        return False
    for gold in golds:
        if looks_like_person_name(gold):
            want = variant_tokens(gold)
            if want and want[-1] in tokens:
                return True
    return False


def _capitalised_word_before(answer: str, surname: str) -> str | None:
    """The capitalised word just before the surname in the reply, lower-cased (a first
    name or a title), or None."""
    m = re.search(rf"\b(\w[\w'’]*)\.?[\s\-]+{re.escape(surname)}\b", answer, re.IGNORECASE)
    if m is None or not m.group(1)[:1].isupper():
        return None
    tokens = variant_tokens(m.group(1))
    return tokens[0] if tokens else None


def _negated(tokens: tuple[str, ...], start: int, end: int) -> bool:
    """A mention preceded closely by a negation ("not Paris", "rather than Paris",
    "neither Paris nor Lyon") or followed by "is not"/"is wrong"."""
    before = tokens[max(0, start - 2) : start]
    if "only" in before:  # "not only Paris"
        return False
    if any(t in _NEGATORS for t in before) or before[-1:] == ("no",):
        return True
    after = " ".join(tokens[end : end + 2])
    return _AFTER_NEGATION.match(after) is not None


def _guard(answer: str, golds: Sequence[str], clean: bool, refused: bool) -> str | None:
    """The guard that overturns a match, or None."""
    if not clean:
        return "alias_negated"
    if _several_candidates(answer, golds):
        return "several_candidates"
    if refused or _HEDGE.search(answer):
        return "hedged_answer"
    return None


def _several_candidates(answer: str, golds: Sequence[str]) -> bool:
    """Alternatives offered ("Paris or Lyon", "either ... or") with one that is no
    accepted answer, or a list of many short items (a shotgun reply)."""
    wanted = [variant_tokens(g) for g in golds]
    # An accepted answer may itself hold a separator ("AC/DC", "Simon & Garfunkel"):
    # it stands as one item.
    for gold in sorted(golds, key=len, reverse=True):
        answer = re.sub(re.escape(gold), " answerx accepted ", answer, flags=re.IGNORECASE)

    # A date's comma separates no items ("ended on September 2, 1945").
    answer = _DATE_COMMA.sub(r"\1", answer)

    def accepted(part: str) -> bool:
        got = variant_tokens(part)
        return "answerx" in got or any(w and _spans(got, w) for w in wanted)

    body = _EITHER.sub(" ", answer)
    parts = [p for p in _ALTERNATIVES.split(body) if variant_tokens(p)]
    # "Paris or Lyon" offers candidates; "has the power to approve or veto laws" and
    # "20 or more points" are prose around an answer stated elsewhere in the sentence.
    offered = [p for p in parts if accepted(p)]
    candidate = any(len(variant_tokens(p)) <= _CANDIDATE_TOKENS + 2 for p in offered)
    if len(parts) > 1 and candidate and not all(accepted(p) for p in parts):
        return True
    items = [variant_tokens(p) for p in _LIST_SEPARATORS.split(answer)]
    items = [p for p in items if p]
    # A shotgun list names the answer as one bare item among others ("Paris, Lyon,
    # Marseille"); prose that lists places around it ("through Peru, Colombia and
    # Brazil ..., is the Amazon") does not, nor a list of accepted answers only (the
    # five boroughs, for a question that accepts each).
    bare = any(p == ("answerx", "accepted") or p in wanted for p in items)
    short = [p for p in items if len(p) <= _CANDIDATE_TOKENS]
    others = [p for p in short if not accepted(" ".join(p))]
    return bare and len(short) >= _MANY_CANDIDATES and len(items) > 1 and bool(others)


def _items(text: str) -> list[tuple[str, ...]] | None:
    parts = [variant_tokens(p) for p in _LIST_SEPARATORS.split(text)]
    parts = [p for p in parts if p]
    return parts if len(parts) >= 2 else None


def _same_items(answer: str, gold: str) -> bool:
    """A list answer ("Spain and France") against a list gold ("France, Spain")."""
    want = _items(gold)
    if want is None:
        return False
    got = _items(answer)
    return got is not None and sorted(got) == sorted(want)
