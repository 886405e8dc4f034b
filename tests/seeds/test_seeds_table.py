"""docs/SEEDS.md proves itself: every behaviour row names tests that exist, at least one of
them feeds the seed's own example (``@seed_example``, quoted from the seed file with its
line), its label agrees with what those tests assert, and the counts match the table.

A row labelled ``same`` names no test that reaches the seed's result through an option; a
row labelled ``differs`` names one that does (asserting answerx's default too), and says
that option in its text. The decorators are read from the test files' source (the tests are
not imported), so a row can only point at what a test really states."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "docs" / "SEEDS.md"
SEED_FILES = ROOT.parent / "shared" / "seeds"
_TEST = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")
_ROW = re.compile(r"^\| ([DTUGI]\d+) \|(.*)\|\s*$", re.MULTILINE)
#: Each table's rows describe one seed document.
SEED_OF_ROW = {"D": "000", "T": "001", "U": "002", "G": "003", "I": "004"}


@dataclass(frozen=True)
class Example:
    """One ``@seed_example(seed, line, quote, option=…)`` of a test, as written."""

    seed: str
    line: int
    quote: str
    option: str | None


@dataclass(frozen=True)
class Row:
    name: str
    text: str

    @property
    def verdict(self) -> str:
        return self.text.rsplit("|", 1)[-1].strip()

    @property
    def tests(self) -> list[tuple[str, str]]:
        return _TEST.findall(self.text)


def _rows(text: str | None = None) -> list[Row]:
    source = SEEDS.read_text(encoding="utf-8") if text is None else text
    return [Row(m.group(1), m.group(2)) for m in _ROW.finditer(source)]


@cache
def _tests_of(path: str) -> dict[str, list[Example]]:
    """The test functions of ``path`` and the seed examples each is decorated with."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    tests: dict[str, list[Example]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test_"
        ):
            tests[node.name] = [_example(d) for d in node.decorator_list if _is_seed_example(d)]
    return tests


def _is_seed_example(decorator: ast.expr) -> bool:
    if not isinstance(decorator, ast.Call):
        return False
    func = decorator.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    return name == "seed_example"


def _example(decorator: ast.expr) -> Example:
    assert isinstance(decorator, ast.Call)
    seed, line, quote = (ast.literal_eval(arg) for arg in decorator.args)
    options = {k.arg: ast.literal_eval(k.value) for k in decorator.keywords}
    return Example(seed, line, quote, options.get("option"))


@cache
def _seed_lines(seed: str) -> list[str]:
    [path] = SEED_FILES.glob(f"{seed}_*.txt")
    return path.read_text(encoding="utf-8").splitlines()


def _examples_of(row: Row) -> list[Example]:
    return [e for path, name in row.tests for e in _tests_of(path).get(name, [])]


def _label_problems(row: Row) -> list[str]:
    """Why ``row``'s label does not agree with its tests' examples (empty: it does)."""
    options = [e.option for e in _examples_of(row) if e.option is not None]
    if row.verdict.startswith("same") and options:
        return [f"{row.name}: labelled same, but a test asserts it through {options[0]!r}"]
    if row.verdict.startswith("differs"):
        if not options:
            return [f"{row.name}: labelled differs, but no test asserts the seed's option"]
        return [f"{row.name}: the option {o!r} is not in its text" for o in options
                if o not in row.verdict]  # fmt: skip
    return []


def test_every_row_names_tests_that_exist() -> None:
    rows = _rows()
    assert len(rows) >= 63

    missing = [
        f"{row.name}: {path}::{name}"
        for row in rows
        for path, name in row.tests
        if not (ROOT / path).is_file() or name not in _tests_of(path)
    ]
    assert missing == []
    assert [row.name for row in rows if not row.tests] == []


def test_every_row_names_a_test_that_feeds_the_seeds_own_example() -> None:
    assert [row.name for row in _rows() if not _examples_of(row)] == []


@pytest.mark.skipif(
    not SEED_FILES.is_dir(), reason="the seed documents (../shared/seeds) are absent"
)
def test_every_quoted_example_is_on_its_line_of_the_right_seed() -> None:
    wrong = []
    for row in _rows():
        for example in _examples_of(row):
            lines = _seed_lines(example.seed)
            on_line = 0 < example.line <= len(lines) and example.quote in lines[example.line - 1]
            if example.seed != SEED_OF_ROW[row.name[0]] or not on_line:
                wrong.append(f"{row.name}: {example.seed}:{example.line} {example.quote!r}")
    assert wrong == []


def test_every_label_agrees_with_what_its_tests_assert() -> None:
    rows = _rows()

    assert [r.name for r in rows if not r.verdict.startswith(("same", "differs"))] == []
    assert [problem for row in rows for problem in _label_problems(row)] == []
    assert len({row.name for row in rows}) == len(rows)


def test_a_same_row_whose_test_uses_an_option_is_caught() -> None:
    # The check above on made-up rows: the D3 test reaches the seed through an option.
    test = (
        "`tests/seeds/test_deepresearch_seed.py::"
        "test_no_answer_is_recorded_as_no_answer_found_and_answer_not_found`"
    )
    same, differs, unnamed = _rows(
        f"| D3 | x | y | {test} | same. |\n"
        f"| D3 | x | y | {test} | differs: see `Budget(final_attempt=False)`. |\n"
        f"| D3 | x | y | {test} | differs: another way. |\n"
    )

    assert _label_problems(same) and not _label_problems(differs)
    assert _label_problems(unnamed)  # the option the test uses is not named


def test_the_count_at_the_end_matches_the_table() -> None:
    rows = _rows()
    differ = sum(row.verdict.startswith("differs") for row in rows)
    text = SEEDS.read_text(encoding="utf-8")

    assert f"{len(rows)} behaviours" in text
    assert f"{len(rows) - differ} are the same" in text and f"{differ} differ" in text
