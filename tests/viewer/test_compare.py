"""Arms compared question by question across runs and models: the paired tests, the
lists of questions where they differ, and each question's two outputs side by side with
both answers marked and a word diff."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from big_run import OTHER_MISSES, OTHER_MODEL, other_model_run
from fastapi.testclient import TestClient
from page_helpers import links, text

from answerx.experiments.compare import (
    SHOWS,
    arm_text,
    compare_arms,
    matching_pairs,
    pair_page,
    read_arm,
)
from answerx.experiments.store import ResultStore
from answerx.experiments.store.browse import Arm
from answerx.viewer import create_viewer_app


@pytest.fixture(scope="module")
def runs(demo: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """(store, demo run, rival run): the demo again, answered by another model."""
    db = tmp_path_factory.mktemp("compare") / "answerx.db"
    with ResultStore(demo[0], read_only=True) as source, ResultStore(db) as copy:
        copy.create_run(source.get_run(demo[1]))
        copy.add_items(source.items(demo[1]))
        rival = other_model_run(copy, demo[1])
    return db, demo[1], rival


@pytest.fixture
def viewer(runs: tuple[Path, str, str]) -> Iterator[TestClient]:
    with TestClient(create_viewer_app(runs[0])) as client:
        yield client


def _arm(run_id: str, approach: str, model: str) -> Arm:
    return Arm(
        run_id=run_id, approach=approach, strategy="two_stage", provider="openai", model=model
    )


def _arms_address(*arms: Arm, **more: str) -> str:
    params = "&".join(f"arm={arm_text(a).replace('|', '%7C')}" for a in arms)
    page = "/runs/arms/question?" if "at" in more else "/runs/arms?"
    return page + params + "".join(f"&{k}={v}" for k, v in more.items())


def test_an_arm_reads_back_from_its_address_value() -> None:
    arm = _arm("r1", "none", "meta/llama:8b")
    assert read_arm(arm_text(arm)) == arm
    with pytest.raises(ValueError, match="give RUN"):
        read_arm("r1|none")


def test_two_runs_of_different_models_are_compared_across_models(
    viewer: TestClient, runs: tuple[Path, str, str]
) -> None:
    page = viewer.get(f"/runs/compare?run={runs[1]}&run={runs[2]}").text
    across = text(page, "across")
    # none of gpt-demo against none of gpt-rival: 10 pairs; demo 7 right, rival 6 right
    # (two misses, arith-02 fixed); only demo right on the two misses, only rival on arith-02.
    assert f"none/two_stage · openai/gpt-demo none/two_stage · openai/{OTHER_MODEL} 10 7 6 2 1" in (
        across
    )
    walked = [href for label, href in links(page, "across") if label == "item by item"]
    assert len(walked) == 3  # each approach against the other model's same approach


def test_the_arms_page_tests_every_pair_and_lists_where_they_differ(
    viewer: TestClient, runs: tuple[Path, str, str]
) -> None:
    a, b = _arm(runs[1], "none", "gpt-demo"), _arm(runs[2], "none", OTHER_MODEL)
    c = _arm(runs[1], "reflection", "gpt-demo")
    page = viewer.get(_arms_address(a, b, c, show="a_only"))
    assert page.status_code == 200, page.text
    tests = text(page.text, "paired-tests")
    assert "A B 10 7 6 2 1 -10.0 pts 1" in tests and "A C 10 7 9 0 2 +20.0 pts 0.5" in tests
    assert text(page.text, "showing") == "A right, B wrong"
    listed = [label for label, href in links(page.text, "pairs") if "/arms/question" in href]
    assert sorted(listed) == sorted(OTHER_MISSES)


def test_a_question_shows_both_outputs_marked_and_their_word_diff(
    viewer: TestClient, runs: tuple[Path, str, str]
) -> None:
    a, b = _arm(runs[1], "none", "gpt-demo"), _arm(runs[2], "none", OTHER_MODEL)
    first = viewer.get(_arms_address(a, b, show="a_only", at="1")).text
    assert text(first, "position") == "1 of 2"
    assert '<mark class="answer" id="answer-a"' in first and 'id="answer-b"' in first
    diff = text(first, "word-diff")
    assert "999" in diff and "<del>" in first and "<ins>999</ins>" in first
    following = [href for label, href in links(first, "walk") if "next" in label]
    second = viewer.get(following[0]).text
    assert text(second, "position") == "2 of 2"
    assert not [label for label, _ in links(second, "walk") if "next" in label]


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("arm=x", "arm: pick two to 6 arms"),
        ("arm=a%7Cb&arm=c", "arm='a|b': give RUN"),
        ("show=sideways", "show='sideways'"),
        ("page=%C2%B2", "page="),
        ("at=0", "unknown parameter 'at'"),
        ("colour=red", "unknown parameter 'colour'"),
    ],
)
def test_an_arms_address_it_cannot_read_is_a_400_naming_the_parameter(
    viewer: TestClient, runs: tuple[Path, str, str], query: str, said: str
) -> None:
    a, b = _arm(runs[1], "none", "gpt-demo"), _arm(runs[2], "none", OTHER_MODEL)
    base = _arms_address(a, b) if not query.startswith("arm=") else "/runs/arms?"
    response = viewer.get(f"{base}&{query}")
    assert response.status_code == 400, response.text[:200]
    assert said in html.unescape(response.text)


def test_a_question_past_the_end_of_the_list_is_a_404(
    viewer: TestClient, runs: tuple[Path, str, str]
) -> None:
    a, b = _arm(runs[1], "none", "gpt-demo"), _arm(runs[2], "none", OTHER_MODEL)
    response = viewer.get(_arms_address(a, b, show="a_only", at="3"))
    assert response.status_code == 404


def test_the_paired_test_of_two_arms_counts_the_questions_both_scored(
    runs: tuple[Path, str, str],
) -> None:
    with ResultStore(runs[0], read_only=True) as store:
        result = compare_arms(
            store, _arm(runs[1], "none", "gpt-demo"), _arm(runs[2], "none", OTHER_MODEL)
        )
    assert (result.pairs, result.only_a, result.only_b) == (10, 2, 1)
    assert result.p_value == 1.0


def test_every_item_by_item_link_of_the_run_page_opens(
    viewer: TestClient, runs: tuple[Path, str, str]
) -> None:
    page = viewer.get(f"/runs/{runs[1]}").text
    targets = [href for label, href in links(page, "comparisons") if label == "item by item"]
    assert len(targets) == 2
    for target in targets:
        assert viewer.get(target).status_code == 200, urlsplit(target).query


@pytest.mark.parametrize("show", list(SHOWS))
def test_pages_read_from_the_kept_pairs_are_the_whole_list_cut_in_pages(
    runs: tuple[Path, str, str], show: str
) -> None:
    a, b = _arm(runs[1], "none", "gpt-demo"), _arm(runs[2], "none", OTHER_MODEL)
    with ResultStore(runs[0], read_only=True) as store:
        whole = pair_page(store, a, b, show, limit=1000)
        kept = matching_pairs(store, a, b, show)
        pages = [
            pair_page(store, a, b, show, offset=k, limit=3, matched=kept) for k in (0, 3, 6, 9)
        ]
    assert len(kept) == 2 * whole.total and {p.total for p in pages} == {whole.total}
    assert [q for p in pages for q in p.rows] == whole.rows
    assert [q.a_row for q in whole.rows] == sorted(q.a_row for q in whole.rows)  # a's order
    if show == "a_only":
        assert sorted(q.item_id for q in whole.rows) == sorted(OTHER_MISSES)
        assert all(q.a_correct and q.b_correct is False for q in whole.rows)


def test_a_question_whose_item_is_a_bad_row_shows_that_row_as_a_bad_row(
    runs: tuple[Path, str, str], tmp_path: Path
) -> None:
    import sqlite3

    a, b = _arm(runs[1], "none", "gpt-demo"), _arm(runs[2], "none", OTHER_MODEL)
    db = tmp_path / "bad.db"
    db.write_bytes(runs[0].read_bytes())
    with ResultStore(db, read_only=True) as store:
        b_row = matching_pairs(store, a, b, "a_only")[1]
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE items SET termination = 'made_up' WHERE id = ?", (b_row,))
    with TestClient(create_viewer_app(db)) as client:
        page = client.get(_arms_address(a, b, show="a_only", at="1"))
    assert page.status_code == 200
    assert f"row {b_row}" in text(page.text, "main-heading")
    assert "termination made_up" in text(page.text, "broken")
