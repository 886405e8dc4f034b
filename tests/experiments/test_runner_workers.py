"""Many workers, one run: ``answerx run CONFIG --db postgresql://… --join`` started four
times works through one run together; two workers killed with ``kill -9`` lose nothing
(their leases run out and the others take their items), no item is stored twice, and
the finished run holds what one worker alone would have stored (a real PostgreSQL
server: skipped, saying why, where none can be had)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_helpers import GoldModel, write_config

from answerx.errors import StoreError
from answerx.experiments.config import load_config
from answerx.experiments.runner import run_experiment
from answerx.experiments.store import ResultStore
from answerx.testing import FakeProviderServer

_ENV = {"OPENAI_API_KEY": "sk-test-workers-key-0123", "COLUMNS": "100"}
_UNITS = 24 * 2  # the arithmetic sample x two approaches


def _worker(config: Path, url: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "answerx.cli", "run", str(config), "-q", "--no-report",
         "--db", url, "--join", "--lease", "2"],
        env={**os.environ, **_ENV}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def _stored(url: str) -> int:
    try:
        with ResultStore.open(url, "read") as store:
            runs = store.list_runs()
            return store.count_items(runs[0].run_id) if runs else 0
    except StoreError:  # no worker has made the tables yet
        return 0


@pytest.mark.slow
def test_four_workers_share_one_run_and_two_killed_lose_nothing(
    fake_provider: FakeProviderServer,
    tmp_path: Path,
    postgres_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_provider.set_default(GoldModel(delay=0.3))
    path = write_config(
        tmp_path / "run.yaml", fake_provider.openai_base_url,
        datasets=[{"sample": "arithmetic"}], concurrency=2,
    )  # fmt: skip
    workers = [_worker(path, postgres_url) for _ in range(4)]
    try:
        deadline = time.monotonic() + 120
        while _stored(postgres_url) < 8:
            assert time.monotonic() < deadline, "the workers stored nothing"
            time.sleep(0.1)
        for killed in workers[:2]:
            killed.send_signal(signal.SIGKILL)
        for survivor in workers[2:]:
            _, err = survivor.communicate(timeout=240)
            assert survivor.returncode == 0, err.decode()
    finally:
        for process in workers:
            process.kill()
            process.wait(timeout=30)
    assert [w.returncode for w in workers[:2]] == [-signal.SIGKILL] * 2

    with ResultStore.open(postgres_url, "read") as store:
        (run,) = store.list_runs()
        shared = list(store.items(run.run_id))
    keys = [i.key for i in shared]
    assert len(keys) == len(set(keys)) == _UNITS  # nothing lost, nothing twice
    assert run.status == "finished"

    # One worker alone, on a SQLite file: the same items, verdicts and answers.
    fake_provider.set_default(GoldModel())
    monkeypatch.setenv("OPENAI_API_KEY", _ENV["OPENAI_API_KEY"])
    alone = load_config(path, {"db": str(tmp_path / "alone.db")})
    summary = run_experiment(alone)
    with ResultStore.open(alone.output.db, "read") as store:
        single = list(store.items(summary.run_id))

    def said(items: list) -> dict:  # type: ignore[type-arg]
        return {i.key: (i.extracted_answer, i.correct, i.reason, i.how) for i in items}

    assert said(shared) == said(single)
