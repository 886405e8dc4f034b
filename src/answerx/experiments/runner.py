"""The experiment runner: every (item, target, approach, strategy, repetition) once, stored at once.

:func:`run_experiment` (and ``answerx run CONFIG``) reads the datasets, opens
the results store, and answers every unit of work with bounded concurrency:
``config.concurrency`` units in flight overall, and per provider the
concurrency and request/token rates of :class:`~answerx.experiments.calls.ProviderLimits`.
Each finished unit is scored and committed at once, so a run killed at any
moment resumes (``resume=RUN_ID``) without losing or repeating an item.

Every call goes through a :class:`~answerx.experiments.calls.RunClientManager`:
the response cache, and the run's ``seed`` (as ``seed + repetition``) for
providers that take one.

A unit that fails (a provider error after every retry and fallback, a budget
that ran out without an answer) is stored with its ``error`` or ``termination``
and the run goes on; a resumed run retries the errored ones.

With a ``judge:`` in the config, each item the scoring rules are unsure of
(``Verdict.doubt``) is put to the LLM judge before it is stored, at most
``judge.concurrency`` at a time, within the judge's budget; its calls are counted
apart from the item's own (:mod:`~answerx.experiments.judging`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import secrets
import socket
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from answerx.agent.budget import Budget
from answerx.agent.termination import StepLimitReached
from answerx.errors import AnswerxError, ConfigError, RunNotFound, StoreError, redact
from answerx.experiments.cache import ResponseCache
from answerx.experiments.calls import ItemTally, ProviderLimits, RunClientManager, current_tally
from answerx.experiments.config import (
    BUNDLED_INDEX,
    ExperimentConfig,
    TargetSpec,
    config_hash,
    load_config,
)
from answerx.experiments.datasets import DatasetItem, load_datasets
from answerx.experiments.eventloop import new_event_loop
from answerx.experiments.judging import charge_earlier_rulings, judge_for_run
from answerx.experiments.observers import RunObserver
from answerx.experiments.progress import ExperimentProgress, ExperimentProgressCallback
from answerx.experiments.records import ItemKey, ItemRecord, RunRecord, RunStatus, calls_json
from answerx.experiments.runner_shared import RunCount, SharedBudget
from answerx.experiments.scoring import (
    judge_request_for,
    rules_verdict,
    stored_verdict,
    verdict_fields,
)
from answerx.experiments.store import ResultStore
from answerx.experiments.store.responses import cache_for
from answerx.experiments.store.url import display_store
from answerx.extraction.models import Extraction
from answerx.grading import JudgeRuling, Verdict
from answerx.grading.residue import JudgeTotals, apply_ruling, judge_totals
from answerx.judge import LLMJudge
from answerx.reasoning import StandardResponse, get_approach
from answerx.reasoning.base import BaseReasoning
from answerx.reasoning.registry import SEARCH_APPROACHES
from answerx.reasoning.response import ApproachName, Strategy
from answerx.redactor import describe_failure
from answerx.retrieval import Bm25sIndex, Index, Retriever, bundled_index, open_index
from answerx.structured.prices import PriceTable, cost, load_prices, price_of

__all__ = [
    "RunSummary",
    "Unit",
    "arun_experiment",
    "plan_units",
    "run_experiment",
    "span_in",
    "stored_config",
]

#: How long a worker of a joined run holds an item before another may take it; renewed
#: every third of it while the worker lives, so only a dead worker's items pass on.
DEFAULT_LEASE_S = 60.0

ManagerFactory = Callable[[TargetSpec, ExperimentConfig], RunClientManager]


class RunSummary(BaseModel):
    """How a run (or the resumed part of it) went."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    status: RunStatus
    db: str
    total: int
    skipped: int
    done: int
    errors: int
    correct: int
    scored: int
    cache_hits: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    elapsed_s: float
    judge: JudgeTotals | None = Field(
        default=None,
        description="What the LLM judge did and cost for this session's items (apart from "
        "the approaches' own calls, tokens and cost); None when the run has no judge.",
    )
    judge_stopped: str | None = Field(
        default=None, description="Why the judge stopped asking (its budget), if it did."
    )


