"""The layers of answerx point one way, and no module imports another that imports it back.

Read from the source with ``ast`` (nothing is imported), every import counts: at
module level, inside a function (a lazy import still depends on its target) and
under ``TYPE_CHECKING`` (a type-only import back is still a circle to the reader).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).parents[2] / "src" / "answerx"

#: Each package's layer: a module may import from its own layer or a lower one only.
#: Bottom-layer utilities know nothing of what answerx does; ``testing`` (the fake
#: provider server) imports nothing of answerx at all; the root package and
#: ``__main__`` are façades on top that nothing imports.
LAYERS: dict[str, int] = {
    "support": 0,  # the layer-0 helpers (answerx/support/), which know nothing of answers
    **dict.fromkeys(
        [
            "errors",
            "didyoumean",
            "_version",
            "redactor",  # every exit's key redaction, below errors.py which uses it
        ],
        0,
    ),
    "recordfiles": 0,  # the record-file formats, readers and writers, below extraction
    "callinfo": 0,  # CallInfo below errors.py, so ProviderError.call_info has its type
    **dict.fromkeys(["extraction", "retrieval", "local"], 1),  # local: the bundled model server
    **dict.fromkeys(["grading", "examples"], 2),
    "structured": 3,
    "agent": 4,
    "judge": 4,  # the LLM judge: structured calls on what grading's rules cannot decide
    "reasoning": 5,  # reasoning's approaches run the agent's loop and final attempt
    **dict.fromkeys(["experiments", "batch"], 6),
    "viewer": 7,  # the run viewer reads the store through experiments; the service mounts it
    "service": 8,
    "client": 9,  # answerx.client: a façade over answerx.service.client, above the service
    # the plug-ins use the library only; the command line is the outermost layer, so
    # `answerx extract --engine ray` and `answerx reward-func write` may reach them
    "integrations": 10,
    "cli": 11,
    "testing": 0,
    "__main__": 12,
    "": 12,  # the root package
}
SELF_CONTAINED = {"testing"}

# Known violations in code owned by other work in progress, each with its issue:
# (importer package, imported package). Empty: none found on the current tree.
KNOWN_EXCEPTIONS: set[tuple[str, str]] = set()


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _package(module: str) -> str:
    """``answerx.experiments.store`` -> ``experiments``; the root package -> ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imports(module: str, path: Path) -> Iterator[str]:
    """The answerx modules ``module`` imports, each resolved to a module of the tree."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from answerx.experiments import store`` imports the submodule.
            names = [
                f"{target}.{a.name}" if f"{target}.{a.name}" in MODULES else target
                for a in node.names
            ]
        for name in names:
            if name.split(".")[0] != "answerx":
                continue
            while name not in MODULES and "." in name:
                name = name.rsplit(".", 1)[0]
            yield name


GRAPH = {module: set(_imports(module, path)) for module, path in MODULES.items()}


def test_every_package_has_a_layer() -> None:
    unplaced = sorted({_package(m) for m in MODULES} - set(LAYERS))
    assert not unplaced, f"place these packages in LAYERS (tests/unit/test_layers.py): {unplaced}"


def test_no_import_goes_up_the_layers() -> None:
    upward = []
    for module, targets in GRAPH.items():
        here = _package(module)
        for target in targets:
            there = _package(target)
            if (here, there) in KNOWN_EXCEPTIONS or here == there:
                continue
            if LAYERS.get(there, 0) > LAYERS.get(here, 0):
                upward.append(f"{module} imports {target} ({here} is below {there})")
    assert not upward, "\n".join(sorted(upward))


def test_nothing_imports_the_package_root() -> None:
    # The root imports the public API; a module that imports it back imports everything.
    importers = sorted(m for m, targets in GRAPH.items() if "answerx" in targets)
    assert not importers, importers


@pytest.mark.parametrize("package", sorted(SELF_CONTAINED))
def test_self_contained_packages_import_nothing_of_answerx(package: str) -> None:
    outside = sorted(
        f"{m} imports {t}"
        for m, targets in GRAPH.items()
        if _package(m) == package
        for t in targets
        if _package(t) != package
    )
    assert not outside, outside


def test_no_module_imports_itself_back_through_others() -> None:
    circles = _strongly_connected(GRAPH)
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(c) for c in circles)


def test_packages_depend_on_each_other_one_way() -> None:
    packages: dict[str, set[str]] = {}
    for module, targets in GRAPH.items():
        here = _package(module)
        packages.setdefault(here, set()).update(_package(t) for t in targets if _package(t) != here)
    circles = _strongly_connected(packages)
    assert not circles, "package circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_the_walker_sees_a_circle_and_an_upward_import() -> None:
    # The checks above pass on a clean tree; this shows they would fail on a bad one.
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _strongly_connected(graph) == [["a", "b", "c"]]
    assert "answerx.experiments.report" in GRAPH["answerx.experiments.plots"]
    assert "answerx.experiments.plots" not in GRAPH["answerx.experiments.report"]


def test_the_design_map_states_these_layers() -> None:
    # docs/DESIGN.md's table is the rule as written for people: the same packages, the
    # same layers, so the document cannot drift from what this test enforces.
    import re

    design = (SRC.parents[1] / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    stated: dict[str, int] = {}
    for layer, names in re.findall(r"^\| (\d+) \| ([^|]+) \|", design, flags=re.MULTILINE):
        for name in re.findall(r"`([^`]+)`", names):
            stated["" if name == "answerx" else name] = int(layer)
    assert stated == LAYERS


def _third_party_imports(path: Path) -> set[str]:
    """The top-level names of the packages ``path`` imports (lazily or not)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


RICH_USERS = {m for m, path in MODULES.items() if "rich" in _third_party_imports(path)}


def test_only_the_command_line_draws_with_rich() -> None:
    # The library hands over data (reports, progress, summaries); the edge formats it.
    outside = sorted(m for m in RICH_USERS if _package(m) != "cli")
    assert not outside, f"rich imported outside answerx.cli: {outside}"


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of more than one node that reach each other (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)
