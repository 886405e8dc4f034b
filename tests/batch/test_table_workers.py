"""``extract_table`` and ``verify_table`` with ``workers=N``: the rows run on worker
processes, as a file run's do, and the table that comes back is the one a single
process makes (a judge is still asked, here, about exactly the rows in doubt)."""

from __future__ import annotations

import threading
from typing import Any

import pyarrow as pa
import pytest

from answerx.batch import extract_table, verify_table
from answerx.batch.table_workers import SLICE_ROWS
from answerx.errors import InputError
from answerx.grading.judgement import JudgeRequest, JudgeRuling

# Math the rules decide, a walk of math-verify's own reading, multiple choice, short
# answers (one hedged: in doubt), a wrong number, a null; and, in a few rows (it takes
# tens of milliseconds), math only math-verify decides.
_ROWS: list[tuple[Any, Any, str, list[str] | None]] = [
    ("So the answer is $\\frac{1}{2}$.", "0.5", "math", None),
    ("Therefore the answer is: so $a=3$, hence 4", "4", "math", None),
    ("The answer is (B).", "B", "multiple_choice", ["cat", "dog"]),
    ("I'm not sure, perhaps Paris.", "Paris", "short_answer", None),
    ("Marie Curie.", "Marie Curie", "short_answer", None),
    ("Thus 42.", "41", "auto", None),
    (None, "7", "auto", None),
]


_MATH_VERIFY = ("The answer is $\\boxed{\\sin^2 x + \\cos^2 x}$.", "1", "math", None)


def _table(n: int) -> pa.Table:
    rows = [_ROWS[i % len(_ROWS)] if i % 500 != 3 else _MATH_VERIFY for i in range(n)]
    return pa.table(
        {
            "id": list(range(n)),
            "raw_output": [r[0] for r in rows],
            "gold": [r[1] for r in rows],
            "task": [r[2] for r in rows],
            "choices": pa.array([r[3] for r in rows], pa.list_(pa.string())),
            "meta": ["kept as it is"] * n,
        }
    )


class _Judge:
    """Rules every item correct and counts what it was asked; thread-safe."""

    name = "test/double"

    def __init__(self) -> None:
        self.asked: list[JudgeRequest] = []
        self._lock = threading.Lock()

    def judge(self, request: JudgeRequest) -> JudgeRuling:
        with self._lock:
            self.asked.append(request)
        return JudgeRuling(verdict="correct", reason="asked", judge=self.name, calls=1)


def test_extracting_on_workers_gives_the_table_one_process_gives() -> None:
    data = _table(2 * SLICE_ROWS + 17)  # three slices, the last a short one
    one = extract_table(data, task="task", choices="choices", prefix="x_")
    assert extract_table(data, task="task", choices="choices", prefix="x_", workers=2).equals(one)


@pytest.mark.slow
def test_verifying_on_workers_gives_the_table_one_process_gives() -> None:
    data = _table(SLICE_ROWS + 9)
    one = verify_table(data, task="task", choices="choices")
    two = verify_table(data, task="task", choices="choices", workers=2)
    assert two.equals(one)
    hows = set(two.column("how").to_pylist())
    assert {"math_verify", "symbolic_fast", "exact_match"} <= hows


@pytest.mark.slow
def test_on_workers_the_judge_is_asked_here_about_the_same_rows() -> None:
    data = _table(SLICE_ROWS + 9)
    alone, spread = _Judge(), _Judge()
    one = verify_table(data, task="task", choices="choices", judge=alone)
    two = verify_table(data, task="task", choices="choices", judge=spread, workers=2)
    assert two.equals(one)
    assert len(spread.asked) == len(alone.asked) > 0
    assert set(two.column("judge_verdict").to_pylist()) == {"correct", None}


def test_a_small_table_or_one_worker_runs_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    from answerx.batch import table_workers

    def no_pool(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("no worker should start")

    monkeypatch.setattr(table_workers, "PoolStarter", no_pool)
    small = _table(SLICE_ROWS)
    assert extract_table(small, task="task", workers=8).equals(extract_table(small, task="task"))
    big = _table(SLICE_ROWS + 1)
    monkeypatch.setattr(table_workers, "workers_for", lambda requested: 1)  # one core
    assert extract_table(big, task="task", workers=8).num_rows == big.num_rows


def test_workers_must_be_at_least_one() -> None:
    with pytest.raises(InputError, match="workers must be at least 1"):
        extract_table(_table(3), workers=0)
    with pytest.raises(InputError, match="workers must be at least 1"):
        verify_table(_table(3), workers=0)
