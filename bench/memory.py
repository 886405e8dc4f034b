"""Memory of ``extract_file`` on a 10,000-line and a 100,000-line JSONL file.

Generates varied, realistic model outputs (answer blocks, boxes, JSON answers,
phrases, GSM8K, Game of 24, multiple choice, cut-off outputs...) into a temporary
directory, then measures each file in a fresh child process, so one run cannot
inflate the other's figures:

* tracemalloc peak: the most Python memory allocated at once during the run;
* peak RSS (ru_maxrss) and its growth over the process's size before the run.

Streaming means both stay flat: the 100k/10k ratio should be about 1.

Then an input with no line end at all: ``answerx extract --file /dev/zero`` (each
worker count of ``--zero-workers``), as a user would run it, must end with a clear
error (exit 3) within 10 s and under 200 MB (the peak RSS of the command and of
each of its processes; the line reader holds at most the maximum line, 64 MiB).

    .venv/bin/python bench/memory.py            # 10,000 vs 100,000 lines
    .venv/bin/python bench/memory.py --lines 1000000
    .venv/bin/python bench/memory.py --zero-only
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from answerx.extraction.files import extract_file

_VOCABULARY = (
    "we first note that the value doubles each step so the total grows quickly and "
    "checking the constraint again shows the remaining cases are symmetric hence only "
    "one configuration survives after we subtract the overlap from both sides"
)
_WORDS = _VOCABULARY.split()


def _prose(rng: random.Random, lo: int, hi: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))]
    for i in range(12, len(words), 13):
        words[i] += f" {rng.randint(2, 999)}."  # numbers in the reasoning, like real outputs
    return " ".join(words).capitalize()


def _think_answer(rng: random.Random) -> dict[str, object]:
    n = rng.randint(10, 9999)
    return {"raw_output": f"<think>\n{_prose(rng, 60, 400)}\n</think>\n<answer>{n}</answer>"}


def _boxed(rng: random.Random) -> dict[str, object]:
    a, b = rng.randint(1, 20), rng.randint(21, 99)
    return {
        "raw_output": f"{_prose(rng, 40, 300)}\n\nThus $\\boxed{{\\frac{{{a}}}{{{b}}}}}$.",
        "task": "math",
    }


def _json_answer(rng: random.Random) -> dict[str, object]:
    return {
        "raw_output": f'{_prose(rng, 40, 250)}\n```json\n{{"reasoning": "short", '
        f'"answer": "\\frac{{{rng.randint(1, 9)}}}{{\\pi}}"}}\n```'
    }


def _phrase(rng: random.Random) -> dict[str, object]:
    return {
        "raw_output": f"{_prose(rng, 30, 200)} So the answer is {rng.randint(1, 500)}. "
        f"Let me double-check: {_prose(rng, 5, 30)}"
    }


def _minerva(rng: random.Random) -> dict[str, object]:
    return {
        "raw_output": f"{_prose(rng, 30, 200)}\nFinal Answer: The final answer is "
        f"${rng.randint(1, 99)}$. I hope it is correct."
    }


def _gsm8k(rng: random.Random) -> dict[str, object]:
    x, y = rng.randint(1, 99), rng.randint(1, 99)
    return {
        "raw_output": f"{_prose(rng, 20, 120)}\n{x} + {y} = <<{x}+{y}={x + y}>>{x + y}\n"
        f"#### {x + y}",
        "task": "numeric",
    }


def _game24(rng: random.Random) -> dict[str, object]:
    return {
        "raw_output": "Input: 4 9 10 13\nSteps:\n13 - 9 = 4 (left: 4 4 10)\n"
        "10 - 4 = 6 (left: 4 6)\n4 * 6 = 24 (left: 24)\n"
        "Output: (10 - 4) * (13 - 9) = 24",
        "task": "game24",
        "numbers": [4, 9, 10, 13],
    }


def _multiple_choice(rng: random.Random) -> dict[str, object]:
    letter = rng.choice("ABCDEFGHIJ")
    return {
        "raw_output": f"Let's think step by step. {_prose(rng, 40, 300)} "
        f"The answer is ({letter}).\n\nQuestion: {_prose(rng, 10, 40)}",
        "task": "multiple_choice",
    }


def _currency(rng: random.Random) -> dict[str, object]:
    return {
        "raw_output": f"{_prose(rng, 20, 150)}\nThe final answer is "
        f"${rng.randint(1, 99)},{rng.randint(100, 999)}.50.",
        "task": "numeric",
    }


def _cut_off(rng: random.Random) -> dict[str, object]:
    return {"raw_output": f"<think>\n{_prose(rng, 100, 600)}"}


_KINDS: tuple[Callable[[random.Random], dict[str, object]], ...] = (
    _think_answer,
    _boxed,
    _json_answer,
    _phrase,
    _minerva,
    _gsm8k,
    _game24,
    _multiple_choice,
    _currency,
    _cut_off,
)


def generate(path: Path, lines: int, seed: int = 0) -> None:
    """Write ``lines`` varied records of realistic model output to ``path``."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as f:
        for i in range(lines):
            record = {"id": i, **rng.choice(_KINDS)(rng)}
            f.write(json.dumps(record) + "\n")


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def measure(path: Path, mode: str) -> dict[str, float]:
    """Run extract_file over ``path`` in this process and return its memory figures."""
    # Warm up first, so compiled regexes and imports are not counted as growth.
    warm = path.with_suffix(".warm")
    with path.open("rb") as src, warm.open("wb") as dst:
        dst.writelines(line for _, line in zip(range(200), src, strict=False))
    extract_file(warm, os.devnull)
    before = _maxrss_mib()
    if mode == "trace":
        tracemalloc.start()
    start = time.perf_counter()
    summary = extract_file(path, os.devnull)
    seconds = time.perf_counter() - start
    figures = {"lines": summary.read, "seconds": seconds}
    if mode == "trace":
        figures["trace_peak_kib"] = tracemalloc.get_traced_memory()[1] / 1024
        tracemalloc.stop()
    else:
        figures["rss_before_mib"] = before
        figures["rss_peak_mib"] = _maxrss_mib()
    return figures


