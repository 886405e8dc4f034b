"""A gold that spells NaN or Infinity in any markup is refused, unless the task compares
words (issue 35 §6): ``verify("The answer is nan", "(nan)")`` was correct through the
symbolic fast path, ``--gold '[NaN]'`` through math-verify, and a CSV gold cell ``nan``
with ``--task math`` through the math task. One check (``check_finite_gold``) now
serves the library, batches, rewards, the command line and file runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from answerx import grade, verify, verify_batch
from answerx.cli import app
from answerx.errors import InputError
from answerx.grading.golds import nonfinite_text
from answerx.grading.rewards import reward_verdicts

SPELLINGS = [
    "nan", "NaN", "(nan)", "{nan}", r"\{nan\}", "[NaN]", r"\mathrm{NaN}", r"\text{nan}",
    "$nan$", r"\(NaN\)", r"\left( nan \right)", "inf", "-inf", "+Infinity", r"\mathrm{Inf}",
    "[-inf]",
]  # fmt: skip
NOT_NUMBERS_AT_ALL = {"nan", "NaN", "(nan)", "{nan}"}


@pytest.mark.parametrize("gold", SPELLINGS)
def test_every_spelling_is_read_as_a_number_that_is_not_finite(gold: str) -> None:
    assert nonfinite_text(gold) in ("NaN", "Infinity", "-Infinity")


@pytest.mark.parametrize(
    "gold", [r"\infty", r"-\infty", r"\inf_{x} f(x)", "banana", "Nancy", "info", "1e999", "0"]
)
def test_real_answers_that_merely_contain_the_letters_are_not(gold: str) -> None:
    assert nonfinite_text(gold) is None


@pytest.mark.parametrize("task", ["auto", "math", "numeric"])
@pytest.mark.parametrize("gold", SPELLINGS)
def test_verify_and_grade_refuse_a_spelled_nonfinite_gold(gold: str, task: str) -> None:
    with pytest.raises(InputError, match=r"the gold answer is (NaN|Infinity|-Infinity)"):
        verify("The answer is nan.", gold, task)
    with pytest.raises(InputError, match="for the word itself, task text or short_answer"):
        grade("nan", gold, task)


@pytest.mark.parametrize("task", ["text", "short_answer"])
@pytest.mark.parametrize("gold", ["NaN", "[NaN]", "Infinity"])
def test_a_task_that_compares_words_takes_the_word_itself(gold: str, task: str) -> None:
    assert verify(f"The answer is {gold}.", gold, task).correct is True


def test_an_infinite_limit_in_math_is_still_a_gold() -> None:
    assert verify(r"The limit is $\boxed{\infty}$.", r"\infty", "math").correct is True


def test_a_gold_list_holding_a_spelled_nan_is_refused_naming_the_item() -> None:
    with pytest.raises(InputError, match=r"\(item 1 of its list\) is NaN"):
        verify("The answer is nan.", ["4", r"\mathrm{NaN}"], "math")


def test_batches_and_rewards_refuse_it_by_the_index_the_caller_knows() -> None:
    with pytest.raises(InputError, match=r"golds\[1\] is NaN"):
        verify_batch(["It is 4.", "It is nan."], ["4", "(nan)"], task="math")
    with pytest.raises(InputError, match=r"labels\[0\] is NaN"):
        reward_verdicts(["It is nan."], None, ["[NaN]"], task="math")
    # per-item tasks: the word is accepted where that item's task compares words
    outputs = ["The answer is nan.", "The answer is 4."]
    verdicts = verify_batch(outputs, ["nan", "4"], task=["text", "math"])
    assert [v.correct for v in verdicts] == [True, True]


# --- the command line -------------------------------------------------------------------


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("gold", ["[NaN]", "(nan)", r"\{nan\}", r"\mathrm{NaN}", "{-inf}"])
def test_a_gold_option_in_any_spelling_is_a_usage_error(gold: str) -> None:
    code, out, err = invoke("verify", "The answer is nan", "--gold", gold)

    assert code == 2, out
    assert "spells a number that is not finite" in " ".join(err.split())


def test_a_csv_gold_cell_nan_with_task_math_is_a_malformed_row(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text("raw_output,gold\nThe answer is 4.,4\nThe answer is nan,nan\n", "utf-8")
    out = tmp_path / "out.jsonl"

    code, _, err = invoke("verify", "--file", src, "--task", "math", "-o", out, "--workers", "1")

    assert code == 1, err
    assert "the gold answer is NaN" in " ".join(err.split())
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["gold"], r["correct"]) for r in written] == [("4", True)]
