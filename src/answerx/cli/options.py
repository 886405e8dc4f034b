"""The options every ``answerx`` command spells the same way, declared once.

- ``--format``: one :class:`Format` vocabulary; each command accepts the subset
  its output has (:func:`format_option`).
- list options: repeatable *and* comma-separated (``--target a,b --target c``),
  split by one helper (:func:`split_list`).
- ``--set KEY=VALUE``: the one override syntax, VALUE read as YAML through
  :mod:`answerx.support.yamlsafe` (:func:`parse_set`).
- ``--task``, ``--strategy``, ``--approach``: names checked against the
  library's registries, with shell completion from the same registries
  (:func:`name_option`). Heavy registries (the reasoning package) are imported
  only when a value is checked or completed, so ``answerx --help`` stays fast.
- ``--out`` is always a file; a directory is ``--out-dir``. Old spellings stay
  as hidden options that print a deprecation note (:func:`deprecated_option`).
- ``--format json`` prints one JSON document the same way everywhere
  (:func:`print_json`).
- A flag shows no type in ``--help`` (:func:`hide_flag_types`): it takes no value.

The ``Annotated`` types at the end are the option blocks several commands share,
each declared once (``--task``, ``--choices``, ``--numbers``, ``--file``,
``--progress``, ``--input-format``, ``--db``, ``--max-calls``, ``--provider/-p``,
``--model/-m``, …); a command may word its help, never change the option.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.markup import escape
from rich.table import Table

from answerx.cli._common import ExitCode, fail, stderr, stdout
from answerx.errors import ConfigError, UnknownName
from answerx.extraction import TASKS
from answerx.recordfiles.formats import InputFormat

__all__ = [
    "AddressOption",
    "BatchSizeOption",
    "ChoicesOption",
    "ContinueOption",
    "DbOption",
    "Engine",
    "EngineOption",
    "FieldOption",
    "FileOption",
    "FinishReasonOption",
    "Format",
    "IndexEngine",
    "InputFormatOption",
    "MaxCallsOption",
    "ModelOption",
    "NumbersOption",
    "OldJsonOption",
    "OldResumeOption",
    "OutFileOption",
    "PrefixOption",
    "ProgressOption",
    "ProviderOption",
    "QuietOption",
    "RowsFormatOption",
    "WorkersOption",
    "approach_names",
    "continue_or_old_resume",
    "db_option",
    "deprecated_option",
    "existing_store",
    "experiment_approach_names",
    "format_option",
    "format_or_old_json",
    "hide_flag_types",
    "list_option",
    "max_calls_option",
    "model_option",
    "name_option",
    "note_deprecated",
    "parse_set",
    "print_json",
    "print_rows",
    "provider_option",
    "set_option",
    "split_list",
    "strategy_names",
    "task_names",
    "task_option",
]


# --------------------------------------------------------------------------- --format
class Format(StrEnum):
    """Every output form a command can print or write; each command takes a subset."""

    table = "table"
    json = "json"
    jsonl = "jsonl"
    markdown = "markdown"
    csv = "csv"
    parquet = "parquet"


def format_option(*allowed: Format, help: str) -> Any:
    """The ``--format`` option of a command whose output has the ``allowed`` forms.

    One :class:`Format` type for every command; a form the command does not have is
    a usage error naming the ones it has, and completion offers only those.
    """
    names = [str(f) for f in allowed]

    def check(ctx: typer.Context, value: Format | None) -> Format | None:
        if value is not None and value not in allowed and not ctx.resilient_parsing:
            fail(f"--format {value}: this command prints {', '.join(names)}", ExitCode.USAGE)
        return value

    def complete(incomplete: str) -> list[str]:
        return [n for n in names if n.startswith(incomplete)]

    return typer.Option(
        "--format",
        metavar="[" + "|".join(names) + "]",
        show_choices=False,
        show_default=False,
        callback=check,
        autocompletion=complete,
        help=help,
    )


#: ``--format`` of a command that prints records (runs, approaches, passages).
RowsFormatOption = Annotated[
    Format,
    format_option(
        Format.table,
        Format.json,
        Format.jsonl,
        Format.markdown,
        help="table, json (one array), jsonl (a record a line) or markdown.",
    ),
]
#: ``--json``, the old spelling of ``--format json`` (``--format jsonl`` for ``index search``).
OldJsonOption = Annotated[bool, typer.Option("--json", hidden=True, help="Old: --format json.")]


_Fmt = TypeVar("_Fmt", Format, Format | None)


def format_or_old_json(fmt: _Fmt, old_json: bool, json_format: Format = Format.json) -> _Fmt:
    """``fmt``, or ``json_format`` when the old ``--json`` flag was given (with a note)."""
    if not old_json:
        return fmt
    note_deprecated("--json", f"--format {json_format}")
    return json_format


# --------------------------------------------------------------------------- lists
def split_list(values: Iterable[str] | None) -> list[str] | None:
    """A list option's values, each split at commas: ``["a,b", "c"]`` -> ``["a", "b", "c"]``.

    None (not given) stays None, so "not given" and "given empty" stay apart.
    """
    if values is None:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def list_option(
    *decls: str,
    help: str,
    names: Callable[[], Sequence[str]] | None = None,
    kind: str = "",
    metavar: str = "NAME",
    **kwargs: Any,
) -> Any:
    """A list option that is repeatable and takes comma-separated values.

    With ``names`` (a registry, read lazily), every value must be one of them
    (an unknown one exits 2 with a did-you-mean) and the shell completes them.
    """

    def split(ctx: typer.Context, values: list[str] | None) -> list[str] | None:
        parts = split_list(values)
        if parts and names is not None and not ctx.resilient_parsing:
            valid = names()
            for part in parts:
                if part not in valid:
                    fail(str(_unknown(kind, part, valid)), ExitCode.USAGE)
        return parts

    def complete(incomplete: str) -> list[str]:
        # Complete the last comma-separated part: "--approaches none,ch<TAB>".
        done, _, last = incomplete.rpartition(",")
        head = f"{done}," if done else ""
        return [head + n for n in (names() if names else ()) if n.startswith(last)]

    return typer.Option(
        *decls,
        callback=split,
        autocompletion=complete if names is not None else None,
        metavar=metavar,
        show_default=False,
        help=f"{help} Repeatable, or comma-separated.",
        **kwargs,
    )


# --------------------------------------------------------------------------- names
def _unknown(kind: str, name: str, valid: Sequence[str]) -> UnknownName:
    if kind.endswith("y"):
        plural = f"{kind[:-1]}ies"  # strategy -> strategies
    else:
        plural = f"{kind}es" if kind.endswith(("ch", "s", "x")) else f"{kind}s"
    return UnknownName(kind, name, valid, listed=f"valid {plural}")


def task_names() -> tuple[str, ...]:
    """The task names (:data:`answerx.extraction.TASKS`)."""
    return TASKS


def strategy_names() -> tuple[str, ...]:
    """The strategies (:data:`answerx.reasoning.STRATEGIES`)."""
    from answerx.reasoning import STRATEGIES  # Instructor and the SDKs: only when asked

    return STRATEGIES


def approach_names() -> tuple[str, ...]:
    """Every approach ``answerx ask`` can run: the reasoning registry and the search loops."""
    from answerx.reasoning import APPROACHES  # the search loops included

    return tuple(APPROACHES)


def experiment_approach_names() -> tuple[str, ...]:
    """The approaches an experiment config accepts (what its validator checks): every
    approach, the search loops reading the config's ``index:``."""
    return approach_names()


