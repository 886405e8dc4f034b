"""A file run forks its workers warm from the calling process where that is safe (one
thread), from a fork server where it is not, and never starts more than the cores."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest

from answerx.batch import run_file
from answerx.batch.workers import PoolStarter, can_fork_here, workers_for
from answerx.support.workerpool import default_workers


def _loaded(name: str) -> bool:
    return name in sys.modules


def _imported_here() -> bool:
    """Whether this process imported math-verify (its comparisons, or the extraction
    patterns the fast rung's walk follows): half a second of CPU and more."""
    return _loaded("math_verify") or _loaded("antlr4")


def _records(n: int) -> str:
    outputs = ["So the answer is $\\frac{1}{2}$.", "The answer is (B).", "Thus 42.", "no idea"]
    return "".join(
        json.dumps({"id": i, "raw_output": outputs[i % 4], "gold": ["0.5", "B", "42", "7"][i % 4]})
        + "\n"
        for i in range(n)
    )


def test_never_more_workers_than_cores() -> None:
    assert workers_for(10_000) == default_workers()
    assert workers_for(1) == 1


def _graded_there() -> tuple[bool, int, int]:
    """In a batch worker: one comparison only math-verify makes, and one the fast rung
    makes by walking math-verify's own extraction patterns; whether this process imported
    math-verify for them, and the parent of the grading worker that made them."""
    from answerx.grading.core import symbolic_then_math
    from answerx.grading.mathverify import compare
    from answerx.grading.pool import shared_pool

    pool = shared_pool()
    assert compare("\\sin^2 x + \\cos^2 x", "1", 60) == "equal"
    assert symbolic_then_math("so $a=3$, hence 4", "4", 60) == (True, "symbolic_fast")
    assert pool.available, "no grading worker could be drawn from the template"
    (worker,) = pool._idle
    return _imported_here(), worker.proc.pid, os.getpid()


def _parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _check_template(directory: str) -> None:
    """Run in a fresh interpreter by the test below: a forked process's own forks abort
    where a library loaded by an earlier test has at-fork handlers that do (pytest's
    long-lived workers), and this is about the template, not them."""
    assert can_fork_here()
    starter = PoolStarter(2, grading=True, directory=directory)
    try:
        pool = starter.wait()
        assert starter.forked and starter.template is not None
        # Not loaded here either: the template loads and warms it, in a process of its own.
        assert not _imported_here()
        graded = [pool.submit(_graded_there) for _ in range(2)]
        for imported, grader, worker in (future.result() for future in graded):
            assert not imported  # the batch worker never loaded math-verify itself
            assert _parent_of(grader) == starter.template.pid != worker
        assert starter.grading_ready()
    finally:
        starter.shutdown()


@pytest.mark.slow
def test_verify_workers_start_without_warming_math_verify_and_grade_through_one_template(
    tmp_path: Path,
) -> None:
    import subprocess

    here = Path(__file__).resolve().parent
    code = (
        f"import sys; sys.path.insert(0, {str(here)!r}); "
        f"import test_forked_workers as t; t._check_template({str(tmp_path)!r})"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]


# Rows only math-verify can grade (the rules leave them to it), among rows the rules decide.
_SLOW_ROWS = [
    ("So the answer is $\\boxed{\\sin^2 x + \\cos^2 x}$.", "1"),
    ("The answer is $\\boxed{2\\cos^2 x - 1}$.", "\\cos 2x"),
    ("So the answer is $\\frac{1}{2}$.", "0.5"),
    ("The answer is (B).", "B"),
    ("Thus 42.", "41"),
]


@pytest.mark.slow
@pytest.mark.forks_here
@pytest.mark.parametrize("suffix", ["jsonl", "parquet"])
def test_rows_that_reach_math_verify_while_it_warms_are_graded_later_in_their_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    import time

    import pyarrow as pa
    import pyarrow.parquet as pq

    from answerx.batch import _jobs, _warm

    warm, follow_up = _warm.warm_grading, _jobs._follow_up
    followed = tmp_path / "followed"

    def slow_warm() -> None:  # the forked template inherits it: its rows wait longer
        time.sleep(1.0)
        warm()

    def traced(done: _jobs.Done, settings: _jobs.Settings) -> _jobs.Done:
        assert done.pending is not None
        with open(followed, "a") as f:  # forked workers inherit this too
            f.write(f"{type(done.pending).__name__} {len(done.pending.rows)}\n")
        return follow_up(done, settings)

    monkeypatch.setattr(_warm, "warm_grading", slow_warm)
    monkeypatch.setattr(_jobs, "_follow_up", traced)
    rows = [
        {"id": i, "raw_output": _SLOW_ROWS[i % 5][0], "gold": _SLOW_ROWS[i % 5][1]}
        for i in range(200)
    ]
    src = tmp_path / f"in.{suffix}"
    if suffix == "jsonl":
        src.write_text("".join(json.dumps(row) + "\n" for row in rows))
    else:
        pq.write_table(pa.Table.from_pylist(rows), src)

    one = run_file(src, tmp_path / f"one.{suffix}", mode="verify", workers=1, batch_size=20)
    two = run_file(src, tmp_path / f"two.{suffix}", mode="verify", workers=2, batch_size=20)

    kinds = followed.read_text().split()[::2]  # the follow-ups ran, in the workers
    assert kinds and set(kinds) == {"LinesPending" if suffix == "jsonl" else "RowsPending"}
    assert two.by_reason == one.by_reason and two.by_reason["equivalent"] == 160
    assert (two.written, two.correct, two.judged) == (one.written, one.correct, one.judged)
    if suffix == "jsonl":
        assert (tmp_path / "two.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    else:
        assert pq.read_table(tmp_path / "two.parquet").equals(
            pq.read_table(tmp_path / "one.parquet")
        )


def test_a_caller_running_another_thread_gets_its_workers_from_a_fork_server(
    tmp_path: Path,
) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(_records(400))
    release = threading.Event()
    other = threading.Thread(target=release.wait)  # a progress bar, a web server's loop
    other.start()
    try:
        assert not can_fork_here()
        starter = PoolStarter(2)
        starter.shutdown()
        assert not starter.forked
        threaded = run_file(src, tmp_path / "threaded.jsonl", workers=2, batch_size=50)
    finally:
        release.set()
        other.join()
    alone = run_file(src, tmp_path / "alone.jsonl", workers=2, batch_size=50)

    assert (threaded.written, alone.written) == (400, 400)
    assert (tmp_path / "threaded.jsonl").read_bytes() == (tmp_path / "alone.jsonl").read_bytes()


def test_a_verify_run_on_forked_workers_writes_what_one_process_writes(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(_records(300))

    run_file(src, tmp_path / "one.jsonl", mode="verify", workers=1, batch_size=40)
    two = run_file(src, tmp_path / "two.jsonl", mode="verify", workers=2, batch_size=40)

    assert two.by_reason and two.written == 300
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()


def test_batches_are_spooled_to_shared_memory_only_where_it_has_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import answerx.batch.workers as workers

    monkeypatch.setattr(workers, "_room", lambda path: 64 << 20)  # a container's /dev/shm
    small = workers.spool_dir()
    monkeypatch.setattr(workers, "_room", lambda path: 8 << 30)
    roomy = workers.spool_dir()
    try:
        assert not small.startswith("/dev/shm/")
        if os.access("/dev/shm", os.W_OK):
            assert roomy.startswith("/dev/shm/")
    finally:
        os.rmdir(small)
        os.rmdir(roomy)


@pytest.mark.slow
@pytest.mark.forks_here
def test_the_command_lines_progress_bar_leaves_its_run_free_to_fork_warm_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    import answerx.batch.files
    from answerx.cli import app

    starters: list[PoolStarter] = []

    class Recorded(PoolStarter):
        def __init__(self, *args: object, **kwargs: bool) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            starters.append(self)

    monkeypatch.setattr(answerx.batch.files, "PoolStarter", Recorded)
    src = tmp_path / "in.jsonl"
    src.write_text(_records(2000))

    result = CliRunner().invoke(
        app, ["extract", "-f", str(src), "-o", str(tmp_path / "out.jsonl"), "--progress",
              "-w", "2", "--batch-size", "100"],
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    assert "lines/s" in result.stderr  # the bar was drawn
    assert [s.forked for s in starters] == [True] * min(1, default_workers() - 1)


def test_the_grading_warm_up_runs_without_the_collector_and_restores_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    import answerx.grading.mathverify as mathverify
    from answerx.batch._warm import warm_grading

    collecting: list[bool] = []

    def comparison(answer: str, gold: str) -> str:
        collecting.append(gc.isenabled())
        raise RuntimeError("a math-verify that cannot run")  # the run is not stopped

    monkeypatch.setattr(mathverify, "math_equal", comparison)
    assert gc.isenabled()
    warm_grading()
    assert (collecting, gc.isenabled()) == ([False], True)

    gc.disable()  # a caller that had it off keeps it off
    try:
        warm_grading()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_spool_directory_too_deep_for_a_socket_leaves_math_verify_warmed_in_the_caller(
    tmp_path: Path,
) -> None:
    from answerx.batch.workers import _start_template

    deep = tmp_path / ("d" * 120)
    deep.mkdir()

    assert _start_template(str(deep)) is None  # no template: the caller warms, as before
