"""Two ideas for issue 38's open targets, counted before any of them goes into the rules.

Issue 38 asks that the rules-only ``short_answer`` verdict accept no more replies that
people rejected than cover match does, and leave at most 15 % of items to a judge. On
nq301's check half the rules accept 24 such replies, cover 20; on truthfulqa_multi 23.1 %
(check) / 27.2 % (tune) of items carry a doubt. This script counts what two general
mechanisms would change, each way, before one is written into ``grading/``:

1. **One of several answers wanted together** (false accepts, nq301). When the question
   asks for several things together, a reply naming one of several distinct accepted
   answers may be only part of what was asked ("Andrew Harrison" for "who were the twins
   ..."). Three cues, from the tune half's questions and gold lists: the question's
   wording (``who were`` / ``what are``, ``which two``, ``both``, ``list``, a count
   before a plural noun, ``what <plural noun> did``); a gold list naming several people
   of one surname (a family, twins); a gold list of several dates in different years,
   of which the reply gives one year. For each cue: the accepted replies it would
   leave undecided (``doubt``, not accepted), split into false accepts removed and right
   accepts lost.
2. **TruthfulQA's own references** (judge share, truthfulqa_multi). The items carry the
   source's *incorrect* reference answers too (``meta.incorrect_answers``); TruthfulQA's
   automatic metric compares a reply's BLEU / ROUGE-L to the best true reference with
   that to the best false one (lm-eval's ``truthfulqa_gen``: ``bleu_diff``,
   ``rougeL_diff``). For every item the rules doubt: decide it when the difference is
   at least a margin (accept when closer to a true reference, reject when closer to a
   false one), for the whole reply and for its first sentence (the reply's main
   claim), at several margins; counted: decisions right and wrong, the doubt share
   left, the false accepts after.

The tune halves are listed item by item (``--list``); the check halves are printed as
counts only. Needs lm-eval (``pip install 'answerx[lm-eval]'``) for the second part.

    python bench/short_answers_ablations.py             # both parts, both halves
    python bench/short_answers_ablations.py --list      # and the tune items each cue changes
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from answerx.grading import Verdict, verify
from answerx.grading.short_answer import looks_like_person_name
from answerx.grading.variants import variant_tokens
from short_answers_human import NQ301, TRUTHFULQA, load

# Qualifier words say nothing of which answer a gold is ("in 1757" is "1757").
_QUALIFIERS = frozenset(["in", "at", "on", "the", "a", "an", "of", "and", "around", "about"])
_YEAR = re.compile(r"1\d{3}|20\d{2}")
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()  # noqa: SIM905
)
# The question asks for several things together. Written from the tune half's questions
# ("who were the twins that played for kentucky", "what are the 5 boroughs of new york
# city", "list the seven gifts of the holy spirit", "3 candidates for the democratic
# nomination in 1960", "what mlb teams did deion sanders play for").
_SEVERAL_WANTED = re.compile(
    r"^\W*(?:who|what|which)\s+(?:were|are)\b"
    r"|\b(?:which|what)\s+(?:two|three|four|five|\d)\b"
    r"|\bboth\b|^\W*list\b"
    r"|\b(?:two|three|four|five|six|seven|eight|nine|ten|\d)\s+[a-z]+s\b"
    r"|\b(?:what|which)\s+(?:[a-z]+\s+)?[a-z]{3,}s\s+(?:did|do|does|have|has|were|are)\b",
    re.IGNORECASE,
)


def _content(text: str) -> frozenset[str]:
    return frozenset(t for t in variant_tokens(text) if t not in _QUALIFIERS)


def _other_answers(golds: list[str], matched: str) -> list[frozenset[str]]:
    """The accepted answers that are not another way of writing ``matched``: neither's
    words hold the other's (``Christopher Lloyd`` / ``Christopher Allen Lloyd`` are one
    answer; ``Aaron Harrison`` / ``Andrew Michael Harrison`` two)."""
    mine = _content(matched)
    out = []
    for gold in golds:
        words = _content(gold)
        if words and mine and not (words <= mine or mine <= words):
            out.append(words)
    return out


def question_cue(item: dict[str, Any], verdict: Verdict) -> bool:
    """The question asks for several things and the reply names one of several distinct
    accepted answers, without the others."""
    if not _SEVERAL_WANTED.search(item["question"]) or verdict.matched_gold is None:
        return False
    others = _other_answers(item["golds"], verdict.matched_gold)
    said = set(variant_tokens(item["output"]))
    return bool(others) and not all(words <= said for words in others)


def family_cue(item: dict[str, Any], verdict: Verdict) -> bool:
    """The accepted answers name several people of one surname (a family, twins) and the
    reply names that surname with the given name of only one of them."""
    given: dict[str, set[str]] = {}
    for gold in item["golds"]:
        if looks_like_person_name(gold):
            words = variant_tokens(gold)
            given.setdefault(words[-1], set()).add(words[0])
    said = set(variant_tokens(item["output"]))
    return any(
        surname in said and len(names) >= 2 and len(names & said) == 1
        for surname, names in given.items()
    )


def dates_cue(item: dict[str, Any], verdict: Verdict) -> bool:
    """The accepted answers are dates in several different years and the reply gives a
    coarser part of one (``part_match``: the year of ``24 February 2018``)."""
    years = set()
    for gold in item["golds"]:
        words = variant_tokens(gold)
        if _MONTHS & set(words):
            years |= {w for w in words if _YEAR.fullmatch(w)}
    return verdict.how == "part_match" and len(years) >= 2


CUES: dict[str, Callable[[dict[str, Any], Verdict], bool]] = {
    "question asks for several": question_cue,
    "gold names one family": family_cue,
    "gold lists dates of several years": dates_cue,
}


def several_wanted(split: str, *, show: bool) -> None:
    """For each cue: the accepted replies it would leave to a judge, people's label of
    each, and the rules' false accepts and agreement if it did."""
    items = load(NQ301, split)
    verdicts = [
        verify(it["output"], it["golds"], question=it["question"], finish_reason="stop")
        for it in items
    ]
    labels = [bool(it["label"]) for it in items]
    accepted = [v.correct is True for v in verdicts]
    cover_fa = sum(bool(v.scores and v.scores.cover) and not lab
                   for v, lab in zip(verdicts, labels, strict=True))  # fmt: skip
    fa = sum(a and not lab for a, lab in zip(accepted, labels, strict=True))
    agree = sum(a == lab for a, lab in zip(accepted, labels, strict=True))
    print(f"## nq301 {split} ({len(items)} items): rules {fa} false accepts, cover {cover_fa}; "
          f"rules agree on {agree}\n")  # fmt: skip
    print("| cue | replies it un-accepts | false accepts removed | right accepts lost "
          "| false accepts after | agreement after |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    listing = []
    for name, cue in CUES.items():
        hit = [i for i, (it, v) in enumerate(zip(items, verdicts, strict=True))
               if accepted[i] and cue(it, v)]  # fmt: skip
        removed = sum(not labels[i] for i in hit)
        lost = len(hit) - removed
        after = 100.0 * (agree + removed - lost) / len(items)
        print(f"| {name} | {len(hit)} | {removed} | {lost} | {fa - removed} | {after:.1f} % |")
        if show and split == "tune":  # the check half is looked at as counts only
            said = {True: "accepted", False: "rejected"}
            listing += [f"- {name}: {items[i]['id']} people {said[labels[i]]}"
                        f" ({verdicts[i].how}) {items[i]['question']!r}: "
                        f"{items[i]['output'][:70]!r}" for i in hit]  # fmt: skip
    print("\n".join(["", *listing, ""]))


def _main_claim(reply: str) -> str:
    """The reply's first sentence, after a leading ``A:`` label (TruthfulQA's prompt
    format): its main claim."""
    text = re.sub(r"^\s*A\s*:\s*", "", reply.strip())
    return re.split(r"(?<=[.!?])\s+|\n", text, maxsplit=1)[0]


def _diff_measures() -> Callable[[list[str], list[str], str], dict[str, float]] | None:
    """TruthfulQA's BLEU and ROUGE-L differences as lm-eval's ``truthfulqa_gen`` computes
    them (its ``bleu``; ROUGE-Lsum with its sentence preparation, F-measure x 100), or None
    without lm-eval. lm-eval's ``rouge`` bootstraps 1,000 resamples per call to report one
    pair's score, which is the score itself: the scorer is called directly here."""
    try:
        from lm_eval.tasks.truthfulqa.utils import bleu
        from rouge_score.rouge_scorer import RougeScorer
    except ImportError:
        return None
    scorer = RougeScorer(["rougeLsum"])

    def rouge_l(ref: str, pred: str) -> float:
        ref, pred = ref.replace(" . ", ".\n"), pred.replace(" . ", ".\n")
        return 100.0 * float(scorer.score(ref, pred)["rougeLsum"].fmeasure)

    def measures(true: list[str], false: list[str], text: str) -> dict[str, float]:
        out = {}
        for name, score in (("bleu", lambda r: float(bleu([[r]], [text]))),
                            ("rougeL", lambda r: rouge_l(r, text))):  # fmt: skip
            out[name] = max(map(score, true)) - max(map(score, false))
        return out

    return measures


def references(split: str) -> None:
    """TruthfulQA's true-against-false reference metric as a decision on the doubted items."""
    measures = _diff_measures()
    path = TRUTHFULQA / ("tune.jsonl" if split == "tune" else "check.jsonl")
    if measures is None or not path.exists():
        print(f"lm-eval or {path} is missing: the reference part is skipped\n")
        return
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    verdicts = [
        verify(r["output"], r["gold"], question=r["question"], finish_reason="stop") for r in rows
    ]
    truthful = [bool(r["label_correct"]) for r in rows]
    accepted = [v.correct is True for v in verdicts]
    cover_fa = sum(bool(v.scores and v.scores.cover) and not t
                   for v, t in zip(verdicts, truthful, strict=True))  # fmt: skip
    doubted = [i for i, v in enumerate(verdicts) if v.doubt is not None]
    diffs: dict[str, list[float]] = {}
    for i in doubted:
        true, false = rows[i]["gold"], rows[i]["meta"]["incorrect_answers"]
        for part, text in (
            ("reply", rows[i]["output"]),
            ("main claim", _main_claim(rows[i]["output"])),
        ):
            for metric, d in measures(true, false, text).items():
                diffs.setdefault(f"{metric} of the {part}", []).append(d)
    fa = sum(a and not t for a, t in zip(accepted, truthful, strict=True))
    share = 100.0 * len(doubted) / len(rows)
    print(f"## truthfulqa_multi {split} ({len(rows)} items): {len(doubted)} doubted = "
          f"{share:.1f} %; rules {fa} false accepts, cover {cover_fa}\n")  # fmt: skip
    print("| measure (true − false reference, points) | margin | accepted: right / false "
          "| rejected: right / wrong | doubt left | false accepts after |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for measure, values in diffs.items():
        for margin in (5.0, 10.0, 20.0):
            tally: Counter[str] = Counter()
            fa_after = fa
            for i, d in zip(doubted, values, strict=True):
                if abs(d) < margin:
                    continue
                take = d > 0
                tally[("acc " if take else "rej ") + ("ok" if take == truthful[i] else "bad")] += 1
                fa_after += (take and not truthful[i]) - (accepted[i] and not truthful[i])
            left = len(doubted) - sum(tally.values())
            print(f"| {measure} | {margin:g} | {tally['acc ok']} / {tally['acc bad']} "
                  f"| {tally['rej ok']} / {tally['rej bad']} | {100.0 * left / len(rows):.1f} % "
                  f"| {fa_after} |")  # fmt: skip
    print()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the tune items each cue changes")
    parser.add_argument("--part", choices=["several", "references", "both"], default="both")
    args = parser.parse_args()
    for half in ("tune", "check"):
        if args.part in ("several", "both"):
            several_wanted(half, show=args.list)
        if args.part in ("references", "both"):
            references(half)
