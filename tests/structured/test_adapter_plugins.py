"""An installed package adds an SDK adapter through the ``answerx.adapters`` entry points.

The main test builds a tiny adapter package as a wheel and installs it with pip, the
real way, into a temporary site folder put on ``sys.path`` (not into the test venv:
that venv is shared by every test and by other runs, and an adapter left in it would
change what they find). ``importlib.metadata`` reads a dist-info folder on ``sys.path``
exactly as one in site-packages, so discovery is what a user's install goes through.
The broken plug-ins are dist-info folders written directly: the same files pip writes,
without a pip run for each case.
"""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from answerx.errors import ConfigError, PluginError
from answerx.experiments.calls import RunClientManager
from answerx.structured import InstructorClientManager, ReasoningExtraction
from answerx.structured.adapters import (
    ENTRY_POINT_GROUP,
    adapter_names,
    get_adapter,
    rescan_adapters,
)
from answerx.structured.providers import provider_environment
from answerx.testing import FakeProviderServer, Reply

GOOD = {"full_reasoning_text": "2 + 2 = 4", "answer_value": "4", "confidence": 0.9}
MESSAGES = [{"role": "user", "content": "What is 2 + 2?"}]

# A whole adapter package: an OpenAI-compatible SDK under another name, with its own
# key variables and no seed.
ACME = '''\
"""The Acme SDK for answerx (an OpenAI-compatible API)."""

from answerx.structured.adapters.openai import OpenAIAdapter


class AcmeAdapter(OpenAIAdapter):
    name = "acme"
    key_env_vars = ("ACME_API_KEY",)
    base_url_env_vars = ("ACME_BASE_URL",)
    takes_seed = False


ADAPTER = AcmeAdapter()
'''
PROVIDERS = """\
acme-cloud:
  sdk: acme
  api_key_env: ACME_CLOUD_KEY
  default_model: acme-1
  modes: [tools, json]
"""


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(folder: Path, package: str, version: str, files: dict[str, str]) -> Path:
    """A pure-Python wheel of ``files`` (path -> text) with its dist-info."""
    dist = package.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    contents = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: answerx-tests\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [_record_line(name, text.encode()) for name, text in contents.items()]
    wheel = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for name, text in contents.items():
            zf.writestr(name, text)
        zf.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")
    return wheel


def write_dist(site: Path, package: str, entry_points: str, files: dict[str, str]) -> None:
    """An installed distribution as pip leaves it: its files and its dist-info folder."""
    info = site / f"{package.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{entry_points}\n")
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A site folder on sys.path for this test only; adapters looked up afresh."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    rescan_adapters()
    yield folder
    for name in [m for m in sys.modules if m.split(".")[0] in PACKAGES]:
        del sys.modules[name]
    rescan_adapters()


PACKAGES = {"acme_answerx", "broken_answerx", "other_answerx", "twin_answerx"}


def test_an_adapter_installed_by_pip_is_found_and_calls_the_provider(
    site: Path, tmp_path: Path, fake_provider: FakeProviderServer
) -> None:
    entry_points = f"[{ENTRY_POINT_GROUP}]\nacme = acme_answerx:ADAPTER\n"
    wheel = build_wheel(
        tmp_path,
        "acme-answerx",
        "0.1.0",
        {
            "acme_answerx/__init__.py": ACME,
            "acme_answerx-0.1.0.dist-info/entry_points.txt": entry_points,
        },
    )
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps",
         "--disable-pip-version-check", "--quiet", "--target", str(site), str(wheel)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    rescan_adapters()
    providers = tmp_path / "providers.yaml"
    providers.write_text(PROVIDERS, encoding="utf-8")
    fake_provider.enqueue(Reply.tool_call(GOOD))
    fake_provider.enqueue(Reply.text("4"))

    manager = InstructorClientManager(
        "acme-cloud",
        config_path=str(providers),
        api_key="k",
        base_url=fake_provider.openai_base_url,
    )
    result, info = manager.create(MESSAGES, ReasoningExtraction)
    text, _ = manager.complete_text(MESSAGES)

    assert "acme" in adapter_names()
    assert type(manager.adapter).__module__ == "acme_answerx"
    assert (result.answer_value, info.mode, text) == ("4", "tools", "4")
    assert [r.path for r in fake_provider.requests] == ["/v1/chat/completions"] * 2
    assert {"ACME_API_KEY", "ACME_BASE_URL", "ACME_CLOUD_KEY"} <= provider_environment(providers)
    seeded = RunClientManager("acme-cloud", config_path=str(providers), api_key="k", seed=7)
    assert seeded.seed is None  # the plug-in's API takes no seed