@dataclass(frozen=True)
class Unit:
    """One thing to do: ask one item of one approach, strategy and target, once."""

    item: DatasetItem
    target: TargetSpec
    approach: ApproachName
    strategy: Strategy
    repetition: int

    @property
    def key(self) -> ItemKey:
        return (
            self.approach,
            self.strategy,
            self.target.provider,
            self.target.model,
            self.item.uid,
            self.repetition,
        )


def plan_units(config: ExperimentConfig, items: list[DatasetItem]) -> Iterator[Unit]:
    """Every unit of the run, item by item, so a partial run covers every approach early."""
    for repetition, item, target, approach, strategy in itertools.product(
        range(config.repetitions), items, config.targets, config.approaches, config.strategies
    ):
        yield Unit(item, target, approach, strategy, repetition)


def count_units(config: ExperimentConfig, items: list[DatasetItem]) -> int:
    return (
        config.repetitions
        * len(items)
        * len(config.targets)
        * len(config.approaches)
        * len(config.strategies)
    )


@dataclass
class _Totals:
    done: int = 0
    errors: int = 0
    correct: int = 0
    scored: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_unknown: bool = False
    # Some target has no price: with nothing answered yet the cost is unknown, not $0.
    unpriced: bool = False
    started: float = field(default_factory=time.perf_counter)
    # The verdicts the rules were unsure of (what the judge saw), for the judge's totals.
    residue: list[Verdict] = field(default_factory=list)

    def add(self, record: ItemRecord) -> None:
        self.done += 1
        if record.verdict_detail and "doubt" in record.verdict_detail:
            verdict = stored_verdict(record)
            if verdict is not None:
                self.residue.append(verdict)
        self.errors += record.error is not None
        if record.correct is not None:
            self.scored += 1
            self.correct += record.correct
        self.cache_hits += record.cached
        self.input_tokens += record.input_tokens
        self.output_tokens += record.output_tokens
        if record.cost_usd is None:
            self.cost_unknown = True
        else:
            self.cost_usd += record.cost_usd

    @property
    def cost(self) -> float | None:
        if self.cost_unknown or (self.unpriced and self.done == 0):
            return None
        return self.cost_usd

    def progress(
        self, run_id: str, total: int, skipped: int, run_finished: int | None = None
    ) -> ExperimentProgress:
        return ExperimentProgress(
            run_id=run_id,
            total=total,
            skipped=skipped,
            done=self.done,
            errors=self.errors,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=self.cost,
            elapsed_s=time.perf_counter() - self.started,
            run_finished=run_finished,
        )


