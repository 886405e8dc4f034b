"""What the workers of one run share beyond its items, on a real PostgreSQL server (skipped,
saying why, where none can be had): the response cache (a response one worker got costs
another nothing), the judge's budget (its caps hold for the run, not per worker), the
progress (each worker shows the run's total) and ``answerx runs work RUN_ID`` (a worker
started from the configuration stored with the run, no config file).

Workers here are threads of this process, each with its own event loop and store, as
processes on other machines would have: what they share goes through the server.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from runner_helpers import GoldModel, request_text, write_config
from typer.testing import CliRunner

from answerx.callinfo import CallInfo
from answerx.cli import app
from answerx.experiments.config import config_hash, load_config
from answerx.experiments.progress import ExperimentProgress
from answerx.experiments.runner import RunSummary, run_experiment
from answerx.experiments.store import ResultStore
from answerx.experiments.store.responses import ServerResponseCache
from answerx.experiments.store.url import display_url
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

_KEY = "sk-test-shared-workers-key-0123"
_UNITS = 4 * 2  # four arithmetic items x two approaches
JUDGE_MODEL = "judge-model"


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", _KEY)
    monkeypatch.setenv("ANSWERX_HOME", str(tmp_path / "machine-a"))
    monkeypatch.delenv("ANSWERX_PROMPT_DIR", raising=False)
    prices = tmp_path / "prices.yaml"
    prices.write_text(f"openai:\n  {JUDGE_MODEL}: {{input: 1.0, output: 2.0}}\n", "utf-8")
    monkeypatch.setenv("ANSWERX_PRICES", str(prices))


def _config(tmp_path: Path, fake: FakeProviderServer, url: str, **overrides: Any) -> Path:
    settings: dict[str, Any] = {
        "datasets": [{"sample": "arithmetic", "limit": 4}],
        "concurrency": 2,
        "output": {"db": url, "report_dir": str(tmp_path / "reports")},
        **overrides,
    }
    return write_config(tmp_path / "run.yaml", fake.openai_base_url, **settings)


def _together(*workers: Callable[[], RunSummary]) -> list[RunSummary]:
    """Run each worker in a thread of its own, all at once; their summaries in order."""
    results: list[Any] = [None] * len(workers)

    def start(at: int) -> None:
        try:
            results[at] = workers[at]()
        except BaseException as exc:  # handed to the test below
            results[at] = exc

    threads = [threading.Thread(target=start, args=(i,)) for i in range(len(workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results


def test_a_response_one_worker_got_is_reused_by_a_worker_on_another_machine(
    fake_provider: FakeProviderServer,
    tmp_path: Path,
    postgres_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_provider.set_default(GoldModel())
    config = load_config(_config(tmp_path, fake_provider, postgres_url))
    first = run_experiment(config, join=True)
    asked = len(fake_provider.chat_requests)
    assert asked == _UNITS and first.cache_hits == 0

    # Another machine (its own $ANSWERX_HOME) works on a new run of the same config.
    monkeypatch.setenv("ANSWERX_HOME", str(tmp_path / "machine-b"))
    second = run_experiment(config, join=True)

    assert second.run_id != first.run_id and second.done == _UNITS
    assert len(fake_provider.chat_requests) == asked  # not one call more
    assert second.cache_hits == _UNITS
    assert len(ServerResponseCache(postgres_url)) == _UNITS  # kept in the server
    assert not list(tmp_path.glob("machine-*/cache.db"))  # not on either machine


def _hedging_model(request: RecordedRequest) -> Reply:
    """Answers every question unsure of itself (so each goes to the judge); as the judge,
    rules each reply correct."""
    if request.model == JUDGE_MODEL:
        ruling = {"stated_answer": "Shakespeare", "reason": "It names Shakespeare.",
                  "verdict": "correct", "confidence": 0.9}  # fmt: skip
        return Reply.tool_call(ruling, usage=(300, 40))
    assert "Hamlet" in request_text(request)
    answer = {"full_reasoning_text": "Recalled it.", "confidence": 0.9,
              "answer_value": "I'm not sure, perhaps Shakespeare."}  # fmt: skip
    return Reply.tool_call(answer, usage=(40, 10), delay=0.02)


def _judged_config(
    tmp_path: Path, fake: FakeProviderServer, url: str, *, judged: bool = True, **judge: Any
) -> Path:
    data = tmp_path / "qa.jsonl"
    rows = [
        {"id": f"q{n}", "question": f"Who wrote the play Hamlet? (copy {n})",
         "answers": ["William Shakespeare", "Shakespeare"]}
        for n in range(12)
    ]  # fmt: skip
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    settings = {"provider": "openai", "model": JUDGE_MODEL, "base_url": fake.openai_base_url}
    return _config(
        tmp_path, fake, url, datasets=[{"path": str(data)}], approaches=["none"],
        **({"judge": {**settings, **judge}} if judged else {}),
    )  # fmt: skip


def _judge_requests(fake: FakeProviderServer) -> list[RecordedRequest]:
    return [r for r in fake.chat_requests if r.model == JUDGE_MODEL]


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store the workers share: one SQLite file, or a database on the server."""
    if request.param == "sqlite":
        return str(tmp_path / "team.db")
    return str(request.getfixturevalue("postgres_url"))