@pytest.mark.parametrize(
    ("entry_point", "files", "says"),
    [
        (
            "broken = broken_answerx:ADAPTER",
            {"broken_answerx/__init__.py": "import acme_sdk_that_is_not_installed\n"},
            "ModuleNotFoundError: No module named 'acme_sdk_that_is_not_installed'",
        ),
        (
            "broken = broken_answerx:ADAPTER",
            {"broken_answerx/__init__.py": "ADAPTER = 'not an adapter'\n"},
            "gives str, not an SdkAdapter instance",
        ),
        (
            "broken = broken_answerx",
            {"broken_answerx/__init__.py": "VALUE = 1\n"},
            "gives NoneType, not an SdkAdapter instance",
        ),
        (
            "broken = broken_answerx:ADAPTER",
            {"broken_answerx/__init__.py": ACME},
            "gives an adapter named 'acme': the entry point must be named for its adapter",
        ),
    ],
    ids=["import-fails", "not-an-adapter", "module-without-ADAPTER", "misnamed"],
)
def test_a_broken_plug_in_is_a_clear_error_naming_its_package(
    site: Path, entry_point: str, files: dict[str, str], says: str
) -> None:
    write_dist(site, "broken-answerx", entry_point, files)
    rescan_adapters()

    assert "broken" in adapter_names()  # listed without being imported
    with pytest.raises(PluginError) as caught:
        get_adapter("broken")

    message = str(caught.value)
    assert says in message
    assert f"the {ENTRY_POINT_GROUP} entry point '{entry_point}' of broken-answerx 1.0" in message
    assert isinstance(caught.value, ConfigError) and caught.value.entry_point == "broken"
    assert get_adapter("openai").name == "openai"  # the bundled adapters are unaffected


def test_two_packages_adding_one_adapter_name_are_both_named(site: Path) -> None:
    write_dist(site, "acme-answerx", "acme = acme_answerx:ADAPTER", {"acme_answerx.py": ACME})
    write_dist(site, "twin-answerx", "acme = twin_answerx:ADAPTER", {"twin_answerx.py": ACME})
    rescan_adapters()
    with pytest.raises(
        PluginError, match="2 installed packages add an SDK adapter named 'acme'"
    ) as caught:
        get_adapter("acme")
    assert "acme-answerx 1.0" in str(caught.value) and "twin-answerx 1.0" in str(caught.value)


def test_a_plug_in_never_replaces_a_bundled_adapter(site: Path) -> None:
    hijack = textwrap.dedent(
        """\
        from answerx.structured.adapters.openai import OpenAIAdapter
        ADAPTER = OpenAIAdapter()
        HIJACKED = True
        """
    )
    write_dist(
        site, "other-answerx", "openai = other_answerx:ADAPTER", {"other_answerx.py": hijack}
    )
    rescan_adapters()
    with pytest.warns(RuntimeWarning, match="of other-answerx 1.0 is ignored: answerx bundles"):
        names = adapter_names()
    assert names.count("openai") == 1
    assert type(get_adapter("openai")).__module__ == "answerx.structured.adapters.openai"
    assert "other_answerx" not in sys.modules  # never imported
