"""Batch throughput: Parquet rows/s on 1 and 2 workers, against a tight ``answerx.extract``
loop, peak memory as the file grows, and Ray Data on a local 2-CPU cluster.

    python bench/batch.py --rows 1000000            # the issue's figures
    python bench/batch.py --rows 100000 --memory-rows 20000,100000 --no-ray

The input is built from the dev corpus outputs (``../shared/data/corpus``):
its 3,000 real generations repeated to ``--rows`` rows in a seeded shuffle,
written once as Parquet under ``--work`` and reused. Each configuration runs in
its own process (a fresh interpreter, so peak RSS is that run's alone), and
prints one JSON line; the summary is a Markdown table for bench/README.md.

Figures taken on a shared, loaded machine are distorted: the scaling figure
most (two workers need two idle cores). Say so when you report them.
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
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

ROW_GROUP = 65_536


def build_input(rows: int, work: Path, seed: int = 20261125) -> Path:
    """``rows`` rows of corpus outputs (id, raw_output, task, choices, gold) as Parquet."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpus import CORPUS_FILES, load  # type: ignore[import-not-found]

    path = work / f"batch-{rows}.parquet"
    if path.exists():
        return path
    items = [item for name in CORPUS_FILES for item in load(name)]
    rng = random.Random(seed)
    writer = None
    try:
        for start in range(0, rows, ROW_GROUP):
            n = min(ROW_GROUP, rows - start)
            picks = [items[rng.randrange(len(items))] for _ in range(n)]
            table = pa.table(
                {
                    "id": pa.array(range(start, start + n), pa.int64()),
                    "raw_output": [p.raw_output for p in picks],
                    "task": [p.task for p in picks],
                    "choices": pa.array([p.choices for p in picks], pa.list_(pa.string())),
                    "gold": [p.gold for p in picks],
                }
            )
            if writer is None:
                writer = pq.ParquetWriter(path.with_suffix(".tmp"), table.schema)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()
    os.replace(path.with_suffix(".tmp"), path)
    return path


# --------------------------------------------------------------------------- one measurement
def measure(kind: str, src: Path, out: Path, workers: int, rows: int) -> dict[str, Any]:
    """Run one configuration in this process and return its figures."""
    import pyarrow.parquet as pq

    import answerx
    from answerx.batch import run_file

    load = os.getloadavg()[0]
    started = time.perf_counter()
    cpu_started = time.process_time()
    if kind == "loop":
        done = 0
        for batch in pq.ParquetFile(src).iter_batches(
            batch_size=min(4096, rows), columns=["raw_output", "task", "choices"]
        ):
            for output, task, choices in zip(
                batch.column(0).to_pylist(),
                batch.column(1).to_pylist(),
                batch.column(2).to_pylist(),
                strict=True,
            ):
                answerx.extract(output, task, choices=choices)
            done += batch.num_rows
            if done >= rows:
                break
        elapsed = time.perf_counter() - started
    elif kind == "local":
        summary = run_file(src, out, workers=workers, batch_size=2048)
        done = summary.read
        elapsed = time.perf_counter() - started
    elif kind == "ray":
        import shutil

        import ray

        shutil.rmtree(out, ignore_errors=True)

        from answerx.integrations.ray import run_ray

        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        ready = time.perf_counter()
        run_ray(str(src), str(out), batch_size=2048, concurrency=workers)
        elapsed = time.perf_counter() - ready  # the cluster's start is not the job's
        done = rows
        ray.shutdown()
    else:
        raise ValueError(kind)
    peak = _peak_rss_mb()
    cpu = time.process_time() - cpu_started  # the run's own CPU, imports aside
    workers_cpu = _children_cpu() if kind == "local" else 0.0
    return {
        "kind": kind,
        "workers": workers,
        "rows": done,
        "seconds": round(elapsed, 2),
        "rows_per_s": round(done / elapsed, 1),
        "peak_rss_mb": round(peak, 1),  # this process: with workers > 1, each worker adds its own
        # This process's CPU per row: with workers > 1, the coordinator's cost (read, send,
        # receive, write), the part that does not shrink with more cores.
        "coordinator_us_per_row": round(cpu / max(done, 1) * 1e6, 1),
        # Everything the run burnt: this process, the workers and the fork server they
        # come from (its start-up included). The load-independent measure of overhead:
        # two workers scale to 2 × (one worker's total) / (their total) on idle cores.
        "total_cpu_us_per_row": round((cpu + workers_cpu) / max(done, 1) * 1e6, 1),
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }


