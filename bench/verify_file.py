"""``answerx verify --file`` without a judge: CPU per record, this answerx against another.

    python bench/verify_file.py --compare /work/base/src --rows 20000 --repeat 2

Two inputs of ``--rows`` JSONL records each, drawn with a fixed seed: GSM8K outputs of
the dev corpus (``../shared/data/corpus/gsm8k_mixed.jsonl``, one gold each) and the
short-answer bench set (``bench/data/short_answers.jsonl``: gold lists and questions).
Each run is ``answerx.batch.run_file(mode="verify", workers=1)`` in a fresh interpreter,
this checkout's ``src`` and ``--compare``'s alternately, and prints the process's CPU
µs per record (reading, grading, writing). It checks that a run without a judge costs
what it did before the judge, gold lists and the added columns (``matched_gold``,
``doubt``, ``em``, ``f1``, ``cover``) came.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent / "shared" / "data" / "corpus" / "gsm8k_mixed.jsonl"
SHORT = HERE / "data" / "short_answers.jsonl"

_RUN = """
import json, sys, time
from answerx.batch import run_file
if __name__ == "__main__":
    started = time.process_time()
    summary = run_file(sys.argv[1], sys.argv[2], mode="verify", workers=1, batch_size=2048)
    cpu = time.process_time() - started
    print(json.dumps({"rows": summary.written, "cpu_us": cpu / summary.written * 1e6}))
"""


def build(rows: int, work: Path) -> dict[str, Path]:
    """The two inputs, written once into ``work``."""
    rng = random.Random(20261126)
    gsm = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    qa = [json.loads(line) for line in SHORT.read_text(encoding="utf-8").splitlines()]
    sets = {
        "gsm8k": [{"raw_output": r["raw_output"], "gold": r["gold"]} for r in gsm],
        "short_answers": [
            {"raw_output": r["output"], "gold": r["golds"], "question": r["question"]} for r in qa
        ],
    }
    paths = {}
    for name, items in sets.items():
        path = work / f"{name}.jsonl"
        lines = (json.dumps(rng.choice(items)) + "\n" for _ in range(rows))
        path.write_text("".join(lines), encoding="utf-8")
        paths[name] = path
    return paths


def run(src: Path, data: Path, work: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, "-c", _RUN, str(data), str(work / "out.jsonl")],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return float(json.loads(out.stdout.strip().splitlines()[-1])["cpu_us"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", type=Path, required=True, help="another answerx's src/")
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    if not CORPUS.exists():
        sys.exit(f"the dev corpus is not at {CORPUS}")
    ours = HERE.parent / "src"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print("| input | other answerx, CPU µs/record | this answerx | ratio |")
        print("|---|---|---|---|")
        for name, data in build(args.rows, work).items():
            theirs, mine = [], []
            for _ in range(args.repeat):  # interleaved: the machine's load hits both alike
                theirs.append(run(args.compare, data, work))
                mine.append(run(ours, data, work))
            best_theirs, best_mine = min(theirs), min(mine)
            print(f"| {name} | {best_theirs:.1f} | {best_mine:.1f} | "
                  f"{best_mine / best_theirs:.2f}× |")  # fmt: skip


if __name__ == "__main__":
    main()