def name_option(
    *decls: str,
    kind: str,
    names: Callable[[], Sequence[str]],
    help: str,
    metavar: str = "NAME",
    **kwargs: Any,
) -> Any:
    """An option whose value is one of a registry's ``names`` (read lazily): an unknown
    name exits 2 with a did-you-mean and the valid names; the shell completes them."""

    def check(ctx: typer.Context, value: str | None) -> str | None:
        if value is not None and not ctx.resilient_parsing:
            valid = names()
            if value not in valid:
                fail(str(_unknown(kind, value, valid)), ExitCode.USAGE)
        return value

    def complete(incomplete: str) -> list[str]:
        return [n for n in names() if n.startswith(incomplete)]

    return typer.Option(
        *decls, callback=check, autocompletion=complete, metavar=metavar, help=help, **kwargs
    )


# --------------------------------------------------------------------------- --set
def parse_set(pairs: Iterable[str] | None) -> dict[str, Any]:
    """``--set KEY=VALUE`` options as a mapping; each VALUE is read as YAML (``4``,
    ``true``, ``[a, b]``) within the limits of :mod:`answerx.support.yamlsafe` (no alias bombs
    on the command line either); text that is not YAML is kept as it is."""
    from answerx.support.yamlsafe import load_yaml_text

    overrides: dict[str, Any] = {}
    for pair in pairs or ():
        key, sep, text = pair.partition("=")
        if not sep or not key.strip():
            fail(f"--set: expected KEY=VALUE (e.g. budget.max_calls=4), got {pair!r}",
                 ExitCode.USAGE)  # fmt: skip
        try:
            value = load_yaml_text(text, source=f"--set {key.strip()}")[0] if text.strip() else None
        except ConfigError:
            value = text  # not YAML ("a: b: c"), or past a limit: the text as it is
        overrides[key.strip()] = value
    return overrides


