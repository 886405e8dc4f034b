"""``answerx run`` and ``answerx runs list|show|export|delete|recover|score|report|work``.

Thin layers over :mod:`answerx.experiments`; the library modules are imported
inside the commands so that ``answerx --help`` stays fast.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from answerx.cli._common import ExitCode, command_boundary, fail, stderr, stdout
from answerx.cli.options import (
    DbOption,
    Format,
    RowsFormatOption,
    db_option,
    deprecated_option,
    existing_store,
    experiment_approach_names,
    format_option,
    list_option,
    max_calls_option,
    model_option,
    note_deprecated,
    parse_set,
    print_json,
    print_rows,
    provider_option,
    set_option,
    strategy_names,
)
from answerx.support.home import default_report_dir

if TYPE_CHECKING:
    from answerx.experiments.store.browse import ItemQuery

__all__ = [
    "report_command",
    "resume_command",
    "run_command",
    "runs_app",
    "score_command",
    "work_command",
]


def _store(db: str | Path | None, *, reading: bool = False) -> Any:
    """The results store at ``db`` (default: $ANSWERX_HOME's); ``reading`` for the
    commands that only read it: read-only, so they never write to it, and work on a
    store they may not write."""
    from answerx.experiments.store import ResultStore

    path = existing_store(db)
    return ResultStore.open(path, "read" if reading else "existing")


RUN_HELP = """Run an experiment: datasets x approaches x strategies x providers/models.

CONFIG is a YAML file (see config/experiments/example.yaml). Options override
its keys; --set KEY=VALUE overrides any key, nested ones too (--set
budget.max_tokens=20000, --set rate_limits.openai.requests_per_minute=60).
List options (--dataset, --approaches, --strategies, --target) repeat or take
comma-separated values.
Every finished item is stored at once in the results store ($ANSWERX_HOME/answerx.db,
runs/answerx.db by default); Ctrl-C stops gracefully, and --resume RUN_ID (or --resume last)
continues a run, skipping what it finished. At the end the report is printed
and written (report.md, report.json, PNG plots) under --out-dir/RUN_ID
(output.report_dir).
"""

_SETTINGS = "Run settings (override the config)"
_OUTPUT = "Output"


# The options `run` and `runs work` share, declared once.
_LeaseOption = Annotated[
    float,
    typer.Option(
        "--lease",
        min=1.0,
        help="For a run shared by several workers: seconds a worker holds an item before "
        "another may take it (renewed while it lives; a killed worker's items pass on after "
        "this).",
        rich_help_panel=_OUTPUT,
    ),
]
_OutDirOption = Annotated[
    Path | None,
    typer.Option(
        "--out-dir",
        help="Where the report and plots go (a folder per run in it).",
        show_default="output.report_dir",
        rich_help_panel=_OUTPUT,
    ),
]
_ReportOption = Annotated[
    bool,
    typer.Option(
        "--report/--no-report",
        help="Print and write the report at the end.",
        rich_help_panel=_OUTPUT,
    ),
]
_QuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress bar.", rich_help_panel=_OUTPUT)
]


def run_command(
    ctx: typer.Context,
    config: Annotated[Path, typer.Argument(help="Experiment config (YAML).", show_default=False)],
    resume: Annotated[
        str | None,
        typer.Option("--resume", help="Continue run RUN_ID ('last': the latest of this config)."),
    ] = None,
    name: Annotated[
        str | None, typer.Option(help="The run's name.", rich_help_panel=_SETTINGS)
    ] = None,
    dataset: Annotated[
        list[str] | None,
        list_option(
            "--dataset",
            help="A bundled sample, a .jsonl/.csv/.parquet file, or a cached Hugging Face "
            "dataset as hf:NAME:CONFIG@SPLIT (replaces the config's datasets).",
            metavar="DATASET",
            rich_help_panel=_SETTINGS,
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(help="Only the first N items per dataset.", rich_help_panel=_SETTINGS),
    ] = None,
    approaches: Annotated[
        list[str] | None,
        list_option(
            "--approaches",
            help="Approaches (replaces the config's; answerx approaches list).",
            names=experiment_approach_names,
            kind="approach",
            metavar="APPROACH",
            rich_help_panel=_SETTINGS,
        ),
    ] = None,
    strategies: Annotated[
        list[str] | None,
        list_option(
            "--strategies",
            help="Strategies (replaces the config's; the shell completes them).",
            names=strategy_names,
            kind="strategy",
            metavar="STRATEGY",
            rich_help_panel=_SETTINGS,
        ),
    ] = None,
    target: Annotated[
        list[str] | None,
        list_option(
            "--target",
            help="provider or provider/model (replaces the config's targets).",
            metavar="TARGET",
            rich_help_panel=_SETTINGS,
        ),
    ] = None,
    provider: Annotated[
        str | None,
        provider_option(
            help="Run on this provider only (its default model).", rich_help_panel=_SETTINGS
        ),
    ] = None,
    model: Annotated[
        str | None,
        model_option(
            help="The model of --provider, or of the config's only target.",
            rich_help_panel=_SETTINGS,
        ),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            help="The base URL of --provider or of the only target.", rich_help_panel=_SETTINGS
        ),
    ] = None,
    temperature: Annotated[
        float | None, typer.Option(help="Sampling temperature.", rich_help_panel=_SETTINGS)
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option(help="Output tokens per call.", rich_help_panel=_SETTINGS)
    ] = None,
    repetitions: Annotated[
        int | None, typer.Option(help="Times each item is asked.", rich_help_panel=_SETTINGS)
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed for providers that take one (sent as seed + repetition).",
            rich_help_panel=_SETTINGS,
        ),
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(help="Items in flight at once.", rich_help_panel=_SETTINGS)
    ] = None,
    requests_per_minute: Annotated[
        float | None,
        typer.Option(
            help="Request rate limit, for each target's provider.", rich_help_panel=_SETTINGS
        ),
    ] = None,
    tokens_per_minute: Annotated[
        int | None,
        typer.Option(
            help="Token rate limit, for each target's provider.", rich_help_panel=_SETTINGS
        ),
    ] = None,
    max_calls: Annotated[
        int | None,
        max_calls_option(
            help="Budget: LLM calls per question (budget.max_calls).", rich_help_panel=_SETTINGS
        ),
    ] = None,
    time_limit: Annotated[
        float | None,
        typer.Option(
            help="Budget: seconds per question (budget.time_limit_s).", rich_help_panel=_SETTINGS
        ),
    ] = None,
    set_: Annotated[list[str] | None, set_option(rich_help_panel=_SETTINGS)] = None,
    no_cache: Annotated[
        bool,
        typer.Option(
            "--no-cache",
            help="Call the provider even for identical calls.",
            rich_help_panel=_SETTINGS,
        ),
    ] = False,
    db: Annotated[str | None, db_option(rich_help_panel=_OUTPUT)] = None,
    join: Annotated[
        bool,
        typer.Option(
            "--join",
            help="Work on this config's unfinished run together with other workers using "
            "the same --db (other processes or machines); start it if there is none.",
            rich_help_panel=_OUTPUT,
        ),
    ] = False,
    lease: _LeaseOption = 60.0,
    out_dir: _OutDirOption = None,
    report_dir: Annotated[Path | None, deprecated_option("--report-dir", "--out-dir")] = None,
    report: _ReportOption = True,
    quiet: _QuietOption = False,
) -> None:
    from answerx.cli.run_display import ExperimentBar
    from answerx.experiments.config import load_config
    from answerx.experiments.runner import run_experiment
    from answerx.experiments.store.url import display_store

    if report_dir is not None:
        note_deprecated("--report-dir", "--out-dir")
        out_dir = out_dir or report_dir
    if target and (provider or base_url):
        fail("give either --target or --provider/--base-url, not both", ExitCode.USAGE)
    flags: dict[str, Any] = {
        "name": name,
        "datasets": dataset or None,
        "limit": limit,
        "approaches": approaches,
        "strategies": strategies,
        "targets": target or None,
        "provider": provider,
        "model": model,
        "base_url": base_url,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "repetitions": repetitions,
        "seed": seed,
        "concurrency": concurrency,
        "requests_per_minute": requests_per_minute,
        "tokens_per_minute": tokens_per_minute,
        "budget.max_calls": max_calls,
        "budget.time_limit_s": time_limit,
        "cache": False if no_cache else None,
        "db": str(db) if db else None,
        "report_dir": str(out_dir) if out_dir else None,
    }
    # A flag given explicitly wins over a --set of the same key.
    overrides = {**parse_set(set_), **{k: v for k, v in flags.items() if v is not None}}
    err = stderr()
    started: list[str] = []  # the run's id, once the runner has created or resumed it
    with command_boundary():
        cfg = load_config(config, overrides)
        # Named as every message names a store: a server's URL without its password.
        bar = ExperimentBar(err, name=cfg.name, db=display_store(cfg.output.db), enabled=not quiet)
        observers = _trackers(cfg.log_to)
        try:
            with bar:
                summary = run_experiment(
                    cfg,
                    resume=resume,
                    on_start=lambda record: started.append(record.run_id),
                    on_progress=bar,
                    join=join,
                    lease_s=lease,
                    observers=observers,
                )
        except KeyboardInterrupt:
            if started:
                err.print(
                    f"[yellow]interrupted:[/] run {started[0]}: every finished item is stored;"
                    f" resume it with\n  [bold]{escape(resume_command(ctx, started[0]))}[/]"
                )
            else:
                err.print("[yellow]interrupted[/] before the run started: nothing was stored")
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        _summary_lines(summary)
        if report:
            _report(cfg.output.db, summary.run_id, out=cfg.output.report_dir)
    if summary.errors:
        raise typer.Exit(int(ExitCode.MALFORMED))


def _summary_lines(summary: Any) -> None:
    """How the run (a ``RunSummary``) went, on stderr: this process's share of it."""
    accuracy = f"{summary.correct}/{summary.scored}" if summary.scored else "n/a"
    cost = "unknown" if summary.cost_usd is None else f"${summary.cost_usd:.4f}"
    err = stderr()
    err.print(
        f"run [bold]{summary.run_id}[/] {summary.status}: {summary.done} answered"
        f" ({summary.skipped} already done), {summary.errors} errors, correct {accuracy},"
        f" cache hits {summary.cache_hits}, tokens {summary.input_tokens:,} in /"
        f" {summary.output_tokens:,} out, cost {cost}, {summary.elapsed_s:.1f} s"
        f" — stored in {escape(summary.db)}"
    )
    if summary.judge is not None:
        err.print(_judge_line(summary.judge, summary.judge_stopped))


def work_command(
    run_id: Annotated[str, typer.Argument(help="The run to work on (an id or its prefix).")],
    db: DbOption = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Items in flight at once in this worker.")
    ] = None,
    lease: _LeaseOption = 60.0,
    out_dir: _OutDirOption = None,
    report: _ReportOption = True,
    quiet: _QuietOption = False,
) -> None:
    """Work on run RUN_ID with the other workers of its store (as `answerx run CONFIG
    --join`), from the configuration stored with the run: no config file needed."""
    from answerx.cli.run_display import ExperimentBar
    from answerx.experiments.runner import run_experiment, stored_config
    from answerx.experiments.store.url import display_store

    err = stderr()
    with command_boundary():
        path = existing_store(db)
        with _store(path, reading=True) as store:
            run = store.get_run(run_id)
        cfg = stored_config(run, path)
        if concurrency is not None:
            cfg = cfg.model_copy(update={"concurrency": concurrency})
        bar = ExperimentBar(err, name=cfg.name, db=display_store(path), enabled=not quiet)
        with bar:
            try:
                summary = run_experiment(
                    cfg,
                    work_on=run.run_id,
                    on_progress=bar,
                    lease_s=lease,
                    observers=_trackers(cfg.log_to),
                )
            except KeyboardInterrupt:
                err.print(
                    f"[yellow]interrupted:[/] run {run.run_id}: every finished item is stored;"
                    " the other workers go on, and `answerx runs work` joins it again"
                )
                raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        _summary_lines(summary)
        if report:
            _report(path, summary.run_id, out=out_dir or cfg.output.report_dir)
    if summary.errors:
        raise typer.Exit(int(ExitCode.MALFORMED))