class _Run:
    """The state of one running experiment: managers, approaches, store, totals."""

    def __init__(
        self,
        config: ExperimentConfig,
        run: RunRecord,
        store: ResultStore,
        *,
        cache: ResponseCache | None,
        prices: PriceTable,
        make_manager: ManagerFactory | None,
        retriever: Retriever | None = None,
        judge: LLMJudge | None = None,
        limits: dict[str, ProviderLimits] | None = None,
    ) -> None:
        self.config = config
        self.judge = judge
        slots = config.judge.concurrency if config.judge is not None else 1
        self._judge_slots = asyncio.Semaphore(slots)
        self.retriever = retriever  # one per run, shared by every search approach
        self.run = run
        self.store = store
        self.cache = cache
        self.prices = prices
        self.totals = _Totals(
            unpriced=any(
                price_of(t.provider, t.model, prices=prices) is None for t in config.targets
            )
        )
        self._limits: dict[str, ProviderLimits] = dict(limits or {})
        self._managers: dict[str, RunClientManager] = {}
        self._approaches: dict[tuple[str, str, str, str], BaseReasoning[Any]] = {}
        self._make_manager = make_manager or self._default_manager
        caps = config.budget.model_dump().values()
        self._budget: Budget | None = config.budget if any(v is not None for v in caps) else None

    # ------------------------------------------------------------------ managers
    def limits(self, provider: str) -> ProviderLimits:
        if provider not in self._limits:
            self._limits[provider] = provider_limits(self.config, provider)
        return self._limits[provider]

    def _default_manager(self, target: TargetSpec, config: ExperimentConfig) -> RunClientManager:
        return RunClientManager(
            target.provider,
            target.model,
            base_url=target.base_url,
            modes=target.modes,
            max_tokens=config.max_tokens,
            cache=self.cache,
            limits=self.limits(target.provider),
            seed=config.seed,
            extraction=config.extraction,
        )

    async def aclose(self) -> None:
        """Close the managers' async clients (their connections belong to this loop)."""
        for manager in self._managers.values():
            await manager.aclose()
        if self.judge is not None:
            await self.judge.manager.aclose()

    def manager(self, target: TargetSpec) -> RunClientManager:
        label = target.label
        if label not in self._managers:
            self._managers[label] = self._make_manager(target, self.config)
        return self._managers[label]

    def approach(self, unit: Unit) -> BaseReasoning[Any]:
        key = (unit.approach, unit.strategy, unit.target.label, unit.item.task)
        if key not in self._approaches:
            settings: dict[str, Any] = {"temperature": self.config.temperature}
            if self.config.max_tokens is not None:
                settings["max_tokens"] = self.config.max_tokens
            settings.update(self.config.approach_settings.get(unit.approach, {}))
            self._approaches[key] = get_approach(
                unit.approach,
                self.manager(unit.target),
                strategy=unit.strategy,
                task=unit.item.task,
                prompt_dir=self.config.prompt_dir,
                budget=self._budget,
                result_mode=True,
                retriever=self.retriever if unit.approach in SEARCH_APPROACHES else None,
                **settings,
            )
        return self._approaches[key]

    # ------------------------------------------------------------------ one unit
    async def answer(self, unit: Unit) -> ItemRecord:
        """Ask, score and store one unit; never raises for a provider or budget failure."""
        tally = ItemTally(repetition=unit.repetition)
        token = current_tally().set(tally)
        started = time.perf_counter()
        response: StandardResponse | None = None
        error: str | None = None
        termination = "answer"
        try:
            approach = self.approach(unit)
            item = unit.item
            response = await approach.aexecute(item.question, spec=item.spec)
        except StepLimitReached as exc:
            termination = str(exc.termination)
        except (ConfigError, StoreError):
            raise  # a bad setting or a broken cache fails every unit alike: stop, say why
        except AnswerxError as exc:
            # Stored, then shown by the viewer and the service's /runs/ pages: a provider's
            # failure is summarised (who, error type, status), never its body quoted.
            error = describe_failure(exc)
        except Exception as exc:  # a bug must not lose the rest of the run
            error = redact(f"internal error {type(exc).__name__}: {exc}")
        finally:
            current_tally().reset(token)
        record = self._record(unit, response, tally, error, termination, started)
        # Scored after the item's tally is closed: the judge's calls are not the item's.
        verdict = await self._judged(record, rules_verdict(record))
        record = record.model_copy(update=verdict_fields(verdict, aliases=bool(record.answers)))
        self.store.add_item(record)
        self.totals.add(record)
        return record

    async def _judged(self, record: ItemRecord, verdict: Verdict) -> Verdict:
        """``verdict`` after the run's judge ruled on it, when the rules are unsure of it."""
        if self.judge is None or verdict.doubt is None:
            return verdict
        request = judge_request_for(record, verdict)
        async with self._judge_slots:
            try:
                ruling = await self.judge.ajudge(request)
            except (ConfigError, StoreError):
                raise  # a broken cache or setting fails every item alike: stop, say why
            except AnswerxError as exc:  # the judge never raises for a provider error
                ruling = JudgeRuling(verdict=None, reason=f"judge failed: {describe_failure(exc)}")
        return apply_ruling(verdict, ruling)

    def _record(
        self,
        unit: Unit,
        response: StandardResponse | None,
        tally: ItemTally,
        error: str | None,
        termination: str,
        started: float,
    ) -> ItemRecord:
        item = unit.item
        common: dict[str, Any] = {
            "run_id": self.run.run_id,
            "approach": unit.approach,
            "strategy": unit.strategy,
            "provider": unit.target.provider,
            "model": unit.target.model,
            "item_id": item.uid,
            "repetition": unit.repetition,
            "dataset": item.dataset,
            "task": item.task,
            "question": item.question,
            "gold": item.gold,
            "answers": item.answers,
            "choices": item.choices,
            "numbers": item.numbers,
            "prompt": json.dumps(tally.prompt, ensure_ascii=False) if tally.prompt else "",
            "conversation": calls_json(tally.log) if tally.log else "",
            "calls": tally.calls,
            "cached": tally.all_cached,
            "finished_at": datetime.now(UTC),
        }
        paid = tally.paid
        price = (
            0.0
            if tally.all_cached
            else self._cost(unit.target, paid.input_tokens, paid.output_tokens)
        )
        # Unscored here: the caller scores the record from its own fields, by the same
        # rule as a later `answerx runs score` (no answer, a failed call included, is
        # wrong; no gold is unjudged).
        if response is None:
            return ItemRecord(
                **common,
                input_tokens=paid.input_tokens,
                output_tokens=paid.output_tokens,
                cost_usd=price,
                latency_s=time.perf_counter() - started,
                termination=termination,
                error=error,
            )
        meta = response.metadata
        found = response.extraction
        return ItemRecord(
            **common,
            raw_output=response.text,
            extracted_answer=response.extracted_answer,
            candidate=found.candidate,
            span=span_in(response.text, found),
            extraction=found.model_dump(mode="json"),
            method=found.method,
            confidence=meta.confidence,
            valid=found.valid,
            problem=found.problem,
            unfinished=found.unfinished,
            stage=meta.stage,
            mode=meta.instructor_mode,
            attempts=meta.attempts,
            fallbacks=meta.fallbacks,
            input_tokens=response.usage.input_tokens,
            output_tokens=response.usage.output_tokens,
            cost_usd=price,
            latency_s=response.generation_time,
            termination=meta.termination,
            finish_reason=meta.finish_reason,
        )

    def _cost(self, target: TargetSpec, input_tokens: int, output_tokens: int) -> float | None:
        return cost(target.provider, target.model, input_tokens, output_tokens, prices=self.prices)


