"""File runs by worker count: rows/s, speed-up, and the CPU they cost, parent and workers.

    python bench/batch.py --rows 20000 --workers 1,2,8           # the issue's 2-core check
    python bench/batch.py --rows 400000 --verify-rows 100000 --workers 1,2,4,8,16  # 16 cores
    python bench/batch.py --baseline ../main-worktree/src        # outputs as main's?
    python bench/batch.py --formats table --workers 1,2          # extract_table(workers=N)

For each mode (extract, verify), format (JSONL in and out, Parquet in and out; or
``table``: ``extract_table``/``verify_table`` on the Parquet input read into memory
before the clock starts) and worker count, ``answerx.batch.run_file`` runs in a fresh
interpreter, and this
script prints one JSON line and, at the end, a Markdown table for bench/README.md:
rows/s, the speed-up over one worker, and CPU seconds per 1,000 rows of the
parent (its run alone, imports aside) and of the workers: every descendant of the
run, the fork server, the batch workers and their grading workers, counted by
making this script their subreaper (``PR_SET_CHILD_SUBREAPER``) and reaping each
one, so that a process orphaned by its parent is counted too. The outputs are
hashed: each worker count must write the same bytes (JSONL) or rows (Parquet), and with
``--baseline`` the same as another answerx (a worktree of main) at one worker.

The parent's share of the CPU bounds the speed-up: every row passes through it, so
``workers`` cores reach at most ``total / parent`` times one worker's rate (printed
as the bound). Part of the parent's CPU is a fixed start, not per row: verifying, it
loads and warms math-verify once before it forks (timed apart, "of which start"). So
the table also projects the speed-up on 16 idle cores from the CPU figures alone
(Amdahl: the start, then the longer of the parent's per-row work and the rest shared
by the cores), which is what a 2-core machine can say about a 16-core one. The input
is built from the dev corpus outputs
(``../shared/data/corpus``): its 3,000 real generations repeated to ``--rows``
rows in a seeded shuffle, written once under ``--work`` as JSONL and Parquet.

On a shared, loaded machine the wall-clock figures are distorted (more workers
need idle cores); the CPU figures much less so. Say which you had.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import hashlib
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

ROW_GROUP = 65_536
_PR_SET_CHILD_SUBREAPER = 36


def build_input(rows: int, work: Path, seed: int = 20261125) -> tuple[Path, Path]:
    """``rows`` rows of corpus outputs (id, raw_output, task, choices, gold), as JSONL
    and as Parquet (the same rows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpus import CORPUS_FILES, load  # type: ignore[import-not-found]

    jsonl, parquet = work / f"batch-{rows}.jsonl", work / f"batch-{rows}.parquet"
    if jsonl.exists() and parquet.exists():
        return jsonl, parquet
    items = [item for name in CORPUS_FILES for item in load(name)]
    rng = random.Random(seed)
    writer = None
    with open(jsonl.with_suffix(".jsonl.tmp"), "w", encoding="utf-8") as text:
        for start in range(0, rows, ROW_GROUP):
            n = min(ROW_GROUP, rows - start)
            picks = [items[rng.randrange(len(items))] for _ in range(n)]
            records = [
                {"id": start + i, "raw_output": p.raw_output, "task": p.task,
                 "choices": p.choices, "gold": p.gold}
                for i, p in enumerate(picks)
            ]  # fmt: skip
            text.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
            table = pa.Table.from_pylist(
                records,
                schema=pa.schema(
                    [("id", pa.int64()), ("raw_output", pa.string()), ("task", pa.string()),
                     ("choices", pa.list_(pa.string())), ("gold", pa.string())]
                ),
            )  # fmt: skip
            if writer is None:
                writer = pq.ParquetWriter(parquet.with_suffix(".parquet.tmp"), table.schema)
            writer.write_table(table)
    assert writer is not None
    writer.close()
    os.replace(jsonl.with_suffix(".jsonl.tmp"), jsonl)
    os.replace(parquet.with_suffix(".parquet.tmp"), parquet)
    return jsonl, parquet


# --------------------------------------------------------------------------- one measurement
def measure(mode: str, src: Path, out: Path, workers: int) -> dict[str, Any]:
    """Run one configuration in this process; its own CPU and wall time."""
    from answerx.batch import run_file

    with contextlib.suppress(ImportError):
        # pyarrow imports pandas on its first conversion of Python values (0.2 s): an
        # import, as answerx's, left out of the run whichever process would pay it (the
        # one worker, or the caller before it forks its workers).
        import pandas  # noqa: F401
    with contextlib.suppress(ImportError):  # an answerx without it (a baseline)
        from answerx.batch._warm import warm_extraction

        # The extraction modules' imports and first-use tables (0.1–0.3 s), likewise: the
        # one worker loads them in its first batch, the caller of many before it forks.
        # Grading is not warmed here: one worker's grading runs in a process of its own.
        warm_extraction()

    table = None
    if out.suffix == ".table":  # extract_table / verify_table on the table in memory
        import pyarrow.parquet as pq

        table = pq.read_table(src)  # read before the clock starts, as a caller holds it
    start = _time_grading_warm_up()
    started = time.perf_counter()
    cpu_started = time.process_time()
    if table is None:
        rows = run_file(src, out, mode=mode, workers=workers).read  # type: ignore[arg-type]
    else:
        rows = _run_table(table, mode, out, workers)
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    if table is not None:
        cpu -= _WRITE_CPU[0]  # writing the result out for its hash is no part of the run
    own = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "rows": rows,
        "seconds": elapsed,
        "parent_cpu": cpu,  # the run alone: what every row pays in the one parent
        "parent_start_cpu": start[0],  # of which the warm-up before the workers fork
        "process_cpu": own.ru_utime + own.ru_stime,  # imports and start-up too
    }