def _children_cpu() -> float:
    """CPU seconds of this process's live children and of what they reaped: the pool's
    fork server outlives the pool and has reaped every worker."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    try:
        pids = Path(f"/proc/self/task/{os.getpid()}/children").read_text().split()
    except OSError:
        return 0.0  # not Linux
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return total + reaped.ru_utime + reaped.ru_stime


def best_of(repeat: int, *args: Any) -> dict[str, Any]:
    """The fastest of ``repeat`` runs (a shared machine only ever slows a run down)."""
    runs = [run_child(*args) for _ in range(repeat)]
    return max(runs, key=lambda r: float(r["rows_per_s"]))


def _peak_rss_mb() -> float:
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec from the parent (this
    # script, which built the input), so every child would report the parent's peak.
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # not Linux


def run_child(kind: str, src: Path, out: Path, workers: int, rows: int) -> dict[str, Any]:
    """:func:`measure` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(src), str(out), str(workers), str(rows)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "RAY_DEDUP_LOGS": "0"},
    )
    if done.returncode != 0:
        raise SystemExit(f"{kind} x{workers} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    print(json.dumps(result), flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--loop-rows", type=int, default=50_000, help="rows for the tight loop")
    parser.add_argument(
        "--memory-rows", default="100000,1000000", help="sizes for the peak-memory check"
    )
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "answerx-bench")
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per configuration; the fastest is kept"
    )
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, src, out, workers, rows = args.child
        print(json.dumps(measure(kind, Path(src), Path(out), int(workers), int(rows))))
        return

    args.work.mkdir(parents=True, exist_ok=True)
    src = build_input(args.rows, args.work)
    out = args.work / "out"
    results: dict[str, dict[str, Any]] = {}
    results["loop"] = best_of(args.repeat, "loop", src, out, 1, min(args.loop_rows, args.rows))
    for workers in (1, 2):
        results[f"local{workers}"] = best_of(
            args.repeat, "local", src, out.with_suffix(f".{workers}.parquet"), workers, args.rows
        )
    memory = {}
    for n in (int(x) for x in args.memory_rows.split(",")):
        if n == args.rows:
            memory[n] = results["local1"]["peak_rss_mb"]  # measured above
            continue
        path = build_input(n, args.work)
        memory[n] = run_child("local", path, args.work / f"mem-{n}.parquet", 1, n)["peak_rss_mb"]
    if not args.no_ray:
        import shutil

        shutil.rmtree(args.work / "ray-out", ignore_errors=True)
        results["ray2"] = best_of(args.repeat, "ray", src, args.work / "ray-out", 2, args.rows)

    loop, one, two = results["loop"], results["local1"], results["local2"]
    print()
    print(f"| measure ({args.rows:,} rows) | value |")
    print("|---|---|")
    print(f"| tight `answerx.extract` loop | {loop['rows_per_s']:,.0f} rows/s |")
    print(
        f"| `--workers 1` | {one['rows_per_s']:,.0f} rows/s "
        f"({one['rows_per_s'] / loop['rows_per_s']:.0%} of the loop) |"
    )
    print(
        f"| `--workers 2` | {two['rows_per_s']:,.0f} rows/s "
        f"({two['rows_per_s'] / one['rows_per_s']:.2f}× one worker) |"
    )
    sizes = sorted(memory)
    print(
        f"| peak RSS, one worker, {sizes[0]:,} → {sizes[-1]:,} rows | "
        f"{memory[sizes[0]]:.0f} → {memory[sizes[-1]]:.0f} MB "
        f"(ratio {memory[sizes[-1]] / memory[sizes[0]]:.2f}) |"
    )
    print(
        f"| coordinator CPU, `--workers 2` | {two['coordinator_us_per_row']:.1f} µs/row "
        f"(one worker, all in one process: {one['coordinator_us_per_row']:.1f} µs/row) |"
    )
    print(
        f"| CPU of the whole run (all processes), `--workers 2` | "
        f"{two['total_cpu_us_per_row']:.1f} µs/row (one worker: "
        f"{one['total_cpu_us_per_row']:.1f}): at most "
        f"{2 * one['total_cpu_us_per_row'] / two['total_cpu_us_per_row']:.2f}× on two idle cores |"
    )
    loads = [r[k] for r in (loop, one, two) for k in ("load_before", "load_after")]
    print(f"| load average (1 min) during the runs | {min(loads):.1f}–{max(loads):.1f} |")
    if "ray2" in results:
        ray2 = results["ray2"]
        print(
            f"| Ray, local 2-CPU cluster | {ray2['rows_per_s']:,.0f} rows/s "
            f"({ray2['rows_per_s'] / two['rows_per_s']:.0%} of `--workers 2`) |"
        )


if __name__ == "__main__":
    main()
