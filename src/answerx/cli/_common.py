"""What every ``answerx`` command shares: exit codes, consoles, the error boundary,
and the parsing of the ``--choices``/``--numbers`` options.

Commands stay thin: they parse options, call one library function, and print.
:func:`command_boundary` is the one place where library errors become a short
message on stderr and an exit code, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from enum import IntEnum
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from answerx.errors import (
    AnswerxError,
    ConfigError,
    CredentialsMissing,
    InputError,
    ProviderError,
    StoreError,
    SymlinkRefused,
    UnreadableFile,
)

__all__ = [
    "EXIT_CODES_HELP",
    "ExitCode",
    "check_gold_option",
    "command_boundary",
    "fail",
    "parse_choices",
    "parse_numbers",
    "stderr",
    "stdout",
]


class ExitCode(IntEnum):
    """Exit codes of every ``answerx`` command (documented in the README and ``--help``)."""

    OK = 0
    MALFORMED = 1  # some input lines were malformed (skipped), some run items failed, or
    # a command could not finish (a budget ran out without an answer; a gold that does
    # not verify for verify --self-check)
    USAGE = 2  # bad option or argument, unknown name, no such run (typer's usage code too)
    IO = 3  # a file could not be found, read (not Parquet, cut short) or written (a
    # symbolic link where answerx writes is not written through)
    STORE = 4  # the results store (or response cache) is damaged, not a database, or locked
    PROVIDER = 5  # a provider failed (unreachable, refused, timed out) or has no API key
    INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C: any command stopped


EXIT_CODES_HELP = (
    "Exit codes: 0 ok; 1 some input records were malformed (skipped, reported on stderr), "
    "some run items failed, or the command could not finish (a budget ran out; "
    "--self-check: a gold does not verify); 2 usage error (bad option, unknown name, no "
    "such run, a NaN gold, Parquet through a pipe); 3 input file not found or unreadable "
    "(not Parquet, cut short) or output not writable (a symbolic or hard link where "
    "answerx writes is refused); 4 results store damaged, not a database or not a store, "
    "or locked; 5 provider failed (unreachable, refused the key, "
    "timed out) or its API key variable is not set; 130 interrupted (Ctrl-C), any command: "
    "extract/verify --file leave the output valid up to a whole batch (--continue continues "
    "it), run keeps every finished item and prints the --resume RUN_ID command."
)


_PIPE_WIDTH = 120  # rich's 80 columns off a terminal fold tables needlessly in logs


def stdout() -> Console:
    """A console on the current stdout (looked up per call: tests swap sys.stdout)."""
    console = Console(file=sys.stdout, highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(file=sys.stdout, highlight=False, width=_PIPE_WIDTH)
    return console


def stderr(*, force_terminal: bool = False) -> Console:
    """A console on the current stderr, for progress, warnings and summaries.

    Messages are never folded (soft wrap): a log line stays one line, whole.
    ``force_terminal`` draws live displays even off a terminal: an explicit
    ``--progress`` is honoured when stderr is a file or a pipe.
    """
    console = Console(file=sys.stderr, highlight=False, soft_wrap=True)
    if force_terminal and not console.is_terminal:
        width = None if "COLUMNS" in os.environ else _PIPE_WIDTH
        console = Console(
            file=sys.stderr, highlight=False, soft_wrap=True, force_terminal=True, width=width
        )
    return console


def fail(message: str, code: ExitCode) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``."""
    stderr().print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(int(code))


@contextmanager
def command_boundary() -> Iterator[None]:
    """Turn answerx and I/O errors into a message on stderr and an exit code.

    Anything else is a bug and keeps its traceback.
    """
    try:
        yield
    except SymlinkRefused as exc:  # an OSError too: a file that could not be written
        fail(str(exc), ExitCode.IO)
    except CredentialsMissing as exc:  # before ConfigError, its base: the provider is unusable
        fail(str(exc), ExitCode.PROVIDER)
    except ConfigError as exc:
        fail(str(exc), ExitCode.USAGE)
    except UnreadableFile as exc:  # before InputError, its base: the file, not a record
        fail(str(exc), ExitCode.IO)
    except InputError as exc:
        fail(str(exc), ExitCode.MALFORMED)
    except StoreError as exc:
        fail(str(exc), ExitCode.STORE)
    except ProviderError as exc:
        fail(str(exc), ExitCode.PROVIDER)
    except AnswerxError as exc:  # StepLimitReached, ServiceError: the command did not finish
        fail(str(exc), ExitCode.MALFORMED)
    except KeyboardInterrupt:
        # Commands that can say more (a file run, `answerx run`) catch it first.
        stderr().print("[yellow]interrupted[/]")
        raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
    except BrokenPipeError:
        # The reader went away (`answerx extract --file big.jsonl | head`): not an
        # error. Point stdout at devnull so the interpreter's final flush is quiet.
        _silence_stdout()
        raise typer.Exit(int(ExitCode.OK)) from None
    except OSError as exc:
        name = exc.filename if exc.filename is not None else "stream"
        fail(f"{name}: {exc.strerror or exc}", ExitCode.IO)


def parse_choices(values: list[str] | None) -> list[str] | None:
    """``--choices``: the option texts, repeated (``-c Paris -c Rome``) or one JSON list;
    None when not given. A bad JSON list exits with a usage error."""
    if not values:
        return None
    if len(values) == 1 and values[0].lstrip().startswith("["):
        try:
            parsed = json.loads(values[0])
        except json.JSONDecodeError as exc:
            fail(f"--choices: not a JSON list: {exc.msg}", ExitCode.USAGE)
        if not isinstance(parsed, list) or not all(isinstance(v, str) for v in parsed):
            fail("--choices: the JSON list must hold strings", ExitCode.USAGE)
        return parsed
    return values


def parse_numbers(values: list[str] | str | None) -> list[int | float] | None:
    """``--numbers``: ``'4,9,10,13'``, ``'4 9 10 13'``, a JSON list, or the option repeated
    (``-n 4 -n 9``); None when not given. Anything else exits with a usage error."""
    if not values:
        return None
    text = values if isinstance(values, str) else " ".join(values)
    parts = text.replace("[", " ").replace("]", " ").replace(",", " ").split()
    try:
        return [float(p) if "." in p else int(p) for p in parts] or None
    except ValueError:
        fail(f"--numbers: expected numbers like '4,9,10,13', got {text!r}", ExitCode.USAGE)


def check_gold_option(gold: str | Sequence[str] | None, task: str) -> None:
    """``--gold``: refuse a value that spells NaN or Infinity (``nan``, ``-inf``,
    ``[NaN]``, ``\\mathrm{NaN}`` …: the library's own check,
    :func:`~answerx.grading.golds.nonfinite_text`) with a usage error. No answer can
    equal such a number, and as text it would match an answer that says "nan". ``--task
    text`` or ``short_answer`` asks for the word itself, which is then accepted."""
    # Imported here: the grading package is not needed by the commands that never grade.
    from answerx.grading.golds import WORD_TASKS, nonfinite_text

    if gold is None or task in WORD_TASKS:
        return
    for value in [gold] if isinstance(gold, str) else gold:
        if nonfinite_text(value) is not None:
            fail(
                f"--gold {value!r} spells a number that is not finite (NaN or Infinity): no "
                "answer can equal it. Give the real gold answer; for the word itself, "
                "--task text; for an infinite limit in math, \\infty",
                ExitCode.USAGE,
            )


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass  # not a real file descriptor (a test runner's stream): nothing to silence
