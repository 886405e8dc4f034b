"""``answerx index build|search``: the embedded retriever the search agents read from.

Thin: :mod:`answerx.retrieval` does the work; this module parses options and prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from answerx.cli._common import ExitCode, command_boundary, fail, stderr, stdout
from answerx.cli.options import (
    Format,
    IndexEngine,
    OldJsonOption,
    RowsFormatOption,
    format_or_old_json,
    note_deprecated,
    print_rows,
)

__all__ = ["app"]

app = typer.Typer(help='Build and query a BM25 index of a JSONL corpus ({"id", "contents"}).')


@app.command("build")
def build(
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", show_default=False, help="The index file to write (fts5)."),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out-dir", show_default=False, help="The index folder to write (bm25s)."),
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Argument(
            help='JSONL corpus, one {"id", "contents"} object a line.', show_default=False
        ),
    ] = None,
    engine: Annotated[
        IndexEngine, typer.Option(help="fts5 (SQLite, built in) or bm25s (needs answerx\\[bm25]).")
    ] = IndexEngine.fts5,
    bundled: Annotated[
        bool, typer.Option("--bundled", help="Index the bundled fictional corpus instead.")
    ] = False,
) -> None:
    """Index CORPUS (or --bundled) into --out (or --out-dir for bm25s), replaced only once the
    new index is complete."""
    with command_boundary():
        from answerx.retrieval import build_bm25s_index, build_index, bundled_corpus_path

        if (corpus is None) != bundled:
            fail("give either a CORPUS file or --bundled", ExitCode.USAGE)
        corpus = bundled_corpus_path() if corpus is None else corpus

        if engine is IndexEngine.fts5 and out_dir is not None:
            fail("--engine fts5 writes one file: give --out FILE", ExitCode.USAGE)
        if engine is IndexEngine.bm25s and out is not None and out_dir is None:
            note_deprecated("--out FOLDER with --engine bm25s", "--out-dir")  # kept a release
        out = out_dir or out
        if out is None:
            fail("give --out FILE (fts5) or --out-dir FOLDER (bm25s)", ExitCode.USAGE)
        if not corpus.is_file():
            fail(f"{corpus}: no such corpus file", ExitCode.IO)
        total = _count_lines(corpus)
        with Progress(
            TextColumn("indexing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=stderr(), transient=True,
        ) as bar:  # fmt: skip
            task = bar.add_task("index", total=total)

            def advance(done: int) -> None:
                bar.update(task, completed=done)

            builder = build_index if engine is IndexEngine.fts5 else build_bm25s_index
            index = builder(corpus, out, progress=advance)
        stdout().print(f"indexed {len(index)} passages into {escape(str(out))} ({engine})")


@app.command("search")
def search(
    index: Annotated[Path, typer.Argument(help="An index built with answerx index build.")],
    query: Annotated[str, typer.Argument(help="The query (any text).")],
    k: Annotated[int, typer.Option("-k", min=1, help="Passages to return.")] = 5,
    fmt: RowsFormatOption = Format.table,
    as_json: OldJsonOption = False,
) -> None:
    """The K best passages of INDEX for QUERY, best first."""
    fmt = format_or_old_json(fmt, as_json, Format.jsonl)
    with command_boundary():
        from answerx.retrieval import open_index

        if not index.exists():
            fail(f"{index}: no such index (build one with: answerx index build)", ExitCode.IO)
        passages = open_index(str(index)).search(query, k)
        if not passages and fmt is Format.table:
            stdout().print("no passage matches")
            return
        rows = [p.model_dump(mode="json") for p in passages]
        if fmt in (Format.table, Format.markdown):
            rows = [{**row, "score": f"{row['score']:.3f}"} for row in rows]
        print_rows(rows, ("id", "score", "contents"), fmt)


def _count_lines(path: Path) -> int:
    # For the progress bar's total only: a fast pass over bytes, no JSON parsing.
    with path.open("rb") as data:
        return sum(1 for line in data if line.strip())
