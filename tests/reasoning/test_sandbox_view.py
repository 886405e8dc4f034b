"""What the sandboxed program can see of the machine: the interpreter, nothing else.

The hostile cases of the probe that found the sandbox showing the machine, each run
as model-written code: read a ``.env`` in the project folder, list and read
``/root``, read ``/etc/shadow``, read the program of another sandbox running at the
same moment, read the parent's ``/proc/<ppid>/environ``. Each must be refused with
the interpreter installed as here (Python under ``/root/.pyenv``, this worktree's
venv), with a venv under ``/tmp`` and with a venv inside the project folder. The
venvs are made without pip and import answerx through a ``.pth`` file, so each
layout costs a second or two.
"""

from __future__ import annotations

import ast
import asyncio
import glob
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from answerx.errors import ConfigError
from answerx.reasoning import sandbox
from answerx.reasoning.sandbox import arun_python, isolation_problem, run_python
from answerx.reasoning.sandbox_view import ViewError, plan_view

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox needs Linux")
needs_isolation = pytest.mark.skipif(
    isolation_problem() is not None, reason=f"no isolated sandbox here: {isolation_problem()}"
)

ENV_SECRET = "sk-project-env-5f1e2d3c4b5a69788796"
OTHER_SECRET = "other-sandbox-secret-8a7b6c5d"
SRC = Path(__file__).resolve().parents[2] / "src"

# The probe, run from the layout's interpreter: a sandbox holding a secret in its
# program sleeps while a second one, given the first one's file on the host, snoops.
PROBE = textwrap.dedent(
    """
    import asyncio, glob, json, os, sys, tempfile
    from answerx.reasoning.sandbox import arun_python, isolation_problem

    project, other_secret, snoop = sys.argv[1], sys.argv[2], sys.argv[3]

    async def main():
        if isolation_problem() is not None:
            return {"skip": isolation_problem()}
        victim = asyncio.create_task(
            arun_python(f"secret = {other_secret!r}\\nimport time\\ntime.sleep(3)", time_limit_s=20)
        )
        pattern = os.path.join(tempfile.gettempdir(), "answerx-sandbox-*", "program.py")
        for _ in range(400):
            programs = [p for p in glob.glob(pattern) if other_secret in open(p).read()]
            if programs:
                break
            await asyncio.sleep(0.01)
        code = snoop.replace("OTHER_PROGRAM", programs[0]).replace("PROJECT", project)
        code = code.replace("PARENT", str(os.getpid()))
        found = await arun_python(code, time_limit_s=20)
        await victim
        return found.model_dump()

    print(json.dumps(asyncio.run(main())))
    """
)

# The model-written code: every way the probe found to the machine's secrets.
SNOOP = textwrap.dedent(
    """
    import json, os

    def attempt(action):
        try:
            return "GOT " + repr(action())[:200]
        except OSError as exc:
            return "refused: " + type(exc).__name__

    def read(path):
        with open(path) as f:
            return f.read()

    cases = {
        "project .env": lambda: read("PROJECT/.env"),
        "project listing": lambda: os.listdir("PROJECT"),
        "list /root": lambda: os.listdir("/root"),
        "read /root/.profile": lambda: read("/root/.profile"),
        "read /etc/shadow": lambda: read("/etc/shadow"),
        "list /etc": lambda: os.listdir("/etc"),
        "list /tmp": lambda: os.listdir("/tmp"),
        "list /home": lambda: os.listdir("/home"),
        "another sandbox's program": lambda: read("OTHER_PROGRAM"),
        "its parent's environment": lambda: read(f"/proc/{os.getppid()}/environ"),
        "answerx's environment": lambda: read("/proc/PARENT/environ"),
    }
    print(json.dumps({name: attempt(action) for name, action in cases.items()}))
    """
)


def _project(root: Path) -> Path:
    project = root / "project"
    project.mkdir()
    (project / ".env").write_text(f"OPENAI_API_KEY={ENV_SECRET}\n")
    return project