# --------------------------------------------------------------------------- old spellings
def note_deprecated(old: str, new: str) -> None:
    """Say on stderr that ``old`` still works for one release and ``new`` replaces it."""
    stderr().print(
        f"[yellow]note:[/] {escape(old)} is deprecated and goes away in the next release;"
        f" use {escape(new)}"
    )


def deprecated_option(old: str, new: str, **kwargs: Any) -> Any:
    """A hidden option kept under its old spelling ``old``; the command reads it as
    ``new`` and calls :func:`note_deprecated` when it was given."""
    return typer.Option(
        old, hidden=True, show_default=False, help=f"Old spelling of {new}.", **kwargs
    )


# --------------------------------------------------------------------------- rows
def print_rows(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], fmt: Format) -> None:
    """Print records as a table, a JSON array, JSON Lines or a Markdown table."""
    if fmt is Format.json:
        typer.echo(json.dumps([dict(r) for r in rows], ensure_ascii=False, indent=2, default=str))
    elif fmt is Format.jsonl:
        for row in rows:
            typer.echo(json.dumps(dict(row), ensure_ascii=False, default=str))
    elif fmt is Format.markdown:
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        for row in rows:
            cells = (_text(row.get(c)).replace("|", "\\|").replace("\n", " ") for c in columns)
            lines.append("| " + " | ".join(cells) + " |")
        typer.echo("\n".join(lines))
    else:
        table = Table(header_style="bold")
        for column in columns:
            table.add_column(column)
        for row in rows:
            table.add_row(*(escape(_text(row.get(c))) for c in columns))
        stdout().print(table)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def print_json(value: Any) -> None:
    """What ``--format json`` prints, in every command: one JSON document, indented by
    two, UTF-8 as written (no ``\\u`` escapes); a pydantic model as its JSON form."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2, default=str))


# --------------------------------------------------------------------------- --help
def hide_flag_types() -> None:
    """Show no type after a flag in ``--help``.

    Typer (0.2x) prints ``<bool>`` after every flag, ``--help`` included, as if it
    took a value; a flag takes none, so its type column is left empty. Typer has no
    setting for it: the one method that renders the column is wrapped, once, in
    this process (the options that take a value keep their types).
    """
    from typer.core import TyperOption

    original = getattr(TyperOption, "display_type_rich", None)
    if original is None or getattr(original, "hides_flags", False):
        return  # an older Typer, which shows no type for flags; or done already

    def display_type_rich(self: TyperOption, ctx: typer.Context) -> str | None:
        return None if self.is_flag else original(self, ctx)

    display_type_rich.hides_flags = True  # type: ignore[attr-defined]
    setattr(TyperOption, "display_type_rich", display_type_rich)  # noqa: B010


# --------------------------------------------------------------------------- shared blocks
def _task_help(extra: str) -> str:
    return f"One of: {', '.join(TASKS)}.{extra}"


def task_option(*decls: str, extra: str = "") -> Any:
    """``--task``/``-t``: a task name (see :func:`name_option`); ``extra`` ends the help."""
    return name_option(
        *(decls or ("--task", "-t")), kind="task", names=task_names, help=_task_help(extra),
        metavar="TASK",
    )  # fmt: skip


ChoicesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--choices",
        "-c",
        metavar="TEXT",
        show_default=False,
        # Not comma-separated, unlike other lists: an option's text may hold commas
        # ("Paris, France", "1,000").
        help="Option texts for multiple choice, in order (A, B, …): repeat the option, "
        "or give one JSON list. Single text only.",
    ),
]
NumbersOption = Annotated[
    list[str] | None,
    typer.Option(
        "--numbers",
        "-n",
        metavar="N",
        show_default=False,
        help="Game of 24 numbers: '4,9,10,13', '4 9 10 13', a JSON list, or the option "
        "repeated. Single text only.",
    ),
]
FileOption = Annotated[
    str | None,
    typer.Option(
        "--file", "-f", show_default=False, help="A file of records to stream ('-' = stdin)."
    ),
]
OutFileOption = Annotated[
    str | None,
    typer.Option(
        "--out", "-o", show_default=False, help="The file results go to ('-' or omitted: stdout)."
    ),
]
FieldOption = Annotated[
    str, typer.Option("--field", help="Record field that holds the raw output (files).")
]
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers", "-w", min=1, show_default=False,
        help="Worker processes for --file. Default: every core.",
    ),
]  # fmt: skip


class Engine(StrEnum):
    """Where a --file runs."""

    local = "local"
    ray = "ray"


# The file-run options `extract` and `verify` share (both run answerx.batch.run_file;
# --input-format, --progress and --continue below).
BatchSizeOption = Annotated[
    int, typer.Option("--batch-size", min=1, help="Records per batch (--file).")
]
EngineOption = Annotated[
    Engine, typer.Option("--engine", help="local (this machine's cores) or ray (--file).")
]
AddressOption = Annotated[
    str | None,
    typer.Option(
        "--address",
        show_default=False,
        help="Ray cluster for --engine ray: 'auto', 'ray://HOST:10001'. Default: "
        "RAY_ADDRESS, else a local cluster.",
    ),
]
PrefixOption = Annotated[
    str,
    typer.Option(
        "--prefix",
        help="Prefix for the added field names (files), e.g. 'extracted_' to keep an input "
        "'answer' field.",
    ),
]
QuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress bar and no closing summary.")
]
ProgressOption = Annotated[
    bool | None,
    typer.Option(
        "--progress/--no-progress",
        show_default=False,
        help="Progress bar on stderr for files. Default: when stderr is a terminal.",
    ),
]
InputFormatOption = Annotated[
    InputFormat | None,
    typer.Option(
        "--input-format",
        show_default=False,
        help="jsonl, csv or parquet. Default: from --file's extension (else jsonl).",
    ),
]
#: ``--continue``: what a stopped file run needs (a ``run`` is resumed with ``--resume
#: RUN_ID``); ``--resume`` was its old spelling (:data:`OldResumeOption`).
ContinueOption = Annotated[
    bool,
    typer.Option("--continue", help="Continue an interrupted --file run into the same --out file."),
]
OldResumeOption = Annotated[bool, deprecated_option("--resume", "--continue")]


def continue_or_old_resume(cont: bool, old_resume: bool) -> bool:
    """``--continue``, or the old ``--resume`` flag of a file run (with a note)."""
    if old_resume:
        note_deprecated("--resume", "--continue")
    return cont or old_resume


FinishReasonOption = Annotated[
    str | None,
    typer.Option(
        "--finish-reason",
        show_default=False,
        help="The provider's finish reason ('length' = cut off; single text).",
    ),
]


def provider_option(help: str = "Provider (default: the bundled local model).", **kw: Any) -> Any:
    """``--provider``/``-p``: a provider name (``help`` and a help panel may vary)."""
    return typer.Option("--provider", "-p", help=help, **kw)


def model_option(help: str = "Model name (default: the provider's).", **kw: Any) -> Any:
    """``--model``/``-m``: a model of the provider."""
    return typer.Option("--model", "-m", show_default=False, help=help, **kw)


def max_calls_option(help: str = "Budget: LLM calls per question, at most.", **kw: Any) -> Any:
    """``--max-calls``: the call budget (at least 1)."""
    return typer.Option("--max-calls", min=1, show_default=False, help=help, **kw)


def db_option(**kw: Any) -> Any:
    """``--db``: the results store, a SQLite file or a ``postgresql://`` URL."""
    return typer.Option(
        "--db",
        help="The results store: a SQLite file, or a postgresql://USER@HOST/DB URL (password "
        "in the URL or PGPASSWORD).",
        show_default="$ANSWERX_DB, else $ANSWERX_HOME/answerx.db",
        **kw,
    )


