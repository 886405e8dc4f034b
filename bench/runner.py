"""Throughput and memory of the experiment runner against a slow fake provider.

The fake provider server runs in its own process and answers every request after
200 ms (a tool call with a valid answer), so the ideal rate at concurrency 64 is
64 / 0.2 = 320 items/s. Each measurement runs in a fresh child process:

* **throughput**: 2,000 items (approach ``none``, structured, one request each) at
  concurrency 64, cache off; the same child first runs a *baseline* of 2,000 raw
  ``AsyncOpenAI`` calls at concurrency 64 against the same server, side by side, so
  the ratio shows what the runner costs on top of the SDK itself;
* **memory**: peak RSS (ru_maxrss) and tracemalloc peak of a whole run of 2,000
  and of 20,000 items (targets: rate ≥ 85 % of ideal; memory ratio ≤ 1.3).

* **workers** (issue 42): one run worked through by 4 worker processes joined on one
  PostgreSQL store (``--join``; a server started in a temporary folder as the tests
  start one) against 1 worker on a SQLite file, every worker at the same concurrency
  (WORKER_CONCURRENCY): throughput from the first stored item to the last (target
  >= 3.5x); and store writes per second on each backend (an item committed at a time,
  as runs write them).

    .venv/bin/python bench/runner.py                 # rate and memory
    .venv/bin/python bench/runner.py --only rate
    .venv/bin/python bench/runner.py --only workers
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

LATENCY_S = 0.2
CONCURRENCY = 64
ANSWER = {"full_reasoning_text": "It is 4.", "answer_value": "4", "confidence": 0.9}
KEY = "sk-bench-not-a-key"


def _serve() -> None:
    """Child: the fake provider server, until stdin closes. Prints its OpenAI URL."""
    from answerx.testing import FakeProviderServer, Reply

    with FakeProviderServer(default=Reply.tool_call(ANSWER).with_delay(LATENCY_S)) as fake:
        print(fake.openai_base_url, flush=True)
        sys.stdin.read()


def _dataset(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            q = {"id": f"q{i}", "question": f"What is {i} + 4 - {i}?", "answer": "4"}
            out.write(json.dumps({**q, "task": "numeric"}) + "\n")


def _config(folder: Path, n: int, url: str) -> Path:
    import yaml

    data = folder / f"items-{n}.jsonl"
    _dataset(data, n)
    path = folder / f"bench-{n}.yaml"
    config = {
        "name": f"bench-{n}",
        "datasets": [{"path": str(data)}],
        "approaches": ["none"],
        "strategies": ["structured"],
        "targets": [{"provider": "openai", "model": "gpt-bench", "base_url": url}],
        "concurrency": CONCURRENCY,
        "cache": False,
        "output": {"db": str(folder / f"bench-{n}.db"), "report_dir": str(folder / "reports")},
    }
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


async def _raw_baseline(url: str, n: int) -> float:
    """n raw AsyncOpenAI calls at CONCURRENCY, each the request a run item sends (same
    tool schema, same aiohttp transport) with its tool call parsed into the model: the
    SDK's own ceiling on this machine, in items/s."""
    import openai

    from answerx.structured import get_extraction_model

    model = get_extraction_model("none", task="numeric")
    tool = {
        "type": "function",
        "function": {
            "name": model.__name__,
            "description": "answer",
            "parameters": model.model_json_schema(),
        },
    }
    client = openai.AsyncOpenAI(
        base_url=url, api_key=KEY, max_retries=0, http_client=openai.DefaultAioHttpClient()
    )
    todo = iter(range(n))

    async def worker() -> None:
        for i in todo:
            reply = await client.chat.completions.create(
                model="gpt-bench",
                messages=[{"role": "user", "content": f"What is {i} + 4 - {i}?"}],
                max_tokens=512,
                tools=[tool],  # type: ignore[list-item]
                tool_choice={"type": "function", "function": {"name": model.__name__}},
            )
            calls = reply.choices[0].message.tool_calls or []
            model.model_validate_json(calls[0].function.arguments)  # type: ignore[union-attr]

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    elapsed = time.perf_counter() - started
    await client.close()
    return n / elapsed


