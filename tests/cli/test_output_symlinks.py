"""Every writer refuses a symbolic link planted where it writes (issue 30 §9).

``runs report --out-dir D`` followed a link planted at ``D/<run id>`` and overwrote the
files it pointed to. Each writer here meets a link to a file and a link to a folder
where it writes: the command exits 3 (file I/O) saying the path is a symbolic link,
and what the link points to is untouched.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from answerx.agent import AgentRecord, Termination
from answerx.agent.records import write_records
from answerx.batch.files import run_file
from answerx.batch.resume import progress_path
from answerx.cli import app
from answerx.errors import SymlinkRefused
from answerx.experiments.plots import plot_accuracy, plot_accuracy_vs_cost
from answerx.experiments.records import RunRecord
from answerx.experiments.report import report_from_store
from answerx.experiments.store import ResultStore
from answerx.extraction.files import extract_file
from experiments.store_helpers import filler_item

RUN = "20261120-090000-aaaa"
MINE = "the user's own file\n"
LINKS = ("to_a_file", "to_a_folder")


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A folder answerx has no business writing in, with one file."""
    folder = tmp_path / "victim"
    folder.mkdir()
    (folder / "report.md").write_text(MINE)
    return folder


def plant(at: Path, victim: Path, kind: str) -> None:
    """A link at ``at`` to the victim's file, or to the victim's folder."""
    at.symlink_to(victim / "report.md" if kind == "to_a_file" else victim)


