"""The ``answerx`` command.

One module per noun or verb, each a thin layer over one library function:
``extract`` (:mod:`answerx.cli.extract`) today; ``run``, ``runs``, ``report``,
``serve`` and ``model`` join as sub-apps (``app.add_typer(runs.app, name="runs")``).
Shared exit codes and the error boundary live in :mod:`answerx.cli._common`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from answerx import earlysignals
from answerx._version import __version__
from answerx.cli import index, model
from answerx.cli._common import EXIT_CODES_HELP, ExitCode
from answerx.cli.ask import approaches_command, ask_command
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
from answerx.cli.serve import HELP as SERVE_HELP
from answerx.cli.serve import serve_command
from answerx.cli.survey import survey_command
from answerx.cli.verify import HELP as VERIFY_HELP
from answerx.cli.verify import reward_func_app, verify_command

__all__ = ["ExitCode", "app", "main"]

app = typer.Typer(
    name="answerx",
    help="answerx: the clean final answer out of LLM reasoning output, and how it was found.",
    epilog=EXIT_CODES_HELP,
    no_args_is_help=True,
    # Locals may hold whole model outputs (or, later, keys): never print them.
    pretty_exceptions_show_locals=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"answerx {__version__}")
        raise typer.Exit()


#: Commands that stop gracefully on SIGTERM (status 0) and so take one that came while
#: the command was loading (answerx.earlysignals); every other command dies of it.
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


app.command("extract", help=EXTRACT_HELP)(extract_command)
app.add_typer(model.app, name="model")
app.command("demo")(demo_command)
app.command("run", help=RUN_HELP)(run_command)
app.add_typer(runs_app, name="runs")
app.command("score")(score_command)
app.command("report")(report_command)
app.command("serve", help=SERVE_HELP)(serve_command)
app.command("ask")(ask_command)
app.command("approaches")(approaches_command)
app.add_typer(index.app, name="index")
app.command("survey")(survey_command)
app.command("verify", help=VERIFY_HELP)(verify_command)
app.add_typer(reward_func_app, name="reward-func")


def main() -> None:
    """Entry point of the ``answerx`` console script."""
    app()