def _child(path: Path, mode: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(path), "--mode", mode],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


def dev_zero(workers: int) -> dict[str, object]:
    """``answerx extract --file /dev/zero -w workers``: its exit code, first line of
    error, seconds, and the largest peak RSS of any of its processes (MiB)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "answerx", "extract", "--file", "/dev/zero",
         "-w", str(workers), "--out", os.devnull],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        _, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, stderr = proc.communicate()
    seconds = time.perf_counter() - started
    # The children's peak (the largest of any process it waited for, itself included).
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return {
        "workers": workers,
        "exit": proc.returncode,
        "seconds": round(seconds, 2),
        "peak_rss_mib": round(peak, 1),
        "error": lines[-1] if lines else "",
    }


def _dev_zero_child(workers: int) -> dict[str, object]:
    # A fresh process per measurement: RUSAGE_CHILDREN's peak is the largest so far.
    out = subprocess.run(
        [sys.executable, __file__, "--zero-child", str(workers)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def print_dev_zero(workers: list[int]) -> None:
    """Measure and print ``extract --file /dev/zero`` at each worker count."""
    print("answerx extract --file /dev/zero (must end, exit 3, within 10 s and 200 MB)")
    for n in workers:
        r = _dev_zero_child(n)
        ok = r["exit"] == 3 and float(r["seconds"]) < 10 and float(r["peak_rss_mib"]) < 200  # type: ignore[arg-type]
        print(
            f"-w {n}: exit {r['exit']}, {r['seconds']} s, peak RSS {r['peak_rss_mib']} MiB "
            f"[{'ok' if ok else 'FAILS'}]: {r['error']}"
        )


def main() -> None:
    """Generate the files, measure each in a child process, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000, help="lines in the large file")
    parser.add_argument("--small", type=int, default=10_000, help="lines in the small file")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=("rss", "trace"), help=argparse.SUPPRESS)
    parser.add_argument("--zero-workers", default="1,2", help="worker counts for /dev/zero")
    parser.add_argument("--zero-only", action="store_true", help="only the /dev/zero check")
    parser.add_argument("--zero-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.mode)))
        return
    if args.zero_child is not None:
        print(json.dumps(dev_zero(args.zero_child)))
        return
    zero_workers = [int(n) for n in args.zero_workers.split(",")]
    if args.zero_only:
        print_dev_zero(zero_workers)
        return

    with tempfile.TemporaryDirectory(prefix="answerx-memory-") as tmp:
        big = Path(tmp) / "big.jsonl"
        small = Path(tmp) / "small.jsonl"
        print(f"generating {args.lines:,} lines ...", file=sys.stderr)
        generate(big, args.lines)
        with big.open("rb") as src, small.open("wb") as dst:
            dst.writelines(line for _, line in zip(range(args.small), src, strict=False))
        rows = []
        for path in (small, big):
            print(f"measuring {path.name} ...", file=sys.stderr)
            rss, trace = _child(path, "rss"), _child(path, "trace")
            rows.append((path.stat().st_size / 2**20, rss, trace))

    print(f"extract_file memory, Python {sys.version.split()[0]}")
    header = (
        "lines",
        "file MiB",
        "tracemalloc peak KiB",
        "peak RSS MiB",
        "RSS growth MiB",
        "lines/s",
    )
    print(" | ".join(f"{h:>20}" for h in header))
    for size, rss, trace in rows:
        cells = (
            f"{int(rss['lines']):,}",
            f"{size:.1f}",
            f"{trace['trace_peak_kib']:.0f}",
            f"{rss['rss_peak_mib']:.1f}",
            f"{rss['rss_peak_mib'] - rss['rss_before_mib']:.1f}",
            f"{rss['lines'] / rss['seconds']:,.0f}",
        )
        print(" | ".join(f"{c:>20}" for c in cells))
    (_, rss_s, tr_s), (_, rss_b, tr_b) = rows
    print(
        f"ratio {args.lines:,} / {args.small:,} lines: "
        f"tracemalloc peak {tr_b['trace_peak_kib'] / tr_s['trace_peak_kib']:.2f}x, "
        f"peak RSS {rss_b['rss_peak_mib'] / rss_s['rss_peak_mib']:.2f}x"
    )
    print()
    print_dev_zero(zero_workers)


if __name__ == "__main__":
    main()
