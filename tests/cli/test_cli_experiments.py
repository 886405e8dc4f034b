"""`answerx run` and `answerx runs …` (list, show, export, delete, recover, score, report).

Every run goes to the loopback fake provider server, answered by a "model" that
knows the gold answers of the bundled samples (``GoldModel``), so accuracy is
known in advance: arith-02 is answered wrong, everything else right.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from answerx.cli import app
from answerx.experiments.datasets import DatasetSpec
from answerx.experiments.records import ItemRecord
from answerx.experiments.store import ResultStore
from answerx.testing import FakeProviderServer, Reply
from experiments.runner_helpers import GoldModel, write_config
from experiments.store_helpers import DAMAGES, PNG, Damage, damage, pad_run

runner = CliRunner()

SECRET = "sk-test-cli-experiments-0123456789"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Relative paths (runs/answerx.db, runs/reports) land in tmp_path; a dummy key only."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    for name in ("ANSWERX_PROMPT_DIR", "ANSWERX_PRICES", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def config(fake_provider: FakeProviderServer, tmp_path: Path) -> Path:
    """4 arithmetic questions × (none, chain_of_thought) on the fake server: 8 answers."""
    fake_provider.set_default(GoldModel(wrong=frozenset({"arith-02"})))
    return write_config(tmp_path / "run.yaml", fake_provider.openai_base_url)


@pytest.fixture
def stored(config: Path, tmp_path: Path) -> tuple[str, Path]:
    """A finished run of ``config``: its id and its store."""
    return run_id_of(invoke("run", config, "-q", "--no-report")), db_of(tmp_path)


def invoke(*args: str | Path, input: str | None = None) -> Result:
    return runner.invoke(app, [str(a) for a in args], input=input)


def run_id_of(result: Result) -> str:
    match = re.search(r"run (\d{8}-\d{6}-[0-9a-f]{4}) (finished|failed)", result.stderr)
    assert match, result.stderr
    return match.group(1)


def db_of(tmp_path: Path) -> Path:
    return tmp_path / "runs" / "answerx.db"  # where write_config puts the store


# --- answerx run -------------------------------------------------------------------------


def test_run_prints_a_summary_and_the_report_and_writes_readable_report_files(
    config: Path, tmp_path: Path
) -> None:
    result = invoke("run", config, "-q")

    assert result.exit_code == 0, result.output
    run_id = run_id_of(result)
    assert "8 answered (0 already done), 0 errors, correct 6/8" in result.stderr
    assert "cost unknown" in result.stderr  # gpt-test has no price: unknown, never $0
    for title in ("Accuracy (Wilson 95% interval)", "Paired comparisons", "Usage", "Termination"):
        assert title in result.stdout

    folder = tmp_path / "reports" / run_id
    assert f"report written: {folder / 'report.md'}" in result.stderr.replace("\n", "")
    markdown = (folder / "report.md").read_text(encoding="utf-8")
    assert markdown.startswith("# Report: test-run")
    assert "![Accuracy by approach and model](accuracy.png)" in markdown
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    accuracy = {g["approach"]: (g["correct"], g["scored"]) for g in report["groups"]}
    assert accuracy == {"none": (3, 4), "chain_of_thought": (3, 4)}
    assert all(g["cost_usd"] is None for g in report["groups"])
    for png in ("accuracy.png", "accuracy_vs_cost.png"):
        _assert_readable_png(folder / png)


def _assert_readable_png(path: Path) -> None:
    import matplotlib.image

    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = matplotlib.image.imread(path)
    height, width = pixels.shape[:2]
    assert height >= 300 and width >= 500
    assert pixels.min() < pixels.max()  # something is drawn, not a blank canvas


def test_a_priced_model_shows_its_cost_and_a_rerun_from_the_cache_costs_nothing(
    fake_provider: FakeProviderServer, config: Path
) -> None:
    url = fake_provider.openai_base_url
    priced = ("--provider", "openai", "--model", "gpt-4o-mini", "--base-url", url)
    first = invoke("run", config, "-q", "--no-report", *priced)
    asked = len(fake_provider.requests)
    again = invoke("run", config, "-q", "--no-report", *priced)

    assert first.exit_code == again.exit_code == 0, first.output + again.output
    # 8 calls of 40 tokens in and 10 out at $0.15 / $0.60 per million
    assert "cost $0.0001" in first.stderr and "cache hits 0" in first.stderr
    assert "cache hits 8" in again.stderr and "cost $0.0000" in again.stderr
    assert len(fake_provider.requests) == asked == 8


def test_a_resume_that_answers_nothing_shows_an_unpriced_models_cost_as_unknown(
    stored: tuple[str, Path], config: Path
) -> None:
    run_id, _ = stored  # gpt-test has no price

    again = invoke("run", config, "-q", "--no-report", "--resume", run_id)

    assert again.exit_code == 0, again.output
    assert "0 answered (8 already done)" in again.stderr
    assert "cost unknown" in again.stderr and "$0.0000" not in again.stderr


def test_no_cache_asks_the_provider_again(fake_provider: FakeProviderServer, config: Path) -> None:
    invoke("run", config, "-q", "--no-report")
    result = invoke("run", config, "-q", "--no-report", "--no-cache")

    assert result.exit_code == 0, result.output
    assert "cache hits 0" in result.stderr
    assert len(fake_provider.requests) == 16


def test_flags_override_the_config_and_reach_the_provider(
    fake_provider: FakeProviderServer, config: Path, tmp_path: Path
) -> None:
    result = invoke(
        "run", config, "-q", "--no-report",
        "--name", "flagged", "--dataset", "multiple_choice", "--limit", "2",
        "--approaches", "none", "--strategies", "two_stage", "--repetitions", "2",
        "--temperature", "0.5", "--max-tokens", "64", "--seed", "11",
        "--concurrency", "3", "--requests-per-minute", "6000", "--tokens-per-minute", "900000",
        "--max-calls", "3", "--time-limit", "30", "--set", "budget.max_tokens=5000",
        "--db", tmp_path / "other.db", "--out-dir", tmp_path / "elsewhere",
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    with ResultStore(tmp_path / "other.db") as store:
        (run,) = store.list_runs()
        items = list(store.items(run.run_id))
    stored = run.config
    assert run.name == stored["name"] == "flagged"
    assert [DatasetSpec.model_validate(d) for d in stored["datasets"]] == [
        DatasetSpec(sample="multiple_choice", limit=2)
    ]
    assert (stored["approaches"], stored["strategies"]) == (["none"], ["two_stage"])
    assert (stored["repetitions"], stored["temperature"], stored["max_tokens"]) == (2, 0.5, 64)
    assert (stored["seed"], stored["concurrency"]) == (11, 3)
    assert stored["rate_limits"] == {
        "openai": {"requests_per_minute": 6000.0, "tokens_per_minute": 900_000}
    }
    assert stored["budget"] == {
        "max_calls": 3, "max_tokens": 5000, "max_context_tokens": None, "time_limit_s": 30.0
    }  # fmt: skip
    assert stored["output"]["report_dir"] == str(tmp_path / "elsewhere")
    assert len(items) == 2 * 2  # two questions, asked twice
    assert {i.item_id for i in items} == {"multiple_choice/mc-01", "multiple_choice/mc-02"}
    bodies = [r.json for r in fake_provider.requests]
    assert {b["temperature"] for b in bodies} == {0.5}
    assert {b["max_tokens"] for b in bodies} == {64}
    assert sorted(b["seed"] for b in bodies) == [11, 11, 12, 12]  # seed + repetition
    assert not (tmp_path / "runs").exists()  # the config's own db was not touched


def test_set_reaches_any_key_and_an_explicit_flag_wins(
    fake_provider: FakeProviderServer, config: Path, tmp_path: Path
) -> None:
    result = invoke("run", config, "-q", "--no-report", "--limit", "1",
                    "--set", "temperature=0.3", "--set", "repetitions=2",
                    "--set", "limit=3", "--set", "approach_settings.none.min_confidence=0.5",
                    "--set", "rate_limits.openai.requests_per_minute=6000")  # fmt: skip

    assert result.exit_code == 0, result.output
    with ResultStore(db_of(tmp_path)) as store:
        (run,) = store.list_runs()
    stored = run.config
    assert (stored["temperature"], stored["repetitions"]) == (0.3, 2)
    assert stored["datasets"][0]["limit"] == 1  # --limit beats --set limit=3
    assert stored["approach_settings"] == {"none": {"min_confidence": 0.5}}
    assert stored["rate_limits"]["openai"]["requests_per_minute"] == 6000
    assert {r.json["temperature"] for r in fake_provider.requests} == {0.3}


def test_target_flags_replace_the_targets(
    fake_provider_env: FakeProviderServer, config: Path
) -> None:
    # fake_provider_env points the SDKs' own base-URL variables at the fake server.
    fake_provider_env.set_default(GoldModel())
    targets = ("--target", "openai/gpt-4o-mini", "--target", "anthropic/claude-test")
    result = invoke("run", config, "-q", "--no-report", "--approaches", "none", *targets)

    assert result.exit_code == 0, result.output
    with ResultStore(db_of(Path.cwd())) as store:
        (run,) = store.list_runs()
        targets = {(i.provider, i.model) for i in store.items(run.run_id)}
    assert targets == {("openai", "gpt-4o-mini"), ("anthropic", "claude-test")}
    assert {r.wire for r in fake_provider_env.requests} == {"openai", "anthropic"}


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--concurrency", "0"], "(command-line override): concurrency: Input should be greater"),
        (["--approaches", "nonesuch"], "unknown approach 'nonesuch' (did you mean 'none'?)"),
        (["--strategies", "both"], "unknown strategy 'both'; valid strategies: structured, two"),
        (["--dataset", "missing.csv"], "dataset file 'missing.csv' does not exist"),
        (["--dataset", "notes.txt"], "cannot tell the format of 'notes.txt'"),
        (
            ["--set", "budget.max_cals=3"],
            "budget.max_cals: unknown key (did you mean 'max_calls'?)",
        ),
        (["--set", "budget.max_calls"], "--set: expected KEY=VALUE"),
        (["--set", "colour=blue"], "unknown override 'colour'"),
        (["--seed", "-1"], "seed: Input should be greater than or equal to 0"),
        (["--provider", "nosuch"], "unknown provider 'nosuch'"),
        (["--target", "openai", "--provider", "openai"], "either --target or --provider"),
        (["--resume", "20000101-000000-0000"], "no run '20000101-000000-0000'"),
        (["--limit", "many"], "Invalid value for '--limit'"),
    ],
)
def test_a_bad_option_value_is_a_clear_usage_error(
    fake_provider: FakeProviderServer, config: Path, flags: list[str], message: str
) -> None:
    if flags[0] == "--resume":  # a store must exist for the run to be looked up in it
        invoke("run", config, "-q", "--no-report")
    asked = len(fake_provider.requests)

    result = invoke("run", config, "-q", *flags)

    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split()), result.stderr
    assert "Traceback" not in result.output
    assert len(fake_provider.requests) == asked  # nothing was asked


def test_a_model_flag_alone_needs_a_provider_when_the_config_has_several_targets(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    two = [
        {"provider": "openai", "model": "a", "base_url": fake_provider.openai_base_url},
        {"provider": "openai", "model": "b", "base_url": fake_provider.openai_base_url},
    ]
    path = write_config(tmp_path / "two.yaml", fake_provider.openai_base_url, targets=two)

    result = invoke("run", path, "-q", "--model", "c")

    assert result.exit_code == 2
    assert "several targets" in result.stderr


def test_ctrl_c_prints_a_resume_command_with_every_option_that_was_given(
    monkeypatch: pytest.MonkeyPatch, config: Path
) -> None:
    from answerx.experiments import runner as experiments_runner
    from answerx.experiments.records import RunRecord

    started = RunRecord.model_validate(
        {"run_id": "20261125-101010-abcd", "name": "x", "config": {}, "config_hash": "0" * 64,
         "answerx_version": "t", "started_at": "2026-11-25T10:10:10Z"}
    )  # fmt: skip

    def interrupted(cfg: object, *, on_start: Any, **_: object) -> None:
        on_start(started)  # the run exists, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(experiments_runner, "run_experiment", interrupted)
    result = invoke(
        "run", config, "--db", "my runs/a.db", "-q", "--no-report", "--no-cache",
        "--target", "openai/gpt-test", "--target", "openai/gpt-other", "--limit", "3",
        "--set", "budget.max_calls=4", "--temperature", "0.5", "--resume", "last",
    )  # fmt: skip

    assert result.exit_code == 130
    assert "run 20261125-101010-abcd: every finished item is stored; resume it with" in (
        result.stderr
    )
    assert result.stderr.splitlines()[-1].strip() == (
        f"answerx run {config} --limit 3 --target openai/gpt-test --target openai/gpt-other"
        " --temperature 0.5 --set budget.max_calls=4 --no-cache --db 'my runs/a.db'"
        " --no-report --quiet --resume 20261125-101010-abcd"
    )


def test_failed_items_are_stored_and_exit_1_without_the_key(
    fake_provider: FakeProviderServer, config: Path, tmp_path: Path
) -> None:
    fake_provider.set_default(Reply.unauthorized())

    result = invoke("run", config, "-q", "--no-report")

    assert result.exit_code == 1
    assert "8 answered (0 already done), 8 errors" in result.stderr
    assert SECRET not in result.output
    with ResultStore(db_of(tmp_path)) as store:
        (run,) = store.list_runs()
        errors = [i.error for i in store.items(run.run_id)]
    # Stored as the viewer shows it: the failure summarised, not the provider's text.
    assert all(e and "(HTTP 401)" in e and "OPENAI_API_KEY" not in e for e in errors)


def test_resume_last_continues_the_latest_run_of_the_config(
    fake_provider: FakeProviderServer, config: Path
) -> None:
    first = invoke("run", config, "-q", "--no-report")
    again = invoke("run", config, "-q", "--no-report", "--resume", "last")

    assert again.exit_code == 0, again.output
    assert run_id_of(again) == run_id_of(first)
    assert "0 answered (8 already done)" in again.stderr


# --- answerx runs ------------------------------------------------------------------------


def test_runs_list_and_show_describe_the_stored_runs(stored: tuple[str, Path]) -> None:
    run_id, db = stored

    listed = invoke("runs", "list", "--db", db)
    shown = invoke("runs", "show", run_id[:15], "--db", db)  # a unique prefix will do

    assert listed.exit_code == shown.exit_code == 0, listed.output + shown.output
    row = next(line for line in listed.stdout.splitlines() if run_id in line)
    assert [c.strip() for c in row.split("│")[1:5]] == [run_id, "test-run", "finished", "8"]
    record = json.loads(shown.stdout)
    assert (record["run_id"], record["status"]) == (run_id, "finished")
    assert record["config"]["approaches"] == ["none", "chain_of_thought"]
    assert len(record["config_hash"]) == 64
    assert "8 items stored" in shown.stderr


def test_runs_export_writes_csv_jsonl_and_parquet_that_read_back(
    stored: tuple[str, Path], tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    run_id, db = stored
    for suffix in ("csv", "jsonl", "parquet"):
        result = invoke("runs", "export", run_id, tmp_path / "out" / f"items.{suffix}", "--db", db)
        assert result.exit_code == 0, result.output
        assert "8 items written to" in result.stderr

    with (tmp_path / "out" / "items.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    lines = (tmp_path / "out" / "items.jsonl").read_text(encoding="utf-8").splitlines()
    records = [ItemRecord.model_validate_json(line) for line in lines]
    table = pq.read_table(tmp_path / "out" / "items.parquet").to_pylist()

    assert len(rows) == len(records) == len(table) == 8
    ids = {r.item_id for r in records}
    assert {r["item_id"] for r in rows} == {t["item_id"] for t in table} == ids
    first = {"item_id": "arithmetic/arith-01", "approach": "none"}
    assert [r["correct"] for r in rows if first.items() <= r.items()] == ["true"]
    assert [r.extracted_answer for r in records if r.item_id == first["item_id"]] == ["26"] * 2
    assert all(isinstance(t["correct"], bool) and t["input_tokens"] == 40 for t in table)


def test_runs_export_refuses_an_unknown_format(stored: tuple[str, Path], tmp_path: Path) -> None:
    run_id, db = stored

    result = invoke("runs", "export", run_id, tmp_path / "items.xlsx", "--db", db)

    assert result.exit_code == 2
    assert "use a .csv, .jsonl or .parquet file" in result.stderr


def test_runs_delete_asks_first_and_yes_deletes_the_run_and_its_items(
    stored: tuple[str, Path],
) -> None:
    run_id, db = stored

    kept = invoke("runs", "delete", run_id, "--db", db, input="n\n")
    assert kept.exit_code == 0 and "delete run" in kept.stdout
    prefix = invoke("runs", "delete", run_id[:10], "--yes", "--db", db)
    assert prefix.exit_code == 2 and f"did you mean {run_id}?" in prefix.stderr
    assert invoke("runs", "show", run_id, "--db", db).exit_code == 0

    deleted = invoke("runs", "delete", run_id, "--yes", "--db", db)
    assert deleted.exit_code == 0, deleted.output
    assert f"deleted run {run_id} and 8 items" in deleted.stderr
    gone = invoke("runs", "show", run_id, "--db", db)
    assert gone.exit_code == 2 and f"no run {run_id!r}" in gone.stderr
    with ResultStore(db) as store:
        assert store.count_items(run_id) == 0


@pytest.mark.parametrize(
    "command",
    [["runs", "list"], ["runs", "show", "x"], ["runs", "score", "x"], ["runs", "report", "x"]],
)
def test_commands_on_a_store_that_does_not_exist_exit_3(
    command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANSWERX_HOME")  # the default runs/answerx.db, in an empty folder
    result = invoke(*command)

    assert result.exit_code == 3
    assert "no results store at runs/answerx.db" in result.stderr
    assert not Path("runs").exists()  # and no empty store was created


def test_the_default_store_lives_in_answerx_home(tmp_path: Path) -> None:
    home = tmp_path / "runs"  # $ANSWERX_HOME, as the root conftest sets it for every test

    result = invoke("runs", "list")

    assert result.exit_code == 3
    assert f"no results store at {home / 'answerx.db'}" in result.stderr


def test_a_dataset_with_bad_rows_stops_run_before_any_call_naming_every_bad_row(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    data = tmp_path / "items.jsonl"
    data.write_bytes(
        b'{"id": "a", "question": "What is 1 + 1?", "answer": "2"}\n'
        b'{"id": "b", "question": "Caf\xe9 costs 3; two cost?", "answer": "6"}\n'
        b'{"id": "c", "question": "Pick", "answer": "A", "choices": "not a list"}\n'
    )
    config = write_config(
        tmp_path / "run.yaml", fake_provider.openai_base_url, datasets=[{"path": str(data)}]
    )

    result = invoke("run", config, "-q", "--no-report")

    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)  # an exit code, not a traceback
    assert f"{data}: line 2: not valid UTF-8" in result.stderr
    assert f"{data}: line 3: choices must list at least 2 options" in result.stderr
    assert fake_provider.requests == []
    assert not db_of(tmp_path).exists()  # no run was started


# --- a damaged store ----------------------------------------------------------------------


def _store_commands(run_id: str, config: Path, tmp_path: Path) -> list[list[str | Path]]:
    return [
        ["runs", "score", run_id],
        ["runs", "report", run_id, "--out-dir", tmp_path / "reports"],
        ["runs", "export", run_id, tmp_path / "items.jsonl"],
        ["run", config, "-q", "--no-report", "--resume", run_id],
    ]


@pytest.mark.parametrize("how", DAMAGES)
def test_every_command_on_a_damaged_store_exits_4_with_what_to_do_and_no_traceback(
    fake_provider: FakeProviderServer,
    stored: tuple[str, Path],
    config: Path,
    tmp_path: Path,
    how: Damage,
) -> None:
    run_id, db = stored
    pad_run(db, run_id)  # enough pages to damage the middle of the items
    damage(db, how)
    asked = len(fake_provider.requests)

    for command in _store_commands(run_id, config, tmp_path):
        result = invoke(*command, "--db", db)

        assert result.exit_code == 4, (command, result.output)
        assert isinstance(result.exception, SystemExit)  # an exit code, not a traceback
        assert f"cannot use results store '{db}'" in result.stderr
        if how == "replaced":
            assert "not a SQLite database" in result.stderr
        else:
            assert f"answerx runs recover {db.with_suffix('.recovered.db')} --db {db}" in (
                result.stderr
            )
            assert f"sqlite3 {db} .recover" in result.stderr
    listed = invoke("runs", "list", "--db", db)  # copes, or says the same; never a traceback
    assert listed.exit_code in (0, 4) and isinstance(listed.exception, SystemExit | None)
    assert len(fake_provider.requests) == asked  # no model was asked on a broken store
    assert not (tmp_path / "items.jsonl").exists()


def test_runs_recover_saves_what_a_damaged_store_still_holds_and_the_run_resumes_there(
    fake_provider: FakeProviderServer, stored: tuple[str, Path], config: Path, tmp_path: Path
) -> None:
    run_id, db = stored
    pad_run(db, run_id)
    damage(db, "pages")
    out = tmp_path / "recovered.db"

    recovered = invoke("runs", "recover", out, "--db", db)
    resumed = invoke("run", config, "-q", "--no-report", "--resume", run_id, "--db", out)

    assert recovered.exit_code == 0, recovered.output
    assert re.search(
        r"recovered 1 runs and \d+ items from .* could not read \d+ items", (recovered.stderr)
    )
    assert resumed.exit_code == 0, resumed.output
    assert f"run {run_id} finished" in resumed.stderr


def test_a_damaged_response_cache_stops_the_run_saying_it_can_be_deleted(
    stored: tuple[str, Path], config: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "runs" / "cache.db"
    cache.write_bytes(PNG)

    result = invoke("run", config, "-q", "--no-report")
    without = invoke("run", config, "-q", "--no-report", "--no-cache")

    assert result.exit_code == 4, result.output
    assert f"cannot use response cache '{cache}'" in result.stderr
    assert "delete the file" in result.stderr and "--no-cache" in result.stderr
    assert without.exit_code == 0, without.output


# --- answerx score and answerx report ----------------------------------------------------


def test_score_rescores_the_stored_answers_without_calling_a_model(
    fake_provider: FakeProviderServer, stored: tuple[str, Path]
) -> None:
    run_id, db = stored
    with ResultStore(db) as store:  # forget the verdicts the run stored
        unscored = {"correct": None, "reason": None, "how": None}
        store.update_verdicts(run_id, [i.model_copy(update=unscored) for i in store.items(run_id)])
    asked = len(fake_provider.requests)

    result = invoke("runs", "score", run_id, "--db", db)

    assert result.exit_code == 0, result.output
    assert f"run {run_id}: 8 items, 6/8 correct" in result.stderr
    assert len(fake_provider.requests) == asked
    with ResultStore(db) as store:
        verdicts = {(i.item_id, i.correct, i.reason) for i in store.items(run_id)}
    assert ("arithmetic/arith-02", False, "different") in verdicts
    assert ("arithmetic/arith-01", True, "equivalent") in verdicts


def test_report_compares_runs_prints_markdown_and_writes_the_files(
    fake_provider: FakeProviderServer, config: Path, tmp_path: Path
) -> None:
    first = run_id_of(invoke("run", config, "-q", "--no-report"))
    fake_provider.set_default(GoldModel())  # the second run gets every answer right
    second = run_id_of(invoke("run", config, "-q", "--no-report", "--no-cache"))

    result = invoke("runs", "report", first, "--compare", second, "--format", "markdown",
                    "--out-dir", tmp_path / "cmp", "--db", db_of(tmp_path))  # fmt: skip

    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# Report: test-run vs test-run")
    assert "## Paired comparisons (same questions; exact McNemar test)" in result.stdout
    written = tmp_path / "cmp" / first
    assert sorted(p.name for p in written.iterdir()) == [
        "accuracy.png", "accuracy_vs_cost.png", "report.json", "report.md"
    ]  # fmt: skip
    report = json.loads((written / "report.json").read_text(encoding="utf-8"))
    runs = [c for c in report["comparisons"] if c["kind"] == "run"]
    assert {(c["a_run_id"], c["b_run_id"]) for c in runs} == {(first, second)}
    assert all((c["a_correct"], c["b_correct"], c["pairs"]) == (3, 4, 4) for c in runs)


def test_report_of_an_unknown_run_is_a_usage_error(stored: tuple[str, Path]) -> None:
    result = invoke("runs", "report", "nosuchrun", "--db", stored[1])

    assert result.exit_code == 2
    assert "no run 'nosuchrun'" in result.stderr
