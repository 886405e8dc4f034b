"""One store check shared by every command (issue 35 §8): on a 0-byte file ``runs list``
and ``runs show`` wrote a 32 KB schema into it while ``runs view`` refused it with exit
4, and a folder given as the store exited 4 in ``runs list`` and 3 in ``runs view``.

Each fault below meets every command that works on an existing store: all of them exit
with the same code and the same message, and the file is left byte for byte as it was.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from answerx.cli import app
from answerx.errors import StoreError
from answerx.experiments.store import ResultStore

RUN = "20261120-090000-aaaa"


def folder(path: Path) -> None:
    path.mkdir()


def empty_file(path: Path) -> None:
    path.write_bytes(b"")


def text_file(path: Path) -> None:
    path.write_text("name,score\nada,1\n", encoding="utf-8")


def another_programs_database(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
        db.execute("INSERT INTO notes VALUES ('mine')")
    db.close()


FAULTS: dict[str, tuple[Callable[[Path], None], str]] = {
    "folder": (folder, "it is a folder, not a store file"),
    "empty file": (empty_file, "an empty file"),
    "text file": (text_file, "file is not a database"),
    "another program's database": (
        another_programs_database,
        "a SQLite database without answerx's runs and items",
    ),
}


def commands(store: Path, out: Path) -> dict[str, list[str]]:
    db = ["--db", str(store)]
    return {
        "runs list": ["runs", "list", *db],
        "runs show": ["runs", "show", RUN, *db],
        "runs report": ["runs", "report", RUN, *db],
        "runs export": ["runs", "export", RUN, str(out / "items.csv"), *db],
        "runs view": ["runs", "view", *db, "--port", "0"],
        "runs delete": ["runs", "delete", RUN, "--yes", *db],
    }


def invoke(args: list[str]) -> Result:
    return CliRunner().invoke(app, args)


def snapshot(path: Path) -> object:
    """What is at ``path`` and beside it: a folder's listing, or a file's bytes."""
    beside = sorted(p.name for p in path.parent.iterdir())
    return (beside, sorted(p.name for p in path.iterdir()) if path.is_dir() else path.read_bytes())


@pytest.mark.parametrize("fault", FAULTS)
def test_every_command_refuses_the_same_fault_alike_and_writes_nothing(
    tmp_path: Path, fault: str
) -> None:
    make, why = FAULTS[fault]
    store, out = tmp_path / "answerx.db", tmp_path / "out"
    make(store)
    out.mkdir()
    before = snapshot(store)

    results = {name: invoke(args) for name, args in commands(store, out).items()}

    messages = {name: " ".join(r.stderr.split()) for name, r in results.items()}
    assert {name: r.exit_code for name, r in results.items()} == dict.fromkeys(results, 4)
    assert len(set(messages.values())) == 1, messages
    assert why in messages["runs list"] and str(store) in messages["runs list"]
    assert "Traceback" not in "".join(r.output for r in results.values())
    assert snapshot(store) == before
    assert list(out.iterdir()) == []


def test_a_missing_store_is_the_same_file_error_everywhere(tmp_path: Path) -> None:
    store = tmp_path / "nowhere.db"

    results = [invoke(args) for args in commands(store, tmp_path).values()]

    assert [r.exit_code for r in results] == [3] * len(results)
    assert all(f"no results store at {store}" in " ".join(r.stderr.split()) for r in results)
    assert not store.exists()


@pytest.mark.parametrize("fault", FAULTS)
def test_the_library_refuses_it_when_reading_too(tmp_path: Path, fault: str) -> None:
    make, why = FAULTS[fault]
    store = tmp_path / "answerx.db"
    make(store)
    before = snapshot(store)

    for opening in (ResultStore.for_reading, lambda p: ResultStore(p, read_only=True)):
        with pytest.raises(StoreError, match=why):
            opening(store)

    assert snapshot(store) == before


def test_a_new_store_is_still_created_by_a_command_that_writes(tmp_path: Path) -> None:
    store = tmp_path / "fresh.db"
    empty_file(store)  # `touch`ed for a run: a writing command makes the store in it

    with ResultStore(store) as created:
        assert created.list_runs() == []

    with ResultStore.for_reading(store) as reading:
        assert reading.list_runs() == []
