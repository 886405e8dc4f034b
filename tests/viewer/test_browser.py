"""The viewer in a real headless Chromium (Debian's ``chromium``, driven by Playwright; no
browser is ever downloaded): open the demo run, filter to the wrong items, open one, check
that the highlighted span's text is the stored answer and that next/previous walk the
filter. A screenshot of each page goes to the test's output folder (and, with
``ANSWERX_VIEWER_SCREENSHOTS=FOLDER``, there too: the README's picture is made so).

Skipped, saying why, where the browser is not installed: ``.ci/run`` installs it
(``apt-get install -y chromium``) when it runs as root with apt-get.
"""

from __future__ import annotations

import csv
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from big_run import BIDI_ID, BIG_ID, OTHER_MISSES, big_output, extra_run, other_model_run
from screenshots import save

from answerx.experiments.store import ResultStore
from answerx.viewer import create_viewer_app

CHROMIUM = Path("/usr/bin/chromium")
# As this machine's browser tests start it: no sandbox as root, no network beyond loopback.
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if not CHROMIUM.is_file():
    pytest.skip(
        f"Debian's chromium is not installed ({CHROMIUM}): `apt-get install -y chromium` "
        "(.ci/run installs it when it runs as root)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


@pytest.fixture(scope="module")
def store(demo: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo store with one more run (:func:`extra_run`: a 2 MB output, an
    item id with an unclosed right-to-left override)."""
    db = tmp_path_factory.mktemp("browser") / "answerx.db"
    with ResultStore(demo[0], read_only=True) as source, ResultStore(db) as copy:
        run = source.get_run(demo[1])
        copy.create_run(run)
        copy.add_items(source.items(run.run_id))
        extra_run(copy)
        other_model_run(copy, run.run_id)
    return db


@contextmanager
def _serving(db: Path) -> Iterator[str]:
    """The viewer of the store ``db``, served by uvicorn on a free loopback port."""
    import uvicorn

    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_viewer_app(db), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the viewer did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{listening.getsockname()[1]}"
    server.should_exit = True
    thread.join(timeout=30)


@pytest.fixture(scope="module")
def address(store: Path) -> Iterator[str]:
    """The viewer of the demo store (:func:`_serving`)."""
    with _serving(store) as served:
        yield served


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Any]:
    """A page of a fresh headless Chromium with an empty profile."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=ARGS,
            viewport={"width": 1400, "height": 1000},
        )
        try:
            yield browser.new_page()
        finally:
            browser.close()


def _shoot(page: Any, folder: Path, name: str) -> None:
    shot = page.screenshot(full_page=True)
    save(folder, f"runs-view-{name}.png", shot)
    extra = os.environ.get("ANSWERX_VIEWER_SCREENSHOTS")
    if extra:
        save(Path(extra), f"runs-view-{name}.png", shot)


def test_wrong_items_are_opened_highlighted_and_walked_in_a_real_browser(
    address: str, page: Any, demo: tuple[Path, str], tmp_path: Path
) -> None:
    shots = tmp_path / "screenshots"
    page.goto(f"{address}/runs/")
    _shoot(page, shots, "runs")
    page.click(f"a.run-link:text('{demo[1]}')")
    page.wait_for_url(f"**/runs/{demo[1]}")
    assert "Accuracy by approach" in page.content()
    _shoot(page, shots, "run")

    page.click("#wrong-items")  # the run's wrong items
    page.wait_for_url("**/items?correct=false")
    rows = page.locator("a.item-link")
    assert rows.count() == 7
    listed = [rows.nth(i).get_attribute("href") for i in range(rows.count())]
    _shoot(page, shots, "items")

    rows.first.click()
    page.wait_for_url(f"**{listed[0]}")
    mark = page.locator("mark#answer")
    assert mark.inner_text() == page.locator("#stored-answer").inner_text() == "113"
    assert mark.get_attribute("data-rule") == "boxed"
    assert mark.is_visible()  # outside the folded <think>
    assert not page.locator("details.think").first.evaluate("d => d.open")
    assert page.locator("#position").inner_text() == "1 of 7"
    _shoot(page, shots, "item")

    walked = [page.url]
    while page.locator("a#next").count():
        page.click("a#next")
        page.wait_for_load_state()
        walked.append(page.url)
    assert [u.split(address)[1] for u in walked] == listed
    assert page.locator("#position").inner_text() == "7 of 7"
    page.click("a#previous")
    page.wait_for_url(walked[-2])
    page.keyboard.press("k")  # the keyboard walks too
    page.wait_for_url(walked[-3])
    page.keyboard.press("j")
    page.wait_for_url(walked[-2])

    page.goto(walked[0])
    reflection = page.locator("#same-question tr", has_text="reflection")
    reflection.locator("a.side-by-side").click()
    page.wait_for_selector("#side-by-side")
    assert page.locator("mark#answer-left").inner_text() == "113"
    assert page.locator("mark#answer-right").inner_text() == "112"  # reflection's revision
    _shoot(page, shots, "side-by-side")
    assert sorted(p.name for p in shots.iterdir()) == [
        f"runs-view-{n}.png" for n in ("item", "items", "run", "runs", "side-by-side")
    ]


def test_the_filter_form_keeps_the_address_short_and_shareable(
    address: str, page: Any, demo: tuple[Path, str]
) -> None:
    page.goto(f"{address}/runs/{demo[1]}/items")
    page.select_option("select[name=approach]", "none")
    page.select_option("select[name=correct]", "false")
    page.click("form.filters button[type=submit]")
    page.wait_for_url("**/items?approach=none&correct=false")
    assert page.locator("a.item-link").count() == 3
    page.goto(page.url)  # the same address shows the same items
    assert page.locator("a.item-link").count() == 3


def _strain(store: Path) -> tuple[str, int, int]:
    """The strain run's id and the rows of its big item and of its right-to-left id."""
    with ResultStore(store, read_only=True) as opened:
        run = next(r for r in opened.list_runs() if r.name == "strain")
        rows = {r.item_id: r.row for r in opened.item_page(run.run_id).rows}
    return run.run_id, rows[BIG_ID], rows[BIDI_ID]


def _rival(store: Path) -> str:
    with ResultStore(store, read_only=True) as opened:
        return next(r.run_id for r in opened.list_runs() if r.name == "rival")


def _pages(address: str, store: Path, demo: tuple[Path, str]) -> dict[str, str]:
    """One address of each kind of page."""
    strain, big, bidi = _strain(store)
    rival = _rival(store)
    arms = "&".join(
        f"arm={run}%7Cnone%7Ctwo_stage%7Copenai%7C{model}"
        for run, model in ((demo[1], "gpt-demo"), (rival, "gpt-rival"))
    )
    return {
        "arms": f"{address}/runs/arms?{arms}&show=a_only",
        "arms-question": f"{address}/runs/arms/question?{arms}&show=a_only&at=1",
        "runs": f"{address}/runs/",
        "run": f"{address}/runs/{demo[1]}",
        "charts": f"{address}/runs/{demo[1]}/charts",
        "items": f"{address}/runs/{demo[1]}/items?correct=false",
        "item": f"{address}/runs/{demo[1]}/items/2",
        "side-by-side": f"{address}/runs/{demo[1]}/items/2?vs=12#side-by-side",
        "compare": f"{address}/runs/compare?run={demo[1]}&run={strain}",
        "big-item": f"{address}/runs/{strain}/items/{big}",
        "bidi-item": f"{address}/runs/{strain}/items/{bidi}",
        "problem": f"{address}/runs/{demo[1]}/items?page=0",
    }


def _sideways(page: Any) -> int:
    """How far the page scrolls sideways (0: it fits its window)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


@pytest.mark.parametrize("width", [390, 1280])
def test_no_page_scrolls_sideways_on_a_phone_or_a_laptop(
    address: str, page: Any, demo: tuple[Path, str], store: Path, tmp_path: Path, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    for kind, url in _pages(address, store, demo).items():
        page.goto(url)
        assert _sideways(page) <= 0, f"{kind} at {width} px: {_sideways(page)} px too wide"
        _shoot(page, tmp_path / "screenshots", f"{kind}-{width}")
    page.goto(_pages(address, store, demo)["items"])
    # At 1,280 px the default columns fit without the table's own scrolling either.
    overflow = page.evaluate(
        "(() => { const box = document.querySelector('#items').parentElement;"
        " return box.scrollWidth - box.clientWidth; })()"
    )
    assert overflow <= 0 or width < 1280, f"the items table is {overflow} px too wide"


def test_a_dark_system_setting_gets_dark_pages(
    address: str, page: Any, demo: tuple[Path, str], store: Path, tmp_path: Path
) -> None:
    lightness = (
        "(() => { const [r, g, b] = getComputedStyle(document.body).backgroundColor"
        ".match(/\\d+/g).map(Number); return (r + g + b) / 765; })()"
    )
    page.goto(_pages(address, store, demo)["item"])
    assert page.evaluate(lightness) > 0.9
    page.emulate_media(color_scheme="dark")
    for kind in ("runs", "run", "items", "item"):
        page.goto(_pages(address, store, demo)[kind])
        assert page.evaluate(lightness) < 0.15, kind
        _shoot(page, tmp_path / "screenshots", f"{kind}-dark")


def test_the_column_chooser_keeps_its_choice_in_the_address(
    address: str, page: Any, demo: tuple[Path, str]
) -> None:
    page.goto(f"{address}/runs/{demo[1]}/items?correct=false")
    headers = page.locator("#items thead th")
    assert "model" not in [headers.nth(i).inner_text() for i in range(headers.count())]
    page.click("#column-chooser summary")
    page.check("#column-chooser input[value=model]")
    page.uncheck("#column-chooser input[value=question]")
    page.click("form.filters button[type=submit]")
    page.wait_for_url("**/items?correct=false&cols=*")
    assert "cols=item,approach,model,gold," in page.url
    titles = [headers.nth(i).inner_text() for i in range(headers.count())]
    assert "model" in titles and "question" not in titles
    page.click("#items thead th.col-model a")  # sorting keeps the columns
    page.wait_for_url("**sort=model**")
    assert "cols=" in page.url and page.locator("#items thead th.col-model").count() == 1
    page.locator("a.item-link").first.click()  # and so does the walk back to the list
    page.wait_for_load_state()
    page.click("#back-to-list")
    page.wait_for_load_state()
    assert page.locator("#items thead th.col-model").count() == 1


def test_a_two_megabyte_output_is_sent_once_folded_until_show_all(
    address: str, page: Any, store: Path, tmp_path: Path
) -> None:
    strain, big, _ = _strain(store)
    response = page.goto(f"{address}/runs/{strain}/items/{big}")
    assert response is not None and len(response.body()) < 600_000
    assert page.locator("mark#answer").inner_text() == "4096"
    assert page.locator("mark#answer").is_visible()
    assert page.locator(".same-as-output").count() == 1  # the reply points to the output
    _shoot(page, tmp_path / "screenshots", "big-output")
    page.click("#show-all")
    page.wait_for_url("**full=1#raw-output")
    shown = page.locator("#raw-output").inner_text()
    assert shown.strip() == big_output()[0].strip()  # every character, once
    assert page.locator("a.elided").count() == 0
    assert page.locator("mark#answer").inner_text() == "4096"


def test_a_right_to_left_override_in_an_item_id_stays_inside_it(
    address: str, page: Any, store: Path
) -> None:
    strain, _, bidi = _strain(store)
    page.goto(f"{address}/runs/{strain}/items/{bidi}")
    heading = page.locator("h1")
    own = heading.locator("bdi").first.bounding_box()
    rest = heading.locator("span.muted").first.bounding_box()
    assert own is not None and rest is not None
    assert own["x"] + own["width"] <= rest["x"] + 1  # what follows the id stays after it
    assert "none / two_stage" in heading.inner_text()


def test_two_runs_of_different_models_are_compared_and_their_differences_walked(
    address: str, page: Any, demo: tuple[Path, str], store: Path, tmp_path: Path
) -> None:
    shots = tmp_path / "screenshots"
    page.goto(f"{address}/runs/compare?run={demo[1]}&run={_rival(store)}")
    assert page.locator("#across tbody tr").count() == 3  # no twin arms: across models
    _shoot(page, shots, "compare")
    page.locator("#across a.item-by-item").first.click()
    page.wait_for_url("**/runs/arms?*")
    page.click("#shows a:text('A right, B wrong')")
    page.wait_for_url("**show=a_only")
    _shoot(page, shots, "arms")
    page.locator("a.pair-link").first.click()
    page.wait_for_url("**/arms/question?*at=1")
    seen = []
    while True:
        assert page.locator("mark#answer-a").is_visible()
        assert page.locator("mark#answer-b").inner_text() == "999"
        assert page.locator("#word-diff ins", has_text="999").count() == 1
        seen.append(page.locator("h1").inner_text())
        if len(seen) == 1:
            _shoot(page, shots, "arms-question")
        if not page.locator("a#next").count():
            break
        page.keyboard.press("j")  # the keyboard walks the differing questions
        page.wait_for_url(f"**at={len(seen) + 1}")
    assert sorted(seen) == sorted(OTHER_MISSES)
    page.keyboard.press("u")
    page.wait_for_url("**/runs/arms?*show=a_only")


def test_the_filtered_list_downloads_as_csv_and_its_link_copies(
    address: str, page: Any, demo: tuple[Path, str], tmp_path: Path
) -> None:
    page.goto(f"{address}/runs/{demo[1]}/items?approach=none&correct=false")
    with page.expect_download() as started:
        page.click("#export a.export:text('CSV')")
    saved = tmp_path / "items.csv"
    started.value.save_as(saved)
    rows = list(csv.DictReader(saved.open(encoding="utf-8")))
    assert len(rows) == 3 and {(r["approach"], r["correct"]) for r in rows} == {("none", "false")}
    listed = page.locator("a.item-link")
    assert sorted(r["item_id"] for r in rows) == sorted(
        listed.nth(i).inner_text() for i in range(listed.count())
    )
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click("button.copy-link")
    if page.locator("input.address").count():  # no clipboard here: the address to copy
        assert page.locator("input.address").input_value() == page.url
    else:
        page.wait_for_selector("button.copy-link:text('link copied')")
        assert page.evaluate("navigator.clipboard.readText()") == page.url


def test_a_running_run_updates_its_counts_and_items_without_a_reload(
    address: str, page: Any, store: Path, tmp_path: Path
) -> None:
    from store_helpers import filler_item

    with ResultStore(store) as writer:
        run = writer.start_run("live", {}, "4" * 64)
        writer.add_item(filler_item(run.run_id, 1))
    page.goto(f"{address}/runs/{run.run_id}/items")
    assert page.locator("#live").is_visible() and "running" in page.locator("#live").inner_text()
    assert page.locator("a.item-link").count() == 1
    page.evaluate("window.stayed = true")  # gone if the page were loaded again
    with ResultStore(store) as writer:  # the experiment goes on
        writer.add_items([filler_item(run.run_id, 2), filler_item(run.run_id, 3)])
    page.locator("a.item-link").nth(2).wait_for(timeout=30_000)  # the third item came
    assert "3 match" in page.locator("h1").inner_text()
    _shoot(page, tmp_path / "screenshots", "live")
    with ResultStore(store) as writer:
        writer.finish_run(run.run_id)
    page.wait_for_selector("#live", state="detached", timeout=30_000)
    assert page.evaluate("window.stayed") is True


def test_a_charts_bar_opens_the_items_behind_it(
    address: str, page: Any, demo: tuple[Path, str], tmp_path: Path
) -> None:
    page.goto(f"{address}/runs/{demo[1]}")
    page.click("#charts-link")
    page.wait_for_url("**/charts")
    _shoot(page, tmp_path / "screenshots", "charts")
    assert page.locator("svg.chart").count() >= 6
    page.locator("#chart-accuracy a.bar-link").first.click()
    page.wait_for_url("**/items?*")
    assert "10 match" in page.locator("h1").inner_text()
    page.go_back()
    bins = page.locator("#chart-dist-calls a.bar-link")
    title = bins.last.locator("title").text_content() or ""
    said = int(title.split(" items")[0].replace(",", ""))
    bins.last.click()
    page.wait_for_url("**max_calls=*")
    assert f"{said} match" in page.locator("h1").inner_text()
    page.go_back()
    stopped = page.locator("#chart-breakdown-termination a.bar-link").first
    said = int((stopped.locator("title").text_content() or "").split(" items")[0])
    stopped.click()
    page.wait_for_url("**termination=*")
    assert f"{said} match" in page.locator("h1").inner_text()


def test_each_scatter_label_holds_its_text_and_none_covers_another(
    address: str, page: Any, demo: tuple[Path, str]
) -> None:
    page.goto(f"{address}/runs/{demo[1]}/charts")
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('svg.chart rect.label-box')].map(r => {
            const t = r.nextElementSibling.getBBox(), b = r.getBBox();
            return {box: [b.x, b.y, b.width, b.height], text: [t.x, t.y, t.width, t.height]};
        })"""
    )
    assert boxes  # the demo's three arms, labelled on the tokens chart
    for drawn in boxes:
        (bx, by, bw, bh), (tx, ty, tw, th) = drawn["box"], drawn["text"]
        # The text as Chromium draws it lies inside the box placed for it.
        assert bx <= tx and tx + tw <= bx + bw and by - 1 <= ty and ty + th <= by + bh + 1, drawn
    for k, one in enumerate(boxes):
        for other in boxes[k + 1 :]:
            (ax, ay, aw, ah), (ox, oy, ow, oh) = one["box"], other["box"]
            assert not (ax < ox + ow and ox < ax + aw and ay < oy + oh and oy < ay + ah)


def test_a_bad_rows_page_shows_it_and_its_broken_value(
    page: Any, store: Path, demo: tuple[Path, str], tmp_path: Path
) -> None:
    import sqlite3

    db = tmp_path / "bad.db"
    db.write_bytes(store.read_bytes())
    with sqlite3.connect(db) as raw:
        first = raw.execute("SELECT min(id) FROM items WHERE run_id = ?", (demo[1],)).fetchone()[0]
        raw.execute("UPDATE items SET method = 'made_up' WHERE id = ?", (first,))
    with _serving(db) as served:
        page.goto(f"{served}/runs/{demo[1]}/items")
        page.locator("tr.bad-row a").first.click()
        page.wait_for_url(f"**/items/{first}*")
        _shoot(page, tmp_path / "screenshots", "bad-row")
        assert "bad row" in page.locator("h1").inner_text()
        assert "made_up" in page.locator("#broken").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