def assert_untouched(victim: Path) -> None:
    assert sorted(p.name for p in victim.iterdir()) == ["report.md"]
    assert (victim / "report.md").read_text() == MINE


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def assert_refused(result: Result, link: Path) -> None:
    assert result.exit_code == 3, result.output
    assert f"{link} is a symbolic link" in result.stderr.replace("\n", "")
    assert "Traceback" not in result.output


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store holding one finished run of three items."""
    path = tmp_path / "answerx.db"
    with ResultStore(path) as store:
        store.create_run(
            RunRecord(
                run_id=RUN,
                name="demo",
                config={},
                config_hash="0" * 64,
                answerx_version="test",
                started_at=datetime(2026, 11, 20, 9, tzinfo=UTC),
                status="finished",
            )
        )
        store.add_items(filler_item(RUN, n) for n in range(3))
    return path


def jsonl(path: Path, count: int = 5) -> Path:
    lines = (
        json.dumps({"raw_output": f"The answer is {i}.", "gold": str(i)}) for i in range(count)
    )
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# --- reports, plots and exports ------------------------------------------------------


@pytest.mark.parametrize("kind", LINKS)
def test_runs_report_refuses_a_link_planted_at_the_run_s_folder(
    tmp_path: Path, db: Path, victim: Path, kind: str
) -> None:
    out = tmp_path / "reports"
    out.mkdir()
    plant(out / RUN, victim, kind)

    result = invoke("runs", "report", RUN, "--db", db, "--out-dir", out)

    assert_refused(result, out / RUN)
    assert_untouched(victim)


@pytest.mark.parametrize("kind", LINKS)
def test_runs_report_refuses_a_link_planted_at_one_of_its_files(
    tmp_path: Path, db: Path, victim: Path, kind: str
) -> None:
    folder = tmp_path / "reports" / RUN
    folder.mkdir(parents=True)
    plant(folder / "report.json", victim, kind)

    result = invoke("runs", "report", RUN, "--db", db, "--out-dir", tmp_path / "reports")

    assert_refused(result, folder / "report.json")
    assert_untouched(victim)


def test_runs_report_still_writes_into_a_fresh_folder(tmp_path: Path, db: Path) -> None:
    result = invoke("runs", "report", RUN, "--db", db, "--out-dir", tmp_path / "new" / "reports")

    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in (tmp_path / "new" / "reports" / RUN).iterdir())
    assert written == ["accuracy.png", "accuracy_vs_cost.png", "report.json", "report.md"]


@pytest.mark.parametrize("kind", LINKS)
@pytest.mark.parametrize("plot", [plot_accuracy, plot_accuracy_vs_cost])
def test_a_plot_refuses_a_link_at_its_file(
    tmp_path: Path, db: Path, victim: Path, kind: str, plot: object
) -> None:
    with ResultStore(db) as store:
        report = report_from_store(store, RUN)
    plant(tmp_path / "plot.png", victim, kind)

    with pytest.raises(SymlinkRefused):
        plot(report, tmp_path / "plot.png")  # type: ignore[operator]

    assert_untouched(victim)


@pytest.mark.parametrize("kind", LINKS)
def test_runs_export_refuses_a_link_at_its_file(
    tmp_path: Path, db: Path, victim: Path, kind: str
) -> None:
    plant(tmp_path / "items.csv", victim, kind)

    result = invoke("runs", "export", RUN, tmp_path / "items.csv", "--db", db)

    assert_refused(result, tmp_path / "items.csv")
    assert_untouched(victim)
    assert not [p for p in tmp_path.iterdir() if "partial" in p.name]


# --- file runs: --out, the table, the progress record ---------------------------------


@pytest.mark.parametrize("kind", LINKS)
@pytest.mark.parametrize("command", ["extract", "verify"])
@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_a_file_run_refuses_a_link_at_its_out_file(
    tmp_path: Path, victim: Path, kind: str, command: str, suffix: str
) -> None:
    out = tmp_path / f"answers{suffix}"
    plant(out, victim, kind)

    result = invoke(command, "--file", jsonl(tmp_path / "in.jsonl"), "-o", out, "-q")

    assert_refused(result, out)
    assert_untouched(victim)


@pytest.mark.parametrize("command", ["extract", "verify"])
@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_a_file_run_refuses_a_hard_link_at_its_out_file(
    tmp_path: Path, victim: Path, command: str, suffix: str
) -> None:
    out = tmp_path / f"answers{suffix}"
    os.link(victim / "report.md", out)  # the linked file elsewhere would get the answers

    result = invoke(command, "--file", jsonl(tmp_path / "in.jsonl"), "-o", out, "-q")

    assert result.exit_code == 3, result.output
    assert "with 2 hard links" in " ".join(result.stderr.split())
    assert (victim / "report.md").read_text() == MINE


@pytest.mark.parametrize("kind", LINKS)
def test_a_file_run_s_table_refuses_a_link_at_its_out_file(
    tmp_path: Path, victim: Path, kind: str
) -> None:
    out = tmp_path / "table.txt"
    plant(out, victim, kind)

    result = invoke(
        "extract", "--file", jsonl(tmp_path / "in.jsonl"), "--format", "table", "-o", out, "-q"
    )

    assert_refused(result, out)
    assert_untouched(victim)


@pytest.mark.parametrize("kind", LINKS)
def test_a_file_run_refuses_a_link_at_its_progress_record(
    tmp_path: Path, victim: Path, kind: str
) -> None:
    out = tmp_path / "answers.jsonl"
    plant(progress_path(out), victim, kind)
    source = jsonl(tmp_path / "in.jsonl")

    result = invoke("extract", "--file", source, "-o", out, "--batch-size", "2", "-q")

    assert_refused(result, progress_path(out))
    assert_untouched(victim)


@pytest.mark.parametrize("kind", LINKS)
@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_continuing_a_run_refuses_a_link_put_in_place_of_its_output(
    tmp_path: Path, victim: Path, kind: str, suffix: str
) -> None:
    out = tmp_path / f"answers{suffix}"
    source = jsonl(tmp_path / "in.jsonl")
    done: list[object] = []
    stopped = run_file(source, out, batch_size=2, workers=1, on_progress=done.append,
                       stop=lambda: bool(done))  # fmt: skip
    assert stopped.interrupted and progress_path(out).exists()
    out.unlink()
    plant(out, victim, kind)

    result = invoke("extract", "--file", source, "-o", out, "--continue", "-q")

    assert_refused(result, out)
    assert_untouched(victim)


def test_extract_file_refuses_a_link_at_its_output(tmp_path: Path, victim: Path) -> None:
    plant(tmp_path / "out.jsonl", victim, "to_a_file")

    with pytest.raises(SymlinkRefused):
        extract_file(jsonl(tmp_path / "in.jsonl"), tmp_path / "out.jsonl")

    assert_untouched(victim)


# --- the other writers ------------------------------------------------------------------


@pytest.mark.parametrize("kind", LINKS)
def test_reward_func_write_refuses_a_link_even_with_force(
    tmp_path: Path, victim: Path, kind: str
) -> None:
    plant(tmp_path / "reward.py", victim, kind)

    result = invoke("reward-func", "write", tmp_path / "reward.py", "--force")

    assert_refused(result, tmp_path / "reward.py")
    assert_untouched(victim)


def test_reward_func_write_counts_a_link_to_nowhere_as_an_existing_file(tmp_path: Path) -> None:
    (tmp_path / "reward.py").symlink_to(tmp_path / "elsewhere.py")

    result = invoke("reward-func", "write", tmp_path / "reward.py")

    assert result.exit_code == 2 and "exists; --force overwrites it" in result.stderr
    assert not (tmp_path / "elsewhere.py").exists()


def test_runs_recover_never_creates_a_store_through_a_link(tmp_path: Path, db: Path) -> None:
    (tmp_path / "saved.db").symlink_to(tmp_path / "elsewhere.db")

    result = invoke("runs", "recover", tmp_path / "saved.db", "--db", db)

    assert result.exit_code == 2 and "already exists" in result.stderr
    assert not (tmp_path / "elsewhere.db").exists()


@pytest.mark.parametrize("kind", LINKS)
def test_runs_recover_refuses_a_link_at_its_working_copy(
    tmp_path: Path, db: Path, victim: Path, kind: str
) -> None:
    plant(tmp_path / ".saved.db.reading", victim, kind)

    result = invoke("runs", "recover", tmp_path / "saved.db", "--db", db)

    assert_refused(result, tmp_path / ".saved.db.reading")
    assert_untouched(victim)
    assert not (tmp_path / "saved.db").exists()


@pytest.mark.parametrize("kind", LINKS)
def test_agent_records_are_never_appended_through_a_link(
    tmp_path: Path, victim: Path, kind: str
) -> None:
    plant(tmp_path / "results.jsonl", victim, kind)
    record = AgentRecord.of(
        question="Q?", gold="4", extracted_answer="4", stopped_by=Termination.ANSWER
    )

    with pytest.raises(SymlinkRefused):
        write_records(tmp_path / "results.jsonl", [record])

    assert_untouched(victim)
