"""The items list exported as the viewer shows it (CSV, JSONL, Parquet, streamed), and
``answerx runs export --filter`` reading the same filter as the viewer's address."""

from __future__ import annotations

import csv
import html
import io
import json
from pathlib import Path
from urllib.parse import parse_qsl

import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient
from page_helpers import links
from typer.testing import CliRunner

from answerx.cli import app as cli
from answerx.experiments.records import ItemRecord
from answerx.experiments.store import ResultStore
from answerx.viewer.urls import read_query

FILTER = "correct=false&sort=latency_s&desc=1"


def _expected(demo: tuple[Path, str], query: str) -> list[tuple[str, str]]:
    """(approach, item id) of the items the list of ``query`` shows, in its order."""
    picked, _ = read_query(parse_qsl(query))
    with ResultStore(demo[0], read_only=True) as store:
        rows = store.item_page(demo[1], picked, limit=500).rows
    return [(getattr(r, "approach", ""), r.item_id) for r in rows]


def test_the_items_page_links_its_list_in_each_format(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = client.get(f"/runs/{demo[1]}/items?{FILTER}&size=25&cols=item,verdict").text
    found = {label: href for label, href in links(page, "export")}
    assert set(found) == {"CSV", "JSONL", "Parquet"}
    # The filter and its order travel; the page, its size and its columns do not.
    assert found["CSV"] == f"/runs/{demo[1]}/items.csv?{FILTER}"
    assert 'class="copy-link"' in page


def test_a_csv_export_holds_the_lists_items_in_its_order(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    response = client.get(f"/runs/{demo[1]}/items.csv?{FILTER}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert f'filename="{demo[1]}-items.csv"' in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [(r["approach"], r["item_id"]) for r in rows] == _expected(demo, FILTER)
    assert len(rows) == 7 and {r["correct"] for r in rows} == {"false"}
    latencies = [float(r["latency_s"]) for r in rows]
    assert latencies == sorted(latencies, reverse=True)


def test_jsonl_and_parquet_exports_read_back_as_the_same_items(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    lines = client.get(f"/runs/{demo[1]}/items.jsonl?{FILTER}").text.splitlines()
    items = [ItemRecord.model_validate_json(line) for line in lines]
    assert [(i.approach, i.item_id) for i in items] == _expected(demo, FILTER)
    parquet = client.get(f"/runs/{demo[1]}/items.parquet?{FILTER}").content
    table = pq.read_table(io.BytesIO(parquet))
    assert table.column("item_id").to_pylist() == [i.item_id for i in items]
    assert table.column("raw_output").to_pylist() == [i.raw_output for i in items]


def test_an_export_of_a_search_or_an_empty_filter_still_has_its_columns(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    searched = client.get(f"/runs/{demo[1]}/items.jsonl?q=BOXED%7B113").text.splitlines()
    assert len(searched) == 3 and all("113" in json.loads(s)["raw_output"] for s in searched)
    empty = client.get(f"/runs/{demo[1]}/items.csv?item_id=nothing-like-it").text
    assert empty.splitlines()[0].startswith('"run_id"') and len(empty.splitlines()) == 1


@pytest.mark.parametrize(
    ("address", "status", "said"),
    [
        ("items.xlsx", 404, "give one of csv, jsonl, parquet"),
        ("items.csv?min_latency_s=nan", 400, "min_latency_s="),
        ("items.csv?sort=raw_output", 400, "sort:"),
    ],
)
def test_an_export_it_cannot_make_says_why(
    client: TestClient, demo: tuple[Path, str], address: str, status: int, said: str
) -> None:
    response = client.get(f"/runs/{demo[1]}/{address}")
    assert response.status_code == status and said in html.unescape(response.text)


def test_runs_export_takes_the_viewers_filter(demo: tuple[Path, str], tmp_path: Path) -> None:
    out = tmp_path / "wrong.csv"
    result = CliRunner().invoke(
        cli, ["runs", "export", demo[1], str(out), "--db", str(demo[0]), "--filter", FILTER]
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [(r["approach"], r["item_id"]) for r in rows] == _expected(demo, FILTER)
    # A whole address copied from the browser works as well.
    address = f"http://127.0.0.1:8765/runs/{demo[1]}/items?approach=none&correct=false"
    whole = tmp_path / "none.jsonl"
    CliRunner().invoke(
        cli, ["runs", "export", demo[1], str(whole), "--db", str(demo[0]), "--filter", address]
    )
    assert len(whole.read_text(encoding="utf-8").splitlines()) == 3


def test_runs_export_refuses_a_filter_it_cannot_read_naming_the_parameter(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    out = tmp_path / "never.csv"
    result = CliRunner().invoke(
        cli,
        ["runs", "export", demo[1], str(out), "--db", str(demo[0]), "--filter", "page=²"],
    )
    assert result.exit_code == 2 and "--filter: page=" in result.output
    assert not out.exists()