def test_three_workers_make_no_more_judge_calls_than_the_runs_budget_between_them(
    fake_provider: FakeProviderServer, tmp_path: Path, shared_store: str
) -> None:
    fake_provider.set_default(_hedging_model)
    config = load_config(_judged_config(tmp_path, fake_provider, shared_store, max_calls=4))

    summaries = _together(*[lambda: run_experiment(config, join=True)] * 3)

    # Calls are counted in the store before they are sent: none in flight passes the cap.
    assert len(_judge_requests(fake_provider)) == 4
    assert {s.run_id for s in summaries} == {summaries[0].run_id}
    assert sum(s.done for s in summaries) == 12
    with ResultStore.open(shared_store, "read") as store:
        items = list(store.items(summaries[0].run_id))
        assert store.budget_spent(summaries[0].run_id, "judge")[0] == 4
    assert sum(i.how == "llm_judge" for i in items) == 4  # the other 8 were not asked
    stopped = [s.judge_stopped for s in summaries if s.judge_stopped]
    assert stopped and all("budget of 4 calls is spent (all workers)" in s for s in stopped)


def test_the_runs_cost_cap_holds_across_workers_and_counts_every_workers_spend(
    fake_provider: FakeProviderServer, tmp_path: Path, postgres_url: str
) -> None:
    fake_provider.set_default(_hedging_model)
    # A ruling costs 300 x $1 + 40 x $2 per million tokens: $0.00038; the cap allows 3.
    config = load_config(_judged_config(tmp_path, fake_provider, postgres_url, max_cost_usd=0.001))

    summaries = _together(*[lambda: run_experiment(config, join=True)] * 2)

    asked = len(_judge_requests(fake_provider))
    # A call is sent while the costs known so far are under the cap: until two calls'
    # costs are in ($0.00076), with at most every item in flight (two workers x
    # concurrency 2) being judged; the third known cost ($0.00114) stops it.
    assert 3 <= asked <= 2 + 2 * 2
    with ResultStore.open(postgres_url, "read") as store:
        calls, cost = store.budget_spent(summaries[0].run_id, "judge")
    assert calls == asked and cost == pytest.approx(asked * 0.00038)


def test_each_workers_progress_shows_the_whole_runs_answers(
    fake_provider: FakeProviderServer, tmp_path: Path, postgres_url: str
) -> None:
    fake_provider.set_default(GoldModel(delay=0.05))
    config = load_config(_config(tmp_path, fake_provider, postgres_url))
    seen: list[list[ExperimentProgress]] = [[], []]

    def worker(at: int) -> Callable[[], RunSummary]:
        return lambda: run_experiment(config, join=True, on_progress=seen[at].append)

    summaries = _together(worker(0), worker(1))

    assert sum(s.done for s in summaries) == _UNITS
    for summary, progress in zip(summaries, seen, strict=True):
        assert 0 < summary.done < _UNITS  # each did a share ...
        last = progress[-1]
        assert (last.done, last.total) == (summary.done, _UNITS)
        assert last.finished == _UNITS  # ... and shows the run's answers, all of them


def test_runs_work_joins_a_run_by_its_id_from_the_configuration_stored_with_it(
    fake_provider: FakeProviderServer, tmp_path: Path, postgres_url: str
) -> None:
    fake_provider.set_default(GoldModel())
    config = load_config(_config(tmp_path, fake_provider, postgres_url))
    with ResultStore.open(postgres_url, "write") as store:  # a run nobody has worked on
        run = store.join_run(config.name, config.model_dump(mode="json"), config_hash(config))
    (tmp_path / "run.yaml").unlink()  # no config file where the worker runs

    result = CliRunner().invoke(
        app, ["runs", "work", run.run_id[:12], "--db", postgres_url, "-q", "--no-report"]
    )

    assert result.exit_code == 0, result.output
    assert f"run {run.run_id} finished: {_UNITS} answered" in result.output
    with ResultStore.open(postgres_url, "read") as store:
        assert store.get_run(run.run_id).status == "finished"
        assert store.count_items(run.run_id, correct=True) == _UNITS


