"""The viewer's pages through HTTP (FastAPI's test client) over a demo run made by the runner:
what each page shows, that every figure links to the items behind it, and that filters,
sorting, search, paging and next/previous live in the address."""

from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from demo_run import WRONG_FIRST
from fastapi.testclient import TestClient
from page_helpers import item_rows, links, marks, matched, text

from answerx.callinfo import CallInfo, ModeAttempt, Usage
from answerx.experiments.records import CallRecord, ItemRecord, calls_json
from answerx.experiments.stats import wilson_interval
from answerx.experiments.store import ResultStore
from answerx.viewer import create_viewer_app


def _items(client: TestClient, run_id: str, query: str = "") -> str:
    response = client.get(f"/runs/{run_id}/items{'?' + query if query else ''}")
    assert response.status_code == 200, response.text
    return response.text


def test_the_runs_page_lists_the_run_with_its_accuracy_and_interval(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = client.get("/runs/")
    assert page.status_code == 200
    row = text(page.text, "runs")
    # 30 items: 3 wrong each for none and chain_of_thought, 1 for reflection.
    low, high = wilson_interval(23, 30)
    assert demo[1] in row and "viewer-demo" in row and "finished" in row
    assert "76.7%" in row and f"{100 * low:.1f}%" in row and f"{100 * high:.1f}%" in row
    assert "openai/gpt-demo" in row and "chain_of_thought, none, reflection" in row


def test_the_address_without_a_page_leads_to_the_runs(client: TestClient) -> None:
    response = client.get("/", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/runs/"


def test_the_run_page_shows_accuracy_per_arm_with_wilson_intervals(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = client.get(f"/runs/{demo[1]}").text
    table = text(page, "accuracy")
    for approach, correct in (("none", 7), ("chain_of_thought", 7), ("reflection", 9)):
        low, high = wilson_interval(correct, 10)
        assert f"{approach} two_stage 10 10 {10 * correct:.1f}% [{100 * low:.1f}%, " in table
        assert f"{100 * high:.1f}%]" in table


def test_the_paired_comparison_says_which_arm_got_which_questions(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = client.get(f"/runs/{demo[1]}").text
    rows = text(page, "comparisons")
    # reflection fixed the two questions none got wrong on its first reply.
    assert "none/two_stage reflection/two_stage 10 7 9 0 2 +20.0 pts 0.5" in rows
    only_b = [href for label, href in links(page, "comparisons") if label == "2"]
    listed = _items(client, demo[1], urlsplit(only_b[0]).query)
    assert matched(listed) == 2
    ids = {href.split("/items/")[1].split("?")[0] for href in item_rows(listed)}
    with ResultStore(demo[0], read_only=True) as store:
        found = [store.item_at(demo[1], int(row)) for row in ids]
    assert {(i.approach, i.item_id.split("/")[1], i.correct) for i in found if i} == {
        ("reflection", question, True) for question in WRONG_FIRST
    }


def test_every_count_on_the_run_page_links_to_that_many_items(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = client.get(f"/runs/{demo[1]}").text
    tables = [
        "accuracy",
        "comparisons",
        "breakdown-reason",
        "breakdown-method",
        "breakdown-termination",
    ]
    checked = 0
    for table in tables:
        for label, href in links(page, table):
            if not label.replace(",", "").isdigit():
                continue  # an arm's name or an accuracy: checked elsewhere
            assert matched(_items(client, demo[1], urlsplit(href).query)) == int(label), href
            checked += 1
    assert checked > 30


def test_the_breakdowns_count_reasons_methods_and_terminations(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = client.get(f"/runs/{demo[1]}").text
    assert "reflection two_stage 9 0 1" in text(page, "breakdown-reason")
    assert "boxed none" in text(page, "breakdown-method")
    assert "answer answer not found" in text(page, "breakdown-termination")


@pytest.mark.parametrize(
    ("query", "count"),
    [
        ("correct=false", 7),
        ("approach=none&correct=false", 3),
        ("unfinished=true", 3),
        ("reason=unfinished&reason=different", 7),
        ("approach=reflection&min_calls=4", 1),
        ("q=BOXED%7B113", 3),  # in raw outputs, any case of ASCII letters (a draft too)
        ("q=mira&in=question", 3),
        ("extracted_answer=null", 3),
        ("error=true", 0),
        ("pair=reflection/two_stage&pair_correct=true&correct=false", 4),
    ],
)
def test_items_filter_on_any_column_through_the_address(
    client: TestClient, demo: tuple[Path, str], query: str, count: int
) -> None:
    page = _items(client, demo[1], query)
    assert matched(page) == count
    assert len(item_rows(page)) == count


def test_items_sort_by_a_column_and_page_in_that_order(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = _items(client, demo[1], "sort=calls&desc=1&size=4")
    rows = item_rows(page)
    assert len(rows) == 4
    assert "page 1 of 8" in text(page, "pager")
    with ResultStore(demo[0], read_only=True) as store:
        calls = [store.item_at(demo[1], int(r.split("/items/")[1].split("?")[0])) for r in rows]
    assert [i.calls for i in calls if i] == [5, 3, 3, 3]
    second = _items(client, demo[1], "sort=calls&desc=1&size=4&page=2")
    assert not set(item_rows(second)) & set(rows)


def test_an_address_is_made_canonical_so_one_view_has_one_address(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    messy = client.get(
        f"/runs/{demo[1]}/items?reason=&size=50&correct=false&approach=none&sort=id",
        follow_redirects=False,
    )
    assert messy.status_code == 303
    assert messy.headers["location"] == f"/runs/{demo[1]}/items?approach=none&correct=false"
    picked = client.get(f"/runs/{demo[1]}/items?fcol=how&fval=none", follow_redirects=False)
    assert picked.headers["location"] == f"/runs/{demo[1]}/items?how=none"
    prefix = client.get(f"/runs/{demo[1][:15]}/items?correct=false", follow_redirects=False)
    assert prefix.headers["location"] == f"/runs/{demo[1]}/items?correct=false"


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("colour=red", "unknown parameter 'colour'"),
        ("correct=maybe", "give true, false or null"),
        ("min_latency_s=slow", "min_latency_s='slow': give a finite number"),
        ("sort=raw_output", "cannot sort by 'raw_output'"),
        ("fcol=raw_output&fval=x", "cannot filter by 'raw_output'"),
    ],
)
def test_an_address_it_cannot_read_is_a_400_page_that_says_why(
    client: TestClient, demo: tuple[Path, str], query: str, said: str
) -> None:
    response = client.get(f"/runs/{demo[1]}/items?{query}")
    assert response.status_code == 400
    assert said in html.unescape(response.text)


def test_the_item_page_highlights_the_stored_answer_and_names_the_rule(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    listed = _items(client, demo[1], "approach=none&correct=false")
    page = client.get(item_rows(listed)[0]).text
    assert text(page, "stored-answer") == "113"
    assert marks(page) == ["113"]
    assert 'data-rule="boxed"' in page and text(page, "rule").startswith("boxed")
    assert text(page, "reason") == "different" and text(page, "how") != "not recorded"
    assert '<details class="think">' in page  # the <think> section is folded
    assert "position" in page and text(page, "position") == "1 of 3"


def test_next_and_previous_walk_the_items_of_the_filter_in_order(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    query = "correct=false&sort=latency_s"
    expected = item_rows(_items(client, demo[1], query))
    walked, url = [], expected[0]
    while url:
        walked.append(url)
        page = client.get(url).text
        nexts = [href for _, href in links(page, "walk") if "next" in _]
        url = nexts[0] if nexts else ""
    assert [w.split("?")[0] for w in walked] == [e.split("?")[0] for e in expected]
    assert all(
        dict(parse_qsl(urlsplit(w).query)) == {"correct": "false", "sort": "latency_s"}
        for w in walked
    )
    last = client.get(walked[-1]).text
    back = [href for label, href in links(last, "walk") if "previous" in label]
    assert back[0].split("?")[0] == walked[-2].split("?")[0]
    assert text(last, "position") == f"{len(expected)} of {len(expected)}"


def test_the_item_page_shows_every_call_of_a_multi_call_item(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    listed = _items(client, demo[1], "approach=reflection&item_id=arithmetic/arith-02")
    page = client.get(item_rows(listed)[0]).text
    calls = re.findall(r'<section class="call ', page)
    assert len(calls) == 3  # draft, critique, revision
    conversation = text(page, "conversation")
    assert "3 calls" in conversation and "Call 3 · text" in conversation
    assert "Mira reads 15 pages" in conversation
    assert marks(page) == ["112"]  # the revision's answer, not the draft's 113


def test_two_approaches_answer_the_same_question_side_by_side(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    listed = _items(client, demo[1], "approach=none&item_id=arithmetic/arith-02")
    page = client.get(item_rows(listed)[0]).text
    others = links(page, "same-question")
    side = [href for label, href in others if label == "side by side"]
    assert len(side) == 2  # chain_of_thought and reflection
    pages = [client.get(link).text for link in side]
    assert all("Side by side" in both for both in pages)
    # The item's mark, then the two columns': reflection's revision says 112.
    assert sorted(marks(both) for both in pages) == [["113", "113", "112"], ["113"] * 3]


def test_an_unfinished_item_says_it_was_cut_off_and_marks_nothing(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    listed = _items(client, demo[1], "approach=none&unfinished=true")
    page = client.get(item_rows(listed)[0]).text
    assert marks(page) == []
    assert "cut off or never finished" in text(page, "verdict")
    assert "never closed (cut off)" in page


def test_an_item_not_in_the_run_or_a_run_not_in_the_store_is_a_404(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    assert client.get(f"/runs/{demo[1]}/items/99999").status_code == 404
    missing = client.get("/runs/20000101-000000-0000")
    assert missing.status_code == 404 and "no run" in missing.text


def test_pages_load_nothing_from_elsewhere_and_say_so_in_their_policy(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    for url in ("/runs/", f"/runs/{demo[1]}", f"/runs/{demo[1]}/items", f"/runs/{demo[1]}/items/1"):
        response = client.get(url)
        assert "default-src 'self'" in response.headers["content-security-policy"]
        assets = re.findall(r'(?:src|href)="([^"]+)"', response.text)
        assert assets and not [a for a in assets if a.startswith(("http:", "https:", "//"))]
    assert client.get("/runs/static/viewer.js").status_code == 200
    assert client.get("/runs/static/viewer.css").status_code == 200


def test_browsing_changes_nothing_in_the_store(client: TestClient, demo: tuple[Path, str]) -> None:
    before = hashlib.sha256(demo[0].read_bytes()).hexdigest()
    for url in (
        "/runs/",
        f"/runs/{demo[1]}",
        f"/runs/{demo[1]}/items?q=think",
        f"/runs/{demo[1]}/items/2?correct=true",
    ):
        assert client.get(url).status_code == 200
    assert hashlib.sha256(demo[0].read_bytes()).hexdigest() == before


def test_a_viewer_of_some_runs_shows_only_those(demo: tuple[Path, str], tmp_path: Path) -> None:
    with ResultStore(demo[0], read_only=True) as store:
        first = store.item_at(demo[1], 1)
    db = tmp_path / "two.db"
    with ResultStore(db) as store:
        kept = store.start_run("kept", {}, "0" * 64)
        hidden = store.start_run("hidden", {}, "1" * 64)
        assert first is not None
        for run in (kept, hidden):
            store.add_item(first.model_copy(update={"run_id": run.run_id}))
    with TestClient(create_viewer_app(db, run_ids=[kept.run_id])) as viewer:
        listed = viewer.get("/runs/").text
        assert kept.run_id in listed and hidden.run_id not in listed
        assert viewer.get(f"/runs/{hidden.run_id}").status_code == 404
        assert viewer.get(f"/runs/{kept.run_id}/items/1").status_code == 200


def _structured_item(run_id: str) -> ItemRecord:
    call = CallRecord(
        kind="structured",
        response_model="ChainOfThoughtExtraction",
        messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "What is 6 * 7? <b>bold?</b>"},
        ],
        reply=json.dumps({"answer_value": "42", "confidence": 0.9}),
        info=CallInfo(
            provider="openai",
            model="gpt-test",
            mode="md_json",
            attempts=3,
            modes_tried=(
                ModeAttempt(mode="tools", ok=False, reason="tool calls rejected", requests=1),
                ModeAttempt(mode="md_json", ok=True, requests=2),
            ),
            fallback_reason="tool calls rejected",
            repairs=("md_json: raw control characters escaped",),
            usage=Usage(input_tokens=30, output_tokens=12),
        ),
    )
    return ItemRecord(
        run_id=run_id,
        approach="chain_of_thought",
        strategy="structured",
        provider="openai",
        model="gpt-test",
        item_id="q1",
        question="What is 6 * 7?",
        gold="42",
        raw_output=call.reply or "",
        extracted_answer="42",
        method="structured_llm",
        stage="structured",
        mode="md_json",
        attempts=3,
        fallbacks=1,
        calls=1,
        conversation=calls_json([call]),
        correct=True,
        reason="equivalent",
        how="exact",
    )


def test_a_structured_call_shows_its_modes_fallback_and_repairs(tmp_path: Path) -> None:
    db = tmp_path / "structured.db"
    with ResultStore(db) as store:
        run = store.start_run("structured", {}, "0" * 64)
        store.add_item(_structured_item(run.run_id))
    with TestClient(create_viewer_app(db)) as viewer:
        page = viewer.get(f"/runs/{run.run_id}/items/1").text
    call = text(page, "call-1")
    assert "Call 1 · structured (ChainOfThoughtExtraction)" in call
    assert "mode md_json · 3 requests" in call
    assert "tools failed 1 tool calls rejected" in call and "md_json ok 2" in call
    assert "fell back because: tool calls rejected" in call
    assert "repairs: md_json: raw control characters escaped" in call
    assert "came from a structured reply" in page and marks(page) == []
    assert "&lt;b&gt;bold?&lt;/b&gt;" in page  # outputs are text, never HTML


def test_an_old_store_shows_what_it_kept(tmp_path: Path) -> None:
    from test_store_versions import old_store

    db = old_store(tmp_path / "old.db", version=2)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    with TestClient(create_viewer_app(db)) as viewer:
        assert viewer.get("/runs/").status_code == 200
        assert viewer.get("/runs/old-run").status_code == 200
        page = viewer.get("/runs/old-run/items/2")
        assert page.status_code == 200
        assert "does not say where in the text its answer was read" in page.text
        assert "No call was recorded for this item." in page.text
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # not migrated


def test_a_damaged_store_is_a_503_page_that_says_what_to_do(tmp_path: Path) -> None:
    from store_helpers import damage, filler_item, pad_run

    db = tmp_path / "damaged.db"
    with ResultStore(db) as store:
        run = store.start_run("damaged", {}, "0" * 64)
        store.add_item(filler_item(run.run_id, 9999))
    pad_run(db, run.run_id)
    damage(db, "pages")
    with TestClient(create_viewer_app(db)) as viewer:
        pages = [viewer.get(f"/runs/{run.run_id}/items?size=500&page={n}") for n in (1, 2)]
        pages += [viewer.get(f"/runs/{run.run_id}/items/{row}") for row in range(1, 302, 10)]
    failed = [p for p in pages if p.status_code != 200]
    assert failed, "a page over the damaged rows should fail"
    assert all(p.status_code == 503 for p in failed)
    assert "cannot use results store" in html.unescape(failed[0].text)
