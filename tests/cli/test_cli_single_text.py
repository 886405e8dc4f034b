"""`answerx extract` on one text: as an argument or from stdin, in each output format."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from answerx._version import __version__
from answerx.cli import app
from answerx.extraction import TASKS

runner = CliRunner()


def test_text_argument_prints_the_answer_as_json_when_stdout_is_not_a_terminal() -> None:
    result = runner.invoke(app, ["extract", "The final answer to 'What is 2+2?' is 4."])

    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["answer"] == "4"
    assert payload["method"] == "final_answer_phrase"
    assert payload["confidence"] == 0.9
    assert payload["task"] == "numeric"
    assert "raw_output" not in payload  # the caller's own input is not echoed back


def test_dash_reads_the_text_from_stdin() -> None:
    text = "<think>\nTwo plus two.\n</think>\n<answer>\\boxed{\\frac{1}{2}}</answer>"

    result = runner.invoke(app, ["extract", "-", "--format", "jsonl"], input=text)

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["answer"] == "\\frac{1}{2}"


def test_table_format_shows_answer_method_confidence_and_task() -> None:
    result = runner.invoke(app, ["extract", "--format", "table", "The answer is [red]."])

    assert result.exit_code == 0, result.output
    header, _rule, row = [line for line in result.stdout.splitlines() if line.strip()]
    assert _cells(header, "┃") == ["answer", "method", "confidence", "task"]
    # "[red]" is printed as written, not taken for rich markup.
    assert _cells(row, "│") == ["[red]", "final_answer_phrase", "0.90", "text"]


def _cells(line: str, sep: str) -> list[str]:
    return [cell.strip() for cell in line.split(sep)]


def test_json_format_is_indented_and_jsonl_is_one_line() -> None:
    as_json = runner.invoke(app, ["extract", "--format", "json", "The answer is 7."])
    as_jsonl = runner.invoke(app, ["extract", "--format", "jsonl", "The answer is 7."])

    assert json.loads(as_json.stdout) == json.loads(as_jsonl.stdout)
    assert as_json.stdout.count("\n") > 1
    assert as_jsonl.stdout.count("\n") == 1


def test_no_answer_is_a_result_not_an_error() -> None:
    result = runner.invoke(app, ["extract", "Let me think about this carefully first"])

    assert result.exit_code == 0
    assert json.loads(result.stdout) | {"span": None} == {
        "answer": None,
        "method": "none",
        "confidence": 0.0,
        "task": "auto",
        "candidate": None,
        "span": None,
        "valid": None,
        "problem": None,
        "unfinished": True,  # a sentence of reasoning that stops without its end
        "value_count": 0,
    }


@pytest.mark.parametrize(
    "choices",
    [
        ["--choices", "higher humidity", "--choices", "lower air pressure"],
        ["--choices", '["higher humidity", "lower air pressure"]'],
    ],
    ids=["repeated", "json-list"],
)
def test_choices_map_an_option_text_to_its_letter(choices: list[str]) -> None:
    text = "Water boils sooner at altitude.\nAnswer: lower air pressure"

    result = runner.invoke(app, ["extract", "--task", "multiple_choice", *choices, text])

    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["answer"] == "B"


@pytest.mark.parametrize("numbers", ["4,9,10,13", "4 9 10 13", "[4, 9, 10, 13]"])
def test_numbers_select_the_game24_expression(numbers: str) -> None:
    text = "13 - 9 = 4\n10 - 4 = 6\n(10 - 4) * (13 - 9) = 24\nThat uses every number once."

    result = runner.invoke(app, ["extract", "--numbers", numbers, text])

    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert (payload["answer"], payload["task"]) == ("(10 - 4) * (13 - 9)", "game24")


def test_unknown_task_exits_2_and_lists_the_valid_tasks() -> None:
    result = runner.invoke(app, ["extract", "--task", "mcq", "The answer is (B)."])

    assert result.exit_code == 2
    assert "unknown task 'mcq'" in result.stderr
    assert ", ".join(TASKS) in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give exactly one of"),
        (["some text", "--examples"], "give exactly one of"),
        (["some text", "--out", "x.jsonl"], "--out is for --file"),
        (["--numbers", "four,nine", "text"], "--numbers"),
        (["--choices", "[1, 2]", "text"], "--choices"),
        (["--format", "yaml", "text"], "yaml"),
    ],
    ids=["nothing", "two-sources", "out-for-text", "bad-numbers", "bad-choices", "bad-format"],
)
def test_usage_errors_exit_2_with_a_message(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["extract", *args])

    assert result.exit_code == 2
    assert message in result.stderr


def test_version_prints_the_package_version() -> None:
    result = runner.invoke(app, ["--version"])

    assert result.exit_code == 0
    assert result.stdout.strip() == f"answerx {__version__}"


def test_help_documents_the_exit_codes() -> None:
    result = runner.invoke(app, ["extract", "--help"], terminal_width=200)

    assert result.exit_code == 0
    for code in (
        "0 ok",
        "1 some input records were malformed",
        "2 usage error",
        "3 input file not found",
    ):
        assert code in result.stdout