def span_in(text: str, found: Extraction) -> tuple[int, int] | None:
    """Where ``found``'s candidate sits in ``text``, the response's text: the extraction
    read one reply, and a multi-step approach's text joins its replies, each stripped,
    under ``[step]`` headings (the last such reply holds the answer). None when the
    answer was not read from a reply of ``text`` (a structured reply, a forced answer)."""
    if found.span is None:
        return None
    start, end = found.span
    reply = found.raw_output
    kept = reply.strip()
    at = text.rfind(kept) if kept else -1
    if at < 0:
        return None
    shift = at - (len(reply) - len(reply.lstrip()))
    span = (start + shift, end + shift)
    # Checked, not assumed: the span must hold the very text the rule read.
    if span[0] < at or span[1] > at + len(kept) or text[span[0] : span[1]] != reply[start:end]:
        return None
    return span


def provider_limits(config: ExperimentConfig, provider: str) -> ProviderLimits:
    """The concurrency and rates ``config`` sets for ``provider`` (shared by its managers)."""
    rate = config.rate_limits.get(provider)
    return ProviderLimits(
        concurrency=config.provider_concurrency.get(provider),
        requests_per_minute=rate.requests_per_minute if rate else None,
        tokens_per_minute=rate.tokens_per_minute if rate else None,
    )


def stored_config(run: RunRecord, db: str | Path) -> ExperimentConfig:
    """The configuration stored with ``run``, stored in ``db``: what ``answerx runs work``
    runs, so a worker needs no config file. Its store is ``db`` (the stored one names a
    server without its password); anything else that is not the run's own is refused."""
    output = {**run.config.get("output", {}), "db": db}
    try:
        config = ExperimentConfig.model_validate({**run.config, "output": output})
    except ValueError as exc:
        raise ConfigError(
            f"run {run.run_id}: its stored configuration is not valid: {exc}"
        ) from None
    if config_hash(config) != run.config_hash:
        raise ConfigError(
            f"run {run.run_id}: its stored configuration does not give its config hash (made "
            "by another answerx version?): start workers with `answerx run CONFIG --join`"
        )
    return config


def _join_by_id(store: ResultStore, run_id: str, digest: str) -> RunRecord:
    """Join run ``run_id`` (``answerx runs work``), which must be of this configuration."""
    run = store.get_run(run_id)
    if run.config_hash != digest:
        raise ConfigError(
            f"run {run.run_id} was made with a different configuration: `answerx runs work`"
            " works on it with the configuration stored with it"
        )
    return store.join_run_id(run.run_id)


