"""The installable package: what `make dist` builds, installed as a user installs it.

The wheel and sdist are built once (``python -m build --no-isolation``, the sdist's
wheel built from the sdist, so both must hold everything) and checked by twine. The
wheel goes, not editable, into a fresh virtual environment, whose answerx must then be
that copy, with its data files, its command and its plug-ins.

So that nothing is downloaded, the fresh environment sees this environment's
packages through a ``.pth`` file (the dependencies already installed here, never this
checkout's answerx: the editable install's own ``.pth`` is not read from there) and
pip runs with ``--no-index``, answerx coming from the folder holding the wheel. Every
``pip install`` line of the documentation (README and docs/) that installs answerx is
run there as written, ``answerx`` resolved from that folder; a line whose extra pulls packages this
environment lacks is installed ``--no-deps`` and its extra checked against the
wheel's metadata (a misspelt extra is only a warning to pip).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import site
import subprocess
import sys
import sysconfig
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest

pytest.importorskip("build")
pytest.importorskip("hatchling")
pytest.importorskip("twine")
from packaging.requirements import Requirement

from documentation import documentation_text

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def run(argv: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    # No PYTHONPATH (the tests put this checkout's src/ first) and a working directory
    # outside the checkout: whatever answerx is imported must be the installed one.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{shlex.join(argv)} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder `make dist` fills: one sdist, one wheel (built from the sdist)."""
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)], out)
    return out


@pytest.fixture(scope="module")
def wheel(dist: Path) -> Path:
    (found,) = dist.glob("answerx-*.whl")
    return found


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """A fresh environment holding the wheel (not editable), this one's packages beside."""
    home = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", "--without-pip", str(home / "env")], home)
    python = home / "env" / "bin" / "python"
    purelib = run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], home
    ).stdout.strip()
    ours = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    Path(purelib, "_answerx_test_deps.pth").write_text("\n".join(dict.fromkeys(ours)) + "\n")
    pip_install(python, home, ["--no-deps", "--force-reinstall", str(wheel)], wheel.parent)
    return python


def pip_install(python: Path, cwd: Path, args: list[str], find_links: Path) -> str:
    # --no-compile: byte-compiling answerx at each of the README's lines is most of their time
    argv = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index",
            "--find-links", str(find_links), "--no-build-isolation", "--no-compile",
            *args]  # fmt: skip
    return run(argv, cwd).stdout


def test_the_sdist_and_wheel_pass_twines_check(dist: Path) -> None:
    assert {p.suffix for p in dist.iterdir()} == {".gz", ".whl"}
    out = run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dist.iterdir())], dist)
    assert out.stdout.count("PASSED") == 2


