"""Every code block of the documentation runs, or says it is illustrative.

The pages are README.md and every Markdown file under docs/. A block runs as what it is:

- ``python`` with ``>>>`` prompts: doctest (outputs compared, ``...`` elides);
- ``python`` without prompts: executed;
- ``sh``/``bash``/``console``: each command run by bash (``set -e``) in a temporary
  folder, with this venv's ``answerx`` first on the PATH and ``ANSWERX_HOME`` there too;
- ``yaml``/``json``/``toml``: parsed;
- ``text``: shown output, not code.

All blocks of one page share one namespace, in page order, with ``answerx`` imported
(every page's examples assume it, as Getting started shows), in a temporary folder that
holds the files the examples name (``outputs.jsonl``, ``rollouts.parquet``, the bundled
``config/``, a small ``corpus.jsonl``). Examples that call a hosted model (OpenAI,
Anthropic) reach the project's fake provider over HTTP on 127.0.0.1 instead: the SDKs'
own base-URL variables point at it, and it answers any tool call with arguments that fit
the tool's schema, any other request with a short reasoned answer. No key, no network.

A block that cannot run here (it needs a GPU, a framework's trainer, a cluster) is
marked on the line before its fence with ``<!-- illustrative: why -->``; the test
counts both kinds and fails on an unmarked block that does not run, and on a marker
without a reason.

Why doctest over the Markdown rather than pytest-markdown-docs or mktestdocs: the README
already ran as one doctest file, doctest is in the standard library, and one runner that
also checks shell and data blocks keeps a single rule for what "runs" means.
"""

from __future__ import annotations

import ast
import asyncio
import doctest
import gzip
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from answerx.testing import FakeProviderServer, RecordedRequest, Reply

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    [ROOT / "README.md", *(p for p in (ROOT / "docs").rglob("*.md") if "_gen" not in p.parts)]
)
_FENCE = re.compile(r"^(?P<indent> *)(?P<ticks>`{3,}|~{3,})(?P<info>[^`\n]*)$")
_MARK = re.compile(r"^<!-- illustrative(?::\s*(?P<why>.*?))?\s*-->$")
SHELLS = {"sh", "bash", "console", "shell"}
DATA = {"yaml", "json", "toml"}
SHOWN = {"text", "output", ""}


@dataclass(frozen=True)
class Block:
    """One fenced block of a page."""

    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    illustrative: str | None  # the reason, when marked

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    """The fenced blocks of a page, with the illustrative mark of each."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        ticks, indent = m.group("ticks"), len(m.group("indent"))
        lang = m.group("info").strip().split()[0].lower() if m.group("info").strip() else ""
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(ticks):
            body.append(lines[i][indent:] if lines[i][:indent].isspace() else lines[i])
            i += 1
        i += 1
        before = next((s.strip() for s in reversed(lines[:start]) if s.strip()), "")
        mark = _MARK.match(before)
        reason = None if mark is None else (mark.group("why") or "")
        found.append(Block(page, start + 1, lang, "\n".join(body) + "\n", reason))
    return found


def _value_for(schema: dict[str, Any], name: str = "") -> Any:
    """A value that fits a JSON schema (the first of an enum, 0.9 for a confidence)."""
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return _value_for(schema[key][0], name)
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: _value_for(v, k) for k, v in props.items() if k in schema.get("required", [])}
    if kind == "array":
        return []
    if kind == "boolean":
        return True
    if kind in ("number", "integer"):
        return 0.9 if "confidence" in name else 4
    return "4"


def _fill_tool(request: RecordedRequest) -> Reply:
    """The fake provider's answer for the documentation's examples (see the docstring)."""
    if not request.tools:
        return Reply.text("4 + 4 is 8, so 2 + 2 is half of it.\n\nThe answer is 4.")
    tool = request.tools[0]
    schema = tool.get("input_schema") or tool.get("function", {}).get("parameters") or {}
    defs = schema.get("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return resolve(defs[node["$ref"].split("/")[-1]])
            return {k: resolve(v) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    return Reply.tool_call(_value_for(resolve(schema)))


@pytest.fixture(scope="module")
def fake_provider_env() -> Iterator[dict[str, str]]:
    """The SDKs' base-URL and key variables pointing at a fake provider on 127.0.0.1."""
    with FakeProviderServer(default=_fill_tool) as fake:
        yield {
            "OPENAI_BASE_URL": fake.openai_base_url,
            "OPENAI_API_KEY": "sk-fake-docs-examples",
            "ANTHROPIC_BASE_URL": fake.anthropic_base_url,
            "ANTHROPIC_API_KEY": "sk-fake-docs-examples",
            "CO_API_URL": fake.cohere_base_url,
            "CO_API_KEY": "sk-fake-docs-examples",
            # OpenRouter's URL is fixed in providers.yaml: its examples only build a manager.
            "OPENROUTER_API_KEY": "sk-fake-docs-examples",
        }