def _resolve_resume(store: ResultStore, resume: str, digest: str) -> RunRecord:
    if resume == "last":
        runs = store.find_runs(digest)
        if not runs:
            raise RunNotFound(
                "--resume last: no earlier run of this configuration in the store", run_id="last"
            )
        run = runs[0]  # newest first: the latest run of this configuration
    else:
        run = store.get_run(resume)
    if run.config_hash != digest:
        raise ConfigError(
            f"run {run.run_id} was made with a different configuration; resume it with the"
            " same config file (only name, description, concurrency, rate limits, cache and"
            " output may differ)"
        )
    return store.resume_run(run.run_id)


def open_retriever(config: ExperimentConfig, resources: contextlib.ExitStack) -> Retriever | None:
    """The run's retriever, opened once (None when no approach of the run searches).

    ``index: bundled`` builds the bundled corpus into a temporary file (milliseconds)
    that lives as long as ``resources``; an index file is opened read-only.
    """
    if config.index is None or not any(a in SEARCH_APPROACHES for a in config.approaches):
        return None
    if config.index == BUNDLED_INDEX:
        folder = resources.enter_context(tempfile.TemporaryDirectory(prefix="answerx-index-"))
        index: Index | Bm25sIndex = bundled_index(Path(folder) / "bundled.db")
    else:
        index = open_index(str(config.index))
    if isinstance(index, Index):  # an FTS5 file: its connection; bm25s holds no file open
        resources.callback(index.close)
    return index


async def arun_experiment(
    config: ExperimentConfig,
    *,
    resume: str | None = None,
    store: ResultStore | None = None,
    make_manager: ManagerFactory | None = None,
    on_item: Callable[[ItemRecord], None] | None = None,
    on_start: Callable[[RunRecord], None] | None = None,
    on_progress: ExperimentProgressCallback | None = None,
    join: bool = False,
    work_on: str | None = None,
    lease_s: float = DEFAULT_LEASE_S,
    observers: Sequence[RunObserver] = (),
) -> RunSummary:
    """Run (or resume) ``config`` in the running event loop; see :func:`run_experiment`.

    ``on_start`` is called with the run's record once it is created or resumed,
    before any item is asked: a caller that is interrupted knows which run to resume.
    ``on_item`` is called with each stored item, ``on_progress`` with an
    :class:`~answerx.experiments.progress.ExperimentProgress` before the first item
    and after each one. Each of ``observers`` is told the run's start, each stored item
    and its end (:class:`~answerx.experiments.observers.RunObserver`).

    On Python 3.11, a loop from :func:`~answerx.experiments.eventloop.new_event_loop`
    (what ``run_experiment`` uses) sends each request without queueing it behind the
    loop's other work; on another loop a run is correct but slower.
    """
    items = load_datasets(config.datasets)
    with contextlib.ExitStack() as resources:
        if store is None:
            store = resources.enter_context(ResultStore.open(config.output.db, "write"))
        cache = None
        if config.cache:
            # Where the store is: beside its file, or in its server, where every worker
            # of a shared run reuses what another was answered.
            cache = cache_for(config.output.db)
            resources.callback(cache.close)
        # Opened before the run is recorded: an unreadable index stops it with nothing stored.
        retriever = open_retriever(config, resources)
        prices = load_prices()
        # Built before the run is recorded too: a judge without its key, or a cost cap
        # without a price, stops the run with nothing stored.
        limits: dict[str, ProviderLimits] = {}
        judge = None
        if config.judge is not None:
            limits[config.judge.provider] = provider_limits(config, config.judge.provider)
            judge = judge_for_run(
                config.judge, cache=cache, prices=prices, limits=limits[config.judge.provider],
                prompt_dir=config.prompt_dir,
            )  # fmt: skip
        digest = config_hash(config)
        if resume:
            record = _resolve_resume(store, resume, digest)
            if judge is not None:  # the judge's budget is the run's, not this session's
                charge_earlier_rulings(judge, store.items(record.run_id))
        elif work_on is not None:
            record = _join_by_id(store, work_on, digest)
        elif join:
            record = store.join_run(config.name, config.model_dump(mode="json"), digest)
        else:
            record = store.start_run(config.name, config.model_dump(mode="json"), digest)
        shared = join or work_on is not None
        if judge is not None and shared:  # the judge's caps are the run's, every worker's
            if not resume:
                charge_earlier_rulings(judge, store.items(record.run_id))
            judge.budget = SharedBudget(judge.budget, store, record.run_id, "judge")
        if on_start is not None:
            on_start(record)
        done = store.done_keys(record.run_id)
        count = RunCount(store, record.run_id, done) if shared else None
        total = count_units(config, items)
        # Counted against the plan, not len(done): a generator keeps a large run's memory flat.
        skipped = sum(u.key in done for u in plan_units(config, items)) if done else 0
        todo = (u for u in plan_units(config, items) if u.key not in done)
        runner = _Run(
            config, record, store, cache=cache, prices=prices, make_manager=make_manager,
            retriever=retriever, judge=judge, limits=limits,
        )  # fmt: skip
        callbacks = _Callbacks(runner, total, skipped, on_item, on_progress, observers, count)
        callbacks.progress()
        for observer in observers:
            observer.run_started(record, callbacks.now())
        status: RunStatus = "failed"
        claims = _Claims(store, record.run_id, lease_s) if shared else None
        counting = None if count is None else asyncio.create_task(count.follow(callbacks.progress))
        try:
            await _work(runner, todo, config.concurrency, callbacks, claims)
            if claims is not None:  # then the items other workers took and left
                await _work_left(runner, config, items, done, callbacks, claims)
            if count is not None:  # the last progress shows the whole run, finished
                await asyncio.to_thread(count.refresh)
                callbacks.progress()
            status = "finished"
        except (asyncio.CancelledError, KeyboardInterrupt):
            status = "interrupted"
            raise
        finally:
            if claims is not None:
                claims.stop()
            if counting is not None:
                counting.cancel()
                await asyncio.gather(counting, return_exceptions=True)
            # A joined run ends when its last item does: a worker that stops early leaves
            # it running for the others (and for a worker that joins later).
            if claims is None or status == "finished":
                store.finish_run(record.run_id, status)
            await runner.aclose()
            for observer in observers:
                observer.run_ended(store, record.run_id, status)
    t = runner.totals
    return RunSummary(
        run_id=record.run_id,
        status=status,
        db=display_store(config.output.db),
        total=total,
        skipped=skipped,
        done=t.done,
        errors=t.errors,
        correct=t.correct,
        scored=t.scored,
        cache_hits=t.cache_hits,
        input_tokens=t.input_tokens,
        output_tokens=t.output_tokens,
        cost_usd=t.cost,
        elapsed_s=time.perf_counter() - t.started,
        judge=None
        if judge is None
        else judge_totals(t.residue).model_copy(update={"items": t.done}),
        judge_stopped=None if judge is None else judge.summary.stopped,
    )


