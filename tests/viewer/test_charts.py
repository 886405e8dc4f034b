"""The run's charts: SVG drawn on the server, every bar and point a link to exactly the
items it counts."""

from __future__ import annotations

import html
import re
from pathlib import Path

from fastapi.testclient import TestClient
from page_helpers import links, matched

CHARTS = (
    "accuracy",
    "accuracy-tokens",
    "calibration",
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
    assert page.count('<svg class="chart"') == len(CHARTS)  # no price: no cost chart
    assert "<script" not in page.split("</head>")[1]


def test_each_arms_bar_and_point_opens_its_ten_items(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = _charts(client, demo[1])
    for chart in ("accuracy", "accuracy-tokens"):
        targets = [href for _, href in links(page, f"chart-{chart}")]
        assert len(targets) == 3 and all(_count(client, t) == 10 for t in targets)


def test_each_bin_opens_as_many_items_as_it_counts(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = _charts(client, demo[1])
    for chart in ("dist-output_tokens", "dist-latency_s", "dist-calls", "calibration"):
        box = page.split(f'id="chart-{chart}"')[1].split("</figure>")[0]
        found = re.findall(r'<a href="([^"]+)" class="bar-link"><title>([\d,]+)', box)
        if chart == "calibration":  # "R of N right": N items have a verdict there
            found = re.findall(r'<a href="([^"]+)" class="bar-link"><title>[\d,]+ of ([\d,]+)', box)
        assert found, chart
        total = 0
        for address, said in found:
            assert _count(client, address) == int(said.replace(",", "")), (chart, address)
            total += int(said.replace(",", ""))
        assert total == 30, chart  # every item in exactly one bin