def _measure(config_path: str, url: str, mode: str) -> None:
    """Child: one run of the config; prints a JSON line of figures."""
    os.environ["OPENAI_API_KEY"] = KEY
    from answerx.experiments.config import load_config
    from answerx.experiments.runner import run_experiment

    config = load_config(config_path)
    figures: dict[str, float] = {}
    if mode == "rate":
        # Warm-up in this process first (imports, Instructor's per-model set-up, the
        # first 64 connections), on its own database, as a long run would have.
        warm = Path(config_path).with_name("warm-up.db")
        warm_config = config.model_copy(update={"output": config.output.model_copy(
            update={"db": warm})})  # fmt: skip
        run_experiment(warm_config.model_copy(update={"datasets": [
            d.model_copy(update={"limit": 256}) for d in config.datasets]}))  # fmt: skip
        figures["raw_rate"] = _run_loop(_raw_baseline(url, 2000))
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if mode == "memory":
        tracemalloc.start()
    started = time.perf_counter()
    summary = run_experiment(config)
    elapsed = time.perf_counter() - started
    if mode == "memory":
        figures["traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert summary.errors == 0 and summary.done == summary.total, summary
    figures.update(
        items=summary.done,
        rate=summary.done / elapsed,
        elapsed_s=elapsed,
        peak_rss_mb=rss / 1024,
        rss_growth_mb=(rss - rss_before) / 1024,
        correct=summary.correct,
    )
    print(json.dumps(figures), flush=True)


WORKER_CONCURRENCY = 2


def _measure_worker(config_path: str, db: str, start_file: str, join: str) -> None:
    """Child: one worker, imported and ready, starting when ``start_file`` appears;
    prints when it ended (Unix time) and how many items it answered."""
    os.environ["OPENAI_API_KEY"] = KEY
    from answerx.experiments.config import load_config
    from answerx.experiments.runner import run_experiment

    config = load_config(config_path, {"db": db, "concurrency": WORKER_CONCURRENCY})
    while not Path(start_file).exists():
        time.sleep(0.005)
    summary = run_experiment(config, join=join == "join", lease_s=30)
    print(json.dumps({"ended": time.time(), "done": summary.done}), flush=True)


def _workers_rate(folder: Path, config: Path, db: str, workers: int, join: bool) -> float:
    """Items/s of ``workers`` worker processes on one run in ``db``."""
    start = folder / f"go-{workers}-{join}"
    children = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                str(config),
                db,
                str(start),
                "join" if join else "alone",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(workers)
    ]
    time.sleep(15)  # every child imported and waiting (a loaded machine is slow to import)
    started = time.time()
    start.touch()
    results = []
    for child in children:
        out, _ = child.communicate(timeout=600)
        assert child.returncode == 0, out
        results.append(json.loads(out.strip().splitlines()[-1]))
    from answerx.experiments.store import ResultStore

    # From the first stored item to the last: the run's pace once the workers are going.
    # Each worker's start-up (imports, the clients' set-up: some seconds of CPU) is paid
    # once per machine, on that machine; here all of them share this one's cores.
    with ResultStore.open(db, "read") as store:
        (run,) = store.list_runs()
        times = sorted(i.finished_at.timestamp() for i in store.items(run.run_id) if i.finished_at)
    assert len(times) == sum(r["done"] for r in results), (len(times), results)
    print(f"    ({len(children)} worker(s): first item {times[0] - started:.1f} s after the start)")
    return (len(times) - 1) / (times[-1] - times[0])


def _writes_per_s(location: str, n: int = 500) -> float:
    """Items committed one at a time (as a run commits them) per second."""
    from answerx.experiments.records import ItemRecord
    from answerx.experiments.store import ResultStore

    with ResultStore.open(location, "write") as store:
        run = store.start_run("writes", {}, "0" * 64)
        items = [
            ItemRecord(run_id=run.run_id, approach="none", strategy="structured",
                       provider="openai", model="m", item_id=f"q{i}", question="What?",
                       raw_output="x" * 2500, extracted_answer="4")
            for i in range(n)
        ]  # fmt: skip
        started = time.perf_counter()
        for item in items:
            store.add_item(item)
        return n / (time.perf_counter() - started)