_WRITE_CPU = [0.0]


def _run_table(table: Any, mode: str, out: Path, workers: int) -> int:
    """``extract_table`` or ``verify_table`` with ``workers``, its result written to
    ``out`` as Parquet for the hash (that write's CPU kept apart in :data:`_WRITE_CPU`)."""
    import pyarrow.parquet as pq

    from answerx.batch import extract_table, verify_table

    if mode == "verify":
        result = verify_table(table, task="task", choices="choices", workers=workers)
    else:
        result = extract_table(table, task="task", choices="choices", workers=workers)
    began = time.process_time()
    pq.write_table(result, out)
    _WRITE_CPU[0] = time.process_time() - began
    return int(result.num_rows)


def _time_grading_warm_up() -> list[float]:
    """A one-item list that will hold the CPU seconds the run's parent spends warming
    grading before it forks its workers (verify; once per run, whatever its length),
    so that the report can tell that fixed start from the parent's work per row."""
    spent = [0.0]
    try:
        import answerx.batch._warm as warm
    except ImportError:  # an answerx without it (a baseline)
        return spent
    parent = os.getpid()
    # What the parent warms before it forks: math-verify itself (before the seventh pass),
    # or grading's own rules, math-verify then warming in the run's grading template (a
    # forked process: its CPU counts with the workers', and the timer below skips it).
    for name in ("warm_grading", "warm_grading_rules"):
        original = getattr(warm, name, None)
        if original is not None:
            setattr(warm, name, _timer(original, spent, parent))  # looked up at the call
    return spent


def _timer(original: Any, spent: list[float], parent: int) -> Any:
    def timed() -> None:
        began = time.process_time()
        try:
            original()
        finally:
            if os.getpid() == parent:
                spent[0] += time.process_time() - began

    return timed


