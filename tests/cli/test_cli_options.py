"""Each shared option is declared once and means one thing everywhere (issue 26 §3):
the same spellings and short forms in every command, `--continue` for a stopped file
run and `--resume RUN_ID` for a run, `--engine` a checked choice, `--format json`
printed one way, and a help text that shows what the options take."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner, Result

from answerx.cli import app

runner = CliRunner()
DEPRECATED = re.compile(r"note: (.+) is deprecated and goes away in the next release; use (.+)")


def invoke(*args: str | Path, input: str | None = None) -> Result:
    # Wide: help text is not folded inside its boxes, so phrases stay whole.
    return runner.invoke(app, [str(a) for a in args], input=input, env={"COLUMNS": "200"})


def commands() -> Iterator[tuple[str, Any]]:
    """Every command of ``answerx``, by its words (``runs list``)."""

    def walk(prefix: str, command: Any) -> Iterator[tuple[str, Any]]:
        if hasattr(command, "commands"):  # a group
            for name, sub in command.commands.items():
                yield from walk(f"{prefix} {name}".strip(), sub)
        else:
            yield prefix, command

    yield from walk("", typer.main.get_command(app))


COMMANDS = dict(commands())


def options_named(flag: str) -> dict[str, Any]:
    return {
        name: param
        for name, command in COMMANDS.items()
        for param in command.params
        if param.param_type_name == "option" and flag in param.opts and not param.hidden
    }


@pytest.mark.parametrize(
    ("flag", "spelling"),
    [
        ("--provider", ["--provider", "-p"]),
        ("--model", ["--model", "-m"]),
        ("--max-calls", ["--max-calls"]),
        ("--db", ["--db"]),
        ("--progress", ["--progress"]),
        ("--input-format", ["--input-format"]),
        ("--task", ["--task", "-t"]),
        ("--file", ["--file", "-f"]),
    ],
)
def test_a_shared_option_has_one_spelling_in_every_command(flag: str, spelling: list[str]) -> None:
    found = options_named(flag)

    assert len(found) >= 2, f"{flag} is in {sorted(found)} only"
    assert {name: sorted(o.opts) for name, o in found.items()} == {
        name: sorted(spelling) for name in found
    }
    kinds = {
        name: (str(o.type_descriptor.annotation).replace(" | None", ""), o.is_flag, o.min)
        for name, o in found.items()
    }
    assert len(set(kinds.values())) == 1, kinds


def test_run_takes_the_short_forms_of_provider_and_model() -> None:
    help_text = invoke("run", "--help").stdout

    assert re.search(r"--provider\s+-p", help_text) and re.search(r"--model\s+-m", help_text)


def test_a_max_calls_of_zero_is_refused_everywhere() -> None:
    for args in (["ask", "q"], ["run", "x.yaml"], ["survey", "x", "--index", "i.db"]):
        result = invoke(*args, "--max-calls", "0")
        assert result.exit_code == 2, args
        assert "--max-calls" in result.stderr


# --- one meaning per flag ------------------------------------------------------------------


def test_resume_is_a_run_id_and_continue_is_a_stopped_file_run() -> None:
    assert not options_named("--resume").keys() - {"run"}  # visible on `run` only
    assert set(options_named("--continue")) == {"extract", "verify"}
    [resume] = options_named("--resume").values()
    assert not resume.is_flag  # RUN_ID, or 'last'


def test_the_old_resume_flag_of_a_file_run_still_works_and_says_the_new_one(
    tmp_path: Path,
) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"raw_output": f"#### {i}"}) + "\n" for i in range(3)))
    out = tmp_path / "out.jsonl"
    assert invoke("extract", "-f", src, "-o", out, "-q").exit_code == 0

    old = invoke("extract", "-f", src, "-o", out, "--resume")

    assert old.exit_code == 2  # a finished output: nothing to continue, as with --continue
    assert "nothing to continue" in old.stderr
    assert DEPRECATED.search(old.stderr).groups() == ("--resume", "--continue")
    assert not re.search(r"│ +--resume", invoke("extract", "--help").stdout)  # hidden


def test_the_engine_of_an_index_is_a_checked_choice_the_shell_completes() -> None:
    result = invoke("index", "build", "--bundled", "--out", "x.db", "--engine", "bm25")

    assert result.exit_code == 2
    assert "'bm25' is not one of 'fts5', 'bm25s'" in result.stderr  # typer's own check
    assert "fts5|bm25s" in invoke("index", "build", "--help").stdout


# --- --format json -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["extract", "Réponse : 42", "--format", "json"],
        ["verify", "The answer is 42.", "--gold", "42", "--format", "json"],
        ["verify", "--self-check", "arithmetic", "--format", "json"],
        ["approaches", "list", "--format", "json"],
    ],
)
def test_format_json_prints_one_indented_utf8_document_in_every_command(args: list[str]) -> None:
    result = invoke(*args)

    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert result.stdout == json.dumps(document, ensure_ascii=False, indent=2) + "\n"


# --- extract --finish-reason -----------------------------------------------------------------


def test_extract_takes_the_finish_reason_like_verify() -> None:
    cut = invoke("extract", "The answer is 4, and then", "--finish-reason", "length")
    whole = invoke("extract", "The answer is 4, and then")

    assert cut.exit_code == whole.exit_code == 0, cut.output
    assert json.loads(cut.stdout)["unfinished"] is True
    assert json.loads(whole.stdout)["unfinished"] is False


def test_a_finish_reason_is_for_a_single_text(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"raw_output": "#### 1"}\n')

    result = invoke("extract", "-f", src, "--finish-reason", "length")

    assert result.exit_code == 2
    assert "each record 'choices'/'numbers'/'finish_reason' fields" in result.stderr


# --- help ------------------------------------------------------------------------------------


@pytest.mark.parametrize("words", sorted(COMMANDS))
def test_help_shows_no_type_after_a_flag(words: str) -> None:
    result = invoke(*words.split(), "--help")

    assert result.exit_code == 0
    assert "<bool>" not in result.stdout
    assert "--help" in result.stdout


def test_help_keeps_square_brackets_that_are_not_markup() -> None:
    assert "needs answerx[bm25]" in invoke("index", "build", "--help").stdout
    assert "pip install 'answerx[ray]'" in invoke("extract", "--help").stdout
