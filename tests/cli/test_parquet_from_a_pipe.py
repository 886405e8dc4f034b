"""Parquet given through a pipe is a usage error the README's exit-code table lists (issue
35 §9): Parquet is read from its end, so a stream that cannot seek (``--file -``, a named
pipe) cannot be read as Parquet; the command exits 2 saying to write it to a file first."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from answerx.cli import app
from answerx.cli._common import ExitCode

README = Path(__file__).parents[2] / "docs" / "exit-codes.md"  # the exit-code table's page


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    """A named pipe with a writer already attached (so opening it to read does not wait)."""
    path = tmp_path / "in.parquet"
    os.mkfifo(path)
    writer = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    try:
        yield path
    finally:
        os.close(writer)


@pytest.mark.parametrize("command", ["extract", "verify"])
def test_a_named_pipe_given_as_parquet_is_a_usage_error_saying_what_to_do(
    fifo: Path, tmp_path: Path, command: str
) -> None:
    result = CliRunner().invoke(
        app, [command, "--file", str(fifo), "-o", str(tmp_path / "o.jsonl")]
    )

    assert result.exit_code == ExitCode.USAGE == 2, result.output
    said = " ".join(result.stderr.split())
    assert "Parquet is read from its end" in said and "write it to a file first" in said
    assert "Traceback" not in result.output


def test_the_readme_exit_code_table_lists_it() -> None:
    table = dict(re.findall(r"^\| (\d+) \| (.+) \|$", README.read_text(encoding="utf-8"), re.M))

    assert "Parquet given through a pipe or stdin" in table["2"]