def _lay_out_example_files(folder: Path) -> None:
    """The files the examples read, as a user would have them beside their code."""
    import pyarrow as pa
    import pyarrow.csv
    import pyarrow.parquet as pq

    from answerx.examples import load_examples

    # Only examples with an expected answer: a row without a gold is a malformed record.
    examples = [e for e in load_examples() if e.expected is not None]
    rows = [
        {
            "raw_output": e.raw_output,
            "completion": e.raw_output,
            "gold": e.expected,
            "task": e.task,
            "choices": e.choices,
        }
        for e in examples
    ]
    jsonl = "".join(json.dumps(row) + "\n" for row in rows)
    (folder / "outputs.jsonl").write_text(jsonl, encoding="utf-8")
    (folder / "outputs.jsonl.gz").write_bytes(gzip.compress(jsonl.encode()))
    (folder / "output.txt").write_text("Adding them up gives 42.\n\nThe answer is 42.\n")
    table = pa.Table.from_pylist(rows)
    # A trainer's rollouts: the completion and its answer under the names TRL gives them.
    rollouts = table.append_column("answer", table["gold"])
    pq.write_table(rollouts, folder / "rollouts.parquet")
    pa.csv.write_csv(table.drop_columns(["choices"]), folder / "answers.csv")
    pa.csv.write_csv(
        pa.table(
            {"raw_output": [r["raw_output"] for r in rows], "gold": [r["gold"] for r in rows]}
        ),
        folder / "outputs.csv",
    )
    qa = [
        {"raw_output": "It was Marie Curie, with Pierre.", "answers": ["Marie Curie"]},
        {"raw_output": "The Beatles.", "answers": ["The Beatles", "Fab Four"]},
    ]
    (folder / "nq_outputs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in qa))
    (folder / "saved_outputs.jsonl").write_text(jsonl, encoding="utf-8")
    (folder / "data").mkdir()
    shutil.copy(
        ROOT / "src/answerx/experiments/samples/arithmetic.jsonl", folder / "data/test.jsonl"
    )
    shutil.copytree(ROOT / "config", folder / "config")
    (folder / "corpus.jsonl").write_text(
        "".join(
            json.dumps({"id": f"d{i}", "contents": f"{t}\n{x}"}) + "\n"
            for i, (t, x) in enumerate(
                [
                    ("Tarn Valley Railway", "The Tarn Valley Railway is run by Fellbrook Lines."),
                    ("Fellbrook Lines", "Fellbrook Lines was founded by Ada Moorcroft in 1891."),
                ]
            )
        )
    )


def _run_python(block: Block, namespace: dict[str, object]) -> None:
    if ">>>" in block.code:
        test = doctest.DocTestParser().get_doctest(
            block.code, namespace, block.where, str(block.page), block.line
        )
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        report: list[str] = []
        runner.run(test, out=report.append, clear_globs=False)
        assert runner.failures == 0, f"{block.where}: doctest failed\n" + "".join(report)
    else:
        # Top-level ``await`` as in an asyncio REPL or a notebook: the examples of the
        # async API are written that way.
        code = compile(block.code, block.where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        if code.co_flags & inspect.CO_COROUTINE:
            asyncio.run(eval(code, namespace))
        else:
            exec(code, namespace)


def _run_shell(block: Block, cwd: Path) -> None:
    env = {
        **os.environ,  # the fake provider's variables are set there by the test
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "ANSWERX_HOME": str(cwd / "home"),
    }
    # A command left running in the background would hold the output pipe open: such a
    # block (a server started with "&") must be marked illustrative instead.
    assert not re.search(r"(?<!&)&\s*$", block.code, re.M), (
        f"{block.where}: starts a background process; mark it illustrative"
    )
    script = "set -euo pipefail\n" + block.code
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, (
        f"{block.where}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    )


class _TaggedLoader(yaml.SafeLoader):
    """YAML with the application tags of the tools' configs (lm-eval's ``!function``)."""


_TaggedLoader.add_multi_constructor("!", lambda loader, tag, node: loader.construct_scalar(node))


def _check_data(block: Block) -> None:
    if block.lang == "yaml":
        yaml.load(block.code, Loader=_TaggedLoader)
    elif block.lang == "json":
        json.loads(block.code)
    else:
        tomllib.loads(block.code)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_of_the_page_runs_or_is_marked(
    page: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fake_provider_env: dict[str, str],
) -> None:
    import answerx

    _lay_out_example_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANSWERX_HOME", str(tmp_path / "home"))
    for name, value in fake_provider_env.items():
        monkeypatch.setenv(name, value)
    namespace: dict[str, object] = {"answerx": answerx, "__name__": "__docs__"}
    for block in blocks_of(page):
        if block.illustrative is not None:
            assert block.illustrative, f"{block.where}: say why the block is illustrative"
            continue
        if block.lang in ("python", "py", "pycon"):
            _run_python(block, namespace)
        elif block.lang in SHELLS:
            _run_shell(block, tmp_path)
        elif block.lang in DATA:
            _check_data(block)
        else:
            assert block.lang in SHOWN, (
                f"{block.where}: a {block.lang!r} block can neither run nor be shown: "
                "mark it <!-- illustrative: why -->"
            )


def test_the_pages_hold_runnable_examples_and_the_marks_are_counted() -> None:
    blocks = [b for page in PAGES for b in blocks_of(page)]
    code = [b for b in blocks if b.lang not in SHOWN]
    marked = [b for b in code if b.illustrative is not None]
    ran = len(code) - len(marked)
    # Most examples must run: a documentation whose examples are all illustrative would
    # pass the test above while proving nothing.
    assert ran > len(marked), f"{ran} blocks run, {len(marked)} only illustrative"
    assert any(">>>" in b.code for b in code if b.illustrative is None)
