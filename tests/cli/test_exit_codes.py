"""Every error of answerx's tree leaves a command with its documented exit code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer

from answerx.agent.termination import StepLimitReached, Termination
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
    UnknownName,
)

README = Path(__file__).parents[2] / "README.md"


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
        (StoreError("damaged", path="a.db"), ExitCode.STORE),
        (ProviderUnavailable("connection refused", provider="openai"), ExitCode.PROVIDER),
        (ProviderAuthError("401", provider="openai"), ExitCode.PROVIDER),
        (CredentialsMissing("set OPENAI_API_KEY", provider="openai"), ExitCode.PROVIDER),
    ],
)  # fmt: skip
def test_an_error_exits_with_its_code(error: Exception, code: ExitCode) -> None:
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
