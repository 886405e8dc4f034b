"""One adapter module per provider SDK, and SDK knowledge nowhere else.

The registry finds adapters by module name (a new SDK is one module in
``answerx/structured/adapters``); a module outside the adapters may not import an
SDK, call an Instructor ``from_<sdk>`` wrapper or branch on an SDK's name. The fake
provider server (``answerx.testing``) is the exception: it *is* the three wire formats.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import answerx.structured.adapters as adapters
from answerx.errors import UnknownName
from answerx.experiments.calls import RunClientManager
from answerx.structured import InstructorClientManager, ReasoningExtraction
from answerx.structured.adapters import SdkAdapter, adapter_names, all_adapters, get_adapter
from answerx.structured.providers import load_providers, provider_environment
from answerx.testing import FakeProviderServer, Reply

SRC = Path(__file__).parents[2] / "src" / "answerx"
#: Where SDK knowledge may live: the adapters, and the fake server of their wire formats.
ALLOWED = (SRC / "structured" / "adapters", SRC / "testing")
GOOD = {"full_reasoning_text": "2 + 2 = 4", "answer_value": "4", "confidence": 0.9}
MESSAGES = [{"role": "user", "content": "What is 2 + 2?"}]


def test_the_registry_lists_one_adapter_per_module() -> None:
    assert adapter_names() == ("anthropic", "cohere", "openai")
    assert [a.name for a in all_adapters()] == list(adapter_names())
    assert all(isinstance(a, SdkAdapter) and a.modes for a in all_adapters())


def test_an_unknown_adapter_suggests_the_likely_one() -> None:
    with pytest.raises(UnknownName) as caught:
        get_adapter("coher")
    assert caught.value.suggestion == "cohere"


def test_every_bundled_provider_names_an_adapter_whose_modes_fit() -> None:
    for spec in load_providers().values():
        assert set(spec.modes) <= spec.adapter.modes, spec.name


def test_every_adapter_variable_and_provider_key_is_in_the_provider_environment() -> None:
    names = provider_environment()
    for adapter in all_adapters():
        assert {*adapter.key_env_vars, *adapter.base_url_env_vars} <= names, adapter.name
    assert {spec.api_key_env for spec in load_providers().values()} <= names


def _sdk_knowledge(source: str, label: str, sdks: frozenset[str]) -> Iterator[str]:
    """Where ``source`` imports an SDK, calls Instructor's wrapper of one, or compares with
    (or keys a table by) an SDK's name."""
    for node in ast.walk(ast.parse(source)):
        where = f"{label}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            if any(alias.name.split(".")[0] in sdks for alias in node.names):
                yield f"{where}: imports an SDK"
        elif isinstance(node, ast.ImportFrom) and not node.level:
            if (node.module or "").split(".")[0] in sdks:
                yield f"{where}: imports an SDK"
        elif isinstance(node, ast.Attribute) and node.attr.removeprefix("from_") in sdks:
            yield f"{where}: uses {node.attr}"
        elif isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                for const in ast.walk(operand):
                    if isinstance(const, ast.Constant) and const.value in sdks:
                        yield f"{where}: compares with {const.value!r}"
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                if isinstance(key, ast.Constant) and key.value in sdks:
                    yield f"{where}: a table keyed by {key.value!r}"


def test_no_module_outside_the_adapters_knows_an_sdk() -> None:
    sdks = frozenset(adapter_names())
    found = [
        finding
        for path in sorted(SRC.rglob("*.py"))
        if not any(path.is_relative_to(allowed) for allowed in ALLOWED)
        for finding in _sdk_knowledge(
            path.read_text(encoding="utf-8"), str(path.relative_to(SRC.parent)), sdks
        )
    ]
    assert found == []


def test_the_knowledge_check_finds_imports_wrappers_branches_and_tables() -> None:
    source = (
        "import cohere\n"
        "client = instructor.from_anthropic(sdk)\n"
        'if sdk == "openai":\n'
        "    pass\n"
        'STOP = {"anthropic": "stop_sequences"}\n'
    )
    findings = _sdk_knowledge(source, "probe.py", frozenset(adapter_names()))
    assert sorted(findings) == [
        "probe.py:1: imports an SDK",
        "probe.py:2: uses from_anthropic",
        "probe.py:3: compares with 'openai'",
        "probe.py:5: a table keyed by 'anthropic'",
    ]


# --------------------------------------------------------------------------- a new SDK

NEW_ADAPTER = '''
"""A made-up SDK that speaks chat completions: the OpenAI client under another name,
with its own key variable and no seed."""

from answerx.structured.adapters.openai import OpenAIAdapter


class RelabelledAdapter(OpenAIAdapter):
    name = "relabelled"
    key_env_vars = ("RELABELLED_API_KEY",)
    base_url_env_vars = ("RELABELLED_BASE_URL",)
    takes_seed = False


ADAPTER = RelabelledAdapter()
'''


@pytest.fixture
def new_adapter_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``relabelled.py`` dropped next to the bundled adapters (for this test only)."""
    folder = tmp_path / "more_adapters"
    folder.mkdir()
    (folder / "relabelled.py").write_text(NEW_ADAPTER, encoding="utf-8")
    monkeypatch.setattr(adapters, "__path__", [*adapters.__path__, str(folder)])
    adapters.adapter_names.cache_clear()
    adapters.get_adapter.cache_clear()
    yield
    sys.modules.pop("answerx.structured.adapters.relabelled", None)
    adapters.adapter_names.cache_clear()
    adapters.get_adapter.cache_clear()


def test_a_new_sdk_is_one_adapter_module_and_its_providers_one_row_each(
    new_adapter_module: None, tmp_path: Path, fake_provider: FakeProviderServer
) -> None:
    providers_file = tmp_path / "providers.yaml"
    providers_file.write_text(
        textwrap.dedent(
            """\
            elsewhere:
              sdk: relabelled
              api_key_env: ELSEWHERE_KEY
              default_model: m1
              modes: [tools, json]
            """
        ),
        encoding="utf-8",
    )
    fake_provider.enqueue(Reply.tool_call(GOOD))

    manager = InstructorClientManager(
        "elsewhere",
        config_path=str(providers_file),
        api_key="k",
        base_url=fake_provider.openai_base_url,
    )
    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert "relabelled" in adapter_names()
    assert (result.answer_value, info.mode, manager.adapter.name) == ("4", "tools", "relabelled")
    assert {"RELABELLED_API_KEY", "ELSEWHERE_KEY"} <= provider_environment(providers_file)
    run_manager = RunClientManager(
        "elsewhere", config_path=str(providers_file), api_key="k", seed=7
    )
    assert run_manager.seed is None  # the adapter's API takes no seed
