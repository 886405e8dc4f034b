"""The ``answerx`` command.

One module per noun or verb, each a thin layer over one library function. Nouns
are groups of verbs, as in ``llm``: ``runs list|show|export|delete|recover|score|report``,
``model serve|status``, ``approaches list``, ``index build|search``,
``reward-func write``. ``answerx --help`` lists the commands in panels by purpose.
Options every command spells the same way live in :mod:`answerx.cli.options`;
exit codes and the error boundary in :mod:`answerx.cli._common`.

Commands that moved into a group keep their old name for one release, hidden,
with a deprecation note on stderr (``answerx score`` -> ``answerx runs score``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any

import typer

from answerx._version import __version__
from answerx.cli import index, model
from answerx.cli._common import EXIT_CODES_HELP, ExitCode
from answerx.cli.ask import approaches_app, ask_command
from answerx.cli.demo import demo_command
from answerx.cli.experiments import (
    RUN_HELP,
    report_command,
    run_command,
    runs_app,
    score_command,
)
from answerx.cli.extract import HELP as EXTRACT_HELP
from answerx.cli.extract import extract_command
from answerx.cli.lm_eval import HELP as LM_EVAL_HELP
from answerx.cli.lm_eval import lm_eval_command
from answerx.cli.options import hide_flag_types, note_deprecated
from answerx.cli.serve import HELP as SERVE_HELP
from answerx.cli.serve import serve_command
from answerx.cli.survey import survey_command
from answerx.cli.verify import HELP as VERIFY_HELP
from answerx.cli.verify import reward_func_app, verify_command
from answerx.support import earlysignals

__all__ = ["PANELS", "ExitCode", "app", "main"]

hide_flag_types()  # a flag takes no value: --help shows no <bool> after it

app = typer.Typer(
    name="answerx",
    help="answerx: the clean final answer out of LLM reasoning output, and how it was found.",
    epilog=EXIT_CODES_HELP,
    no_args_is_help=True,
    # Locals may hold whole model outputs (or, later, keys): never print them.
    pretty_exceptions_show_locals=False,
)

_ANSWERS = "Extract and verify answers"
_REASON = "Reason and search"
_EXPERIMENTS = "Experiments"
_SERVE = "Serve"
_START = "Get started"
#: The panels of ``answerx --help``, in order, and the commands in each.
PANELS: dict[str, tuple[str, ...]] = {
    _ANSWERS: ("extract", "verify", "reward-func", "lm-eval"),
    _REASON: ("ask", "approaches", "index", "survey"),
    _EXPERIMENTS: ("run", "runs"),
    _SERVE: ("serve", "model"),
    _START: ("demo",),
}


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"answerx {__version__}")
        raise typer.Exit()


#: Commands that stop gracefully on SIGTERM (status 0) and so take one that came while
#: the command was loading (answerx.support.earlysignals); every other command dies of it.
_GRACEFUL_ON_SIGTERM = frozenset({"serve"})


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """answerx: the clean final answer out of LLM reasoning output, and how it was found."""
    if ctx.invoked_subcommand not in _GRACEFUL_ON_SIGTERM:
        earlysignals.release()


def _moved(command: Callable[..., Any], old: str, new: str) -> Callable[..., Any]:
    """``command`` under its old name: the same options, and a deprecation note first."""

    @functools.wraps(command)
    def alias(*args: Any, **kwargs: Any) -> Any:
        note_deprecated(old, new)
        return command(*args, **kwargs)

    return alias


app.command("extract", help=EXTRACT_HELP, rich_help_panel=_ANSWERS)(extract_command)
app.command("verify", help=VERIFY_HELP, rich_help_panel=_ANSWERS)(verify_command)
app.add_typer(reward_func_app, name="reward-func", rich_help_panel=_ANSWERS)
app.command(
    "lm-eval",
    help=LM_EVAL_HELP,
    rich_help_panel=_ANSWERS,
    add_help_option=False,  # --help is lm-eval's
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)(lm_eval_command)
app.command("ask", rich_help_panel=_REASON)(ask_command)
app.add_typer(approaches_app, name="approaches", rich_help_panel=_REASON)
app.add_typer(index.app, name="index", rich_help_panel=_REASON)
app.command("survey", rich_help_panel=_REASON)(survey_command)
app.command("run", help=RUN_HELP, rich_help_panel=_EXPERIMENTS)(run_command)
app.add_typer(runs_app, name="runs", rich_help_panel=_EXPERIMENTS)
app.command(
    "serve", help=SERVE_HELP, short_help="Serve the HTTP API (FastAPI on uvicorn).",
    rich_help_panel=_SERVE,
)(serve_command)  # fmt: skip
app.add_typer(model.app, name="model", rich_help_panel=_SERVE)
app.command("demo", rich_help_panel=_START)(demo_command)
# Moved into `runs`; kept for one release.
app.command("score", hidden=True)(_moved(score_command, "answerx score", "answerx runs score"))
app.command("report", hidden=True)(_moved(report_command, "answerx report", "answerx runs report"))


def main() -> None:
    """Entry point of the ``answerx`` console script."""
    app()
