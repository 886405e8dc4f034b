"""The viewer in a real headless Chromium (Debian's ``chromium``, driven by Playwright; no
browser is ever downloaded): open the demo run, filter to the wrong items, open one, check
that the highlighted span's text is the stored answer and that next/previous walk the
filter. A screenshot of each page goes to the test's output folder (and, with
``ANSWERX_VIEWER_SCREENSHOTS=FOLDER``, there too: the README's picture is made so).

Skipped, saying why, where the browser is not installed: ``.ci/run`` installs it
(``apt-get install -y chromium``) when it runs as root with apt-get.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from screenshots import save

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
def address(demo: tuple[Path, str]) -> Iterator[str]:
    """The viewer of the demo run, served by uvicorn on a free loopback port."""
    import uvicorn

    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_viewer_app(demo[0]), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the viewer did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{listening.getsockname()[1]}"
    server.should_exit = True
    thread.join(timeout=30)


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
