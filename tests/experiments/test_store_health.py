"""Every command that reads a store says the same of a damaged one (exit 4, how to recover),
from what it reads itself; a store that may not be written is read, not refused.

``runs list`` and ``runs show`` count items: they read the counted rows, so a store
whose item pages are overwritten is not reported as holding them. A store on a
read-only mount, or a file the user may not write, opens read-only for ``list``,
``show``, ``report`` and ``export``; tests run as root, which may write anything,
so those cases run in a child process that drops to an unprivileged user first.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_helpers import PAGE, Damage, damage, filler_item, pad_run
from typer.testing import CliRunner, Result

from answerx.cli import app
from answerx.errors import StoreError
from answerx.experiments.store import ResultStore

HASH = "0" * 64
runner = CliRunner()


def invoke(*args: str | Path) -> Result:
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def store(tmp_path: Path) -> tuple[Path, str]:
    """A closed store holding one scored run of 300 items (about 300 pages)."""
    path = tmp_path / "runs" / "answerx.db"
    with ResultStore(path) as opened:
        run_id = opened.start_run("health", {}, HASH).run_id
    pad_run(path, run_id)
    invoke("runs", "score", run_id, "--db", path)
    return path, run_id


def reading_commands(run_id: str, tmp_path: Path) -> dict[str, list[str | Path]]:
    return {
        "list": ["runs", "list"],
        "show": ["runs", "show", run_id],
        "report": ["runs", "report", run_id, "--out-dir", tmp_path / "reports"],
        "export": ["runs", "export", run_id, tmp_path / "items.jsonl"],
        "score": ["runs", "score", run_id],
        "delete": ["runs", "delete", run_id, "--yes"],
    }


def relabel_one_row(path: Path, run_id: str) -> None:
    """Rewrite the run id inside one row in the middle of the table, in place: the page
    still reads, but its row is no longer the run's one that the index lists."""
    data = bytearray(path.read_bytes())
    middle = len(data) // PAGE // 2 * PAGE
    at = data.index(run_id.encode(), middle)
    data[at : at + len(run_id)] = b"X" * len(run_id)
    path.write_bytes(bytes(data))


COMMANDS = ["list", "show", "report", "export", "score", "delete"]
# (damage, command): every command on overwritten pages and on a truncated file; a row
# that reads but is no longer the one its index lists, for the commands that count.
DAMAGED: list[tuple[Damage | str, str]] = [
    *((how, command) for how in ("pages", "truncated") for command in COMMANDS),
    ("relabelled", "list"),
    ("relabelled", "show"),
]


@pytest.mark.parametrize(("how", "command"), DAMAGED)
def test_every_command_that_reads_a_damaged_store_exits_4_saying_how_to_recover(
    store: tuple[Path, str], tmp_path: Path, how: str, command: str
) -> None:
    path, run_id = store
    if how == "relabelled":
        relabel_one_row(path, run_id)
    else:
        damage(path, how)  # type: ignore[arg-type]

    result = invoke(*reading_commands(run_id, tmp_path)[command], "--db", path)

    assert result.exit_code == 4, result.output
    assert isinstance(result.exception, SystemExit)  # an exit code, not a traceback
    assert f"cannot use results store '{path}'" in result.stderr
    recover = f"answerx runs recover {path.with_suffix('.recovered.db')} --db {path}"
    assert recover in result.stderr
    assert "items stored" not in result.stderr
    assert not (tmp_path / "items.jsonl").exists()
    if how == "relabelled":
        assert f"its index lists 300 items of run '{run_id}', its table holds 299" in result.stderr


def test_list_and_show_count_what_an_intact_store_holds(store: tuple[Path, str]) -> None:
    path, run_id = store
    listed = invoke("runs", "list", "--format", "json", "--db", path)
    shown = invoke("runs", "show", run_id, "--db", path)
    assert listed.exit_code == shown.exit_code == 0, listed.output + shown.output
    assert [(r["run"], r["items"]) for r in json.loads(listed.stdout)] == [(run_id, 300)]
    assert "300 items stored" in shown.stderr