def _venv(path: Path) -> Path:
    """A venv at ``path`` (no pip) that imports answerx and its dependencies from here."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    purelib = sysconfig.get_path("purelib", vars={"base": str(path), "platbase": str(path)})
    Path(purelib, "answerx-under-test.pth").write_text(f"{SRC}\n{sysconfig.get_path('purelib')}\n")
    return path / "bin" / "python"


def _probe(python: Path, project: Path) -> dict[str, str]:
    done = subprocess.run(
        [str(python), "-c", PROBE, str(project), OTHER_SECRET, SNOOP],
        capture_output=True, text=True, cwd=project, timeout=300, check=False,
        env={**os.environ, "OPENAI_API_KEY": "sk-answerx-env-0123456789abcdef"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    if "skip" in result:
        pytest.skip(f"no isolated sandbox for this layout: {result['skip']}")
    assert result["termination"] == "ok", result
    assert ENV_SECRET not in result["stdout"] and OTHER_SECRET not in result["stdout"]
    assert "sk-answerx-env" not in result["stdout"]
    outcomes: dict[str, str] = json.loads(result["stdout"])
    return outcomes


def _every_attempt_refused(outcomes: dict[str, str]) -> None:
    got = {case: outcome for case, outcome in outcomes.items() if not outcome.startswith("refused")}
    assert got == {}


@needs_isolation
@pytest.mark.parametrize("layout", ["venv under /tmp", "venv inside the project"])
def test_the_probe_finds_nothing_whatever_the_install_layout(tmp_path: Path, layout: str) -> None:
    assert str(tmp_path).startswith(tempfile.gettempdir())
    project = _project(tmp_path)
    venv = tmp_path / "venv" if layout == "venv under /tmp" else project / ".venv"

    outcomes = _probe(_venv(venv), project)

    _every_attempt_refused(outcomes)


@needs_isolation
def test_the_probe_finds_nothing_with_this_interpreter(tmp_path: Path) -> None:
    project = _project(tmp_path)

    outcomes = _probe(Path(sys.executable), project)

    _every_attempt_refused(outcomes)
    # The ones that exist on this machine are hidden, not merely unreadable:
    assert outcomes["read /etc/shadow"] == "refused: FileNotFoundError"
    assert outcomes["project .env"] == "refused: FileNotFoundError"


@needs_isolation
def test_the_program_sees_the_interpreter_and_its_own_directory_only() -> None:
    code = (
        "import os, sys\n"
        "print(sorted(os.listdir('/')))\n"
        "print(sorted(os.listdir('/dev')))\n"
        "print(os.getcwd(), os.listdir('.'))\n"
        "import decimal, json, sqlite3, ssl\n"  # the standard library with its libraries
        "print(sys.prefix)"
    )

    result = run_python(code)

    top, dev, work, prefix = result.stdout.splitlines()
    shown = {Path(p).parts[1] for p in (*sandbox.host_view().dirs, *sandbox.host_view().files)}
    shown |= {Path(link).parts[1] for link, _ in sandbox.host_view().links}
    assert sorted(ast.literal_eval(top)) == sorted({"dev", "proc", "sandbox", *shown})
    devices = ["fd", "full", "null", "random", "stderr", "stdin", "stdout", "urandom", "zero"]
    assert ast.literal_eval(dev) == devices
    assert work == "/sandbox ['program.py']"
    assert prefix == sys.prefix


@needs_isolation
@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make the program someone else")
def test_as_root_the_program_runs_as_an_unprivileged_user() -> None:
    marker = f"uid-probe-{time.time_ns()}"

    async def run_and_look() -> list[str]:
        task = asyncio.create_task(
            arun_python(
                "import subprocess, sys, time\n"
                "child = [sys.executable, '-c', 'import time; time.sleep(30)']\n"
                f"subprocess.Popen([*child, {marker!r}])\n"
                "time.sleep(2)",
                time_limit_s=20,
            )
        )
        uids: list[str] = []
        while not uids and not task.done():  # the program's child, seen from here
            uids = [line for pid in _pids_with(marker) for line in _status(pid, "Uid:")]
            await asyncio.sleep(0.01)
        await task
        return uids

    uids = asyncio.run(run_and_look())

    assert uids and all(line.split()[1:] == ["65534"] * 4 for line in uids)


@needs_isolation
def test_each_sandbox_has_its_own_work_directory() -> None:
    async def both() -> list[str]:
        writer = arun_python(
            "open('mine.txt', 'w').write('x')\nimport time, os\ntime.sleep(1)\n"
            "print(sorted(os.listdir('.')))"
        )
        reader = arun_python("import os, time\ntime.sleep(0.5)\nprint(sorted(os.listdir('.')))")
        return [r.stdout for r in await asyncio.gather(writer, reader)]

    written, read = asyncio.run(both())

    assert written == "['mine.txt', 'program.py']\n"
    assert read == "['program.py']\n"


def _pids_with(marker: str) -> list[int]:
    pids = []
    for path in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            if marker.encode() in Path(path).read_bytes():
                pids.append(int(path.split("/")[2]))
        except OSError:
            continue
    return pids


def _status(pid: int, field: str) -> list[str]:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return []
    return [line for line in lines if line.startswith(field)]


# ------------------------------------------------------------------ the plan itself


def test_links_on_the_way_to_the_interpreter_are_recreated(tmp_path: Path) -> None:
    python = tmp_path / "opt" / "python"
    (python / "bin").mkdir(parents=True)
    (python / "bin" / "python3.11").write_text("")
    venv = tmp_path / "project" / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(tmp_path / "current" / "bin" / "python3.11")
    (tmp_path / "current").symlink_to("opt/python")

    view = plan_view(str(venv / "bin" / "python"), [str(venv), str(python)], [])

    assert set(view.dirs) == {str(venv), str(python)}
    assert (str(tmp_path / "current"), "opt/python") in view.links
    assert view.work == "/sandbox"


@pytest.mark.parametrize("prefix", ["/", "HOME", "HOME_PARENT"])
def test_a_view_that_would_show_a_home_directory_is_refused(tmp_path: Path, prefix: str) -> None:
    home = tmp_path / "home" / "someone"
    home.mkdir(parents=True)
    shown = {"/": "/", "HOME": str(home), "HOME_PARENT": str(tmp_path / "home")}[prefix]

    with pytest.raises(ViewError, match="the sandbox would show"):
        plan_view(sys.executable, [shown], [], homes=[str(home)])


def test_where_the_view_cannot_be_built_isolated_runs_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused() -> None:
        raise ViewError("the interpreter needs / itself: the sandbox would show every file")

    monkeypatch.setattr(sandbox, "host_view", refused)
    sandbox.isolation_problem.cache_clear()
    try:
        with pytest.raises(ConfigError, match="the interpreter needs / itself"):
            run_python("print(1)")
    finally:
        sandbox.isolation_problem.cache_clear()
