"""Every verdict and extracted answer on every bench set, saved and compared item by item.

A refactor that must not change behaviour (issue 36: "0 verdict differences item by item
across the refactor") is checked by saving a snapshot before and comparing after:

    python bench/verdict_snapshot.py save /tmp/before.json
    ... change the code ...
    python bench/verdict_snapshot.py compare /tmp/before.json     # exit 1 on any difference

Sets: the shared corpus (``verify`` with its task and choices, and ``extract``), both
halves of the external corpus (``verify`` as ``bench/external.py`` calls it; only
aggregate counts are printed, so the check half stays unread item by item), the two
short-answer sets in ``bench/data/`` and the olympiad-style pairs (``grade``). Sets whose
data is absent (``../shared`` missing) are skipped and say so.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import answerx
from corpus import CORPUS_FILES, corpus_dir
from external import external_dir
from external import items as external_items
from olympiad_answers import pairs as olympiad_pairs

HERE = Path(__file__).resolve().parent
Record = dict[str, Any]


def _verdict(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Record:
    try:
        v = call(*args, **kwargs)
    except Exception as exc:  # a crash is a behaviour too: record its type
        return {"error": type(exc).__name__}
    return {"answer": v.answer, "correct": v.correct, "reason": str(v.reason), "how": v.how}


def _extraction(*args: Any, **kwargs: Any) -> Record:
    try:
        e = answerx.extract(*args, **kwargs)
    except Exception as exc:
        return {"error": type(exc).__name__}
    return {
        "answer": e.answer, "method": str(e.method),
        "unfinished": e.unfinished, "confidence": e.confidence,
    }  # fmt: skip


def _corpus() -> Iterator[tuple[str, str, Record]]:
    folder = corpus_dir()
    if folder is None:
        print("skipped: the shared corpus (../shared/data/corpus) is absent")
        return
    for name, (filename, task) in CORPUS_FILES.items():
        with (folder / filename).open(encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                out, gold, choices = r["raw_output"], str(r["gold"]), r.get("choices")
                yield (
                    f"corpus/{name}",
                    r["id"],
                    {
                        "verify": _verdict(answerx.verify, out, gold, task, choices=choices),
                        "extract": _extraction(out, task, choices=choices),
                    },
                )


def _external() -> Iterator[tuple[str, str, Record]]:
    folder = external_dir()
    if folder is None:
        print("skipped: the external corpus (../shared/data/external) is absent")
        return
    for half in ("tune", "check"):
        for source, item in external_items(folder, half, None):
            yield f"external/{source}/{half}", item["id"], {
                "verify": _verdict(
                    answerx.verify, item["output"], item["gold"], task=item["task"],
                    choices=item.get("choices"), question=item.get("question"),
                ),
            }  # fmt: skip


def _short_answers() -> Iterator[tuple[str, str, Record]]:
    for filename in ("short_answers.jsonl", "nq301_human.jsonl"):
        with (HERE / "data" / filename).open(encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                yield (
                    f"short/{filename}",
                    r["id"],
                    {
                        "verify": _verdict(
                            answerx.verify,
                            r["output"],
                            r["golds"],
                            "short_answer",
                            question=r["question"],
                        ),
                    },
                )


def _olympiad() -> Iterator[tuple[str, str, Record]]:
    for n, (answer, gold, _) in enumerate(olympiad_pairs()):
        yield (
            "olympiad",
            f"{n}:{answer}|{gold}",
            {
                "grade": _verdict(answerx.grade, answer, gold, "math"),
            },
        )


def snapshot() -> dict[str, dict[str, Record]]:
    """{set: {item id: record}} over every set present."""
    sets: dict[str, dict[str, Record]] = {}
    for source in (_corpus, _external, _short_answers, _olympiad):
        for name, item_id, record in source():
            sets.setdefault(name, {})[item_id] = record
    return sets


def compare(before: dict[str, dict[str, Record]], after: dict[str, dict[str, Record]]) -> int:
    """Print the differences per set; the number of items that differ."""
    total = 0
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name, {}), after.get(name, {})
        differ = [k for k in old if k in new and old[k] != new[k]]
        # A math-verify time limit depends on the machine's load, not on the code.
        timed = [k for k in differ if "timeout" in json.dumps(old[k]) + json.dumps(new[k])]
        differ = [k for k in differ if k not in timed]
        missing = len(set(old) ^ set(new))
        total += len(differ) + missing
        load = f" ({len(timed)} more differ only by a time limit: load)" if timed else ""
        print(f"{name}: {len(old)} items, {len(differ)} differ, {missing} not in both{load}")
        if name.endswith("/check"):
            kinds = Counter(
                f"{part}.{field}" for k in differ for part in old[k]
                for field in old[k][part] if old[k][part].get(field) != new[k][part].get(field)
            )  # fmt: skip
            if kinds:
                print(f"  (check half: counts only) {dict(kinds)}")
            continue
        for k in differ[:20]:
            print(f"  {k}: {old[k]} -> {new[k]}")
    print(f"total: {total} items differ")
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["save", "compare"])
    parser.add_argument("path", type=Path)
    args = parser.parse_args(argv)
    sets = snapshot()
    if args.mode == "save":
        args.path.write_text(json.dumps(sets, sort_keys=True), encoding="utf-8")
        print(f"saved {sum(map(len, sets.values()))} items in {len(sets)} sets to {args.path}")
        return 0
    before = json.loads(args.path.read_text(encoding="utf-8"))
    return 1 if compare(before, sets) else 0


if __name__ == "__main__":
    raise SystemExit(main())