def _trackers(names: Iterable[str]) -> list[Any]:
    """The observers that log the run to the config's ``log_to`` trackers (none: none)."""
    wanted = list(names)
    if not wanted:
        return []
    from answerx.integrations.trackers import TrackerObserver

    return [TrackerObserver(wanted)]


def _judge_line(totals: Any, stopped: str | None) -> str:
    """What the LLM judge did (a ``JudgeTotals``), on one line; why it stopped, if it did."""
    cost = "unknown" if totals.cost_usd is None else f"${totals.cost_usd:.4f}"
    line = (
        f"judge: {totals.doubtful} of {totals.items} items unsure, {totals.asked} asked,"
        f" {totals.judged} judged ({totals.cached} cached, {totals.overturned} overturned),"
        f" {totals.calls} calls, tokens {totals.input_tokens:,} in / {totals.output_tokens:,}"
        f" out, cost {cost} (not in the run's cost)"
    )
    if stopped:
        line += f"\n[yellow]the judge stopped asking:[/] {escape(stopped)}"
    if totals.failed_on_all:  # a broken judge, not an unsure one: say why
        line += f"\n[red]the judge failed on every call it made:[/] {escape(totals.failure or '')}"
    return line


def resume_command(ctx: typer.Context, run_id: str) -> str:
    """The ``answerx run`` command line that resumes ``run_id``: every argument and option
    the user gave, with the values given, and ``--resume RUN_ID`` in place of any ``--resume``.

    Everything is repeated, not only ``--db``: the options that select the store and
    those that change the configuration (``--set``, ``--limit``, ``--target``, …) must
    match, or the run would not be found or would not be the same experiment. Rebuilt
    from the parsed parameters, not ``sys.argv``: the command may run inside another
    program (a test runner, a notebook) whose argv is not this command's.
    """
    import shlex

    from typer.core import TyperArgument, TyperOption

    from answerx.experiments.store.url import display_store

    words = ["answerx", "run"]
    for param in ctx.command.params:
        name = param.name or ""
        source = ctx.get_parameter_source(name)
        if name == "resume" or source is None or source.name in ("DEFAULT", "DEFAULT_MAP"):
            continue
        value = ctx.params.get(name)
        if isinstance(param, TyperArgument):
            words.append(str(value))
        elif isinstance(param, TyperOption):
            flag = max(param.opts, key=len)  # the long form: --quiet, not -q
            if param.is_flag and param.secondary_opts and not value:
                words.append(max(param.secondary_opts, key=len))  # --no-report
            elif param.is_flag:
                words += [flag] if value else []
            else:
                for item in value if isinstance(value, list | tuple) else [value]:
                    # A store URL's password stays out of the printed line (PGPASSWORD gives it).
                    words += [flag, display_store(str(item)) if name == "db" else str(item)]
    words += ["--resume", run_id]
    return shlex.join(words)


