"""The short-answer table of ``bench/verify.py --short-answers`` (issue 24).

A set written for this bench (``bench/data/short_answers.jsonl``): open-domain
questions with their accepted answers (aliases) and replies as QA systems and search
agents write them -- names, dates, numbers, places, lists, spelling variants, hedges,
refusals, negations, several candidates, long replies, answers inside search
transcripts -- each labelled by hand: correct when the reply commits to an accepted
answer (the same entity in another spelling counts; a hedged guess, a refusal and a
list of candidates do not).

For each item: exact match, token F1 (>= 0.5 counts as correct) and cover match as
FlashRAG / Search-R1 compute them on the extracted answer, and answerx's verdict
(``verify(output, golds, question=...)``); each scored against the labels, with the
share of items the rules leave to a judge (``Verdict.doubt``). No judge is called:
the verdict column is the rules alone.

    python bench/verify.py --short-answers
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from answerx.grading import Verdict, verify

DATA = Path(__file__).resolve().parent / "data" / "short_answers.jsonl"
BEATS_COVER_BY = 5.0  # points of agreement
JUDGE_SHARE_TARGET = 10.0  # % of items


def load(path: Path = DATA) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _agree(flags: list[bool], labels: list[bool]) -> float:
    return 100.0 * sum(f == lab for f, lab in zip(flags, labels, strict=True)) / len(labels)


def short_answer_table(path: Path = DATA, *, show_misses: bool = True) -> bool:
    """Print the table; True when the verdict beats cover by the target and the judge
    share stays within its target."""
    items = load(path)
    # The replies are complete (their providers said "stop"): passing the finish
    # reason keeps a short bare reply from being withheld as cut off.
    verdicts: list[Verdict] = [
        verify(it["output"], it["golds"], question=it["question"], finish_reason="stop")
        for it in items
    ]
    withheld = sum(verify(it["output"], it["golds"]).reason == "unfinished" for it in items)
    labels = [bool(it["label"]) for it in items]
    scores = [v.scores for v in verdicts]
    em = [bool(s and s.em) for s in scores]
    f1 = [bool(s and s.f1 >= 0.5) for s in scores]
    cover = [bool(s and s.cover) for s in scores]
    ours = [v.correct is True for v in verdicts]
    doubt = [v.doubt is not None for v in verdicts]
    n = len(items)
    print(f"## Short answers ({n} items, {sum(labels)} labelled correct)\n")
    print("| measure | agreement with labels % | false accepts | false rejects |")
    print("|---|---|---|---|")
    for name, flags in (("exact match", em), ("token F1 >= 0.5", f1), ("cover match", cover),
                        ("answerx verdict (rules)", ours)):  # fmt: skip
        fa = sum(f and not lab for f, lab in zip(flags, labels, strict=True))
        fr = sum(lab and not f for f, lab in zip(flags, labels, strict=True))
        print(f"| {name} | {_agree(flags, labels):.1f} | {fa} | {fr} |")
    share = 100.0 * sum(doubt) / n
    margin = _agree(ours, labels) - _agree(cover, labels)
    print(f"\nverdict - cover: {margin:+.1f} points (target >= +{BEATS_COVER_BY:.0f})")
    print(f"left to a judge (Verdict.doubt): {sum(doubt)} of {n} = {share:.1f} % "
          f"(target <= {JUDGE_SHARE_TARGET:.0f} %)")  # fmt: skip
    sure = [i for i in range(n) if not doubt[i]]
    sure_agree = _agree([ours[i] for i in sure], [labels[i] for i in sure])
    print(f"verdict agreement on the items the rules are sure of: {sure_agree:.1f} % "
          f"({len(sure)} items)")  # fmt: skip
    print(f"doubts: {dict(Counter(v.doubt for v in verdicts if v.doubt))}")
    replies = "reply is" if withheld == 1 else "replies are"
    print(f"without finish_reason, {withheld} complete short {replies} withheld as "
          "unfinished (issue 23 section 2)\n")  # fmt: skip
    print("| category | items | em % | f1 % | cover % | verdict % |")
    print("|---|---|---|---|---|---|")
    by: dict[str, list[int]] = defaultdict(list)
    for i, it in enumerate(items):
        by[it["category"]].append(i)
    for cat, idx in sorted(by.items()):
        lab = [labels[i] for i in idx]
        cells = [_agree([m[i] for i in idx], lab) for m in (em, f1, cover, ours)]
        print(f"| {cat} | {len(idx)} | " + " | ".join(f"{c:.0f}" for c in cells) + " |")
    if show_misses:
        print("\nVerdict disagreements with the labels (how, doubt: output -> label):")
        for i, it in enumerate(items):
            if ours[i] != labels[i]:
                v = verdicts[i]
                out = it["output"].replace("\n", " ")[-90:]
                print(f"- {it['id']} {v.how}, {v.doubt}: {out!r} -> {labels[i]}")
    print()
    return margin >= BEATS_COVER_BY and share <= JUDGE_SHARE_TARGET


if __name__ == "__main__":
    raise SystemExit(0 if short_answer_table() else 1)
