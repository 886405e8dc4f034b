"""``answerx index build`` and ``answerx index search``."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from answerx.cli import app
from answerx.retrieval import bundled_corpus_path


def test_build_then_search_prints_the_best_passages(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "bundled.db"
    built = runner.invoke(app, ["index", "build", str(bundled_corpus_path()), "--out", str(out)])
    assert built.exit_code == 0, built.output
    assert "indexed 60 passages" in built.output

    found = runner.invoke(app, ["index", "search", str(out), "Who founded Lumen Rail?", "-k", "2"])
    assert found.exit_code == 0, found.output
    assert found.output.index("lumen-rail") < found.output.index("tomasz-reyl")  # best first

    args = ["index", "search", str(out), "Lumen Rail", "-k", "1", "--format", "jsonl"]
    as_json = runner.invoke(app, args)
    assert json.loads(as_json.output)["id"] == "lumen-rail"


def test_a_missing_corpus_or_index_exits_with_the_io_code(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(app, ["index", "build", str(tmp_path / "no.jsonl"), "--out", "x.db"])
    assert missing.exit_code == 3
    assert runner.invoke(app, ["index", "search", str(tmp_path / "no.db"), "q"]).exit_code == 3


def test_a_malformed_corpus_line_exits_1_and_names_the_line(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "a", "contents": "x"}\n{"contents": "y"}\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["index", "build", str(corpus), "--out", str(tmp_path / "i")])
    assert result.exit_code == 1
    assert "line 2" in result.output


def test_build_bundled_indexes_the_bundled_corpus(tmp_path: Path) -> None:
    runner = CliRunner()
    built = runner.invoke(app, ["index", "build", "--bundled", "--out", str(tmp_path / "b.db")])
    assert built.exit_code == 0, built.output
    assert "indexed 60 passages" in built.output
    both = runner.invoke(app, ["index", "build", "c.jsonl", "--bundled", "--out", "x.db"])
    assert both.exit_code == 2
    neither = runner.invoke(app, ["index", "build", "--out", "x.db"])
    assert neither.exit_code == 2
