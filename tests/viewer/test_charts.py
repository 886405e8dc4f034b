"""The run's charts: SVG drawn on the server, every bar and point a link to exactly the
items it counts."""

from __future__ import annotations

import html
import json
import re
import sqlite3
from pathlib import Path

from fastapi.testclient import TestClient
from page_helpers import links, matched

from answerx.grading.judgement import JudgeRuling
from answerx.viewer import create_viewer_app

CHARTS = (
    "accuracy",
    "accuracy-tokens",
    "calibration",
    "breakdown-method",
    "breakdown-termination",
    "dist-output_tokens",
    "dist-latency_s",
    "dist-calls",
)


def _charts(client: TestClient, run_id: str) -> str:
    response = client.get(f"/runs/{run_id}/charts")
    assert response.status_code == 200, response.text[:300]
    return response.text


def _count(client: TestClient, address: str) -> int:
    return matched(client.get(html.unescape(address)).text)


def test_the_run_page_links_its_charts_and_each_is_drawn_as_svg(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    run_page = client.get(f"/runs/{demo[1]}").text
    assert ("charts", f"/runs/{demo[1]}/charts") in links(run_page)
    page = _charts(client, demo[1])
    for chart in CHARTS:
        assert re.search(f'<figure class="chart-box" id="chart-{chart}"><figcaption>', page)
    # No price: no cost chart; no judge: no calibration of the judge.
    assert page.count('<svg class="chart"') == len(CHARTS)
    assert "<script" not in page.split("</head>")[1]


def test_each_arms_bar_and_point_opens_its_ten_items(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = _charts(client, demo[1])
    for chart in ("accuracy", "accuracy-tokens"):
        targets = [href for _, href in links(page, f"chart-{chart}")]
        assert len(targets) == 3 and all(_count(client, t) == 10 for t in targets)


def _bins_open_what_they_count(client: TestClient, page: str, chart: str) -> int:
    """Each bar's link lists as many items as its tooltip counts; their sum."""
    box = page.split(f'id="chart-{chart}"')[1].split("</figure>")[0]
    found = re.findall(r'<a href="([^"]+)" class="bar-link"><title>([\d,]+)', box)
    if chart.startswith("calibration"):  # "R of N right": N items have a verdict there
        found = re.findall(r'<a href="([^"]+)" class="bar-link"><title>[\d,]+ of ([\d,]+)', box)
    assert found, chart
    total = 0
    for address, said in found:
        assert _count(client, address) == int(said.replace(",", "")), (chart, address)
        total += int(said.replace(",", ""))
    return total


def test_each_bin_opens_as_many_items_as_it_counts(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = _charts(client, demo[1])
    for chart in (
        "dist-output_tokens",
        "dist-latency_s",
        "dist-calls",
        "calibration",
        "breakdown-method",
        "breakdown-termination",
    ):
        assert _bins_open_what_they_count(client, page, chart) == 30, chart  # each in one bin


def test_the_breakdowns_draw_each_method_and_termination_as_a_share_of_the_items(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    run_page = client.get(f"/runs/{demo[1]}").text
    page = _charts(client, demo[1])
    for column in ("method", "termination"):
        box = page.split(f'id="chart-breakdown-{column}"')[1].split("</figure>")[0]
        shares = [int(v) for v in re.findall(r'class="value"[^>]*>(\d+)%<', box)]
        assert shares and 99 <= sum(shares) <= 101, (column, shares)  # rounded to whole %
        values = re.findall(r'class="label"[^>]*>([^<]+) \([\d,]+\)</text>', box)
        assert len(values) == len(shares)
        assert all(v in run_page for v in values)  # the same values as the run page's table


def test_the_judges_confidence_is_binned_where_it_ruled_and_each_bin_opens_its_items(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    db = tmp_path / "judged.db"
    db.write_bytes(demo[0].read_bytes())
    with sqlite3.connect(db) as raw:  # the judge ruled on 12 items, as scoring stores it
        rows = [r[0] for r in raw.execute("SELECT id FROM items ORDER BY id LIMIT 12")]
        for k, row in enumerate(rows):
            ruling = JudgeRuling(verdict="correct", reason="same", confidence=k / 12, judge="m")
            detail = json.dumps({"judge": ruling.model_dump(mode="json")})
            raw.execute(
                "UPDATE items SET verdict_detail = ?, how = 'llm_judge' WHERE id = ?", (detail, row)
            )
        raw.execute(  # text that is not JSON, and a confidence that is not a number
            "UPDATE items SET verdict_detail = '{broken' WHERE id = ?", (rows[-1] + 1,)
        )
        raw.execute(
            "UPDATE items SET verdict_detail = ? WHERE id = ?",
            (json.dumps({"judge": {"confidence": "high"}}), rows[-1] + 2),
        )
    with TestClient(create_viewer_app(db)) as client:
        page = _charts(client, demo[1])
        assert 'id="chart-calibration-judge"' in page
        assert _bins_open_what_they_count(client, page, "calibration-judge") == 12
        # The extraction's calibration is still every scored item's.
        assert _bins_open_what_they_count(client, page, "calibration") == 30
        # The same filter exports (confidences k/12 of 0.5 and more: k = 6 to 11).
        exported = client.get(f"/runs/{demo[1]}/items.jsonl?min_judge_confidence=0.5")
    assert exported.status_code == 200 and len(exported.text.splitlines()) == 6


def test_the_new_charts_read_a_postgresql_store_alike(postgres_url: str) -> None:
    from store_helpers import filler_item

    from answerx.experiments.store import ResultStore

    with ResultStore.open(postgres_url, "write") as store:
        run = store.start_run("judged", {}, "0" * 64)
        rulings = [
            {"judge": JudgeRuling(verdict="correct", reason="r", confidence=c / 10).model_dump()}
            for c in (1, 1, 5, 9, 10)
        ]
        store.add_items(
            filler_item(
                run.run_id,
                n,
                correct=n % 2 == 0,
                termination="exceed available llm calls" if n == 6 else "answer",
                verdict_detail=rulings[n] if n < len(rulings) else None,
                how="llm_judge" if n < len(rulings) else None,
            )
            for n in range(8)
        )
    with TestClient(create_viewer_app(postgres_url)) as client:
        page = _charts(client, run.run_id)
        assert _bins_open_what_they_count(client, page, "calibration-judge") == 5
        assert _bins_open_what_they_count(client, page, "breakdown-termination") == 8
        assert _bins_open_what_they_count(client, page, "calibration") == 8
