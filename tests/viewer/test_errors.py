"""What the viewer says when something is wrong: an address it cannot read is a 400 page
naming the parameter (never a 500), one bad row is one bad row, a damaged store is
refused as ``runs list`` refuses it, and reading a store leaves nothing beside it."""

from __future__ import annotations

import html
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from page_helpers import marks, matched, text
from store_helpers import damage, filler_item, pad_run
from typer.testing import CliRunner

from answerx.cli import app as cli
from answerx.experiments.store import ResultStore
from answerx.experiments.store.browse import RANGED, WHOLE
from answerx.viewer import create_viewer_app
from answerx.viewer.pages import p_value


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A store of one run with twelve plain items (made without the runner: quick)."""
    db = tmp_path_factory.mktemp("viewer-errors") / "answerx.db"
    with ResultStore(db) as opened:
        run = opened.start_run("errors", {}, "0" * 64)
        opened.add_items(
            filler_item(run.run_id, n, correct=n % 3 != 0, span=(20, 20 + len(str(n + 1))))
            for n in range(12)
        )
    return db, run.run_id


@pytest.fixture
def viewer(store: tuple[Path, str]) -> Iterator[TestClient]:
    with TestClient(create_viewer_app(store[0])) as client:
        yield client


def _said(response: object) -> str:
    return html.unescape(getattr(response, "text", ""))


# The addresses that answered 500 before (issue 41), by the parameter each must name.
EIGHT = [
    ("items?min_confidence=nan", "min_confidence"),
    ("items?min_confidence=1e999", "min_confidence"),
    ("items?page=99999999999999999999999", "page"),
    ("items?page=9223372036854775807", "page"),
    ("items?repetition=99999999999999999999999", "repetition"),
    ("items/5?vs=%C2%B2", "vs"),
    ("items/5?vs=99999999999999999999999", "vs"),
    ("items/99999999999999999999999", "row"),
]


@pytest.mark.parametrize(("address", "parameter"), EIGHT)
def test_an_address_that_used_to_fail_is_a_400_page_naming_its_parameter(
    viewer: TestClient, store: tuple[Path, str], address: str, parameter: str
) -> None:
    response = viewer.get(f"/runs/{store[1]}/{address}")
    assert response.status_code == 400, response.text[:300]
    assert f"{parameter}=" in _said(response)


HOSTILE = [
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e999",
    "-1",
    "-99999999999999999999999",
    "99999999999999999999999",
    "9223372036854775808",
    "²",
    "١٢",
    "１２",
    " ",
    "\x00",
    "%",
    "'; DROP TABLE items; --",
    "a" * 3000,
]
# Every parameter an items address reads.
PARAMETERS = [
    *WHOLE,
    *(f"{side}_{c}" for c in RANGED for side in ("min", "max")),
    *("error", "q", "in", "pair", "pair_correct", "pair_run", "sort", "desc", "page", "size"),
    *("fcol", "fval", "cols"),
]


@pytest.mark.parametrize("parameter", PARAMETERS)
def test_every_parameter_answers_hostile_values_with_a_page_or_a_400_naming_it(
    viewer: TestClient, store: tuple[Path, str], parameter: str
) -> None:
    for value in HOSTILE:
        response = viewer.get(
            f"/runs/{store[1]}/items", params={parameter: value}, follow_redirects=True
        )
        assert response.status_code in (200, 400), (parameter, value, response.status_code)
        if response.status_code == 400:
            assert parameter in _said(response), (parameter, value)


@pytest.mark.parametrize("parameter", ["vs", "full", "row", "run"])
def test_the_item_and_compare_pages_answer_hostile_values_too(
    viewer: TestClient, store: tuple[Path, str], parameter: str
) -> None:
    for value in HOSTILE:
        if parameter == "row":
            address, params = f"/runs/{store[1]}/items/{quote(value, safe='') or '%20'}", {}
        elif parameter in ("vs", "full"):
            address, params = f"/runs/{store[1]}/items/2", {parameter: value}
        else:
            address, params = "/runs/compare", {"run": [store[1], value]}
        response = viewer.get(address, params=params)
        assert response.status_code in (200, 400, 404), (parameter, value, response.status_code)


def test_a_negative_or_huge_page_size_says_which_range_it_takes(
    viewer: TestClient, store: tuple[Path, str]
) -> None:
    for size in ("0", "-5", "501", "10000000000000000000000"):
        response = viewer.get(f"/runs/{store[1]}/items?size={size}")
        assert response.status_code == 400
        assert "size=" in _said(response) and "from 1 to 500" in _said(response)


def _copy(store: tuple[Path, str], tmp_path: Path) -> Path:
    db = tmp_path / "copy.db"
    db.write_bytes(store[0].read_bytes())
    return db


def test_one_row_with_a_value_the_store_does_not_allow_is_one_bad_row(
    store: tuple[Path, str], tmp_path: Path
) -> None:
    db = _copy(store, tmp_path)
    with sqlite3.connect(db) as raw:  # as another program (or version) might write it
        raw.execute("UPDATE items SET method = 'made_up' WHERE id = 3")
    with TestClient(create_viewer_app(db)) as viewer:
        page = viewer.get(f"/runs/{store[1]}/items")
    assert page.status_code == 200
    assert matched(page.text) == 12
    table = text(page.text, "items")
    assert "bad row" in table and "row 3 holds a value answerx does not allow" in table
    assert "method='made_up'" in table
    assert "filler/0000" in table and "filler/0011" in table  # the others still listed


def test_a_span_outside_the_output_marks_nothing_and_says_so(
    store: tuple[Path, str], tmp_path: Path
) -> None:
    db = _copy(store, tmp_path)
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE items SET span = '[900000, 900004]' WHERE id = 2")
    with TestClient(create_viewer_app(db)) as viewer:
        page = viewer.get(f"/runs/{store[1]}/items/2").text
        fine = viewer.get(f"/runs/{store[1]}/items/3").text
    assert marks(page) == []
    note = text(page, "span-note")
    assert "lies outside this" in note and "highlighted text" not in note
    assert marks(fine) == ["3"] and "highlighted text" in text(fine, "span-note")


def test_the_runs_page_checks_the_store_as_runs_list_does(
    store: tuple[Path, str], tmp_path: Path
) -> None:
    db = _copy(store, tmp_path)
    pad_run(db, store[1])
    damage(db, "pages")
    listed = CliRunner().invoke(cli, ["runs", "list", "--db", str(db)])
    assert listed.exit_code == 4
    with TestClient(create_viewer_app(db)) as viewer:
        runs, run = viewer.get("/runs/"), viewer.get(f"/runs/{store[1]}")
    for page in (runs, run):
        assert page.status_code == 503
        assert "cannot use results store" in _said(page)


def test_reading_a_store_leaves_no_files_beside_it(store: tuple[Path, str]) -> None:
    folder = store[0].parent
    before = sorted(os.listdir(folder))
    with TestClient(create_viewer_app(store[0])) as viewer:
        for address in ("/runs/", f"/runs/{store[1]}", f"/runs/{store[1]}/items?q=one"):
            assert viewer.get(address).status_code == 200
            assert sorted(os.listdir(folder)) == before, address
    assert before == [store[0].name]


@pytest.mark.parametrize("fault", ["folder", "empty", "not sqlite"])
def test_the_same_store_fault_is_the_same_exit_code_in_every_command(
    tmp_path: Path, fault: str
) -> None:
    db = tmp_path / "store.db"
    if fault == "folder":
        db.mkdir()
    else:
        db.write_bytes(b"" if fault == "empty" else b"\x89PNG\r\n\x1a\n" * 64)
    codes = {
        command: CliRunner().invoke(cli, ["runs", command, "--db", str(db)]).exit_code
        for command in ("list", "view")
    }
    codes["show"] = CliRunner().invoke(cli, ["runs", "show", "x", "--db", str(db)]).exit_code
    assert set(codes.values()) == {4}, codes
    with TestClient(create_viewer_app(db)) as viewer:
        assert viewer.get("/runs/").status_code == 503


@pytest.mark.parametrize(
    ("p", "shown"), [(0.0, "< 0.001"), (1e-300, "< 0.001"), (0.000999, "< 0.001"), (0.5, "0.5")]
)
def test_a_p_value_too_small_to_print_reads_below_a_thousandth(p: float, shown: str) -> None:
    assert p_value(p) == shown
    assert p_value(0.0386) == "0.0386"


def test_a_runs_figures_are_counted_once_while_the_store_is_unchanged(
    store: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from answerx.viewer import pages

    counted = []
    original = pages._checked_run
    monkeypatch.setattr(
        pages, "_checked_run", lambda db, run: counted.append(1) or original(db, run)
    )
    with TestClient(create_viewer_app(store[0])) as viewer:
        for _ in range(3):  # each page's reader makes and removes an empty WAL
            assert viewer.get(f"/runs/{store[1]}").status_code == 200
    assert len(counted) == 1


def test_a_bad_rows_own_page_shows_what_is_readable_and_names_the_broken_value(
    store: tuple[Path, str], tmp_path: Path
) -> None:
    db = _copy(store, tmp_path)
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE items SET method = 'made_up' WHERE id = 3")
        raw.execute("UPDATE items SET span = '[not json' WHERE id = 4")
    with TestClient(create_viewer_app(db)) as viewer:
        listed = viewer.get(f"/runs/{store[1]}/items").text
        page = viewer.get(f"/runs/{store[1]}/items/3")
        other = viewer.get(f"/runs/{store[1]}/items/4")
        fine = viewer.get(f"/runs/{store[1]}/items/5")
    assert f"/runs/{store[1]}/items/3" in listed  # the list links the bad row's page
    assert page.status_code == 200
    assert "bad row" in text(page.text, "main-heading")
    assert "Row 3 holds a value answerx does not allow" in text(page.text, "bad-summary")
    assert "damaged" not in _said(page)
    broken = text(page.text, "broken")
    assert broken.startswith("column stored why") and "method made_up" in broken
    assert "Input should be" in broken  # pydantic's own words on the value
    readable = text(page.text, "readable")
    assert "item_id filler/0002" in readable and "method" not in readable.split()
    assert other.status_code == 200 and "span [not json" in text(other.text, "broken")
    assert "not readable as stored" in text(other.text, "broken")
    assert fine.status_code == 200 and "bad row" not in fine.text


def test_a_damaged_store_is_still_a_503_on_an_item_page(
    store: tuple[Path, str], tmp_path: Path
) -> None:
    db = _copy(store, tmp_path)
    pad_run(db, store[1])
    damage(db, "pages")
    with TestClient(create_viewer_app(db)) as viewer:
        pages = [viewer.get(f"/runs/{store[1]}/items/{row}") for row in range(13, 300, 7)]
    assert {p.status_code for p in pages} <= {200, 404, 503}
    assert any(p.status_code == 503 and "damaged" in _said(p) for p in pages)
