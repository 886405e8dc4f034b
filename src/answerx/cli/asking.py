"""The LLM the command line asks about what the rules cannot decide: ``verify --judge`` and
``extract --llm``.

One ``PROVIDER/MODEL``, a budget (``--judge-max-calls``/``--llm-max-calls``, a cost cap
in USD priced from the price table), and the response cache the experiments use
(:func:`answerx.judge.cache_location`: ``$ANSWERX_HOME/cache.db`` unless
``ANSWERX_JUDGE_CACHE`` says otherwise, so a re-run costs nothing; ``--no-cache`` asks
again). The judge itself is built by :func:`answerx.judge.open_judge`. Its options are
declared once here and the closing summary lines are printed here.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from answerx.batch.summary import LLMTotals
    from answerx.judge import JudgeCache, JudgeSpec, LLMExtractor, LLMJudge

__all__ = [
    "CacheOption",
    "QuestionFieldOption",
    "QuestionOption",
    "judge_from_flags",
    "open_extractor",
    "print_llm_totals",
]

_PANEL = "LLM for the residue"

QuestionOption = Annotated[
    str | None,
    typer.Option(
        "--question",
        show_default=False,
        help="The question the output answers (single text): a short answer is graded "
        "against what was asked, and a judge or LLM sees it.",
    ),
]
QuestionFieldOption = Annotated[
    str,
    typer.Option(
        "--question-field", help="Record field with the question, used when a record has it."
    ),
]
CacheOption = Annotated[
    bool,
    typer.Option(
        "--cache/--no-cache",
        rich_help_panel=_PANEL,
        help="Answer repeated LLM questions from the response cache ($ANSWERX_HOME/cache.db; "
        "$ANSWERX_JUDGE_CACHE names another file).",
    ),
]


def llm_option(flag: str, help: str) -> Any:
    """``--judge``/``--llm``: ``PROVIDER/MODEL``."""
    return typer.Option(
        flag, metavar="PROVIDER/MODEL", show_default=False, rich_help_panel=_PANEL, help=help
    )


def max_calls_option(flag: str) -> Any:
    """``--judge-max-calls``/``--llm-max-calls``."""
    return typer.Option(
        flag, min=0, show_default=False, rich_help_panel=_PANEL,
        help="Budget: questions sent to the LLM in the whole run, at most; then it stops "
        "asking and says so (the rules' result stands).",
    )  # fmt: skip


def max_cost_option(flag: str) -> Any:
    """``--judge-max-cost``/``--llm-max-cost``."""
    return typer.Option(
        flag, min=0.0, metavar="USD", show_default=False, rich_help_panel=_PANEL,
        help="Cost cap in USD (priced from the price table; $ANSWERX_PRICES adds models).",
    )  # fmt: skip


def concurrency_option(flag: str) -> Any:
    """``--judge-concurrency``/``--llm-concurrency``."""
    return typer.Option(flag, min=1, rich_help_panel=_PANEL, help="LLM calls in flight at once.")


def _spec(name: str, use_cache: bool, **fields: Any) -> JudgeSpec:
    from answerx.judge import JudgeSpec

    return JudgeSpec.named(name, cache=None if use_cache else "off", **fields)


def _cache_opener(stack: ExitStack) -> Callable[[JudgeSpec], JudgeCache | None]:
    """Opens the response cache at the spec's location, closed with ``stack``."""

    def open_cache(spec: JudgeSpec) -> JudgeCache | None:
        from answerx.experiments.judging import judge_cache

        cache = judge_cache(spec)
        if cache is not None:
            stack.callback(cache.close)
        return cache

    return open_cache


def judge_from_flags(
    name: str,
    *,
    max_calls: int | None,
    max_cost: float | None,
    cache: bool,
    stack: ExitStack,
    min_confidence: float | None = None,
) -> LLMJudge:
    """The judge of ``--judge NAME`` and its flags (:func:`answerx.judge.open_judge`), its
    cache closed with ``stack``; ``min_confidence`` None keeps the judge's default."""
    from answerx.judge import open_judge

    floor = {} if min_confidence is None else {"min_confidence": min_confidence}
    spec = _spec(name, cache, max_calls=max_calls, max_cost_usd=max_cost, **floor)
    return open_judge(spec, open_cache=_cache_opener(stack), cost_cap="--judge-max-cost")


def open_extractor(
    name: str,
    *,
    max_calls: int | None,
    max_cost: float | None,
    min_confidence: float | None,
    cache: bool,
    stack: ExitStack,
) -> LLMExtractor:
    """The LLM extractor ``name`` names, with its budget and cache (closed with ``stack``):
    built from the judge's spec, so it reaches, prices and caches as the judge does."""
    from answerx.judge import LLMExtractor
    from answerx.judge.factory import judge_manager, judge_price

    spec = _spec(name, cache, max_calls=max_calls, max_cost_usd=max_cost)
    manager = judge_manager(spec)
    price = judge_price(spec, manager.model, cost_cap="--llm-max-cost")
    return LLMExtractor(
        manager, min_confidence=min_confidence, max_calls=max_calls, max_cost_usd=max_cost,
        price=price, cache=_cache_opener(stack)(spec),
    )  # fmt: skip


def print_llm_totals(totals: LLMTotals | None, console: Console, doubtful: int = 0) -> None:
    """The closing lines on what the judge or the LLM extraction did and cost."""
    if totals is None:
        return
    name = escape(totals.name)
    if totals.kind == "judge":
        console.print(
            f"judge {name}: asked about {totals.asked:,} of {doubtful:,} items in doubt; "
            f"ruled on {totals.ruled:,} (verdict changed on {totals.changed:,}), "
            f"{totals.not_ruled:,} not ruled; {totals.cached:,} from the cache"
        )
    else:
        console.print(
            f"LLM extraction {name}: asked about {totals.asked:,} outputs the rules could not "
            f"read; answered {totals.ruled:,} (answer changed on {totals.changed:,}), "
            f"{totals.not_ruled:,} not answered; {totals.cached:,} from the cache"
        )
    cost = "unknown (no price)" if totals.cost_usd is None else f"${totals.cost_usd:.4f}"
    console.print(
        f"LLM calls {totals.calls:,} · tokens {totals.input_tokens:,} in, "
        f"{totals.output_tokens:,} out · cost {cost}"
    )
    if totals.stopped is not None:
        console.print(f"[yellow]stopped asking:[/] {escape(totals.stopped)}")