def run_child(
    mode: str, fmt: str, src: Path, work: Path, workers: int, code: Path | None = None
) -> dict[str, Any]:
    """:func:`measure` in a fresh interpreter, with every descendant's CPU counted;
    ``code``: the ``src`` folder of another answerx to run instead (the baseline)."""
    out = work / f"out-{mode}-{workers}{'-baseline' if code else ''}.{fmt}"
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(code), env.get("PYTHONPATH")]))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    done = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(src), str(out), str(workers)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    _reap_orphans()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{mode} {fmt} x{workers} failed:\n{done.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    everything = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    rows = max(int(figures["rows"]), 1)
    workers_cpu = max(everything - figures["process_cpu"], 0.0)
    start = float(figures.get("parent_start_cpu", 0.0))
    result = {
        "mode": mode,
        "format": fmt,
        "workers": workers,
        "rows": figures["rows"],
        "seconds": round(figures["seconds"], 2),
        "rows_per_s": round(figures["rows"] / figures["seconds"], 1),
        "parent_cpu_s_per_1k": round(figures["parent_cpu"] / rows * 1000, 4),
        "parent_start_s": round(start, 3),
        "parent_row_cpu_s_per_1k": round((figures["parent_cpu"] - start) / rows * 1000, 4),
        "workers_cpu_s_per_1k": round(workers_cpu / rows * 1000, 4),
        "total_cpu_s_per_1k": round((figures["parent_cpu"] + workers_cpu) / rows * 1000, 4),
        "output_hash": _hash(out, fmt),
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(result), flush=True)
    return result


def _reap_orphans() -> None:
    """Wait for every descendant that was left to this script (the subreaper): its CPU
    then counts in ``RUSAGE_CHILDREN``."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.05)


def _hash(path: Path, fmt: str) -> str:
    """The output's bytes (JSONL), or its rows column by column (Parquet: the rows, not the
    file, whose row groups follow the batches), as a short hex digest."""
    if fmt in ("parquet", "table"):  # a table run's result is written as Parquet
        import pyarrow.parquet as pq

        digest = hashlib.sha256()
        data = pq.read_table(path)
        for name in data.column_names:  # a column at a time: C-speed, 400,000 rows in ~1 s
            values = data.column(name).to_pylist()
            digest.update(json.dumps([name, values], default=str).encode())
        return digest.hexdigest()[:12]
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 24), b""):
            digest.update(block)
    return digest.hexdigest()[:12]


def interleaved(repeat: int, counts: list[int], *args: Any) -> list[dict[str, Any]]:
    """``repeat`` rounds, each running every worker count in turn, so that each count
    meets the same spells of a shared machine's load (run one count's repeats in a row,
    and the ratio between counts measures the neighbours as much as the code), and each
    round starting one count further on, so that each count takes every place in a
    round as often: measured on the 2-core machine, a run right after one that kept both
    cores busy pays 10-15 % more CPU per row, whatever its own worker count. Each count's
    figures are the medians of its runs (:func:`median_of`)."""
    runs: dict[int, list[dict[str, Any]]] = {w: [] for w in counts}
    for round_ in range(repeat):
        turn = round_ % len(counts)
        for workers in counts[turn:] + counts[:turn]:
            runs[workers].append(run_child(*args, workers))
    return [median_of(runs[w]) for w in counts]


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The runs of one configuration as one, each figure their median (a shared machine's
    load comes and goes: one run can be slowed by a neighbour, a least-CPU pick would
    flatter); the loads are the lowest and highest seen, and the output hashes must agree."""
    merged = dict(runs[0])
    for key, value in runs[0].items():
        if isinstance(value, (int, float)) and key not in ("workers", "rows"):
            merged[key] = statistics.median(float(r[key]) for r in runs)
    merged["load_before"] = min(float(r["load_before"]) for r in runs)
    merged["load_after"] = max(float(r["load_after"]) for r in runs)
    hashes = sorted({str(r["output_hash"]) for r in runs})
    merged["output_hash"] = hashes[0] if len(hashes) == 1 else "DIFFERENT " + " ".join(hashes)
    return merged


def projected(one: dict[str, Any], r: dict[str, Any], cores: int) -> float | None:
    """The speed-up over one worker that ``r``'s CPU figures predict on ``cores`` idle
    cores (Amdahl, from CPU seconds, which a loaded machine distorts far less than wall
    time): one worker takes its total CPU; ``cores`` workers take the parent's fixed start
    (its warm-up before it forks), then the longer of the parent's per-row work and the
    rest of the run's CPU shared by the cores."""
    if r["workers"] < 2:
        return None
    rows = int(r["rows"]) / 1000
    start = float(r.get("parent_start_s", 0.0))
    per_row = float(r["total_cpu_s_per_1k"]) - start / rows
    parent = float(r.get("parent_row_cpu_s_per_1k", r["parent_cpu_s_per_1k"]))
    alone = float(one["total_cpu_s_per_1k"]) * rows
    return alone / (start + rows * max(parent, per_row / cores))