def _session_judge_totals(totals: _Totals) -> JudgeTotals:
    """The judge's totals over this session's residue, counted out of every item it stored."""
    return judge_totals(totals.residue).model_copy(update={"items": totals.done})


@dataclass
class _Callbacks:
    """Tells the caller's callbacks about each stored item and the run's progress."""

    runner: _Run
    total: int
    skipped: int
    on_item: Callable[[ItemRecord], None] | None
    on_progress: ExperimentProgressCallback | None
    observers: Sequence[RunObserver] = ()
    count: RunCount | None = None  # a shared run's answers, every worker's

    def now(self) -> ExperimentProgress:
        run_finished = None if self.count is None else self.count.value
        return self.runner.totals.progress(
            self.runner.run.run_id, self.total, self.skipped, run_finished
        )

    def progress(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.now())

    def item(self, record: ItemRecord) -> None:
        self.progress()
        if self.on_item is not None:
            self.on_item(record)
        if self.observers:
            progress = self.now()
            for observer in self.observers:
                observer.item_stored(record, progress)


async def _work(
    runner: _Run,
    todo: Iterator[Unit],
    workers: int,
    callbacks: _Callbacks,
    claims: _Claims | None = None,
) -> None:
    """``workers`` tasks answering units from ``todo`` until it is empty (with ``claims``,
    only the units this process takes: another worker of a joined run holds the rest).

    When one task fails (a ConfigError that would fail every unit alike), the
    others are cancelled before the error propagates, so nothing writes to the
    store after the run is marked as ended.
    """

    async def worker() -> None:
        for unit in todo:  # a shared iterator: each worker takes the next unit
            # A claim is a round trip to a server: in a thread, so the other units' calls
            # go on meanwhile.
            if claims is not None and not await asyncio.to_thread(claims.take, unit):
                continue
            record = await runner.answer(unit)
            if claims is not None:
                await asyncio.to_thread(claims.finish, unit)
            callbacks.item(record)

    tasks = [asyncio.create_task(worker()) for _ in range(workers)]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class _Claims:
    """This process's share of a joined run (``answerx run --join``): items are taken by
    an atomic claim in the store, held by a lease its heartbeat renews, and marked
    finished once stored."""

    def __init__(self, store: ResultStore, run_id: str, lease_s: float) -> None:
        self.store, self.run_id, self.lease_s = store, run_id, lease_s
        self.worker = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self._beat = asyncio.get_running_loop().create_task(self._heartbeat())

    def take(self, unit: Unit) -> bool:
        return self.store.claim(self.run_id, unit.key, self.worker, self.lease_s)

    def finish(self, unit: Unit) -> None:
        self.store.finish_claim(self.run_id, unit.key, self.worker)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.lease_s / 3)
            await asyncio.to_thread(self.store.renew_claims, self.run_id, self.worker, self.lease_s)

    def stop(self) -> None:
        self._beat.cancel()