def test_the_wheel_holds_the_data_files_answerx_reads(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "answerx/_data/config/providers.yaml" in names
    assert any(n.startswith("answerx/_data/prompts/") and n.endswith(".txt") for n in names)
    assert "answerx/retrieval/data/corpus.jsonl" in names
    assert "answerx/examples/outputs.jsonl" in names
    assert "answerx/py.typed" in names


def test_the_installed_command_prints_its_version_and_extracts(venv: Path) -> None:
    answerx = str(venv.parent / "answerx")
    version = run([answerx, "--version"], venv.parent).stdout
    assert metadata.version("answerx") in version
    out = run([answerx, "extract", "So the total is 6 * 7 = 42. The answer is 42."], venv.parent)
    assert json.loads(out.stdout)["answer"] == "42"  # JSON in a pipe


def test_the_installed_package_is_the_wheel_with_its_data_files_and_plug_ins(venv: Path) -> None:
    script = """
import json, answerx
from answerx.support.resources import data_file, prompt_template
from answerx.retrieval import bundled_corpus_path, bundled_questions
from answerx.integrations.lm_eval import AnswerxFilter
from answerx.integrations.trl import answerx_reward
print(json.dumps({
    "module": answerx.__file__,
    "config": str(data_file("config/providers.yaml")),
    "prompt": prompt_template("chain_of_thought").template,
    "corpus_lines": sum(1 for _ in bundled_corpus_path().open()),
    "questions": len(bundled_questions()),
    "reward": answerx_reward(["So the answer is 4."], solution=["4"]),
    "verdict": answerx.verify("The answer is $\\\\frac{1}{2}$.", "0.5").correct,
}))
"""
    got = json.loads(run([str(venv), "-c", script], venv.parent).stdout)
    env = str(venv.parent.parent)
    assert got["module"].startswith(env), got["module"]  # not this checkout's src/
    assert got["config"].startswith(env) and "/answerx/_data/config/" in got["config"]
    assert got["prompt"] == (ROOT / "prompts" / "chain_of_thought.txt").read_text("utf-8")
    assert got["corpus_lines"] > 0 and got["questions"] > 0
    assert got["reward"] == [1.0] and got["verdict"] is True


def readme_pip_lines() -> list[str]:
    """Every ``pip install`` command of the README that installs answerx."""
    text = documentation_text()
    lines = re.findall(r"(?m)(?:`|^\s*)(pip install [^`\n]+)", text)
    return sorted({line.strip() for line in lines if re.search(r"answerx(\[|\s|'|$)", line)})


def wheel_extras(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as whl:
        (name,) = [n for n in whl.namelist() if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(whl.read(name).decode())
    return set(meta.get_all("Provides-Extra") or [])


def installed_here(requirement: str, seen: set[str] | None = None) -> bool:
    """``requirement`` is installed here, and so are its own requirements: pip can resolve
    it offline (a dependency installed at a version it refuses would need the index)."""
    req = Requirement(requirement)
    if req.marker is not None and not req.marker.evaluate({"extra": ""}):
        return True
    seen = set() if seen is None else seen
    if req.name.lower() in seen:
        return True
    seen.add(req.name.lower())
    try:
        version = metadata.version(req.name)
    except metadata.PackageNotFoundError:
        return False
    if not req.specifier.contains(version, prereleases=True):
        return False
    return all(installed_here(inner, seen) for inner in metadata.requires(req.name) or [])


def as_against_the_wheel(line: str, wheel: Path) -> tuple[list[str], set[str]]:
    """The README line's pip arguments, answerx resolved to the built wheel: the plain
    name through ``--find-links``, a file URL or wheel path replaced by the wheel's, a
    checkout's ``./answerx`` by this checkout; and the extras it asks for."""
    args, extras = [], set()
    for arg in shlex.split(line, comments=True)[2:]:
        match = re.fullmatch(r"(?:\./)?answerx(?:\[([^\]]*)\])?(?:\s*@\s*file://\S*)?", arg)
        if match is None and arg.endswith(".whl"):
            match = re.fullmatch(r"(?:\S*/)?answerx-[^/]*\.whl(?:\[([^\]]*)\])?", arg)
        if match is None:
            args.append(arg)
            continue
        asked = {e.strip() for e in (match.group(1) or "").split(",") if e.strip()}
        extras |= asked
        spec = f"[{','.join(sorted(asked))}]" if asked else ""
        if arg.startswith("./"):  # a checkout: built from this one's source
            args.append(f"{ROOT}{spec}")
        elif "@" in arg or arg.endswith(".whl"):  # a file URL or path: the built wheel
            args.append(f"answerx{spec} @ {wheel.as_uri()}")
        else:  # the plain name, found through --find-links in the wheel's folder
            args.append(arg)
    return args, extras


@pytest.mark.parametrize("line", readme_pip_lines())
def test_every_readme_pip_line_installs_the_built_wheel(line: str, venv: Path, wheel: Path) -> None:
    args, extras = as_against_the_wheel(line, wheel)
    assert extras <= wheel_extras(wheel), f"{line!r} asks for an extra the wheel lacks"
    with zipfile.ZipFile(wheel) as whl:
        (name,) = [n for n in whl.namelist() if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(whl.read(name).decode())
    needs = [
        r.split(";")[0] for r in meta.get_all("Requires-Dist") or []
        if any(re.search(rf"extra\s*==\s*['\"]{re.escape(e)}['\"]", r) for e in extras)
    ]  # fmt: skip
    offline = all(installed_here(r) for r in needs)
    out = pip_install(venv, venv.parent, args if offline else ["--no-deps", *args], wheel.parent)
    assert "answerx" in out