def test_runs_work_refuses_a_run_whose_stored_configuration_is_not_its_own(
    fake_provider: FakeProviderServer, tmp_path: Path, postgres_url: str
) -> None:
    config = load_config(_config(tmp_path, fake_provider, postgres_url))
    with ResultStore.open(postgres_url, "write") as store:
        run = store.start_run(config.name, config.model_dump(mode="json"), "0" * 64)

    result = CliRunner().invoke(app, ["runs", "work", run.run_id, "--db", postgres_url, "-q"])

    assert result.exit_code != 0
    assert "does not give its config hash" in result.output
    assert not fake_provider.chat_requests


def test_the_servers_cache_stores_no_piece_of_a_key_as_the_file_cache(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-proj-4fJ9xQ2mW6yZ0aK5hD2gU9iO4pS7tQ1vB8nL3cR"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with ResultStore.open(postgres_url, "write"):
        pass  # the tables, made by the store's migrations
    cache = ServerResponseCache(postgres_url)
    info = CallInfo(provider="openai", model="gpt-test", mode="tools", attempts=1)

    cache.put("k1", f"Header was: Bearer {key}. The answer is 4.", info)

    import psycopg  # the server's own view of the table (the postgres extra, as the store)

    entry = cache.get("k1")
    assert entry is not None and entry.payload == "Header was: Bearer ***. The answer is 4."
    assert cache.get("k2") is None
    with psycopg.connect(postgres_url) as db:
        stored = db.execute("SELECT payload || info FROM responses").fetchone()
    assert stored is not None and key[:12] not in stored[0]


def test_runs_work_never_shows_the_stores_password(
    fake_provider: FakeProviderServer, tmp_path: Path, postgres_url: str
) -> None:
    fake_provider.set_default(GoldModel())
    config = load_config(_config(tmp_path, fake_provider, postgres_url))
    with ResultStore.open(postgres_url, "write") as store:
        run = store.join_run(config.name, config.model_dump(mode="json"), config_hash(config))
    password = urlsplit(postgres_url).password
    assert password

    result = CliRunner().invoke(
        app, ["runs", "work", run.run_id, "--db", postgres_url, "--no-report"]
    )

    assert result.exit_code == 0, result.output
    assert display_url(postgres_url) in result.output  # the bar and the summary name it
    assert password not in result.output


def test_a_joined_run_never_shows_the_stores_password_either(
    fake_provider: FakeProviderServer, tmp_path: Path, postgres_url: str
) -> None:
    fake_provider.set_default(GoldModel())
    path = _config(tmp_path, fake_provider, postgres_url)
    password = urlsplit(postgres_url).password
    assert password

    result = CliRunner().invoke(app, ["run", str(path), "--join", "--no-report"])

    assert result.exit_code == 0, result.output
    assert display_url(postgres_url) in result.output
    assert password not in result.output


def test_runs_score_judge_on_a_servers_store_keeps_its_rulings_in_the_server(
    fake_provider: FakeProviderServer,
    tmp_path: Path,
    postgres_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_provider.set_default(_hedging_model)
    # A run without a judge: its twelve unsure items are left to `runs score --judge`.
    config = load_config(_judged_config(tmp_path, fake_provider, postgres_url, judged=False))
    run_id = run_experiment(config, join=True).run_id
    monkeypatch.setenv("OPENAI_BASE_URL", fake_provider.openai_base_url)  # the judge's
    (tmp_path / "machine-a").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path / "machine-a")  # where a file-beside-the-store cache would go
    cached = len(ServerResponseCache(postgres_url))

    result = CliRunner().invoke(
        app, ["runs", "score", run_id, "--judge", f"openai/{JUDGE_MODEL}", "--db", postgres_url]
    )

    assert result.exit_code == 0, result.output
    assert len(_judge_requests(fake_provider)) == 12, result.output
    assert len(ServerResponseCache(postgres_url)) == cached + 12  # in the server
    assert not list((tmp_path / "machine-a").rglob("cache.db"))  # not beside a "path"
