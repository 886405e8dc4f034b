"""A gold that is NaN or ±Infinity is refused, never compared as the text "nan" (issue 30
§10): JSON's ``NaN`` gold was compared as "nan", so an answer "nan" was right, while NaN in
``numbers`` was already refused. Library, command line, file runs and data sets here; the
service in ``tests/service/test_service_nonfinite_gold.py``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from answerx import grade, verify, verify_batch
from answerx.cli import app
from answerx.errors import InputError
from answerx.experiments.datasets import load_dataset
from answerx.grading.rewards import reward_verdicts

NONFINITE = [math.nan, math.inf, -math.inf, np.float64("nan")]
SPELLED = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def spelled(value: float) -> str:
    return SPELLED[str(value)]


# --- the library ---------------------------------------------------------------------


@pytest.mark.parametrize("gold", NONFINITE, ids=str)
def test_grade_and_verify_refuse_a_gold_that_is_not_finite(gold: float) -> None:
    with pytest.raises(InputError, match=f"the gold answer is {spelled(gold)}: a gold answer"):
        verify("The answer is nan.", gold)
    with pytest.raises(InputError, match="must be text or a finite number"):
        grade(str(gold), gold, "numeric")


def test_a_gold_list_holding_nan_is_refused_naming_the_item() -> None:
    with pytest.raises(InputError, match=r"\(item 2 of its list\) is NaN"):
        verify("The answer is Paris.", ["Paris", "City of Light", math.nan])
    with pytest.raises(InputError, match=r"\(item 0 of its list\) is -Infinity"):
        grade("Paris", (-math.inf,))


@pytest.mark.parametrize("workers", [None, 2])
def test_verify_batch_refuses_a_nonfinite_gold_before_judging_anything(
    workers: int | None,
) -> None:
    # Checked here, before any item reaches a worker process.
    with pytest.raises(InputError, match=r"golds\[1\] is NaN"):
        verify_batch(["It is 4.", "It is nan."], ["4", math.nan], workers=workers)
    with pytest.raises(InputError, match=r"golds\[0\] \(item 1 of its list\) is Infinity"):
        verify_batch(["It is 4."], [["4", math.inf]])


def test_verify_batch_reads_pyarrow_golds_the_same_way() -> None:
    golds = pa.array([4.0, float("nan")])
    with pytest.raises(InputError, match=r"golds\[1\] is NaN"):
        verify_batch(["It is 4.", "It is nan."], golds)


def test_a_reward_label_that_is_nan_is_refused_by_its_label_index() -> None:
    with pytest.raises(InputError, match=r"labels\[1\] is NaN"):
        reward_verdicts(["It is 4.", "It is nan."], None, ["4", {"answer": math.nan}])


def test_finite_golds_and_the_word_nan_as_text_still_verify() -> None:
    assert verify("The answer is 0.5.", 0.5).correct is True
    assert verify("The answer is 72.", [72, "seventy-two"]).correct is True
    assert verify_batch(["It is 4."], [4.0])[0].correct is True
    # Text is text: a quiz whose answer is the word NaN (JavaScript's 0/0).
    assert verify("In JavaScript, 0/0 is NaN. The answer is NaN.", "NaN", "text").correct is True
    assert verify("The answer is 4.", None).reason == "unreadable_gold"


# --- the command line: one --gold, and file runs ---------------------------------------


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("gold", ["nan", "NaN", "-inf", "Infinity", " +NAN "])
def test_a_single_gold_spelling_nan_or_infinity_is_a_usage_error(gold: str) -> None:
    code, _, err = invoke("verify", "The answer is nan.", "--gold", gold)

    assert code == 2
    assert "spells a number that is not finite (NaN or Infinity)" in err.replace("\n", " ")
    assert "--task text" in err


def test_a_single_gold_nan_is_the_word_with_task_text() -> None:
    code, out, _ = invoke(
        "verify", "The answer is NaN.", "--gold", "NaN", "--task", "text", "--format", "json"
    )

    assert code == 0 and json.loads(out)["correct"] is True


def _records(path: Path, *golds: str) -> Path:
    path.write_text(
        "".join(
            f'{{"raw_output": "The answer is {i}.", "gold": {g}}}\n' for i, g in enumerate(golds)
        ),
        encoding="utf-8",
    )
    return path


def test_a_jsonl_record_whose_gold_is_nan_is_a_malformed_line_counted_not_a_crash(
    tmp_path: Path,
) -> None:
    src = _records(tmp_path / "in.jsonl", "0", "NaN", "2", "-Infinity", '["4", NaN]', "5")
    out = tmp_path / "out.jsonl"

    code, _, err = invoke("verify", "--file", src, "-o", out, "--workers", "1")

    assert code == 1, err
    assert "line 2 skipped: the gold answer is NaN" in err
    assert "line 4 skipped: the gold answer is -Infinity" in err
    assert "line 5 skipped: the gold answer (item 1 of its list) is NaN" in err
    assert "3 malformed lines skipped" in err
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["gold"] for r in written] == [0, 2, 5]
    assert all(r["correct"] for r in written)


def test_a_parquet_row_whose_gold_is_nan_is_a_malformed_row(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(
        pa.table(
            {"raw_output": ["It is 1.", "It is nan.", "It is 3."], "gold": [1.0, math.nan, 3.0]}
        ),
        src,
    )
    out = tmp_path / "out.parquet"

    code, _, err = invoke("verify", "--file", src, "-o", out, "--workers", "1")

    assert code == 1, err
    assert "row 2 skipped" in err and "is NaN" in err
    assert pq.read_table(out).column("correct").to_pylist() == [True, True]


# --- data sets: a malformed row, before any call ------------------------------------------


def test_a_data_set_row_whose_gold_is_nan_is_a_malformed_row_with_its_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(
        '{"question": "2 + 2?", "answer": 4}\n'
        '{"question": "0 / 0?", "answer": NaN}\n'
        '{"question": "1 / 0?", "answer": Infinity}\n',
        encoding="utf-8",
    )

    with pytest.raises(InputError) as caught:
        load_dataset(path)

    assert "line 2: gold is NaN" in str(caught.value)
    assert "line 3: gold is Infinity" in str(caught.value)