def test_counting_a_run_reads_its_rows_not_the_other_runs(tmp_path: Path) -> None:
    # The check is proportionate: `runs show` reads the pages of that run's rows only.
    path = tmp_path / "answerx.db"
    with ResultStore(path) as opened:
        first = opened.start_run("first", {}, HASH).run_id
        second = opened.start_run("second", {}, HASH).run_id
    pad_run(path, first, 100)
    pad_run(path, second, 100)
    damage_rows_of(path, first)
    with ResultStore(path) as opened:
        assert opened.item_counts([second]) == {second: 100}
        with pytest.raises(StoreError, match="malformed"):
            opened.item_counts([first])
        with pytest.raises(StoreError, match="malformed"):
            opened.item_counts()


def damage_rows_of(path: Path, run_id: str) -> None:
    """Overwrite two pages holding rows of ``run_id`` (their first page stays)."""
    data = bytearray(path.read_bytes())
    pages = [
        n
        for n in range(2, len(data) // PAGE)
        if data[n * PAGE] == 0x0D and run_id.encode() in data[n * PAGE : (n + 1) * PAGE]
    ]
    for n in pages[10:12]:
        data[n * PAGE : (n + 1) * PAGE] = b"\xde\xad\xbe\xef" * (PAGE // 4)
    path.write_bytes(bytes(data))


# --- read-only stores ---------------------------------------------------------------------


def test_a_store_opened_read_only_is_read_and_refuses_writes_saying_why(
    store: tuple[Path, str],
) -> None:
    path, run_id = store
    before = path.read_bytes()
    with ResultStore(path, read_only=True) as opened:
        assert opened.item_counts() == {run_id: 300}
        assert sum(1 for _ in opened.items(run_id)) == 300
        with pytest.raises(StoreError, match="cannot be written here"):
            opened.add_item(filler_item(run_id, 1000))
        with pytest.raises(StoreError, match="cannot be written here"):
            opened.start_run("more", {}, HASH)
    assert path.read_bytes() == before


# The child process: warms its imports on a writable copy (the interpreter's own files
# may not be readable by the user it becomes), drops to that user, then runs each command
# on the read-only store and prints what came of it as JSON.
CHILD = textwrap.dedent(
    """
    import json, os, sys
    from typer.testing import CliRunner
    from answerx.cli import app

    plan = json.loads(sys.argv[1])
    runner = CliRunner()
    for args in plan["warm"]:
        runner.invoke(app, args)
    if os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(plan["uid"], plan["uid"], plan["uid"])
        os.setresuid(plan["uid"], plan["uid"], plan["uid"])
    results = {}
    for name, args in plan["commands"].items():
        result = runner.invoke(app, args)
        results[name] = [result.exit_code, result.stdout, result.stderr]
    print(json.dumps(results))
    """
)
NOBODY = 65534


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder every user can reach (pytest's own tmp folders are private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="answerx-ro-"))
    folder.chmod(0o755)
    yield folder
    for path in folder.rglob("*"):
        path.chmod(0o777 if path.is_dir() else 0o666)
    shutil.rmtree(folder)


def run_as_another_user(plan: dict[str, object]) -> dict[str, list[object]]:
    if os.geteuid() == 0 and not hasattr(os, "setresuid"):
        pytest.skip("cannot drop privileges on this system")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps({**plan, "uid": NOBODY})],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MPLCONFIGDIR": str(plan["writable"])},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results: dict[str, list[object]] = json.loads(done.stdout.strip().splitlines()[-1])
    return results


def read_only_store(shared_tmp: Path, *, folder_writable: bool) -> tuple[Path, str, Path]:
    """A store of 300 scored items no one but root may write (the file; its folder too
    unless ``folder_writable``), a writable copy to warm up on, and a writable folder."""
    home = shared_tmp / "store"
    home.mkdir()
    path = home / "answerx.db"
    with ResultStore(path) as opened:
        run_id = opened.start_run("read-only", {}, HASH).run_id
    pad_run(path, run_id)
    invoke("runs", "score", run_id, "--db", path)
    writable = shared_tmp / "out"
    writable.mkdir(mode=0o777)
    writable.chmod(0o777)
    shutil.copy(path, writable / "warm.db")
    path.chmod(0o444)
    home.chmod(0o777 if folder_writable else 0o555)
    return path, run_id, writable


def plan_for(path: Path, run_id: str, writable: Path) -> dict[str, object]:
    def commands(db: Path, out: Path) -> dict[str, list[str]]:
        return {
            "list": ["runs", "list", "--format", "json", "--db", str(db)],
            "show": ["runs", "show", run_id, "--db", str(db)],
            "report": [
                *("runs", "report", run_id, "--format", "json", "--db", str(db)),
                *("--out-dir", str(out / "reports")),
            ],
            "export": ["runs", "export", run_id, str(out / "items.csv"), "--db", str(db)],
            "delete": ["runs", "delete", run_id, "--yes", "--db", str(db)],
        }

    warm = commands(writable / "warm.db", writable / "warm")
    del warm["delete"]
    return {
        "warm": list(warm.values()),
        "commands": commands(path, writable),
        "writable": str(writable),
    }


@pytest.mark.parametrize("folder_writable", [False, True], ids=["read-only-folder", "file-only"])
def test_a_store_another_user_may_not_write_is_listed_shown_reported_and_exported(
    shared_tmp: Path, folder_writable: bool
) -> None:
    path, run_id, writable = read_only_store(shared_tmp, folder_writable=folder_writable)
    before = sorted(p.name for p in path.parent.iterdir())

    results = run_as_another_user(plan_for(path, run_id, writable))

    for name in ("list", "show", "report", "export"):
        assert results[name][0] == 0, (name, results[name])
    listed = json.loads(str(results["list"][1]))
    assert [(r["run"], r["items"]) for r in listed] == [(run_id, 300)]
    assert "300 items stored" in str(results["show"][2])
    report = json.loads(str(results["report"][1]))
    assert report["groups"][0]["n"] == 300 and report["groups"][0]["correct"] == 300
    assert (writable / "reports" / run_id / "report.md").is_file()
    assert len((writable / "items.csv").read_text().splitlines()) == 301
    exit_code, _, stderr = results["delete"]  # writing is refused, saying why
    assert exit_code == 4 and "cannot be written here" in str(stderr)
    # Nothing created beside the store: a -shm of another user's would lock its owner out.
    assert sorted(p.name for p in path.parent.iterdir()) == before
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_read_only_store_with_commits_waiting_in_its_wal_is_refused_saying_so(
    shared_tmp: Path,
) -> None:
    home = shared_tmp / "store"
    home.mkdir()
    path = home / "answerx.db"
    writable = shared_tmp / "out"
    writable.mkdir()
    writable.chmod(0o777)
    with ResultStore(writable / "live.db") as live:  # a writer still holds its -wal
        run_id = live.start_run("live", {}, HASH).run_id
        live.add_item(filler_item(run_id, 1))
        shutil.copy(writable / "live.db", path)
        shutil.copy(writable / "live.db-wal", f"{path}-wal")
    shutil.copy(path, writable / "warm.db")
    home.chmod(0o555)
    plan = plan_for(path, run_id, writable)
    plan["commands"] = {"list": plan["commands"]["list"]}  # type: ignore[index]

    results = run_as_another_user(plan)

    exit_code, _, stderr = results["list"]
    assert exit_code == 4, stderr
    assert "commits not yet folded into the file in answerx.db-wal" in str(stderr)
    assert "copy it (with any -wal file beside it) to a writable folder" in str(stderr)


def test_a_writable_store_is_read_as_usual_and_left_as_it_was(store: tuple[Path, str]) -> None:
    path, run_id = store
    for args in (["runs", "list"], ["runs", "show", run_id]):
        assert invoke(*args, "--db", path).exit_code == 0
    assert sorted(p.name for p in path.parent.iterdir()) == ["answerx.db"]
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone() == ("wal",)
