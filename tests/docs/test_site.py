"""The documentation site builds with ``--strict``, offline, and its references are whole.

``make docs`` runs the same build; here it goes to a temporary folder, once per test run.
The CLI and configuration references are generated at build time: these tests check the
built pages against the program itself, so a command, option, environment variable or
config key that is missing from them fails here.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_gen"))

import reference  # noqa: E402  (docs/_gen is not a package: see the line above)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stderr[-4000:]}"
    return out


def _text(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")))


def test_the_site_builds_strict_with_every_page_of_the_nav(site: Path) -> None:
    for page in ("index", "getting-started", "extracting", "verifying", "short-answers"):
        assert (site / f"{page}.html").is_file(), page
    assert (site / "reference" / "api" / "index.html").is_file()


def test_the_site_works_offline(site: Path) -> None:
    # Search from the built files (Material's offline plugin) and no fonts or scripts
    # from a CDN: the site reads the same from a file:// URL on a machine with no network.
    assert (site / "search" / "search_index.js").is_file()
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "fonts.googleapis" not in text and "cdn.jsdelivr" not in text, page


def test_every_command_and_option_is_in_the_cli_reference(site: Path) -> None:
    text = _text(site / "reference" / "cli.html")
    commands = reference.cli_commands()
    assert len(commands) > 20
    for name, command in commands:
        assert name in text, f"command {name!r} missing from the CLI reference"
        for param in reference.visible_options(command):
            for opt in param.opts:
                assert opt in text, f"{name} {opt} missing from the CLI reference"


def test_every_variable_and_config_key_is_in_the_configuration_reference(site: Path) -> None:
    from answerx.experiments.config import ExperimentConfig

    text = _text(site / "reference" / "configuration.html")
    read = set()
    for source in (ROOT / "src" / "answerx").rglob("*.py"):
        read |= set(re.findall(r"\bANSWERX_[A-Z][A-Z0-9_]*[A-Z0-9]\b", source.read_text()))
    assert len(read) > 15
    for variable in sorted(read):
        assert variable in text, f"{variable} is read by the code but not documented"
    for key, _field, _model in reference.config_keys(ExperimentConfig):
        assert key in text, f"config key {key!r} missing from the configuration reference"


def test_the_api_reference_documents_the_public_names(site: Path) -> None:
    import answerx

    text = _text(site / "reference" / "api" / "index.html")
    for name in answerx.__all__:
        if not name.startswith("_"):
            assert name in text, f"answerx.{name} missing from the API reference"
    grading = _text(site / "reference" / "api" / "grading.html")
    assert "verify_batch" in grading and "Verdict" in grading