ProviderOption = Annotated[str, provider_option()]
ModelOption = Annotated[str | None, model_option()]
MaxCallsOption = Annotated[int | None, max_calls_option()]
DbOption = Annotated[str | None, db_option()]


def existing_store(db: str | Path | None) -> Path | str:
    """The path of the results store a ``runs`` command works on (``db``, default:
    $ANSWERX_HOME's); a missing one exits 3 with what to do. Whatever else is wrong with
    it (a folder, an empty or foreign file, damage) is the store's own check, raised as
    a StoreError (exit 4) by every command alike."""
    from answerx.experiments.store.url import default_store, store_location

    path = store_location(db) if db else default_store()
    if isinstance(path, str):  # a server's URL: the server answers for it
        return path
    if not path.exists():
        fail(f"no results store at {path} (run an experiment first, or pass --db)", ExitCode.IO)
    return path


_SET_HELP = (
    "Override a setting; dotted keys reach nested ones; VALUE is YAML (4, true, [a, b]). "
    "Repeatable."
)


def set_option(help: str = _SET_HELP, **kwargs: Any) -> Any:
    """``--set KEY=VALUE`` (read with :func:`parse_set`)."""
    return typer.Option("--set", metavar="KEY=VALUE", show_default=False, help=help, **kwargs)


class IndexEngine(StrEnum):
    """What an index is built with (``answerx index build --engine``)."""

    fts5 = "fts5"
    bm25s = "bm25s"