async def _work_left(
    runner: _Run,
    config: ExperimentConfig,
    items: list[DatasetItem],
    done: set[ItemKey],
    callbacks: _Callbacks,
    claims: _Claims,
) -> None:
    """Until every unit of the joined run is finished: take those whose worker died (their
    leases ran out), and wait while live workers finish theirs."""
    while True:
        finished = done | claims.store.finished_claims(claims.run_id)
        left = [u for u in plan_units(config, items) if u.key not in finished]
        if not left:
            return
        await _work(runner, iter(left), config.concurrency, callbacks, claims)
        await asyncio.sleep(min(1.0, claims.lease_s / 10))


def run_experiment(
    config: ExperimentConfig | str | Path,
    *,
    overrides: dict[str, Any] | None = None,
    resume: str | None = None,
    make_manager: ManagerFactory | None = None,
    on_start: Callable[[RunRecord], None] | None = None,
    on_progress: ExperimentProgressCallback | None = None,
    join: bool = False,
    work_on: str | None = None,
    lease_s: float = DEFAULT_LEASE_S,
    observers: Sequence[RunObserver] = (),
) -> RunSummary:
    """Run an experiment from a config (or a YAML path) and return its summary.

    ``resume`` is a run id (or ``"last"``: the latest run of the same
    configuration); finished items are skipped, errored ones retried. Ctrl-C
    stops gracefully: every finished item is already stored, the run is marked
    ``interrupted``, and ``KeyboardInterrupt`` propagates; ``on_start`` (called
    with the run's record before the first item) tells which run that was.
    ``on_progress`` is called with an
    :class:`~answerx.experiments.progress.ExperimentProgress` before the first item
    and after each one (``answerx run`` draws its progress bar from it); ``observers``
    are told the run's start, each stored item and its end (``answerx run`` logs to the
    config's ``log_to`` trackers through them).

    ``join``: work on the run of this configuration that other workers share (processes
    on this or other machines with the same store, typically a PostgreSQL server): the
    newest unfinished run of the config, or a new one. Each item is claimed atomically
    and held for ``lease_s`` seconds, renewed while this process lives: a worker killed
    even with ``kill -9`` loses nothing (its items pass to another when the lease runs
    out), and no item is stored twice. The run is finished by the worker that sees its
    last item stored. Workers share the response cache (in the store's server, or
    beside its file), the judge's caps (counted in the store: they hold for the run) and
    their progress (``on_progress`` counts every worker's answers).

    ``work_on``: join the run with this id (``answerx runs work RUN_ID``) as ``join`` does;
    ``config`` must be the run's own (:func:`stored_config`).

    >>> summary = run_experiment("config/experiments/demo.yaml")   # doctest: +SKIP
    >>> summary.run_id, summary.done, summary.correct               # doctest: +SKIP
    ('20261121-143012-ab12', 60, 41)
    """
    if not isinstance(config, ExperimentConfig):
        config = load_config(config, overrides)
    elif overrides:
        raise ConfigError("overrides apply to a config file; pass an updated ExperimentConfig")
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(
            arun_experiment(
                config,
                resume=resume,
                make_manager=make_manager,
                on_start=on_start,
                on_progress=on_progress,
                join=join,
                work_on=work_on,
                lease_s=lease_s,
                observers=observers,
            )
        )