def _report(
    db: str | Path | None,
    run_id: str,
    *,
    compare: Iterable[str] = (),
    out: Path | None,
    fmt: Format = Format.table,
) -> None:
    """Print the report of ``run_id`` (tables, Markdown or JSON) and write its files under
    ``out``."""
    from answerx.cli.run_display import print_report
    from answerx.experiments.render import render_markdown
    from answerx.experiments.report import report_from_store
    from answerx.experiments.report_files import write_report

    with _store(db, reading=True) as store:
        report = report_from_store(store, run_id, compare=list(compare))
    if fmt is Format.markdown:
        typer.echo(render_markdown(report))
    elif fmt is Format.json:
        print_json(report)
    else:
        print_report(report, stdout())
    if out is not None:
        paths = write_report(report, out / report.runs[0].run_id)
        stderr().print("report written: " + ", ".join(escape(str(p)) for p in paths))


def report_command(
    run_id: Annotated[str, typer.Argument(help="The run to report (an id or its prefix).")],
    compare: Annotated[
        list[str] | None,
        list_option("--compare", help="Runs to compare with.", metavar="RUN_ID"),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out-dir",
            help="Write report.md, report.json and PNG plots in OUT_DIR/RUN_ID.",
            show_default="$ANSWERX_HOME/reports",
        ),
    ] = None,
    fmt: Annotated[
        Format,
        format_option(
            Format.table,
            Format.markdown,
            Format.json,
            help="Print tables, Markdown, or the report's data as JSON.",
        ),
    ] = Format.table,
    out: Annotated[Path | None, deprecated_option("--out", "--out-dir")] = None,
    markdown: Annotated[bool, deprecated_option("--markdown", "--format markdown")] = False,
    db: DbOption = None,
) -> None:
    """Accuracy with 95% intervals, paired comparisons (McNemar), terminations, methods, cost."""
    if out is not None:
        note_deprecated("--out", "--out-dir")
    if markdown:
        note_deprecated("--markdown", "--format markdown")
        fmt = Format.markdown
    with command_boundary():
        out_dir = out_dir or out or default_report_dir()
        _report(db, run_id, compare=compare or (), out=out_dir, fmt=fmt)


