"""``answerx runs view`` as a user runs it: the address it prints serves the pages until
Ctrl-C; the service's rules for a bind others can reach; clear errors otherwise."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from answerx.cli import app

ANSWERX = [sys.executable, "-m", "answerx"]


def _start(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [*ANSWERX, "runs", "view", *args, "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    assert process.stdout is not None
    guard = threading.Timer(120, process.kill)  # never hang the suite on a silent process
    guard.start()
    line = process.stdout.readline()  # printed once the port is bound
    guard.cancel()
    found = re.search(r"http://\S+", line)
    if found is None:
        process.kill()
        raise AssertionError(
            f"no address printed: {line!r} {process.stderr.read() if process.stderr else ''}"
        )
    return process, found.group(0)


def _stop(process: subprocess.Popen[str]) -> int:
    process.send_signal(signal.SIGINT)
    return process.wait(timeout=60)


def test_the_printed_address_opens_the_run_and_ctrl_c_stops_it(demo: tuple[Path, str]) -> None:
    db, run_id = demo
    process, address = _start(run_id[:15], "--db", str(db))
    try:
        assert address.endswith(f"/runs/{run_id}")  # the prefix, resolved
        assert address.startswith("http://127.0.0.1:")
        page = httpx.get(address, timeout=30)
        assert page.status_code == 200 and "Accuracy by approach" in page.text
    finally:
        status = _stop(process)
    assert status == 0


def test_a_loopback_viewer_answers_only_loopback_host_names(demo: tuple[Path, str]) -> None:
    # DNS rebinding: a page on evil.example that resolves its name to 127.0.0.1 still sends
    # "Host: evil.example", which a viewer without a token refuses (as answerx serve does).
    process, address = _start("--db", str(demo[0]))
    try:
        assert httpx.get(address, timeout=30).status_code == 200
        rebound = httpx.get(address, headers={"Host": "evil.example"}, timeout=30)
        assert rebound.status_code == 400 and "invalid_host" in rebound.text
    finally:
        _stop(process)


def test_open_hands_the_address_to_the_browser(demo: tuple[Path, str], tmp_path: Path) -> None:
    opened = tmp_path / "opened.txt"
    # $BROWSER is the browser Python's webbrowser module starts (%s: the address).
    browser = (
        f"{sys.executable} -c \"import sys; open(sys.argv[1], 'w').write(sys.argv[2])\" {opened} %s"
    )
    process, address = _start("--db", str(demo[0]), "--open", env={"BROWSER": browser})
    try:
        for _ in range(600):
            if opened.exists() and opened.read_text():
                break
            threading.Event().wait(0.1)
        assert opened.read_text() == address
    finally:
        _stop(process)


def test_two_runs_open_compared(demo: tuple[Path, str], tmp_path: Path) -> None:
    from answerx.experiments.store import ResultStore

    db = tmp_path / "two.db"
    with ResultStore(db) as store:
        a = store.start_run("a", {}, "0" * 64)
        b = store.start_run("b", {}, "0" * 64)
    process, address = _start(a.run_id, b.run_id, "--db", str(db))
    try:
        assert address.endswith(f"/runs/compare?run={a.run_id}&run={b.run_id}")
        assert httpx.get(address, timeout=30).status_code == 200
    finally:
        _stop(process)


@pytest.mark.parametrize(
    ("token", "said"),
    [
        (None, "refusing to listen on 0.0.0.0 without authentication"),
        ("short-token", "with a 11-character ANSWERX_API_TOKEN"),
    ],
)
def test_an_address_others_can_reach_follows_the_services_token_rules(
    demo: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, token: str | None, said: str
) -> None:
    if token is None:
        monkeypatch.delenv("ANSWERX_API_TOKEN", raising=False)
    else:
        monkeypatch.setenv("ANSWERX_API_TOKEN", token)
    result = CliRunner().invoke(app, ["runs", "view", "--db", str(demo[0]), "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert said in " ".join(result.output.split())


def test_a_busy_port_is_a_usage_error_that_says_so(demo: tuple[Path, str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            app, ["runs", "view", "--db", str(demo[0]), "--port", str(port)]
        )
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in " ".join(result.output.split())


def test_a_missing_store_or_run_is_said_before_anything_starts(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    missing = CliRunner().invoke(app, ["runs", "view", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code == 3 and "no results store" in missing.output
    unknown = CliRunner().invoke(app, ["runs", "view", "nope", "--db", str(demo[0])])
    assert unknown.exit_code == 2 and "no run 'nope'" in unknown.output
