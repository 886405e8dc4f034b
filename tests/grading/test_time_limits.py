"""Every item is bounded in time on any thread: a stuck worker is killed and replaced."""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from answerx.grading import grade, verify, verify_batch
from answerx.grading.pool import WorkerPool

# 9^(9^9) has 370 million digits: sympy works on it for minutes.
TOWER = "9^{9^{9}}"


@pytest.mark.parametrize("where", ["main thread", "worker thread"])
@pytest.mark.parametrize(("answer", "gold"), [(TOWER, "2"), ("2", TOWER)])
def test_a_comparison_that_runs_too_long_costs_its_time_limit(
    where: str, answer: str, gold: str
) -> None:
    def run() -> object:
        return grade(answer, gold, "math", time_limit_s=1)

    started = time.monotonic()
    if where == "main thread":
        verdict = run()
    else:
        with ThreadPoolExecutor(max_workers=1) as threads:
            verdict = threads.submit(run).result()
    assert verdict.model_dump(include={"correct", "reason", "how"}) == {  # type: ignore[attr-defined]
        "correct": False, "reason": "timeout", "how": "math_verify"
    }  # fmt: skip
    assert time.monotonic() - started < 15  # the limit, plus a worker start on a loaded machine


def test_the_next_item_after_a_timeout_is_judged_normally() -> None:
    assert grade(TOWER, "2", "math", time_limit_s=1).reason == "timeout"
    assert grade(r"\frac{\sqrt2}{2}", r"\sqrt{2}/2", "math").reason == "equivalent"


def test_a_megabyte_output_is_judged_within_its_limit() -> None:
    raw = "Let me think. " * 75_000 + r"So the answer is $\boxed{\frac{\sqrt{2}}{2}}$."
    started = time.monotonic()
    verdict = verify(raw, r"\sqrt{2}/2", time_limit_s=2)
    assert verdict.reason == "equivalent"
    assert time.monotonic() - started < 15


def test_a_worker_that_never_answers_is_killed_and_replaced() -> None:
    silent = [
        sys.executable,
        "-c",
        "print('answerx-grading:\"ready\"', flush=True); input(); input()",
    ]
    pool = WorkerPool(argv=silent)
    try:
        started = time.monotonic()
        assert pool.run([["math", "1", "1"]], 0.5) == [None]
        assert pool.run([["math", "1", "1"], ["math", "2", "2"]], 0.5) == [None, None]
        assert time.monotonic() - started < 10
        assert pool.restarts == 2
    finally:
        pool.close()


def test_a_worker_that_dies_on_an_item_is_noticed_at_once_and_replaced() -> None:
    dying = [sys.executable, "-c", "print('answerx-grading:\"ready\"', flush=True); input()"]
    pool = WorkerPool(argv=dying)
    try:
        started = time.monotonic()
        assert pool.run([["math", "1", "1"]], 60) == [None]  # no waiting for the limit
        assert time.monotonic() - started < 10
        assert pool.restarts == 1
    finally:
        pool.close()


def test_a_worker_that_cannot_start_is_reported_so_callers_grade_in_process() -> None:
    pool = WorkerPool(argv=["/nonexistent/python"])
    with pytest.raises(RuntimeError, match="can be started"):
        pool.run([["math", "1", "1"]], 1)
    assert pool.available is False


def test_a_batch_item_that_overruns_gets_a_timeout_and_the_others_their_verdicts() -> None:
    outputs = ["The answer is 4.", f"The answer is ${TOWER}$.", "The answer is $\\frac{1}{2}$."]
    golds = ["4", "2", "0.5"]
    verdicts = verify_batch(outputs, golds, task="math", workers=1, time_limit_s=1)
    assert [v.reason for v in verdicts] == ["equivalent", "timeout", "equivalent"]
    assert verdicts[1].answer == TOWER


def score_on_a_thread(pair: tuple[str, str]) -> bool | None:
    with ThreadPoolExecutor(max_workers=1) as threads:
        return threads.submit(lambda: grade(pair[0], pair[1], "math").correct).result()


@pytest.mark.skipif(sys.platform == "win32", reason="fork is POSIX")
def test_a_forked_process_starts_its_own_workers() -> None:
    import multiprocessing

    assert score_on_a_thread((r"\frac{\sqrt2}{2}", r"\sqrt{2}/2")) is True  # a worker is running
    with multiprocessing.get_context("fork").Pool(1) as processes:
        pairs = [(r"\frac{\sqrt2}{2}", r"\sqrt{2}/2"), ("x=3", "2")]
        assert processes.map(score_on_a_thread, pairs) == [True, False]


def test_a_parse_that_overruns_math_verifys_own_timer_is_a_timeout_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Without a worker process, on the main thread, math-verify's signal timer bounds the
    # parse and raises its TimeoutException, a BaseException that must not escape.
    import math_verify
    from math_verify.errors import TimeoutException

    from answerx.grading.mathverify import math_equal

    def overrun(*args: object, **kwargs: object) -> list[object]:
        raise TimeoutException("Timeout during parsing")

    monkeypatch.setattr(math_verify, "parse", overrun)
    assert math_equal(r"\sqrt{x^{99}}", "x^{7}", 1) == "timeout"