def score_command(
    run_id: Annotated[str, typer.Argument(help="The run to (re-)score.")],
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            help="Ask this LLM judge about the items the rules are unsure of that have no "
            "ruling yet (the run's judge: settings apply; its cache makes repeats free).",
            metavar="PROVIDER/MODEL",
        ),
    ] = None,
    judge_max_calls: Annotated[
        int | None,
        typer.Option("--judge-max-calls", min=0, help="Questions --judge may be asked."),
    ] = None,
    db: DbOption = None,
) -> None:
    """Re-score a stored run with the current scoring rules (no model called without --judge).

    With --judge, the judge's stored rulings stand where the rules are still unsure."""
    from answerx.experiments.judging import stored_run_judge
    from answerx.experiments.scoring import judge_totals_of, score_run

    asked_now = None  # what --judge did in this command (a JudgeSummary)
    with command_boundary(), _store(db) as store:
        run = store.get_run(run_id)
        if judge is None:
            items = score_run(store, run.run_id)
        else:
            where = existing_store(db)  # a server's URL with its password: the cache's
            with stored_run_judge(run, judge, db=where, max_calls=judge_max_calls) as (
                llm,
                concurrency,
            ):
                items = score_run(store, run.run_id, judge=llm, judge_concurrency=concurrency)
                asked_now = llm.summary
    scored = [i for i in items if i.correct is not None]
    correct = sum(1 for i in scored if i.correct)
    stderr().print(f"run {run.run_id}: {len(items)} items, {correct}/{len(scored)} correct")
    totals = judge_totals_of(items)
    if totals.doubtful or totals.asked:
        stderr().print(_judge_line(totals, asked_now.stopped if asked_now else None))
    if asked_now is not None:
        cost = "unknown" if asked_now.cost_usd is None else f"${asked_now.cost_usd:.4f}"
        stderr().print(
            f"--judge {escape(judge or '')} now: {asked_now.asked} asked,"
            f" {asked_now.cache_hits} from the cache, {asked_now.calls} calls, cost {cost}"
        )


