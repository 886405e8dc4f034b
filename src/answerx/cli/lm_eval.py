"""``answerx lm-eval``: lm-eval's command line with answerx's filter, metric and tasks known."""

from __future__ import annotations

import typer

from answerx.cli._common import command_boundary

__all__ = ["HELP", "lm_eval_command"]

HELP = (
    "Run lm-eval's own command line (run, ls, validate) with answerx's `answerx` filter and "
    "`answerx_verify` metric registered by name and answerx's tasks on the include path: "
    "`answerx lm-eval run --tasks answerx_local --model ...`. Every argument goes to lm-eval "
    "(`answerx lm-eval --help` prints lm-eval's help)."
)


def lm_eval_command(ctx: typer.Context) -> None:
    """Hand the arguments to lm-eval after registering answerx's names."""
    from answerx.integrations.lm_eval import launch

    with command_boundary():
        launch(ctx.args)
