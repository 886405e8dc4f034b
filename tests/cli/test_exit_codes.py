"""Every error of answerx's tree leaves a command with its documented exit code, and every
code of the README's table comes from a real command (issue 30 §8: a truncated Parquet
input exited 1, "malformed lines", where the table says 3)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer
from typer.testing import CliRunner

from answerx.agent.termination import StepLimitReached, Termination
from answerx.cli import app, filerun
from answerx.cli._common import EXIT_CODES_HELP, ExitCode, command_boundary
from answerx.errors import (
    AnswerxError,
    ConfigError,
    CredentialsMissing,
    DuplicateRun,
    InputError,
    ProviderAuthError,
    ProviderUnavailable,
    RunNotFound,
    StoreError,
    SymlinkRefused,
    UnknownName,
    UnreadableFile,
)

README = Path(__file__).parents[2] / "docs" / "exit-codes.md"  # the exit-code table's page


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (InputError("not JSON", line=3), ExitCode.MALFORMED),
        (StepLimitReached("none", termination=Termination.EXCEED_CALLS), ExitCode.MALFORMED),
        (ConfigError("bad option"), ExitCode.USAGE),
        (UnknownName("task", "numerc", ["numeric"]), ExitCode.USAGE),
        (RunNotFound("no run 'x'", run_id="x"), ExitCode.USAGE),
        (DuplicateRun("run 'x' exists", run_id="x"), ExitCode.USAGE),
        (FileNotFoundError(2, "No such file", "in.jsonl"), ExitCode.IO),
        (UnreadableFile("in.parquet: not a readable Parquet file", path="in.parquet"), ExitCode.IO),
        (SymlinkRefused("out/run-1", target="/home/me"), ExitCode.IO),
        (StoreError("damaged", path="a.db"), ExitCode.STORE),
        (ProviderUnavailable("connection refused", provider="openai"), ExitCode.PROVIDER),
        (ProviderAuthError("401", provider="openai"), ExitCode.PROVIDER),
        (CredentialsMissing("set OPENAI_API_KEY", provider="openai"), ExitCode.PROVIDER),
        (KeyboardInterrupt(), ExitCode.INTERRUPTED),
    ],
)  # fmt: skip
def test_an_error_exits_with_its_code(error: BaseException, code: ExitCode) -> None:
    with pytest.raises(typer.Exit) as exited, command_boundary():
        raise error

    assert exited.value.exit_code == code


def test_a_provider_failure_is_not_reported_as_malformed_input() -> None:
    with pytest.raises(typer.Exit) as exited, command_boundary():
        raise ProviderUnavailable("connection refused", provider="openai")

    assert exited.value.exit_code != ExitCode.MALFORMED


def test_every_exit_code_is_in_the_help_text_and_the_readme_table() -> None:
    table = dict(re.findall(r"^\| (\d+) \| (.+) \|$", README.read_text(encoding="utf-8"), re.M))

    for code in ExitCode:
        assert f"{int(code)} " in EXIT_CODES_HELP
        assert str(int(code)) in table, f"exit code {int(code)} is missing from the README"
    assert set(table) == {str(int(c)) for c in ExitCode}


def test_anything_else_is_a_bug_and_keeps_its_traceback() -> None:
    with pytest.raises(KeyError), command_boundary():
        raise KeyError("a bug")


def test_the_tree_root_catches_every_precise_error() -> None:
    for error in (RunNotFound("x", run_id="x"), CredentialsMissing("x"), UnknownName("t", "a", [])):
        assert isinstance(error, ConfigError) and isinstance(error, AnswerxError)


# --- each code of the README's table, from a command ---------------------------------------
Setup = Callable[[Path], list[str]]


def _jsonl(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _ok(tmp: Path) -> list[str]:
    return ["extract", "The answer is 4."]


def _malformed_line(tmp: Path) -> list[str]:
    src = _jsonl(tmp / "in.jsonl", json.dumps({"raw_output": "#### 1"}), "{not json")
    return ["extract", "--file", str(src), "-o", str(tmp / "out.jsonl")]


def _gold_that_does_not_verify(tmp: Path) -> list[str]:
    src = _jsonl(tmp / "golds.jsonl", json.dumps({"question": "2 + 2?", "answer": "a lot"}))
    return ["verify", "--self-check", str(src), "--task", "numeric"]


def _unknown_task(tmp: Path) -> list[str]:
    return ["extract", "--task", "maths", "The answer is 4."]


def _unknown_run(tmp: Path) -> list[str]:
    db = tmp / "answerx.db"
    from answerx.experiments.store import ResultStore

    with ResultStore(db):
        pass
    return ["runs", "show", "20000101-000000-0000", "--db", str(db)]


def _reward_file_exists(tmp: Path) -> list[str]:
    (tmp / "reward.py").write_text("# mine\n")
    return ["reward-func", "write", str(tmp / "reward.py")]


def _missing_input(tmp: Path) -> list[str]:
    return ["extract", "--file", str(tmp / "nope.jsonl"), "-o", str(tmp / "out.jsonl")]


def _truncated_parquet(tmp: Path) -> list[str]:
    src = tmp / "in.parquet"
    rows = [{"raw_output": f"The answer is {i}."} for i in range(500)]
    pq.write_table(pa.Table.from_pylist(rows), src)
    src.write_bytes(src.read_bytes()[: src.stat().st_size // 2])
    return ["extract", "--file", str(src), "-o", str(tmp / "out.jsonl")]


def _csv_header_not_text(tmp: Path) -> list[str]:
    src = tmp / "in.csv"
    src.write_bytes(b"id,raw_outp\xfft\n1,#### 1\n")
    return ["verify", "--file", str(src), "-o", str(tmp / "out.jsonl")]


def _output_not_writable(tmp: Path) -> list[str]:
    src = _jsonl(tmp / "in.jsonl", json.dumps({"raw_output": "#### 1"}))
    return ["extract", "--file", str(src), "-o", str(tmp / "no" / "such" / "dir.jsonl")]


def _link_at_out(tmp: Path) -> list[str]:
    src = _jsonl(tmp / "in.jsonl", json.dumps({"raw_output": "#### 1"}))
    (tmp / "out.jsonl").symlink_to(tmp / "someone-else-s.jsonl")
    return ["extract", "--file", str(src), "-o", str(tmp / "out.jsonl")]


def _damaged_store(tmp: Path) -> list[str]:
    db = tmp / "answerx.db"
    db.write_bytes(b"these are notes, not a database\n" * 200)
    return ["runs", "list", "--db", str(db)]


def _missing_key(tmp: Path) -> list[str]:
    return ["ask", "What is 2 + 2?", "--provider", "openai", "--model", "gpt-4o-mini"]


def _interrupted_file_run(tmp: Path) -> list[str]:
    src = _jsonl(tmp / "in.jsonl", *(json.dumps({"raw_output": f"#### {i}"}) for i in range(9)))
    return ["extract", "--file", str(src), "-o", str(tmp / "out.jsonl"), "--batch-size", "2"]


@contextmanager
def _stop_at_once() -> Iterator[Callable[[], bool]]:
    yield lambda: True  # Ctrl-C, as the first batch begins


@pytest.mark.parametrize(
    ("code", "setup", "says"),
    [
        (0, _ok, ""),
        (1, _malformed_line, "line 2 skipped: invalid JSON"),
        (1, _gold_that_does_not_verify, "1 do not"),
        (2, _unknown_task, "unknown task 'maths'"),
        (2, _unknown_run, "no run '20000101-000000-0000'"),
        (2, _reward_file_exists, "exists; --force overwrites it"),
        (3, _missing_input, "nope.jsonl: No such file or directory"),
        (3, _truncated_parquet, "in.parquet: not a readable Parquet file"),
        (3, _csv_header_not_text, "the CSV header is not UTF-8 text"),
        (3, _output_not_writable, "No such file or directory"),
        (3, _link_at_out, "out.jsonl is a symbolic link"),
        (4, _damaged_store, "not a SQLite database"),
        (5, _missing_key, "OPENAI_API_KEY"),
        (130, _interrupted_file_run, "interrupted after 0 input lines"),
    ],
    ids=lambda v: getattr(v, "__name__", str(v)).lstrip("_"),
)
def test_each_documented_exit_code_comes_from_a_real_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, setup: Setup, says: str
) -> None:
    if code == ExitCode.INTERRUPTED:
        monkeypatch.setattr(filerun, "_stop_on_sigint", _stop_at_once)
    args = setup(tmp_path)

    result = CliRunner().invoke(app, args)

    assert result.exit_code == code, result.output
    assert says in result.stderr
    assert "Traceback" not in result.output
    table = dict(re.findall(r"^\| (\d+) \| (.+) \|$", README.read_text(encoding="utf-8"), re.M))
    assert str(code) in table


def test_ctrl_c_in_a_command_without_a_run_of_its_own_exits_130(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `answerx run` and the file runs say what was kept; any other command stopped by
    # Ctrl-C exits 130 too (click's "Aborted!" exited 1, the code of malformed input).
    from answerx.experiments.store import ResultStore

    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    args = _unknown_run(tmp_path)  # a store that exists
    monkeypatch.setattr(ResultStore, "item_counts", interrupted)

    result = CliRunner().invoke(app, ["runs", "list", "--db", args[-1]])

    assert result.exit_code == ExitCode.INTERRUPTED, result.output
    assert "interrupted" in result.stderr and "Aborted" not in result.output