runs_app = typer.Typer(
    help="The stored runs: list, show, export, delete, recover, score, report and view them.",
    no_args_is_help=True,
)
_RUN_COLUMNS = ("run", "name", "status", "items", "started", "finished", "answerx")
_TIME = "%Y-%m-%d %H:%M:%S"


@runs_app.command("list")
def runs_list(
    fmt: RowsFormatOption = Format.table,
    db: DbOption = None,
) -> None:
    """The stored runs, newest first."""
    with command_boundary(), _store(db, reading=True) as store:
        counts = store.item_counts()
        rows = [
            {
                "run": run.run_id,
                "name": run.name,
                "status": run.status,
                "items": counts.get(run.run_id, 0),
                "started": run.started_at.strftime(_TIME),
                "finished": run.finished_at.strftime(_TIME) if run.finished_at else None,
                "answerx": run.answerx_version,
            }
            for run in store.list_runs()
        ]
    print_rows(rows, _RUN_COLUMNS, fmt)


@runs_app.command("show")
def runs_show(
    run_id: Annotated[str, typer.Argument(help="A run id or its prefix.")],
    db: DbOption = None,
) -> None:
    """A run's record and configuration, as JSON."""
    with command_boundary(), _store(db, reading=True) as store:
        run = store.get_run(run_id)
        items = store.item_counts([run.run_id])[run.run_id]
    print_json(run)
    stderr().print(f"{items} items stored")