def _workers(folder: Path, url: str, items: int) -> None:
    sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
    from postgres_server import start_server, unavailable

    why = unavailable()
    if why is not None:
        print(f"workers: skipped, PostgreSQL cannot be had here: {why}")
        return
    import psycopg

    server = start_server()
    try:
        with psycopg.connect(server.url(), autocommit=True) as admin:
            admin.execute("CREATE DATABASE bench")
            admin.execute("CREATE DATABASE writes")
        pg = server.url("bench")
        config = _config(folder, items, url)
        alone = _workers_rate(folder, config, str(folder / "alone.db"), 1, join=False)
        joined = _workers_rate(folder, config, pg, 4, join=True)
        ideal = WORKER_CONCURRENCY / LATENCY_S
        print(
            f"workers, {items} items, {LATENCY_S * 1000:.0f} ms per request, concurrency "
            f"{WORKER_CONCURRENCY} per worker (one worker's ideal {ideal:.0f} items/s):"
        )
        print(f"  1 worker,  SQLite      {alone:7.1f} items/s")
        print(
            f"  4 workers, PostgreSQL  {joined:7.1f} items/s   {joined / alone:.2f}x  "
            f"target >= 3.5x: {'PASS' if joined / alone >= 3.5 else 'FAIL'}"
        )
        lite = _writes_per_s(str(folder / "writes.db"))
        server_writes = _writes_per_s(server.url("writes"))
        print(f"store writes (an item committed at a time): SQLite {lite:.0f}/s, "
              f"PostgreSQL {server_writes:.0f}/s")  # fmt: skip
    finally:
        server.stop()


def _run_loop(coroutine: Any) -> float:
    """Run on the event loop runs use (``new_event_loop``), for a like-for-like baseline."""
    from answerx.experiments.eventloop import new_event_loop

    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return float(runner.run(coroutine))


def _child(*args: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, *args], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["rate", "memory", "workers"])
    parser.add_argument("--worker-items", type=int, default=400)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--large", type=int, default=20000)
    args = parser.parse_args()

    server = subprocess.Popen(
        [sys.executable, __file__, "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    url = server.stdout.readline().strip()
    ideal = CONCURRENCY / LATENCY_S
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            if args.only in (None, "rate"):
                figures = _child("--measure", str(_config(folder, args.items, url)), url, "rate")
                share = figures["rate"] / ideal
                print(
                    f"throughput, {args.items} items at concurrency {CONCURRENCY}, "
                    f"{LATENCY_S * 1000:.0f} ms per request (ideal {ideal:.0f} items/s):"
                )
                print(
                    f"  raw SDK, same request     {figures['raw_rate']:7.1f} items/s "
                    f"({figures['raw_rate'] / ideal:.0%} of ideal)"
                )
                print(
                    f"  answerx run_experiment    {figures['rate']:7.1f} items/s "
                    f"({share:.0%} of ideal, {figures['rate'] / figures['raw_rate']:.0%} of raw)"
                    f"  target >= 85% of ideal: {'PASS' if share >= 0.85 else 'FAIL'}"
                )
            if args.only == "workers":
                _workers(folder, url, args.worker_items)
            if args.only in (None, "memory"):
                small = _child("--measure", str(_config(folder, args.items, url)), url, "memory")
                large = _child("--measure", str(_config(folder, args.large, url)), url, "memory")
                ratio = large["peak_rss_mb"] / small["peak_rss_mb"]
                print("memory, whole run in a fresh process (peak RSS / tracemalloc peak):")
                for label, f in ((args.items, small), (args.large, large)):
                    print(
                        f"  {label:>6} items  {f['peak_rss_mb']:7.1f} MB / "
                        f"{f['traced_peak_mb']:6.1f} MB   ({f['rate']:.0f} items/s)"
                    )
                print(
                    f"  ratio {ratio:.2f} (tracemalloc "
                    f"{large['traced_peak_mb'] / small['traced_peak_mb']:.2f})"
                    f"  target <= 1.3: {'PASS' if ratio <= 1.3 else 'FAIL'}"
                )
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        _serve()
    elif sys.argv[1:2] == ["--measure"]:
        _measure(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1:2] == ["--worker"]:
        _measure_worker(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    else:
        main()
