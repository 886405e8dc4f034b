"""Who may see the pages: the viewer standalone and mounted in ``answerx serve`` under
``/runs/``, read-only, with the service's token given once by a browser as ``?token=``."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from page_helpers import links, matched, text
from pydantic import SecretStr

from answerx.service.app import create_app
from answerx.service.settings import ServiceSettings
from answerx.viewer import create_viewer_app
from answerx.viewer.auth import COOKIE

TOKEN = "a-long-enough-test-token-0123456789"


def test_the_service_shows_the_runs_of_its_store_under_runs(demo: tuple[Path, str]) -> None:
    with TestClient(create_app(ServiceSettings(runs_db=demo[0])), "http://localhost") as service:
        assert demo[1] in service.get("/runs/").text
        assert service.get(f"/runs/{demo[1]}/items?correct=false").status_code == 200
        assert service.get("/healthz").status_code == 200


def test_a_service_without_a_store_has_no_runs_pages() -> None:
    with TestClient(create_app(ServiceSettings()), "http://localhost") as service:
        assert service.get("/runs/").status_code == 404


def test_the_store_to_show_comes_from_answerx_runs_db(tmp_path: Path) -> None:
    settings = ServiceSettings.from_env({"ANSWERX_RUNS_DB": str(tmp_path / "answerx.db")})
    assert settings.runs_db == tmp_path / "answerx.db"


@pytest.mark.parametrize("where", ["service", "standalone"])
def test_a_browser_gives_the_token_once_and_keeps_it_in_a_cookie(
    demo: tuple[Path, str], where: str
) -> None:
    app = (
        create_app(ServiceSettings(api_token=SecretStr(TOKEN), runs_db=demo[0]))
        if where == "service"
        else create_viewer_app(demo[0], token=TOKEN)
    )
    with TestClient(app) as browser:
        assert browser.get("/runs/").status_code == 401
        assert browser.get("/runs/?token=wrong").status_code == 401
        given = browser.get(
            f"/runs/{demo[1]}/items?correct=false&token={TOKEN}", follow_redirects=False
        )
        assert given.status_code == 303
        # The address it sends the browser on to no longer holds the token: a copied
        # link never carries it.
        assert given.headers["location"] == f"/runs/{demo[1]}/items?correct=false"
        cookie = given.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/runs" in cookie
        assert browser.get(given.headers["location"]).status_code == 200  # the cookie
        assert (
            browser.get(
                f"/runs/{demo[1]}", headers={"Authorization": f"Bearer {TOKEN}"}
            ).status_code
            == 200
        )


def test_the_cookie_opens_only_the_runs_pages_never_the_api(demo: tuple[Path, str]) -> None:
    settings = ServiceSettings(api_token=SecretStr(TOKEN), runs_db=demo[0])
    with TestClient(create_app(settings)) as browser:
        browser.cookies.set(COOKIE, TOKEN)
        assert browser.get("/runs/").status_code == 200
        extracted = browser.post("/v1/extract", json={"raw_output": "The answer is 4."})
        assert extracted.status_code == 401  # a page another site opens cannot call the API
        assert browser.post("/runs/", data={"x": "1"}).status_code == 405


def test_a_wrong_cookie_opens_nothing(demo: tuple[Path, str]) -> None:
    with TestClient(create_viewer_app(demo[0], token=TOKEN)) as browser:
        browser.cookies.set(COOKIE, "not-the-token")
        assert browser.get("/runs/").status_code == 401


def test_two_runs_compared_arm_by_arm(tmp_path: Path, demo: tuple[Path, str]) -> None:
    from answerx.experiments.store import ResultStore

    db = tmp_path / "two.db"
    with ResultStore(demo[0], read_only=True) as source, ResultStore(db) as store:
        first = store.start_run("first", {}, "0" * 64)
        second = store.start_run("second", {}, "0" * 64)
        items = list(source.items(demo[1]))
        store.add_items(i.model_copy(update={"run_id": first.run_id}) for i in items)
        # The second run gets arith-02 right everywhere.
        store.add_items(
            i.model_copy(update={"run_id": second.run_id, "correct": True, "reason": "equivalent"})
            if i.item_id == "arithmetic/arith-02"
            else i.model_copy(update={"run_id": second.run_id})
            for i in items
        )
    with TestClient(create_viewer_app(db)) as viewer:
        picked = viewer.get(f"/runs/compare?run={first.run_id}&run={second.run_id}")
        assert picked.status_code == 200
        rows = text(picked.text, "comparisons")
        assert "openai/gpt-demo none/two_stage 10 7 8 0 1 +10.0 pts 1" in rows
        assert "reflection/two_stage 10 9 9 0 0 +0.0 pts 1" in rows
        only_b = [href for label, href in links(picked.text, "comparisons") if label == "1"]
        assert f"pair_run={first.run_id}" in only_b[0]
        behind = viewer.get(only_b[0]).text
        assert matched(behind) == 1 and f"/runs/{second.run_id}/items/" in behind
        assert viewer.get(f"/runs/compare?run={first.run_id}").status_code == 400