@runs_app.command("export")
def runs_export(
    run_id: Annotated[str, typer.Argument(help="A run id or its prefix.")],
    path: Annotated[Path, typer.Argument(help="Output file: .csv, .jsonl or .parquet.")],
    db: DbOption = None,
    filter: Annotated[
        str | None,
        typer.Option(
            "--filter",
            help="Only the items of this filter, in its order, written as the viewer's "
            "addresses write it: 'correct=false&approach=none', 'q=wait&sort=latency_s'. "
            "Copy it from a `runs view` items page's address.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Export a run's items to CSV, JSONL or Parquet (chosen by the file's suffix)."""
    with command_boundary(), _store(db, reading=True) as store:
        run = store.get_run(run_id)
        if filter is None:
            count = store.export(run.run_id, path)
        else:
            from answerx.experiments.store.export import export_items

            count = export_items(store.items_matching(run.run_id, _filter(filter)), path)
    stderr().print(f"{count} items written to {escape(str(path))}")


def _filter(text: str) -> ItemQuery:
    """``runs export --filter``: the query a viewer's address holds (its part after ``?``
    or the whole address); a value it cannot read is a usage error naming it."""
    from urllib.parse import parse_qsl, urlsplit

    from answerx.errors import ConfigError
    from answerx.viewer.urls import BadQuery, read_query

    given = urlsplit(text).query if "?" in text else text
    try:
        query, _ = read_query(parse_qsl(given, keep_blank_values=True))
    except BadQuery as exc:
        raise ConfigError(f"--filter: {exc}") from None
    return query


@runs_app.command("delete")
def runs_delete(
    run_id: Annotated[str, typer.Argument(help="A run id (exact).")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    db: DbOption = None,
) -> None:
    """Delete a run and its items."""
    with command_boundary(), _store(db) as store:
        run = store.get_run(run_id)
        if run.run_id != run_id:  # a prefix finds runs for reading, never for deleting
            fail(f"give the whole run id to delete it (did you mean {run.run_id}?)", ExitCode.USAGE)
        if not yes and not typer.confirm(f"delete run {run.run_id} ({run.name})?"):
            raise typer.Exit(int(ExitCode.OK))
        count = store.delete_run(run.run_id)
    stderr().print(f"deleted run {run.run_id} and {count} items")


@runs_app.command("recover")
def runs_recover(
    out: Annotated[Path, typer.Argument(help="The new store to write (must not exist).")],
    db: DbOption = None,
) -> None:
    """Save every run and item that can still be read from a damaged store into a new one.

    Damaged pages cost only the items on them; resuming a run in the new store
    (answerx run CONFIG --resume RUN_ID --db OUT) asks those items again.
    """
    from answerx.experiments.store import salvage
    from answerx.experiments.store.url import default_store, store_location

    source = store_location(db) if db else default_store()
    if isinstance(source, str):
        fail("runs recover reads a damaged SQLite file; a PostgreSQL server keeps its own "
             "backups (pg_dump)", ExitCode.USAGE)  # fmt: skip
    if not source.exists():
        fail(f"no results store at {source} (pass --db)", ExitCode.IO)
    with command_boundary():
        saved = salvage(source, out)
    lost = []
    if saved.unreadable_runs:
        lost.append(f"{saved.unreadable_runs} runs (and their items)")
    if saved.unreadable_items:
        lost.append(f"{saved.unreadable_items} items")
    if saved.end_lost:
        lost.append("the end of the file (how many items it held is unknown)")
    stderr().print(
        f"recovered {saved.runs} runs and {saved.items} items from {escape(str(source))} into"
        f" {escape(str(out))}"
        + (
            "; could not read "
            + ", ".join(lost)
            + f". Resume a run there to ask its lost items again: answerx run CONFIG"
            f" --resume RUN_ID --db {escape(str(out))}"
            if lost
            else "; nothing was lost"
        )
    )


runs_app.command("score")(score_command)
runs_app.command("work")(work_command)
runs_app.command("report")(report_command)

# `answerx runs view` lives in its own module (the web viewer's command line).
from answerx.cli.runs_view import VIEW_HELP, VIEW_SHORT_HELP, view_command  # noqa: E402

runs_app.command("view", help=VIEW_HELP, short_help=VIEW_SHORT_HELP)(view_command)

# `answerx runs log RUN_ID --to mlflow|wandb`: its own module (the trackers' command line).
from answerx.cli.runs_log import LOG_HELP, log_command  # noqa: E402

runs_app.command("log", help=LOG_HELP)(log_command)
