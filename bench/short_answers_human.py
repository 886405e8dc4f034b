"""Short-answer verdicts against human judgements (issue 38).

Sets of replies judged by people, each item: a question, its accepted answers, a
reply and whether the people accepted it. Scored here: cover match (is an accepted
answer in the reply, as FlashRAG / Search-R1 compute it) and answerx's rules-only
verdict (``verify(reply, golds, question=...)``, no judge), each against the human
labels, with the share of items the rules leave to a judge (``Verdict.doubt``).

Sets:

- ``nq301`` (``bench/data/nq301_human.jsonl``): Kamalloo et al., "Evaluating
  Open-Domain Question Answering in the Era of Large Language Models" (ACL 2023),
  github.com/ehsk/OpenQA-eval (MIT licence), commit 8b9317d: 301 NQ-open test
  questions, the distinct answers of twelve QA systems (retriever-reader models and
  InstructGPT zero/few-shot, whose replies are sentences), each judged acceptable or
  not by people (``data/NQ301_human.tsv``), the accepted answers taken from the same
  repository's ``data/model_outputs``. Split by the set's question id: odd ids are
  ``tune`` (read item by item while writing the rules), even ids ``check`` (looked at
  only as figures).
- ``truthfulqa_multi`` (``../shared/data/external/truthfulqa_multi``, not
  redistributed): human truthfulness labels in five languages; only its false
  accepts are a fair measure (its README), so only those are reported.

    python bench/short_answers_human.py              # the table, check halves
    python bench/short_answers_human.py --split tune # the tune halves
    python bench/short_answers_human.py --build PATH # rebuild nq301 from a checkout
"""

from __future__ import annotations

import argparse
import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any

from answerx.grading import Verdict, verify

HERE = Path(__file__).resolve().parent
NQ301 = HERE / "data" / "nq301_human.jsonl"
TRUTHFULQA = HERE.parent.parent / "shared" / "data" / "external" / "truthfulqa_multi"
JUDGE_SHARE_TARGET = 15.0  # % of items
SOURCE = "ehsk/OpenQA-eval@8b9317d (MIT)"


def build_nq301(checkout: Path, out: Path = NQ301) -> int:
    """Write ``out`` from a checkout of ehsk/OpenQA-eval; the number of items."""
    golds: dict[str, list[str]] = {}
    for path in sorted((checkout / "data" / "model_outputs").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            golds.setdefault(row["question"], row["answer"])
    with (checkout / "data" / "NQ301_human.tsv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    with out.open("w", encoding="utf-8") as fh:
        for n, row in enumerate(rows):
            qid = int(row["id"])
            item = {
                "id": f"nq301:{qid}:{n}",
                "split": "tune" if qid % 2 else "check",
                "question": row["Question"],
                "golds": golds[row["Question"]],
                "output": row["Model answer"],
                "label": row["Acceptable?"] == "Yes",
                "source": SOURCE,
            }
            fh.write(json.dumps(item, ensure_ascii=False) + "\n")
    return len(rows)


def load(path: Path, split: str | None) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        items = [json.loads(line) for line in fh if line.strip()]
    return [it for it in items if split in (None, "all", it.get("split"))]


def _truthfulqa(split: str) -> list[dict[str, Any]]:
    name = "check.jsonl" if split in ("check", "all") else "tune.jsonl"
    path = TRUTHFULQA / name
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return [
        {"question": r["question"], "golds": r["gold"], "output": r["output"],
         "label": bool(r["label_correct"])}
        for r in rows
    ]  # fmt: skip


def _verdicts(items: list[dict[str, Any]]) -> list[Verdict]:
    return [
        verify(it["output"], it["golds"], question=it["question"], finish_reason="stop")
        for it in items
    ]


def _row(name: str, flags: list[bool], labels: list[bool]) -> tuple[float, int, int]:
    n = len(labels)
    agree = 100.0 * sum(f == lab for f, lab in zip(flags, labels, strict=True)) / n
    fa = sum(f and not lab for f, lab in zip(flags, labels, strict=True))
    fr = sum(lab and not f for f, lab in zip(flags, labels, strict=True))
    print(f"| {name} | {agree:.1f} | {fa} | {fr} |")
    return agree, fa, fr


def human_table(split: str = "check", *, show_misses: bool = False) -> bool:
    """Print the figures per set; True when the rules agree with people at least as
    well as cover on every set, with no more false accepts, and leave at most
    ``JUDGE_SHARE_TARGET`` % to a judge."""
    met = True
    items = load(NQ301, split)
    verdicts = _verdicts(items)
    labels = [bool(it["label"]) for it in items]
    cover = [bool(v.scores and v.scores.cover) for v in verdicts]
    ours = [v.correct is True for v in verdicts]
    doubt = [v.doubt is not None for v in verdicts]
    print(f"## nq301 ({split}: {len(items)} items, {sum(labels)} accepted by people)\n")
    print("| measure | agreement % | false accepts | false rejects |")
    print("|---|---|---|---|")
    c_agree, c_fa, _ = _row("cover match", cover, labels)
    o_agree, o_fa, _ = _row("answerx verdict (rules)", ours, labels)
    share = 100.0 * sum(doubt) / len(items)
    print(f"\nleft to a judge (doubt): {sum(doubt)} = {share:.1f} %")
    print(f"doubts: {dict(Counter(v.doubt for v in verdicts if v.doubt))}")
    print(f"rules: {dict(Counter(v.how for v in verdicts))}\n")
    met &= o_agree >= c_agree and o_fa <= c_fa and share <= JUDGE_SHARE_TARGET
    if show_misses:
        for it, v, lab in zip(items, verdicts, labels, strict=True):
            if (v.correct is True) != lab:
                print(f"- {it['id']} {v.how}/{v.doubt} label={lab} golds={it['golds']}: "
                      f"{it['output'][:140]!r}")  # fmt: skip
    tqa = _truthfulqa(split)
    if tqa:
        tv = _verdicts(tqa)
        wrong = [not it["label"] for it in tqa]
        cover_fa = sum(
            bool(v.scores and v.scores.cover) and w for v, w in zip(tv, wrong, strict=True)
        )
        ours_fa = sum(v.correct is True and w for v, w in zip(tv, wrong, strict=True))
        t_share = 100.0 * sum(v.doubt is not None for v in tv) / len(tv)
        print(f"## truthfulqa_multi ({split}: {len(tqa)} items, {sum(wrong)} judged untruthful)\n")
        print(f"false accepts: cover {cover_fa}, answerx verdict {ours_fa}; "
              f"left to a judge: {t_share:.1f} %\n")  # fmt: skip
        met &= ours_fa <= cover_fa
    return met


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="check", choices=["tune", "check", "all"])
    parser.add_argument("--misses", action="store_true", help="list disagreements (tune only)")
    parser.add_argument("--build", type=Path, help="rebuild nq301 from an OpenQA-eval checkout")
    args = parser.parse_args()
    if args.build:
        print(f"{build_nq301(args.build)} items written to {NQ301}")
        raise SystemExit(0)
    if args.misses and args.split != "tune":
        parser.error("--misses lists items of the tune half only")
    raise SystemExit(0 if human_table(args.split, show_misses=args.misses) else 1)
