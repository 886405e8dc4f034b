"""Search approaches in experiments: ``index:`` in the config, one retriever per run, resume."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from runner_helpers import request_text, write_config

import answerx.experiments.runner as runner_module
from answerx.errors import ConfigError
from answerx.experiments.config import load_config
from answerx.experiments.render import render_markdown
from answerx.experiments.report import report_from_store
from answerx.experiments.runner import run_experiment
from answerx.experiments.scoring import score_run
from answerx.experiments.store import ResultStore
from answerx.retrieval import Index, bundled_corpus_path, bundled_questions, read_corpus
from answerx.retrieval.fts import build_index_from
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

# Two questions whose supporting passages the question itself retrieves.
QUESTIONS = [q for q in bundled_questions() if q.id in ("q02", "q03")]
# Each passage's first words after its title line (the loops format the title their own way).
PASSAGES = {r.id: r.contents.split("\n", 1)[-1][:50] for r in read_corpus(bundled_corpus_path())}


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-search-runner-key")
    monkeypatch.delenv("ANSWERX_PROMPT_DIR", raising=False)


def searching_model(request: RecordedRequest, wording: str = "{answer}") -> Reply:
    """Searches with the question, and answers with the gold only once the passages that
    support it are in the conversation: a right answer proves the retriever was read.
    ``wording`` puts the answer in a sentence."""
    text = request_text(request)
    for question in QUESTIONS:
        if question.question not in text:
            continue
        if any(PASSAGES[p] in text for p in question.supporting):
            answer = wording.format(answer=question.answer)
            return Reply.text(f"<answer>{answer}</answer>", usage=(30, 5))
        if len(request.messages) == 1 and "<search>" in text:  # search_r1's first turn
            return Reply.text(f"<search>{question.question}</search>", usage=(30, 5))
    return Reply.text("<answer>I cannot tell</answer>", usage=(30, 5))


def _dataset(tmp_path: Path) -> Path:
    path = tmp_path / "multihop.jsonl"
    rows = [{"id": q.id, "question": q.question, "answer": q.answer} for q in QUESTIONS]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _search_config(tmp_path: Path, url: str, **overrides: object) -> Path:
    settings = {"search_r1": {"max_turns": 3}, "iter_retgen": {"rounds": 1}}
    return write_config(
        tmp_path / "search.yaml", url,
        datasets=[{"path": str(_dataset(tmp_path)), "task": "text"}],
        approaches=["search_r1", "iter_retgen"], approach_settings=settings, **overrides,
    )  # fmt: skip


def test_search_approaches_run_on_an_index_file_opened_once_per_run(
    fake_provider: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_path = tmp_path / "corpus.db"
    build_index_from(read_corpus(bundled_corpus_path()), index_path).close()
    opened: list[str] = []

    def counting_open(path: str) -> Index:
        opened.append(path)
        return Index.open(path)

    monkeypatch.setattr(runner_module, "open_index", counting_open)
    fake_provider.set_default(searching_model)
    config = load_config(_search_config(tmp_path, fake_provider.openai_base_url,
                                        index=str(index_path)))  # fmt: skip

    summary = run_experiment(config)

    assert opened == [str(index_path)]  # one retriever for both approaches and both items
    assert (summary.status, summary.done, summary.errors) == ("finished", 4, 0)
    assert (summary.correct, summary.scored) == (4, 4)
    with ResultStore(config.output.db) as store:
        items = list(store.items(summary.run_id))
    assert Counter(i.approach for i in items) == {"search_r1": 2, "iter_retgen": 2}
    search_r1 = next(i for i in items if i.approach == "search_r1" and i.item_id.endswith("q03"))
    assert search_r1.calls == 2 and search_r1.extracted_answer == "Tomasz Reyl"
    assert "<search>" in search_r1.raw_output  # the transcript holds the search turn


def test_the_bundled_index_needs_no_file_and_a_resumed_run_retries_only_what_failed(
    fake_provider: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[Path] = []
    real_bundled_index = runner_module.bundled_index

    def counting_bundled_index(path: Path) -> Index:
        built.append(path)
        return real_bundled_index(path)

    monkeypatch.setattr(runner_module, "bundled_index", counting_bundled_index)
    failing = {QUESTIONS[1].question}

    def flaky(request: RecordedRequest) -> Reply:
        if any(question in request_text(request) for question in failing):
            return Reply.error(400, "bad request for this item")
        return searching_model(request)

    fake_provider.set_default(flaky)
    config = load_config(_search_config(tmp_path, fake_provider.openai_base_url, index="bundled"))
    first = run_experiment(config)
    assert (first.done, first.errors, first.correct) == (4, 2, 2)
    assert len(built) == 1 and not built[0].exists()  # a temporary file, gone after the run

    failing.clear()
    resumed = run_experiment(config, resume=first.run_id)

    assert resumed.run_id == first.run_id
    assert (resumed.skipped, resumed.done, resumed.errors, resumed.correct) == (2, 2, 0, 2)
    assert len(built) == 2


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({}, r"search\.yaml:\d+: approaches: search_r1, iter_retgen search: add index:"),
        ({"index": "missing.db"}, r"search\.yaml:\d+: index: no index at 'missing.db'"),
        ({"index": "bundle"}, r"index: no index at 'bundle' \(did you mean 'bundled'\?"),
        ({"indx": "bundled"}, r"indx: .*did you mean 'index'\?"),
    ],
)
def test_a_search_run_without_a_usable_index_is_refused_at_load_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, overrides: dict[str, str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)  # relative index paths are relative to the working directory
    path = _search_config(tmp_path, "http://127.0.0.1:9", **overrides)

    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_a_search_run_on_aliases_is_scored_as_short_answers_with_em_f1_cover_in_the_report(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    # Each question with its accepted answers (aliases); the model answers in a sentence,
    # which cover match and the verdict accept while exact match does not.
    data = tmp_path / "aliases.jsonl"
    rows = [
        {"id": q.id, "question": q.question, "answers": [q.answer, q.answer.split()[0]]}
        for q in QUESTIONS
    ]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    fake_provider.set_default(lambda request: searching_model(request, "It was {answer}."))
    config = load_config(
        write_config(
            tmp_path / "aliases.yaml", fake_provider.openai_base_url,
            datasets=[{"path": str(data)}], approaches=["search_r1", "iter_retgen"],
            approach_settings={"search_r1": {"max_turns": 3}, "iter_retgen": {"rounds": 1}},
            index="bundled",
        )
    )  # fmt: skip

    summary = run_experiment(config)

    assert (summary.correct, summary.scored) == (4, 4)
    with ResultStore(config.output.db) as store:
        items = list(store.items(summary.run_id))
        report = report_from_store(store, summary.run_id)
        rescored = score_run(store, summary.run_id)
    assert all(i.answers is not None and len(i.answers) == 2 for i in items)
    assert {i.how for i in items} == {"cover_match"}
    assert all((i.verdict_detail or {}).get("matched_gold") == i.gold for i in items)
    # "It was Orrin Glassworks.": EM 0; F1 2 tokens of 4 against 2 (0.667); cover 1.
    assert {(i.em, round(i.f1 or 0, 3), i.cover) for i in items} == {(0.0, 0.667, 1.0)}
    # A re-score gives the very same measures.
    assert [(i.em, i.f1, i.cover, i.how) for i in rescored] == [
        (i.em, i.f1, i.cover, i.how) for i in items
    ]
    assert {g.approach: (g.measured, g.em, round(g.f1 or 0, 3), g.cover, g.accuracy)
            for g in report.groups} == {
        "search_r1": (2, 0.0, 0.667, 1.0, 1.0),
        "iter_retgen": (2, 0.0, 0.667, 1.0, 1.0),
    }  # fmt: skip
    assert "| EM | F1 | cover |" in render_markdown(report)
