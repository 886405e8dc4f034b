"""Every command on runs takes a PostgreSQL server's URL as its store, and never shows its
password: ``answerx run --db postgresql://…``, ``ANSWERX_DB``, ``runs list/show/report/
export/score``, and the service's ``/runs/`` pages (a real server: skipped, saying why,
where none can be had)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner, Result

from answerx.cli import app
from answerx.experiments.store import ResultStore
from answerx.service.app import create_app
from answerx.service.settings import ServiceSettings
from answerx.testing import FakeProviderServer
from experiments.runner_helpers import GoldModel, write_config

runner = CliRunner()


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-cli-server-store-0123456789")
    for name in ("ANSWERX_PROMPT_DIR", "ANSWERX_PRICES", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def invoke(*args: str | Path) -> Result:
    return runner.invoke(app, [str(a) for a in args])


def _password(url: str) -> str:
    return url.split("//", 1)[1].split("@", 1)[0].split(":", 1)[1]


@pytest.fixture
def stored(fake_provider: FakeProviderServer, tmp_path: Path, postgres_url: str) -> str:
    """A finished run (8 answers, arith-02 wrong) on the server; its id."""
    fake_provider.set_default(GoldModel(wrong=frozenset({"arith-02"})))
    config = write_config(tmp_path / "run.yaml", fake_provider.openai_base_url)
    result = invoke("run", config, "-q", "--no-report", "--db", postgres_url)
    assert result.exit_code == 0, result.output
    assert _password(postgres_url) not in result.output
    match = re.search(r"run (\d{8}-\d{6}-[0-9a-f]{4}) finished", result.stderr)
    assert match, result.stderr
    assert "stored in postgresql://answerx@127.0.0.1" in result.stderr
    return match.group(1)


def test_a_run_on_the_server_is_listed_shown_reported_and_exported_from_it(
    stored: str, postgres_url: str, tmp_path: Path
) -> None:
    listed = invoke("runs", "list", "--db", postgres_url)
    shown = invoke("runs", "show", stored, "--db", postgres_url)
    reported = invoke("runs", "report", stored, "--db", postgres_url, "--format", "json")
    exported = invoke("runs", "export", stored, tmp_path / "items.jsonl", "--db", postgres_url)
    rescored = invoke("runs", "score", stored, "--db", postgres_url)
    results = (listed, shown, reported, exported, rescored)
    assert [r.exit_code for r in results] == [0] * 5, [r.output for r in results]
    assert stored in listed.stdout and "8 items stored" in shown.stderr
    assert len((tmp_path / "items.jsonl").read_text().splitlines()) == 8
    for result in results:
        assert _password(postgres_url) not in result.output
    # The run's stored configuration names its store without the password.
    assert json.loads(shown.stdout)["config"]["output"]["db"] == (
        postgres_url.replace(f":{_password(postgres_url)}@", "@")
    )
    with ResultStore.open(postgres_url, "read") as store:
        right = [i.correct for i in store.items(stored)]
    assert right.count(True) == 6


def test_answerx_db_names_the_store_when_db_is_not_given(
    stored: str, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANSWERX_DB", postgres_url)
    listed = invoke("runs", "list")
    assert listed.exit_code == 0, listed.output
    assert stored in listed.stdout


def test_a_server_that_refuses_the_password_exits_4_without_showing_it(
    postgres_url: str,
) -> None:
    wrong = postgres_url.replace(f":{_password(postgres_url)}@", ":not-the-password-at-all@")
    result = invoke("runs", "list", "--db", wrong)
    assert result.exit_code == 4, result.output
    assert "not-the-password-at-all" not in result.output
    assert "postgresql://answerx@127.0.0.1" in result.output


def test_the_service_shows_the_runs_of_a_server_store_under_runs(
    stored: str, postgres_url: str
) -> None:
    settings = ServiceSettings(runs_db=postgres_url)
    assert settings.runs_db == postgres_url  # a URL stays a URL
    with TestClient(create_app(settings), "http://localhost") as service:
        assert stored in service.get("/runs/").text
        items = service.get(f"/runs/{stored}/items?correct=false")
        assert items.status_code == 200 and "arith-02" in items.text


def test_the_viewers_comparison_charts_and_search_read_a_server_store(
    stored: str, postgres_url: str
) -> None:
    # The arms page, the charts and the search snippets write their own SQL: it must
    # run on PostgreSQL as on SQLite (no sum of booleans, no scalar min/max, no instr).
    arms = [
        f"{stored}|{approach}|structured|openai|gpt-test"
        for approach in ("none", "chain_of_thought")
    ]
    query = "&".join(f"arm={arm.replace('|', '%7C')}" for arm in arms)
    with TestClient(
        create_app(ServiceSettings(runs_db=postgres_url)), "http://localhost"
    ) as service:
        charts = service.get(f"/runs/{stored}/charts")
        searched = service.get(f"/runs/{stored}/items?q=1&in=extracted_answer")
        compared = service.get(f"/runs/arms?{query}")
    assert [charts.status_code, searched.status_code, compared.status_code] == [200] * 3
    assert "<svg" in charts.text
    assert '<mark class="hit">' in searched.text
    assert "McNemar" in compared.text or "p =" in compared.text, compared.text[:2000]


def test_the_viewer_counts_a_server_runs_filters_once_until_the_store_changes(
    stored: str, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The filter choices are a count over all the run's items: kept while no write
    # starts or ends on the server (reads leave its snapshot as it was), counted again
    # after a commit.
    import answerx.viewer.pages as pages

    counted: list[str] = []
    facets = pages._facets

    def counting(db: ResultStore, run_id: str) -> Any:
        counted.append(run_id)
        return facets(db, run_id)

    monkeypatch.setattr(pages, "_facets", counting)
    with TestClient(
        create_app(ServiceSettings(runs_db=postgres_url)), "http://localhost"
    ) as service:
        for _ in range(3):
            assert service.get(f"/runs/{stored}/items").status_code == 200
        assert counted == [stored]
        with ResultStore.open(postgres_url, "existing") as store:
            wrong = [i for i in store.items(stored, correct=False)]
            assert {i.item_id for i in wrong} == {"arithmetic/arith-02"}
            store.update_verdicts(stored, [i.model_copy(update={"correct": True}) for i in wrong])
        page = service.get(f"/runs/{stored}/items?correct=false")
    assert counted == [stored, stored]
    assert page.status_code == 200 and "arith-02" not in page.text
