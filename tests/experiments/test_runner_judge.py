"""An experiment run with an LLM judge (``judge:``), over real HTTP to the fake provider server.

The "model" answers four open-domain questions with several accepted answers: one
plainly right, one hedged ("I'm not sure, perhaps …"), one offering two candidates,
one plainly wrong. The rules are unsure of the hedged and the two-candidate replies
only, so only those reach the judge (a second model name on the same fake server).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from runner_helpers import request_text, write_config
from typer.testing import CliRunner

from answerx.cli import app
from answerx.errors import AnswerxError
from answerx.experiments.config import load_config
from answerx.experiments.render import render_markdown
from answerx.experiments.report import report_from_store
from answerx.experiments.runner import run_experiment
from answerx.experiments.scoring import score_run
from answerx.experiments.store import ResultStore
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

JUDGE_MODEL = "judge-model"
QA: list[dict[str, Any]] = [
    {"id": "paris", "question": "What is the capital of France?",
     "answers": ["Paris", "City of Light"], "reply": "Paris"},
    {"id": "hamlet", "question": "Who wrote the play Hamlet?",
     "answers": ["William Shakespeare", "Shakespeare"],
     "reply": "I'm not sure, perhaps Shakespeare."},
    {"id": "planet", "question": "Which planet of the solar system is the largest?",
     "answers": ["Jupiter"], "reply": "Either Jupiter or Saturn."},
    {"id": "symbol", "question": "What is the chemical symbol for gold?",
     "answers": ["Au"], "reply": "Ag"},
]  # fmt: skip
RULINGS = {
    "hamlet": {"stated_answer": "Shakespeare", "reason": "It names Shakespeare.",
               "verdict": "correct", "confidence": 0.9},
    "planet": {"stated_answer": "", "reason": "It offers two planets.",
               "verdict": "no_answer", "confidence": 0.8},
}  # fmt: skip
UNSURE = {"hamlet", "planet"}


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge-runner-key")
    monkeypatch.delenv("ANSWERX_PROMPT_DIR", raising=False)
    prices = tmp_path / "prices.yaml"
    prices.write_text(f"openai:\n  {JUDGE_MODEL}: {{input: 1.0, output: 2.0}}\n", "utf-8")
    monkeypatch.setenv("ANSWERX_PRICES", str(prices))


def _item_of(text: str) -> str:
    return str(next(row["id"] for row in QA if row["question"] in text))


def qa_model(judge: Reply | None = None) -> Callable[[RecordedRequest], Reply]:
    """Answers each question with its reply; the judge model rules by ``RULINGS`` (or
    answers every judge question with ``judge``)."""

    def respond(request: RecordedRequest) -> Reply:
        item = _item_of(request_text(request))
        if request.model == JUDGE_MODEL:
            return judge or Reply.tool_call(RULINGS[item], usage=(300, 40))
        row = next(r for r in QA if r["id"] == item)
        answer = {"full_reasoning_text": "Recalled it.", "answer_value": row["reply"],
                  "confidence": 0.9}  # fmt: skip
        return Reply.tool_call(answer, usage=(40, 10))

    return respond


def _config(tmp_path: Path, url: str, *, judged: bool = True, **judge: Any) -> Path:
    data = tmp_path / "qa.jsonl"
    rows = [{k: v for k, v in row.items() if k != "reply"} for row in QA]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    settings = {"provider": "openai", "model": JUDGE_MODEL, "base_url": url, **judge}
    return write_config(
        tmp_path / "judged.yaml", url, datasets=[{"path": str(data)}], approaches=["none"],
        **({"judge": settings} if judged else {}),
    )  # fmt: skip


def _judged_run(fake: FakeProviderServer, tmp_path: Path, **judge: Any) -> tuple[Any, Any]:
    """A run of the four questions with a judge: its config and summary."""
    fake.set_default(qa_model())
    config = load_config(_config(tmp_path, fake.openai_base_url, **judge))
    return config, run_experiment(config)


def _judge_requests(fake: FakeProviderServer) -> list[RecordedRequest]:
    return [r for r in fake.chat_requests if r.model == JUDGE_MODEL]


def _items(db: Path, run_id: str) -> dict[str, Any]:
    with ResultStore(db) as store:
        return {i.item_id.rsplit("/", 1)[1]: i for i in store.items(run_id)}


def test_only_the_items_the_rules_are_unsure_of_go_to_the_judge_and_its_reason_is_stored(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    config, summary = _judged_run(fake_provider, tmp_path)

    asked = _judge_requests(fake_provider)
    assert sorted(_item_of(r.text) for r in asked) == sorted(UNSURE)
    hamlet = next(r for r in asked if _item_of(r.text) == "hamlet")
    for shown in ("Who wrote the play Hamlet?", "- William Shakespeare", "perhaps Shakespeare"):
        assert shown in hamlet.text  # the question, every accepted answer, the reply
    items = _items(config.output.db, summary.run_id)
    judged = items["hamlet"]
    assert (judged.correct, judged.reason, judged.how) == (True, "equivalent", "llm_judge")
    detail = judged.verdict_detail or {}
    assert detail["doubt"] == "guard_fired"
    assert detail["judge"]["reason"] == "It names Shakespeare."
    assert detail["judge"]["rules_how"] == "hedged_answer"
    assert (judged.em, judged.cover) == (0.0, 1.0) and judged.f1 == pytest.approx(1 / 3)
    planet = items["planet"]
    assert (planet.correct, planet.reason, planet.how) == (False, "no_answer", "llm_judge")
    assert items["paris"].how == "exact_match" and items["paris"].verdict_detail == {
        "matched_gold": "Paris"
    }
    assert items["symbol"].how == "no_match" and items["symbol"].verdict_detail is None
    # The judge's calls are its own: neither the items' nor the run's usage.
    assert all((i.calls, i.input_tokens, i.output_tokens) == (1, 40, 10) for i in items.values())
    assert (summary.input_tokens, summary.output_tokens) == (160, 40)
    totals = summary.judge
    assert totals is not None
    assert (totals.items, totals.doubtful, totals.asked, totals.judged) == (4, 2, 2, 2)
    assert (totals.calls, totals.input_tokens, totals.output_tokens) == (2, 600, 80)
    assert totals.cost_usd == pytest.approx((600 * 1.0 + 80 * 2.0) / 1e6)
    assert summary.judge_stopped is None and (summary.correct, summary.scored) == (2, 4)


def test_the_report_shows_the_judge_apart_and_em_f1_cover_beside_accuracy(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    config, summary = _judged_run(fake_provider, tmp_path)

    with ResultStore(config.output.db) as store:
        report = report_from_store(store, summary.run_id)

    (group,) = report.groups
    assert (group.correct, group.scored, group.measured) == (2, 4, 4)
    assert group.em == pytest.approx(0.25) and group.cover == pytest.approx(0.75)
    assert group.judge is not None and (group.judge.asked, group.judge.overturned) == (2, 1)
    run_judge = report.runs[0].judge
    assert run_judge is not None and run_judge.calls == 2
    assert report.runs[0].input_tokens == 160  # the approaches' usage only
    assert any("the LLM judge made 2 call(s)" in note for note in report.notes)
    markdown = render_markdown(report)
    assert "| EM | F1 | cover |" in markdown and "## LLM judge" in markdown


def test_a_second_run_of_the_same_config_asks_the_judge_nothing(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    config, first = _judged_run(fake_provider, tmp_path)
    requests = len(fake_provider.chat_requests)

    second = run_experiment(config)

    assert len(fake_provider.chat_requests) == requests  # every call from the response cache
    assert second.run_id != first.run_id and second.cost_usd == 0.0
    totals = second.judge
    assert totals is not None
    assert (totals.asked, totals.judged, totals.cached, totals.calls) == (2, 2, 2, 0)
    assert totals.cost_usd == 0.0
    again = _items(config.output.db, second.run_id)
    before = _items(config.output.db, first.run_id)
    assert {k: (v.correct, v.how) for k, v in again.items()} == {
        k: (v.correct, v.how) for k, v in before.items()
    }


def test_the_judge_stops_at_its_budget_and_the_run_says_so(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    config, summary = _judged_run(fake_provider, tmp_path, max_calls=1)

    assert len(_judge_requests(fake_provider)) == 1
    assert summary.judge_stopped == "the judge's budget of 1 calls is spent"
    items = _items(config.output.db, summary.run_id)
    unsure = [items[name] for name in sorted(UNSURE)]
    (skipped,) = [i for i in unsure if i.how != "llm_judge"]
    ruling = (skipped.verdict_detail or {})["judge"]
    assert ruling["verdict"] is None and ruling["reason"].startswith("not asked: the judge's")
    assert skipped.correct is False and skipped.how in ("hedged_answer", "several_candidates")
    with ResultStore(config.output.db) as store:
        notes = report_from_store(store, summary.run_id).notes
    assert any("was not asked about 1 item(s)" in note for note in notes)


def test_a_failed_judge_call_leaves_the_rules_verdict_and_the_item_without_error(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(qa_model(judge=Reply.unauthorized()))
    config = load_config(_config(tmp_path, fake_provider.openai_base_url))

    summary = run_experiment(config)

    assert (summary.status, summary.errors) == ("finished", 0)
    items = _items(config.output.db, summary.run_id)
    assert (items["hamlet"].correct, items["hamlet"].how) == (False, "hedged_answer")
    assert (items["planet"].correct, items["planet"].how) == (False, "several_candidates")
    for name in UNSURE:
        ruling = (items[name].verdict_detail or {})["judge"]
        assert ruling["verdict"] is None and ruling["reason"].startswith("judge failed")
        assert "sk-test-judge-runner-key" not in json.dumps(items[name].verdict_detail)
    assert summary.judge is not None and summary.judge.not_judged == 2


def test_a_resumed_run_counts_its_earlier_judge_calls_against_the_budget(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    # The first session answers the hedged item only (the rest fail); the judge spends
    # its one call there, so the resumed session may not ask about the other one.
    failing = {"planet", "paris", "symbol"}
    answer = qa_model()

    def flaky(request: RecordedRequest) -> Reply:
        if request.model != JUDGE_MODEL and _item_of(request_text(request)) in failing:
            return Reply.error(400, "bad request for this item")
        return answer(request)

    fake_provider.set_default(flaky)
    config = load_config(_config(tmp_path, fake_provider.openai_base_url, max_calls=1))
    first = run_experiment(config)
    assert first.errors == 3 and len(_judge_requests(fake_provider)) == 1

    failing.clear()
    resumed = run_experiment(config, resume=first.run_id)

    assert len(_judge_requests(fake_provider)) == 1
    assert resumed.judge_stopped == "the judge's budget of 1 calls is spent"
    items = _items(config.output.db, first.run_id)
    assert items["hamlet"].how == "llm_judge" and items["planet"].how == "several_candidates"


def test_a_rescore_keeps_the_judges_rulings_without_calling_and_runs_score_judge_asks_the_rest(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    config, summary = _judged_run(fake_provider, tmp_path, max_calls=1)
    stored = _items(config.output.db, summary.run_id)
    requests = len(fake_provider.chat_requests)

    with ResultStore(config.output.db) as store:
        rescored = {i.item_id.rsplit("/", 1)[1]: i for i in score_run(store, summary.run_id)}

    assert len(fake_provider.chat_requests) == requests  # no model called
    fields = ("correct", "reason", "how", "em", "f1", "cover", "verdict_detail")
    for name, item in stored.items():
        assert [getattr(rescored[name], f) for f in fields] == [getattr(item, f) for f in fields]

    result = CliRunner().invoke(
        app,
        ["runs", "score", summary.run_id, "--db", str(config.output.db),
         "--judge", f"openai/{JUDGE_MODEL}"],
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    # Only the item the run's budget left unasked is asked now; the other keeps its ruling.
    assert len(fake_provider.chat_requests) == requests + 1
    assert "--judge openai/judge-model now: 1 asked" in result.output
    after = _items(config.output.db, summary.run_id)
    assert {after[name].how for name in UNSURE} == {"llm_judge"}


def test_answerx_run_prints_the_judges_line_and_why_it_stopped(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(qa_model())
    path = _config(tmp_path, fake_provider.openai_base_url, max_calls=1)

    result = CliRunner().invoke(app, ["run", str(path), "-q", "--no-report"])

    assert result.exit_code == 0, result.output
    # asked: the questions the budget allowed, not those it refused
    assert "judge: 2 of 4 items unsure, 1 asked, 1 judged" in result.stderr
    assert "the judge stopped asking: the judge's budget of 1 calls is spent" in result.stderr


def test_an_export_keeps_the_aliases_and_measures_typed(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    config, summary = _judged_run(fake_provider, tmp_path)

    with ResultStore(config.output.db) as store:
        store.export(summary.run_id, tmp_path / "items.parquet")
    table = pq.read_table(tmp_path / "items.parquet")

    rows = {row["item_id"].rsplit("/", 1)[1]: row for row in table.to_pylist()}
    assert rows["paris"]["answers"] == ["Paris", "City of Light"]
    assert (rows["paris"]["em"], rows["hamlet"]["cover"]) == (1.0, 1.0)
    assert json.loads(rows["hamlet"]["verdict_detail"])["judge"]["verdict"] == "correct"


def test_without_a_judge_the_report_says_how_many_items_the_rules_were_unsure_of(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(qa_model())
    config = load_config(_config(tmp_path, fake_provider.openai_base_url, judged=False))

    summary = run_experiment(config)

    assert summary.judge is None and not _judge_requests(fake_provider)
    with ResultStore(config.output.db) as store:
        report = report_from_store(store, summary.run_id)
    assert any("the rules were unsure of 2 item(s) and no LLM judge" in n for n in report.notes)
    assert "## LLM judge" not in render_markdown(report)  # no table of zeros
    assert report.groups[0].judge is not None and report.groups[0].judge.doubtful == 2


@pytest.mark.parametrize(
    ("judge", "error"),
    [
        ({"provider": "anthropic", "model": "claude-test"}, "ANTHROPIC_API_KEY"),
        ({"max_cost_usd": 0.5, "model": "unpriced-model"}, "needs the price of openai/unpriced"),
    ],
)
def test_a_judge_that_cannot_work_stops_the_run_before_anything_is_stored(
    fake_provider: FakeProviderServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    judge: dict[str, Any],
    error: str,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    fake_provider.set_default(qa_model())
    config = load_config(_config(tmp_path, fake_provider.openai_base_url, **judge))

    with pytest.raises(AnswerxError, match=error):
        run_experiment(config)

    assert not fake_provider.chat_requests
    with ResultStore(config.output.db) as store:
        assert store.list_runs() == []
