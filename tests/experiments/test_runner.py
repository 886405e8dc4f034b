"""The experiment runner against the fake provider server: runs, resumes, cache, errors."""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from runner_helpers import GoldModel, request_text, write_config

from answerx.errors import ConfigError
from answerx.experiments.calls import ProviderLimits, RunClientManager
from answerx.experiments.config import ExperimentConfig, TargetSpec, load_config
from answerx.experiments.runner import arun_experiment, run_experiment
from answerx.experiments.scoring import score_items
from answerx.experiments.store import ResultStore
from answerx.extraction import Extraction
from answerx.testing import FakeProviderServer, RecordedRequest, Reply
from concurrency_checks import (
    assert_each_request_after_its_release,
    assert_within_bucket,
    record_returns,
)


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CO_API_KEY"):
        monkeypatch.setenv(name, "sk-test-runner-key")
    monkeypatch.delenv("ANSWERX_PROMPT_DIR", raising=False)


def test_three_approaches_on_two_providers_are_stored_scored_and_costed(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(GoldModel(wrong=frozenset({"arith-02"})))
    path = write_config(
        tmp_path / "run.yaml",
        fake_provider.openai_base_url,
        approaches=["none", "chain_of_thought", "reasoning_as_planning"],
        targets=[
            {
                "provider": "openai",
                "model": "gpt-4o-mini",
                "base_url": fake_provider.openai_base_url,
            },
            {
                "provider": "anthropic",
                "model": "claude-test",
                "base_url": fake_provider.anthropic_base_url,
            },
        ],
    )
    config = load_config(path)
    summary = run_experiment(config)

    assert summary.status == "finished"
    assert summary.done == summary.total == 4 * 3 * 2
    assert summary.errors == 0
    assert (summary.correct, summary.scored) == (24 - 6, 24)  # arith-02 wrong everywhere
    assert summary.cost_usd is None  # claude-test has no price: unknown, never zero

    with ResultStore(config.output.db) as store:
        run = store.get_run(summary.run_id)
        items = list(store.items(run.run_id))
    assert run.status == "finished"
    assert Counter((i.provider, i.approach) for i in items) == {
        (p, a): 4
        for p in ("openai", "anthropic")
        for a in ("none", "chain_of_thought", "reasoning_as_planning")
    }
    one = next(i for i in items if i.provider == "openai" and i.item_id == "arithmetic/arith-01")
    assert one.extracted_answer == "26" and one.correct is True
    assert one.mode == "tools" and one.calls == 1
    assert (one.input_tokens, one.output_tokens) == (40, 10)
    assert one.cost_usd is not None and one.cost_usd > 0  # gpt-4o-mini is in the price table
    assert "A baker fills 7 trays" in one.prompt
    claude = [i for i in items if i.model == "claude-test"]
    assert all(i.cost_usd is None for i in claude)


def test_a_rerun_of_the_same_config_is_served_from_the_cache(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(GoldModel())
    config = load_config(write_config(tmp_path / "run.yaml", fake_provider.openai_base_url))
    first = run_experiment(config)
    requests = len(fake_provider.requests)
    second = run_experiment(config)
    assert len(fake_provider.requests) == requests  # nothing asked again
    assert second.run_id != first.run_id
    assert second.cache_hits == second.done == 8
    assert second.cost_usd == 0.0
    assert second.correct == first.correct == 8


def test_no_cache_asks_again(fake_provider: FakeProviderServer, tmp_path: Path) -> None:
    fake_provider.set_default(GoldModel())
    path = write_config(tmp_path / "run.yaml", fake_provider.openai_base_url, cache=False)
    run_experiment(load_config(path))
    run_experiment(load_config(path))
    assert len(fake_provider.requests) == 16


def test_resume_skips_finished_items_and_retries_failed_ones(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    model = GoldModel()
    failing = {"arith-03"}

    def flaky(request):  # type: ignore[no-untyped-def]
        if any(q.id in failing and q.question in str(request.messages) for q in model.items):
            return Reply.error(400, "bad request for this item")
        return model(request)

    fake_provider.set_default(flaky)
    config = load_config(write_config(tmp_path / "run.yaml", fake_provider.openai_base_url))
    first = run_experiment(config)
    assert first.errors == 2  # arith-03 for both approaches
    with ResultStore(config.output.db) as store:
        errored = [i for i in store.items(first.run_id) if i.error]
    # Stored (and shown by the viewer) summarised: who failed, the error type and status,
    # never the provider's own text (issue 35 §1).
    assert errored and all("(HTTP 400)" in (i.error or "") for i in errored)
    assert not any("bad request for this item" in (i.error or "") for i in errored)

    failing.clear()
    asked = len(fake_provider.requests)
    resumed = run_experiment(config, resume=first.run_id)
    assert resumed.run_id == first.run_id
    assert (resumed.skipped, resumed.done, resumed.errors) == (6, 2, 0)
    assert len(fake_provider.requests) - asked == 2  # only the two failed ones asked again
    with ResultStore(config.output.db) as store:
        items = list(store.items(first.run_id))
        assert store.get_run(first.run_id).status == "finished"
    assert len(items) == 8 and all(i.error is None for i in items)


def test_resume_refuses_a_different_configuration(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(GoldModel())
    path = write_config(tmp_path / "run.yaml", fake_provider.openai_base_url)
    first = run_experiment(load_config(path))
    other = load_config(path, {"approaches": ["none"]})
    with pytest.raises(ConfigError, match="different configuration"):
        run_experiment(other, resume=first.run_id)


def test_an_unauthorised_provider_is_recorded_without_the_key(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(Reply.unauthorized())
    config = load_config(write_config(tmp_path / "run.yaml", fake_provider.openai_base_url))
    summary = run_experiment(config)
    assert summary.errors == summary.done == 8
    with ResultStore(config.output.db) as store:
        items = list(store.items(summary.run_id))
    # Summarised as the viewer and /runs/ show it: the failure's type and status, neither
    # the key nor its variable's name (issue 35 §1); the command line names the variable.
    assert all("(HTTP 401)" in (i.error or "") for i in items)
    assert not any("OPENAI_API_KEY" in (i.error or "") for i in items)
    assert not any("sk-test-runner-key" in i.model_dump_json() for i in items)


def _wait_for_items(db: Path, at_least: int, timeout: float = 60.0) -> int:
    """Poll the store a running subprocess writes until it holds ``at_least`` items."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists():
            with ResultStore(db) as store:
                run = store.latest_run()
                if run is not None and (n := store.count_items(run.run_id)) >= at_least:
                    return n
        time.sleep(0.05)
    raise AssertionError(f"fewer than {at_least} items stored within {timeout} s")


_ENV = {"OPENAI_API_KEY": "sk-test-runner-key", "COLUMNS": "100"}


def _ctrl_c_as_in_a_terminal() -> None:
    # A suite started in the background (`make test &`, nohup) passes SIGINT on ignored,
    # and Python then keeps it ignored: the run would never see this test's Ctrl-C.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_run(
    config_path: Path, *options: str, cwd: Path | None = None
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "answerx.cli",
            "run",
            str(config_path),
            "-q",
            "--no-report",
            *options,
        ],
        env={**os.environ, **_ENV},
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_ctrl_c_as_in_a_terminal,
    )


def _interrupt(process: subprocess.Popen[bytes], db: Path, after: int) -> str:
    """SIGINT (Ctrl-C) to a running ``answerx run`` once ``db`` holds ``after`` items;
    returns its stderr."""
    try:
        _wait_for_items(db, after)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130, err.decode()
    return err.decode()


def _resume_hint(stderr: str) -> list[str]:
    """The command the interrupted run printed, as argv words."""
    lines = stderr.splitlines()
    [at] = [n for n, line in enumerate(lines) if line.endswith("resume it with")]
    words = shlex.split(lines[at + 1])
    assert words[:2] == ["answerx", "run"], lines[at + 1]
    return words


# The interrupted runs: 24 questions x 2 approaches, 1 s each, two at a time: about
# 24 s, far longer than it takes to see the first items and stop it, even on a machine
# busy enough to starve the test's polling for several seconds (at 0.25 s a call, such
# a run once finished before its Ctrl-C). The resumed part then runs without the delay.
_SLOW = GoldModel(delay=1.0)
_UNITS = 24 * 2


def _slow_config(fake: FakeProviderServer, tmp_path: Path) -> Path:
    fake.set_default(_SLOW)
    return write_config(
        tmp_path / "run.yaml",
        fake.openai_base_url,
        datasets=[{"sample": "arithmetic"}],
        concurrency=2,
    )


@pytest.mark.slow
def test_kill_9_in_the_middle_then_resume_loses_and_duplicates_nothing(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    path = _slow_config(fake_provider, tmp_path)
    config = load_config(path)
    process = _start_run(path)
    try:
        stored = _wait_for_items(Path(config.output.db), 4)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL

    with ResultStore(config.output.db) as store:
        (run,) = store.list_runs()
        before = {i.key for i in store.items(run.run_id)}
    assert run.status == "running"  # killed: nobody marked it
    assert stored <= len(before) < _UNITS

    fake_provider.set_default(GoldModel())
    summary = run_experiment(config, resume=run.run_id)
    assert summary.skipped == len(before)
    assert summary.skipped + summary.done == summary.total == _UNITS
    with ResultStore(config.output.db) as store:
        items = list(store.items(run.run_id))
        assert store.get_run(run.run_id).status == "finished"
    keys = [i.key for i in items]
    assert len(keys) == len(set(keys)) == _UNITS  # nothing lost, nothing twice
    assert all(i.correct for i in items)


@pytest.mark.slow
def test_ctrl_c_stops_gracefully_and_keeps_the_finished_items(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    path = _slow_config(fake_provider, tmp_path)
    config = load_config(path)
    err = _interrupt(_start_run(path), Path(config.output.db), 3)
    with ResultStore(config.output.db) as store:
        (run,) = store.list_runs()
        assert run.status == "interrupted"
        kept = store.count_items(run.run_id)
    assert 3 <= kept < _UNITS
    assert f"run {run.run_id}: every finished item is stored" in err
    assert _resume_hint(err)[2:] == [str(path), "--no-report", "--quiet", "--resume", run.run_id]

    fake_provider.set_default(GoldModel())
    summary = run_experiment(config, resume="last")
    assert summary.skipped == kept and summary.skipped + summary.done == _UNITS


@pytest.mark.slow
def test_the_printed_resume_command_resumes_that_run_in_its_own_store_and_completes_it(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    # The default store already holds a finished run of the same experiment (same
    # config hash): a resume command without --db would "resume" that one, find
    # nothing to do and exit 0; one without --limit/--set would not find the run.
    path = _slow_config(fake_provider, tmp_path)
    fake_provider.set_default(GoldModel())
    decoy = run_experiment(load_config(path, {"limit": 20, "seed": 7}))
    config = load_config(path)
    fake_provider.set_default(_SLOW)
    other = tmp_path / "elsewhere" / "other.db"
    options = ["--db", str(other), "--limit", "20", "--set", "seed=7"]

    err = _interrupt(_start_run(path, *options, cwd=tmp_path), other, 3)
    words = _resume_hint(err)
    with ResultStore(other) as store:
        (run,) = store.list_runs()
        kept = store.count_items(run.run_id)
    assert run.status == "interrupted" and kept < 20 * 2
    assert words[-2:] == ["--resume", run.run_id]
    for option in ("--db", "--limit", "--set"):
        assert option in words

    fake_provider.set_default(GoldModel())
    resumed = subprocess.run(
        [sys.executable, "-m", "answerx", *words[1:]],  # the printed command, verbatim
        env={**os.environ, **_ENV},
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )

    assert resumed.returncode == 0, resumed.stderr.decode()
    assert f"run {run.run_id} finished: {20 * 2 - kept} answered ({kept} already done)" in (
        resumed.stderr.decode()
    )
    with ResultStore(other) as store:
        (again,) = store.list_runs()
        keys = [i.key for i in store.items(run.run_id)]
    assert again.status == "finished" and len(keys) == len(set(keys)) == 20 * 2
    with ResultStore(config.output.db) as store:  # the default store is untouched
        assert [r.run_id for r in store.list_runs()] == [decoy.run_id]
        assert store.count_items(decoy.run_id) == decoy.total


def test_resume_last_picks_the_latest_run_of_the_config(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(GoldModel())
    config = load_config(write_config(tmp_path / "run.yaml", fake_provider.openai_base_url))
    first = run_experiment(config)
    second = run_experiment(config)

    again = run_experiment(config, resume="last")

    assert first.run_id != second.run_id
    assert again.run_id == second.run_id and again.skipped == again.total


@pytest.mark.slow
def test_a_run_with_a_rate_limit_holds_the_configured_rate(
    fake_provider: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_provider.set_default(GoldModel())
    released = record_returns(monkeypatch, ProviderLimits, "wait_for_rate")
    path = write_config(
        tmp_path / "run.yaml",
        fake_provider.openai_base_url,
        datasets=[{"sample": "arithmetic"}],  # 24 questions x 2 approaches: 48 calls
        concurrency=48,  # unlimited, all 48 would go at once
        rate_limits={"openai": {"requests_per_minute": 1200}},  # 20 a second
    )
    summary = run_experiment(load_config(path))

    assert summary.done == 48 and summary.errors == 0
    # A bucket of one second's worth (20) may go at once; the other 28 follow at 20/s.
    # Checked on the limiter's own events, so a busy machine cannot break it.
    assert len(released) == 48
    assert_within_bucket(released, bucket=20, per_second=20)
    assert_each_request_after_its_release(
        [r.received_at for r in fake_provider.chat_requests], released
    )


def test_a_config_error_during_the_run_stops_every_worker_and_marks_the_run_failed(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(GoldModel(delay=0.05))
    good = {"provider": "openai", "model": "gpt-test", "base_url": fake_provider.openai_base_url}
    bad = {**good, "model": "gpt-broken"}
    config = load_config(
        write_config(tmp_path / "run.yaml", fake_provider.openai_base_url, targets=[good, bad])
    )

    def make_manager(target: TargetSpec, config: ExperimentConfig) -> RunClientManager:
        if target.model == "gpt-broken":
            raise ConfigError("gpt-broken cannot be set up")
        return RunClientManager(target.provider, target.model, base_url=target.base_url)

    async def run_then_wait() -> tuple[int, int]:
        # In a loop that goes on after the run (as in a service), with the caller's store.
        with ResultStore(config.output.db) as store:
            with pytest.raises(ConfigError, match="gpt-broken cannot be set up"):
                await arun_experiment(config, store=store, make_manager=make_manager)
            (run,) = store.list_runs()
            assert run.status == "failed"
            stored = store.count_items(run.run_id)
            # No worker of the run is left in the loop, so nothing can write to the store
            # after the run was marked failed (a structural check, not a sleep).
            left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            await asyncio.sleep(0)  # one turn of the loop, for anything that was left
            return len(left), stored - store.count_items(run.run_id)

    left, written_after_the_end = asyncio.run(run_then_wait())
    assert left == 0 and written_after_the_end == 0


def test_a_two_stage_run_stores_each_items_finish_reason(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    gold = GoldModel()

    def replies(request: RecordedRequest) -> Reply:
        if "A baker fills 7 trays" in request_text(request):  # arith-01: cut at the limit
            return Reply.text("Let me count the trays one by one: 7 trays of", truncated=True)
        return gold(request)

    fake_provider.set_default(replies)
    path = write_config(
        tmp_path / "run.yaml", fake_provider.openai_base_url,
        approaches=["chain_of_thought"], strategies=["two_stage"],
    )  # fmt: skip
    summary = run_experiment(load_config(path))

    with ResultStore(load_config(path).output.db) as store:
        items = {i.item_id: i for i in store.items(summary.run_id)}
    assert summary.done == 4
    assert {i.finish_reason for k, i in items.items() if k != "arithmetic/arith-01"} == {"stop"}
    assert items["arithmetic/arith-01"].finish_reason == "length"


def test_a_run_stores_grading_s_own_verdict_with_what_extraction_found(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    gold = GoldModel()

    def replies(request: RecordedRequest) -> Reply:
        text = request_text(request)
        if not (request.has_tools or request.response_format is not None):  # free text
            for item in gold.items:
                if item.question in text and item.id == "mc-01":  # not one of the options
                    return Reply.text("Thinking it over.\n<answer>K</answer>")
                if item.question in text and item.id == "mc-02":  # cut at the token limit
                    return Reply.text("Weighing the options one by one: the first", truncated=True)
        return gold(request)

    fake_provider.set_default(replies)
    path = write_config(
        tmp_path / "run.yaml", fake_provider.openai_base_url,
        datasets=[{"sample": "multiple_choice", "limit": 3}], approaches=["none"],
        strategies=["two_stage"],
    )  # fmt: skip
    summary = run_experiment(load_config(path))

    with ResultStore(load_config(path).output.db) as store:
        items = {i.item_id.split("/")[1]: i for i in store.items(summary.run_id)}
    said = {k: (i.correct, i.reason, i.how) for k, i in items.items()}
    assert said == {
        "mc-01": (False, "malformed_answer", "letter"),
        "mc-02": (False, "unfinished", "none"),
        "mc-03": (True, "equivalent", "letter"),
    }
    assert (items["mc-01"].valid, items["mc-01"].problem) == (False, "letter K is not an option")
    assert items["mc-02"].unfinished and items["mc-02"].extracted_answer is None
    # What extraction found is stored whole, for scoring to decide from.
    stored = Extraction.model_validate(items["mc-01"].extraction)
    assert (stored.answer, stored.valid, stored.problem) == (
        "K",
        False,
        "letter K is not an option",
    )
    # A later `answerx runs score` judges them the same way.
    rescored = {
        i.item_id.split("/")[1]: (i.correct, i.reason, i.how) for i in score_items(items.values())
    }
    assert rescored == said