def projection_lines(results: list[dict[str, Any]], cores: int = 16) -> list[str]:
    """One line per mode and format: the projection for ``cores`` idle cores spelled out
    (what one worker takes, what ``cores`` take and why), from the run with the most
    workers, and the longest start that would still give 12×."""
    lines = []
    one: dict[tuple[str, str], dict[str, Any]] = {}
    most: dict[tuple[str, str], dict[str, Any]] = {}
    for r in results:
        key = (r["mode"], r["format"])
        one.setdefault(key, r)
        if int(r["workers"]) > 1 and int(r["workers"]) >= int(most.get(key, r)["workers"]):
            most[key] = r
    for key, r in most.items():
        ahead = projected(one[key], r, cores)
        if ahead is None:
            continue
        rows = int(r["rows"]) / 1000
        start = float(r.get("parent_start_s", 0.0))
        alone = float(one[key]["total_cpu_s_per_1k"]) * rows
        parent = float(r.get("parent_row_cpu_s_per_1k", r["parent_cpu_s_per_1k"])) * rows
        shared = (float(r["total_cpu_s_per_1k"]) * rows - start) / cores
        room = alone / 12 - max(parent, shared)
        lines.append(
            f"- {key[0]} {key[1]}, {int(r['rows']):,} rows: one worker {alone:.1f} CPU s; "
            f"{cores} cores {start:.2f} s of start + max(parent's per-row {parent:.2f} s, "
            f"the run's other CPU / {cores} = {shared:.2f} s) = "
            f"{start + max(parent, shared):.2f} s: "
            f"**{ahead:.1f}×**; 12× needs a start of at most {max(room, 0.0):.2f} s"
        )
    return lines


