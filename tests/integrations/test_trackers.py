"""Runs logged to MLflow and Weights & Biases, read back the way their users read them.

MLflow: a local ``sqlite:`` tracking store, read back through ``MlflowClient`` (its
``load_table`` for the item table). W&B: offline mode, the run folder read back with W&B's own
``wandb leet inspect``. No network, no key. The first tests need neither package (what
is logged); the others run where the ``answerx[mlflow]`` / ``answerx[wandb]`` extras are
installed (``make test-integrations``) and say so when skipped.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from answerx.cli import app
from answerx.errors import ConfigError
from answerx.experiments.config import config_hash, load_config
from answerx.experiments.records import RunStatus
from answerx.experiments.runner import run_experiment
from answerx.experiments.store import ResultStore
from answerx.integrations import trackers
from answerx.integrations.tracker_data import metric_name
from answerx.integrations.trackers import ITEM_COLUMNS, RunLog, TrackerObserver, run_log
from answerx.testing import FakeProviderServer
from experiments.runner_helpers import GoldModel, write_config

SECRET = "sk-test-trackers-0123456789abcdef"
ARM = "openai/gpt-test/none/two_stage"
NEED_MLFLOW = "MLflow is not installed (pip install 'answerx[mlflow]'; make test-integrations)"
NEED_WANDB = "W&B is not installed (pip install 'answerx[wandb]'; make test-integrations)"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Everything a tracker writes lands in tmp_path; offline; a dummy key only."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path / 'mlflow.db'}")
    monkeypatch.delenv("MLFLOW_EXPERIMENT_NAME", raising=False)
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.delenv("WANDB_PROJECT", raising=False)
    for name in ("WANDB_DIR", "WANDB_DATA_DIR", "WANDB_CACHE_DIR", "WANDB_CONFIG_DIR"):
        monkeypatch.setenv(name, str(tmp_path / "wandb-home"))
    for name in ("ANSWERX_PROMPT_DIR", "ANSWERX_PRICES", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def config(fake_provider: FakeProviderServer, tmp_path: Path) -> Path:
    """4 arithmetic questions x (none, chain_of_thought), one answered wrong: 8 answers."""
    fake_provider.set_default(GoldModel(wrong=frozenset({"arith-02"})))
    return a_config(tmp_path / "run.yaml", fake_provider)


def a_config(path: Path, fake_provider: FakeProviderServer, **overrides: Any) -> Path:
    """Text replies read by the rules (two_stage), so each answer has its span."""
    return write_config(path, fake_provider.openai_base_url, strategies=["two_stage"], **overrides)


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def stored_log(config: Path) -> RunLog:
    summary = run_experiment(load_config(config))
    with ResultStore.for_reading(Path(summary.db)) as store:
        run = store.get_run(summary.run_id)
        return run_log(run, list(store.items(run.run_id)))


# --- what is logged (no tracker needed) -------------------------------------------------


def test_the_config_becomes_dotted_parameters_beside_the_run_id(config: Path) -> None:
    log = stored_log(config)
    assert log.params["answerx.run_id"] == log.run.run_id
    assert log.params["answerx.config_hash"] == config_hash(load_config(config))
    assert log.params["budget.max_calls"] == "null"
    assert log.params["approaches"] == '["none", "chain_of_thought"]'
    assert json.loads(log.params["targets"])[0]["model"] == "gpt-test"


def test_each_arm_has_its_accuracy_interval_usage_and_counts(config: Path) -> None:
    metrics = stored_log(config).metrics
    assert metrics[f"accuracy/{ARM}"] == 0.75  # arith-02 answered wrong
    assert metrics[f"accuracy_ci_low/{ARM}"] < 0.75 < metrics[f"accuracy_ci_high/{ARM}"]
    assert metrics[f"items/{ARM}"] == 4
    assert metrics[f"input_tokens/{ARM}"] == 4 * 40
    assert metrics[f"termination/{ARM}/answer"] == 4
    assert sum(v for k, v in metrics.items() if k.startswith(f"method/{ARM}/")) == 4
    assert metrics["run/items"] == 8
    assert metrics["run/output_tokens"] == 8 * 10


def test_an_unknown_cost_is_left_out_never_logged_as_zero(config: Path) -> None:
    # gpt-test has no price: the run's cost is unknown.
    assert not any("cost_usd" in name for name in stored_log(config).metrics)


def test_metric_names_keep_only_what_every_tracker_accepts() -> None:
    assert metric_name("accuracy", "ollama", "llama3:8b", "none") == (
        "accuracy/ollama/llama3_8b/none"
    )


def test_each_item_row_has_the_output_with_the_span_its_answer_was_read_from(
    config: Path,
) -> None:
    rows = stored_log(config).rows
    assert len(rows) == 8 and all(list(row) == list(ITEM_COLUMNS) for row in rows)
    read = [row for row in rows if row["span_start"] is not None]
    assert read, "the chain-of-thought replies are read from their text"
    for row in read:
        assert row["output"][row["span_start"] : row["span_end"]] == row["answer_in_output"]
    wrong = [row for row in rows if row["item_id"].endswith("arith-02")]
    assert {row["verdict"] for row in wrong} == {"wrong"}
    assert {row["verdict"] for row in rows if not row["item_id"].endswith("arith-02")} == {
        "correct"
    }
    assert all(row["how"] and row["confidence"] > 0 for row in rows)


def test_a_key_in_a_reply_never_reaches_a_tracker(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    class Leaky(GoldModel):
        def answer_for(self, text: str) -> str:
            return f"{super().answer_for(text)} (my key is {SECRET})"

    fake_provider.set_default(Leaky())
    path = a_config(tmp_path / "leak.yaml", fake_provider)
    log = stored_log(path)
    sent = json.dumps([log.params, log.config, log.rows], ensure_ascii=False)
    assert SECRET not in sent
    assert "my key is" in sent  # the rest of the reply is there


def test_an_unknown_tracker_or_a_missing_package_fails_before_the_run_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ConfigError, match="unknown tracker 'neptune'"):
        TrackerObserver(["neptune"])
    monkeypatch.setitem(sys.modules, "mlflow", None)  # as if not installed
    monkeypatch.delitem(sys.modules, "answerx.integrations.mlflow", raising=False)
    with pytest.raises(ConfigError, match=re.escape("pip install 'answerx[mlflow]'")):
        TrackerObserver(["mlflow"])


class _Recorder:
    """A tracker that records what it is told (``fail_on``: the call that raises)."""

    def __init__(self, calls: list[tuple[str, Any]], fail_on: str | None = None) -> None:
        self.calls, self.fail_on = calls, fail_on

    def __call__(self, run: Any) -> _Recorder:
        self.calls.append(("open", run.run_id))
        return self

    @property
    def where(self) -> str:
        return "memory"

    def _maybe_fail(self, call: str) -> None:
        if call == self.fail_on:
            raise RuntimeError(f"tracker down ({SECRET})")

    def log_progress(self, metrics: Mapping[str, float], step: int) -> None:
        self._maybe_fail("progress")
        self.calls.append(("progress", (step, dict(metrics))))

    def log_run(self, log: RunLog, files: Sequence[Path]) -> None:
        self.calls.append(("run", sorted(p.name for p in files)))

    def end(self, status: RunStatus) -> None:
        self.calls.append(("end", status))


def test_a_live_run_logs_its_counts_after_items_and_everything_at_its_end(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, Any]] = []
    monkeypatch.setattr(trackers, "tracker_class", lambda name: _Recorder(calls))
    summary = run_experiment(load_config(config), observers=[TrackerObserver(["x"], every_s=0)])
    assert calls[0] == ("open", summary.run_id)
    steps = [value[0] for kind, value in calls if kind == "progress"]
    assert steps == list(range(1, 9))  # every item, when every_s is 0
    last = next(value[1] for kind, value in reversed(calls) if kind == "progress")
    assert last["progress/accuracy"] == 6 / 8 and last["progress/stored"] == 8
    assert calls[-2:] == [
        ("run", ["accuracy.png", "accuracy_vs_cost.png", "report.json", "report.md"]),
        ("end", "finished"),
    ]


def test_a_failing_tracker_is_dropped_with_a_warning_and_the_run_goes_on(
    config: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[tuple[str, Any]] = []
    monkeypatch.setattr(
        trackers, "tracker_class", lambda name: _Recorder(calls, fail_on="progress")
    )
    with caplog.at_level(logging.WARNING, logger="answerx.integrations.trackers"):
        summary = run_experiment(load_config(config), observers=[TrackerObserver(["x"])])
    assert (summary.status, summary.done) == ("finished", 8)
    assert [kind for kind, _ in calls] == ["open"]  # dropped at its first failure
    assert "logging to x stopped: RuntimeError: tracker down" in caplog.text
    assert SECRET not in caplog.text


# --- MLflow ----------------------------------------------------------------------------


def _mlflow_run(run_id: str) -> Any:
    mlflow = pytest.importorskip("mlflow", reason=NEED_MLFLOW)
    client = mlflow.MlflowClient()
    experiment = client.get_experiment_by_name("test-run")
    found = client.search_runs(
        [experiment.experiment_id], filter_string=f"tags.`answerx.run_id` = '{run_id}'"
    )
    assert len(found) == 1, "one MLflow run per answerx run"
    return found[0]


def test_a_run_with_log_to_mlflow_is_logged_as_it_goes(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    mlflow = pytest.importorskip("mlflow", reason=NEED_MLFLOW)
    fake_provider.set_default(GoldModel(wrong=frozenset({"arith-02"})))
    path = a_config(tmp_path / "live.yaml", fake_provider, log_to=["mlflow"])

    result = invoke("run", path, "-q", "--no-report")
    assert result.exit_code == 0, result.output
    run_id = re.search(r"run (\S+) finished", result.stderr).group(1)  # type: ignore[union-attr]

    logged = _mlflow_run(run_id)
    client = mlflow.MlflowClient()
    assert logged.info.status == "FINISHED"
    assert logged.data.params["approaches"] == '["none", "chain_of_thought"]'
    assert logged.data.metrics[f"accuracy/{ARM}"] == 0.75
    history = client.get_metric_history(logged.info.run_id, "progress/stored")
    assert history and history[-1].step == history[-1].value == 8
    artifacts = {a.path for a in client.list_artifacts(logged.info.run_id)}
    assert {"items.json", "config.json", "report"} <= artifacts
    report = {a.path for a in client.list_artifacts(logged.info.run_id, "report")}
    assert {"report/accuracy.png", "report/accuracy_vs_cost.png", "report/report.md"} <= report
    table = client.load_table(logged.info.experiment_id, "items.json", [logged.info.run_id])
    assert list(table.columns[: len(ITEM_COLUMNS)]) == list(ITEM_COLUMNS)
    assert sorted(table["verdict"]) == ["correct"] * 6 + ["wrong"] * 2


def test_runs_log_to_mlflow_logs_a_stored_run_once_however_often_it_is_asked(
    config: Path,
) -> None:
    mlflow = pytest.importorskip("mlflow", reason=NEED_MLFLOW)
    result = invoke("run", config, "-q", "--no-report")
    run_id = re.search(r"run (\S+) finished", result.stderr).group(1)  # type: ignore[union-attr]

    first = invoke("runs", "log", run_id, "--to", "mlflow")
    assert first.exit_code == 0, first.output
    assert "logged to mlflow: run " in first.stderr
    again = invoke("runs", "log", run_id[:12], "--to", "mlflow")
    assert again.exit_code == 0, again.output

    logged = _mlflow_run(run_id)  # the same MLflow run, updated
    assert logged.data.metrics[f"accuracy_ci_high/{ARM}"] > 0.75
    assert logged.data.tags["answerx.status"] == "finished"
    client = mlflow.MlflowClient()
    table = client.load_table(logged.info.experiment_id, "items.json", [logged.info.run_id])
    assert len(table) == 8 and SECRET not in table.to_json()


# --- Weights & Biases ------------------------------------------------------------------


def _inspect(run_dir: Path, *flags: str) -> Any:
    """W&B's own reader of an offline run's ``.wandb`` file, as JSON."""
    (log_file,) = run_dir.glob("run-*.wandb")
    wandb_cli = Path(sys.executable).with_name("wandb")
    done = subprocess.run(
        [str(wandb_cli), "leet", "inspect", "--json", *flags, str(log_file)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    if "--summary" in flags:
        return json.loads(done.stdout)
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_runs_log_to_wandb_writes_an_offline_run_wandb_reads_back(
    config: Path, tmp_path: Path
) -> None:
    pytest.importorskip("wandb", reason=NEED_WANDB)
    result = invoke("run", config, "-q", "--no-report")
    run_id = re.search(r"run (\S+) finished", result.stderr).group(1)  # type: ignore[union-attr]

    logged = invoke("runs", "log", run_id, "--to", "wandb")
    assert logged.exit_code == 0, logged.output
    (run_dir,) = (tmp_path / "wandb-home" / "wandb").glob(f"offline-run-*-{run_id}")
    assert f"logged to wandb: {run_dir}" in " ".join(logged.stderr.split())

    summary = _inspect(run_dir, "--summary")
    assert (summary["state"], summary["project"], summary["run_id"]) == (
        "finished", "test-run", run_id,
    )  # fmt: skip
    assert summary["config"]["approaches"] == ["none", "chain_of_thought"]
    assert summary["config"]["answerx"]["run_id"] == run_id
    assert summary["summary"][f"accuracy/{ARM}"] == 0.75
    assert summary["summary"][f"termination/{ARM}/answer"] == 4
    table_file = run_dir / "files" / summary["summary"]["items"]["path"]
    table = json.loads(table_file.read_text(encoding="utf-8"))
    assert table["columns"] == list(ITEM_COLUMNS)
    verdicts = sorted(row[ITEM_COLUMNS.index("verdict")] for row in table["data"])
    assert verdicts == ["correct"] * 6 + ["wrong"] * 2
    assert SECRET not in table_file.read_text(encoding="utf-8")
    images = list((run_dir / "files" / "media" / "images").glob("**/*.png"))
    assert len(images) == 2  # the report's two plots


def test_a_run_with_log_to_wandb_logs_its_progress_as_history(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    pytest.importorskip("wandb", reason=NEED_WANDB)
    fake_provider.set_default(GoldModel())
    path = a_config(tmp_path / "live.yaml", fake_provider, log_to=["wandb"])
    observer = TrackerObserver(load_config(path).log_to, every_s=0)

    summary = run_experiment(load_config(path), observers=[observer])

    (run_dir,) = (tmp_path / "wandb-home" / "wandb").glob(f"offline-run-*-{summary.run_id}")
    history = [r["history"]["item"] for r in _inspect(run_dir) if r["type"] == "history"]
    stored = [h["progress/stored"] for h in history if "progress/stored" in h]
    assert stored == list(range(1, 9))
    assert _inspect(run_dir, "--summary")["summary"][f"accuracy/{ARM}"] == 1.0


# --- the documentation's commands ------------------------------------------------------


def test_the_trackers_page_runs_as_written(
    fake_provider: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/integrations/trackers.md marks these blocks illustrative (tests/docs runs where
    # the extras may be absent); here they run as tests/docs would run them.
    pytest.importorskip("mlflow", reason=NEED_MLFLOW)
    pytest.importorskip("wandb", reason=NEED_WANDB)
    from docs.test_examples import ROOT, blocks_of

    fake_provider.set_default(GoldModel())
    a_config(tmp_path / "experiment.yaml", fake_provider)
    monkeypatch.setenv("ANSWERX_HOME", str(tmp_path / "runs"))  # where the config stores
    monkeypatch.delenv("MLFLOW_TRACKING_URI")
    monkeypatch.delenv("WANDB_SERVICE", raising=False)  # a fresh shell: no parent's W&B service
    blocks = [b for b in blocks_of(ROOT / "docs/integrations/trackers.md") if "tests/integ" in (
        b.illustrative or "")]  # fmt: skip
    shell, python = blocks
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + shell.code],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((tmp_path / "wandb-summary.json").read_text(encoding="utf-8"))
    assert summary["state"] == "finished" and summary["summary"][f"accuracy/{ARM}"] == 1.0

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(python.code, shell.where, "exec"), {})
    assert summary["run_id"] in printed.getvalue() and "1.0" in printed.getvalue()
    assert "{'correct': 8}" in printed.getvalue()
