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


@pytest.mark.slow
@pytest.mark.forks_here
def test_verify_workers_forked_from_the_caller_start_with_math_verify_loaded() -> None:
    assert can_fork_here()  # pytest runs one thread (and, maybe, grading reply readers)
    starter = PoolStarter(2, grading=True)
    try:
        pool = starter.wait()
        assert starter.forked
        # Loaded once, here, before the fork: the worker did not import it itself.
        assert pool.submit(_loaded, "math_verify").result()
    finally:
        starter.shutdown()


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
