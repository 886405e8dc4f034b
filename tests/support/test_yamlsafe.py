"""Hostile YAML: every YAML file answerx reads is bounded in size, alias expansion and nesting.

The same attacks are tried on each reader: the experiment config (library and
``answerx run``), ``providers.yaml`` (``$ANSWERX_PROVIDERS``) and the price table
(``$ANSWERX_PRICES``). Each must end in a ConfigError naming the file and line,
quickly and in little memory, never in a traceback.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from answerx.cli import app
from answerx.errors import ConfigError
from answerx.experiments.config import load_config
from answerx.structured.prices import load_prices
from answerx.structured.providers import load_providers
from answerx.support.yamlsafe import MAX_YAML_BYTES, load_yaml_text, read_yaml_file

# Nine levels of nine aliases: 9**9 (387 million) strings once expanded, in ten lines.
BILLION_LAUGHS = (
    'lol0: &lol0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
    + "".join(f"lol{n}: &lol{n} [{', '.join([f'*lol{n - 1}'] * 9)}]\n" for n in range(1, 10))
)
SELF_REFERENCE = "datasets: &loop [*loop]\napproaches: [none]\n"
MAPPING_SELF_REFERENCE = "approaches: [none]\nbudget: &b {inner: *b}\n"


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str], Path]:
    def _write(text: str) -> Path:
        path = tmp_path / "hostile.yaml"
        path.write_text(text, encoding="utf-8")
        return path

    return _write


@pytest.fixture(autouse=True)
def _fresh_tables(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("ANSWERX_PROVIDERS", "ANSWERX_PRICES"):
        monkeypatch.delenv(name, raising=False)
    yield
    # load_providers/load_prices cache per path: forget the hostile files.
    from answerx.structured import prices, providers

    providers._load.cache_clear()
    prices._load.cache_clear()


def _load_experiment(path: Path) -> Any:
    return load_config(path)


def _load_providers(path: Path) -> Any:
    return load_providers(path)


def _load_prices(path: Path) -> Any:
    return load_prices(path)


READERS = pytest.mark.parametrize(
    "read",
    [_load_experiment, _load_providers, _load_prices],
    ids=["experiment config", "providers.yaml", "prices.yaml"],
)


def _refusal(read: Callable[[Path], Any], path: Path) -> tuple[str, int]:
    """The ConfigError message of reading ``path``, and the peak memory it took (bytes)."""
    tracemalloc.start()
    try:
        with pytest.raises(ConfigError) as caught:
            read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return str(caught.value), peak


@READERS
def test_a_billion_laughs_is_refused_at_the_alias_that_crosses_the_budget(
    read: Callable[[Path], Any], write: Callable[[str], Path]
) -> None:
    path = write(BILLION_LAUGHS)
    message, peak = _refusal(read, path)
    # lol0 is 10 nodes, lol1 91, lol2 820, lol3 7,381: the aliases of lines 2-4 expand
    # to 8,289 nodes, and the first *lol3 on line 5 takes them past 10,000.
    assert f"{path}:5:" in message
    assert "alias *lol3" in message and "10,000 expanded nodes" in message
    assert peak < 5_000_000  # bytes: nothing was expanded


@READERS
@pytest.mark.parametrize("text", [SELF_REFERENCE, MAPPING_SELF_REFERENCE], ids=["list", "mapping"])
def test_an_alias_inside_its_own_anchor_is_refused_not_a_recursion_error(
    read: Callable[[Path], Any], write: Callable[[str], Path], text: str
) -> None:
    path = write(text)
    message, _ = _refusal(read, path)
    assert f"{path}:" in message and "inside its own anchor" in message


@READERS
def test_a_file_larger_than_the_limit_is_refused_before_it_is_parsed(
    read: Callable[[Path], Any], write: Callable[[str], Path]
) -> None:
    path = write("# padding\n" * (MAX_YAML_BYTES // 10 + 1))
    message, peak = _refusal(read, path)
    assert str(path) in message and "larger than 256 KiB" in message
    assert peak < 2 * MAX_YAML_BYTES  # read with a cap, not whole


@READERS
def test_nesting_deeper_than_the_limit_is_refused_with_its_line(
    read: Callable[[Path], Any], write: Callable[[str], Path]
) -> None:
    path = write("approaches: [none]\ndeep: " + "[" * 500 + "]" * 500 + "\n")
    message, _ = _refusal(read, path)
    assert f"{path}:2:" in message and "nested more than 64 levels" in message


def test_a_huge_integer_is_an_error_at_its_line_not_a_value_error(
    write: Callable[[str], Path],
) -> None:
    path = write("approaches: [none]\nseed: " + "7" * 5000 + "\n")
    message, _ = _refusal(_load_experiment, path)
    assert f"{path}:2:" in message and "cannot read this value" in message


def test_a_file_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"approaches: [none]\nname: caf\xe9\n")
    with pytest.raises(ConfigError, match=r"latin1\.yaml:2: not valid UTF-8"):
        read_yaml_file(path)


def test_honest_aliases_and_merge_keys_still_work(write: Callable[[str], Path]) -> None:
    path = write(
        """
        defaults: &defaults {provider: openai, model: gpt-4o-mini}
        targets:
          - *defaults
          - {<<: *defaults, model: gpt-4o}
        """.replace("\n        ", "\n")
    )
    data, _ = read_yaml_file(path)
    assert data["targets"] == [
        {"provider": "openai", "model": "gpt-4o-mini"},
        {"provider": "openai", "model": "gpt-4o"},
    ]


def test_the_budget_counts_what_an_alias_expands_to_not_how_often_it_is_written() -> None:
    block = "base: &b [" + ", ".join(["x"] * 99) + "]\n"  # 100 nodes
    within = block + "uses: [" + ", ".join(["*b"] * 99) + "]\n"  # 9,900 expanded
    beyond = block + "uses: [" + ", ".join(["*b"] * 101) + "]\n"  # 10,100 expanded
    assert len(load_yaml_text(within, source="s")[0]["uses"]) == 99
    with pytest.raises(ConfigError, match=r"^s:2: .*alias \*b takes the aliases"):
        load_yaml_text(beyond, source="s")


def test_answerx_run_refuses_an_alias_bomb_with_a_usage_error_and_no_traceback(
    write: Callable[[str], Path],
) -> None:
    path = write(BILLION_LAUGHS)
    result = CliRunner().invoke(app, ["run", str(path), "-q"])
    assert result.exit_code == 2
    assert f"{path}:5:" in result.stderr and "alias *lol3" in result.stderr
    assert isinstance(result.exception, SystemExit)  # an exit code, not a traceback


def test_answerx_run_refuses_a_self_referencing_config_with_its_line(
    write: Callable[[str], Path],
) -> None:
    path = write(SELF_REFERENCE)
    result = CliRunner().invoke(app, ["run", str(path), "-q"])
    assert result.exit_code == 2
    assert f"{path}:1:" in result.stderr and "inside its own anchor" in result.stderr
    assert isinstance(result.exception, SystemExit)


def test_a_bomb_in_a_set_value_is_kept_as_text_not_expanded() -> None:
    from answerx.cli.options import parse_set

    flow = "{" + BILLION_LAUGHS.strip().replace("\n", ", ") + "}"  # the bomb on one line
    tracemalloc.start()
    try:
        overrides = parse_set([f"description={flow}", "budget.max_calls=4"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert overrides == {"description": flow, "budget.max_calls": 4}
    assert peak < 5_000_000
