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
``name_match``      a person's full name with a middle name or title added
``surname_match``   the surname alone, when the question asks for a person
``refusal``         the reply declines to answer (``no_answer``)
``alias_negated``   every mention of the answer is negated
``several_candidates``  the answer is one of several candidates offered
``hedged_answer``   the answer comes with a hedge or a condition
``no_match``        no accepted answer in the reply
==================  ==============================================================

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

__all__ = ["ShortDecision", "decide_short_answer", "looks_like_person_name"]


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
    if scores.em:
        pred = normalize_text(answer)
        matched = next(g for g in golds if normalize_text(g) == pred)
        return ShortDecision("equivalent", "exact_match", matched, scores)
    tokens = variant_tokens(answer)
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
        doubt = "cover_f1_disagree" if _partial(tokens, golds, scores) else None
        return ShortDecision("different", "no_match", None, scores, doubt)
    gold, how, clean = found
    guard = _guard(answer, golds, clean, refused)
    if guard is not None:
        return ShortDecision("different", guard, None, scores, "guard_fired")
    doubt = "cover_f1_disagree" if scores.f1 < _DILUTED_F1 else None
    return ShortDecision("equivalent", how, gold, scores, doubt)


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
        if not how and looks_like_person_name(gold):
            how = _name_rule(tokens, want, answer, question)
        if not how:
            continue
        if _mentioned_plainly(answer, gold, want, how):
            return gold, how, True
        best = best or (gold, how, False)
    return best


def _mentioned_plainly(answer: str, gold: str, want: tuple[str, ...], how: str) -> bool:
    """Whether one mention of the answer is not negated, clause by clause (a negation
    does not reach across a full stop or a "but": "Not Toronto. Ottawa.")."""
    for clause in _CLAUSES.split(answer):
        if _CONCEDED.match(clause):  # "While the Amazon is the largest, ..."
            continue
        tokens = variant_tokens(clause)
        spans = _spans(tokens, want) if how == "cover_match" else _surname_spans(tokens, want)
        if any(not _negated(tokens, s, e) for s, e in spans):
            return True
    return False


def _surname_spans(tokens: tuple[str, ...], want: tuple[str, ...]) -> list[tuple[int, int]]:
    return [(i, i + 1) for i, t in enumerate(tokens) if t == want[-1]]


_CLAUSES = re.compile(r"[.;!?]\s+|\bbut\b|,\s*(?=the\b|it\b)", re.IGNORECASE)
# A clause that concedes a mention before stating the answer elsewhere.
_CONCEDED = re.compile(
    r"\s*(?:although|though|even\s+though|while|whereas|despite|unlike)\b", re.IGNORECASE
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
        window = tokens[max(0, i - len(want) - 2) : i]
        if t == surname and given and all(w in window for w in given):
            return "name_match"
    if question is None or not _PERSON_QUESTION.search(question) or surname not in tokens:
        return ""
    before = _capitalised_word_before(answer, surname)
    return "surname_match" if before is None or before in _TITLES or before in want else ""


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

    def accepted(part: str) -> bool:
        got = variant_tokens(part)
        return "answerx" in got or any(w and _spans(got, w) for w in wanted)

    body = _EITHER.sub(" ", answer)
    parts = [p for p in _ALTERNATIVES.split(body) if variant_tokens(p)]
    if len(parts) > 1 and not all(accepted(p) for p in parts):
        return True
    items = [variant_tokens(p) for p in _LIST_SEPARATORS.split(answer)]
    items = [p for p in items if p]
    # A shotgun list names the answer as one bare item among others ("Paris, Lyon,
    # Marseille"); prose that lists places around it ("through Peru, Colombia and
    # Brazil ..., is the Amazon") does not.
    bare = any(p == ("answerx", "accepted") or p in wanted for p in items)
    short = [p for p in items if len(p) <= _CANDIDATE_TOKENS]
    return bare and len(short) >= _MANY_CANDIDATES and len(items) > 1


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