def table(results: list[dict[str, Any]], cores: int = 16) -> list[str]:
    """The Markdown table of ``results`` (``cores``: the projection's machine)."""
    lines = [
        "| mode | format | rows | workers | rows/s | speed-up | parent CPU s/1k rows | "
        "of which start s | parent per-row CPU s/1k | workers CPU s/1k rows | "
        f"total CPU s/1k rows | parent share | bound | projected ×{cores} | output |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    one: dict[tuple[str, str], dict[str, Any]] = {}
    for r in results:
        key = (r["mode"], r["format"])
        base = one.setdefault(key, r)
        share = r["parent_cpu_s_per_1k"] / max(r["total_cpu_s_per_1k"], 1e-9)
        bound = f"{1 / share:.0f}×" if r["workers"] > 1 and share > 0 else "—"
        ahead = projected(base, r, cores)
        lines.append(
            f"| {r['mode']} | {r['format']} | {r['rows']:,} | {r['workers']} | "
            f"{r['rows_per_s']:,.0f} | {r['rows_per_s'] / base['rows_per_s']:.2f}× | "
            f"{r['parent_cpu_s_per_1k']:.3f} | {r.get('parent_start_s', 0.0):.2f} | "
            f"{r.get('parent_row_cpu_s_per_1k', r['parent_cpu_s_per_1k']):.4f} | "
            f"{r['workers_cpu_s_per_1k']:.3f} | {r['total_cpu_s_per_1k']:.3f} | {share:.1%} | "
            f"{bound} | {'—' if ahead is None else f'{ahead:.1f}×'} | `{r['output_hash']}` |"
        )
    return lines


def same_outputs(results: list[dict[str, Any]], baseline: dict[tuple[str, str], str]) -> list[str]:
    """One line per mode and format: whether every worker count wrote the same output
    (and the baseline's, when one ran)."""
    lines = []
    groups: dict[tuple[str, str], set[str]] = {}
    for r in results:
        groups.setdefault((r["mode"], r["format"]), set()).add(r["output_hash"])
    for (mode, fmt), hashes in groups.items():
        verdict = "identical for every worker count" if len(hashes) == 1 else "DIFFERENT"
        if (mode, fmt) in baseline:
            same = hashes == {baseline[mode, fmt]}
            verdict += f"; {'identical to' if same else 'DIFFERENT from'} the baseline's"
        lines.append(f"- {mode} {fmt}: {verdict} (`{'`, `'.join(sorted(hashes))}`)")
    return lines


def criteria(results: list[dict[str, Any]]) -> list[str]:
    """The issue's checks on a machine of few cores, one line each, met or not: the most
    workers never more than 10 % slower than fewer, their CPU per row within 10 % of one
    worker's, and the parent's share of an extract run at two workers at most 1/12."""
    lines = []
    groups: dict[tuple[str, str], dict[int, dict[str, Any]]] = {}
    for r in results:
        groups.setdefault((r["mode"], r["format"]), {})[int(r["workers"])] = r
    for (mode, fmt), by in groups.items():
        most = by[max(by)]
        fewer = [by[w] for w in sorted(by) if w < max(by)]
        if not fewer:
            continue
        slowest = min(float(most["rows_per_s"]) / float(r["rows_per_s"]) for r in fewer)
        cpu = float(most["total_cpu_s_per_1k"]) / float(by[min(by)]["total_cpu_s_per_1k"])
        lines.append(
            f"- {mode} {fmt}: `-w {max(by)}` at {slowest:.2f}× the rows/s of the fastest run "
            f"with fewer workers ({'met' if slowest >= 0.9 else 'NOT met'}: ≥ 0.90×); total CPU "
            f"per row {cpu - 1:+.1%} over `-w {min(by)}` ({'met' if cpu <= 1.1 else 'NOT met'}: "
            "≤ +10 %)"
        )
        if mode == "extract" and 2 in by:
            share = float(by[2]["parent_cpu_s_per_1k"]) / float(by[2]["total_cpu_s_per_1k"])
            verdict = "met" if share <= 1 / 12 else "NOT met"
            lines.append(f"- {mode} {fmt}: parent share at `-w 2` {share:.1%} ({verdict}: ≤ 8.3 %)")
    return lines


def report(results: list[dict[str, Any]], baseline: dict[tuple[str, str], str], repeat: int) -> str:
    """The whole Markdown report: the machine, the table, the output check, the load."""
    loads = [r[k] for r in results for k in ("load_before", "load_after")]
    return "\n".join(
        [
            f"{os.cpu_count()} cores, {repeat} interleaved round(s) of every worker count, "
            f"each starting one further on (medians), Python {sys.version.split()[0]}, "
            f"sympy and math-verify bytecode {_bytecode()}",
            "",
            *table(results),
            "",
            *same_outputs(results, baseline),
            *criteria(results),
            "",
            f"Projected on 16 idle cores (Amdahl on the CPU figures; `-w {_most(results)}`):",
            *projection_lines(results),
            "",
            f"load average (1 min) during the runs: {min(loads):.1f}–{max(loads):.1f}",
        ]
    )


def _most(results: list[dict[str, Any]]) -> int:
    return max((int(r["workers"]) for r in results), default=1)


def _bytecode() -> str:
    """Whether sympy's and math-verify's compiled bytecode is there to load: without it
    every fresh interpreter compiles them from source, which took verify's start (its
    math-verify warm-up) from 1.6 to 4.2 CPU s on the 2-core machine."""
    import importlib.util

    found = []
    for name in ("sympy", "math_verify"):
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            return f"unknown ({name} not found)"
        found.append(os.path.exists(importlib.util.cache_from_source(spec.origin)))
    return "cached" if all(found) else "MISSING (compiled at every start)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument(
        "--verify-rows", type=int, default=None, help="rows for verify (default: --rows)"
    )
    parser.add_argument("--workers", default="1,2,8", help="worker counts, comma-separated")
    parser.add_argument("--modes", default="extract,verify")
    parser.add_argument("--formats", default="jsonl,parquet")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "answerx-bench")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per configuration; each figure's median is kept"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="the src folder of another answerx (a worktree of main): its one-worker "
        "outputs must hash the same",
    )
    parser.add_argument(
        "--markdown", type=Path, help="also write the report here (rewritten after each run)"
    )
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        mode, src, out, workers = args.child
        print(json.dumps(measure(mode, Path(src), Path(out), int(workers))))
        return

    if sys.platform == "linux":  # every descendant, orphaned or not, is reaped here
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    args.work.mkdir(parents=True, exist_ok=True)
    results: list[dict[str, Any]] = []
    baseline: dict[tuple[str, str], str] = {}
    for mode in args.modes.split(","):
        rows = args.verify_rows if mode == "verify" and args.verify_rows else args.rows
        jsonl, parquet = build_input(rows, args.work)
        sources = {"jsonl": jsonl, "parquet": parquet, "table": parquet}
        for fmt in args.formats.split(","):
            if args.baseline is not None:
                ran = run_child(mode, fmt, sources[fmt], args.work, 1, args.baseline)
                baseline[mode, fmt] = ran["output_hash"]
            counts = [int(w) for w in args.workers.split(",")]
            results += interleaved(args.repeat, counts, mode, fmt, sources[fmt], args.work)
            if args.markdown is not None:
                args.markdown.write_text(report(results, baseline, args.repeat) + "\n")
    print()
    print(report(results, baseline, args.repeat))


if __name__ == "__main__":
    main()
