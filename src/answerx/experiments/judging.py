"""The LLM judge of an experiment: the config's ``judge:`` made into an :class:`LLMJudge`.

The config's :class:`JudgeConfig` becomes a :class:`~answerx.judge.JudgeSpec` and the
judge is built by :func:`~answerx.judge.open_judge`, as the command line's and the
service's are; :func:`judge_cache` opens the response cache where any of them keeps its
answers (:func:`~answerx.judge.cache_location`'s one rule).

A run's judge asks through a :class:`~answerx.experiments.calls.RunClientManager`
that shares the judge provider's concurrency slot and rate limits with the run's
own calls to that provider, and through the run's response cache (a re-run asks
nothing again); its cost comes from the run's price table. Its calls are counted
apart from the approaches' own (they are made outside any item's tally, and stored
in the item's ``verdict_detail["judge"]``).

:func:`stored_run_judge` is the judge ``answerx runs score --judge`` asks about a stored
run (the run's ``judge:`` settings, another model if asked, the run's cache);
:func:`charge_earlier_rulings` makes a resumed run's budget count
the calls its earlier sessions already made.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from answerx.callinfo import Usage
from answerx.errors import ConfigError
from answerx.experiments.cache import ResponseCache
from answerx.experiments.calls import ProviderLimits, RunClientManager
from answerx.experiments.config import JUDGE_LIMIT_KEYS, JudgeConfig, TargetSpec
from answerx.experiments.records import ItemRecord, RunRecord
from answerx.experiments.scoring import stored_ruling
from answerx.experiments.store.responses import cache_for
from answerx.experiments.store.url import is_store_url
from answerx.judge import JudgeSpec, LLMJudge, cache_location, open_judge
from answerx.judge.cache import cache_override
from answerx.structured.prices import PriceTable

__all__ = [
    "charge_earlier_rulings",
    "judge_cache",
    "judge_for_run",
    "judge_for_scoring",
    "judge_spec",
    "stored_run_config_judge",
    "stored_run_judge",
]


def judge_spec(
    config: JudgeConfig, *, prompt_dir: str | Path | None = None, **fields: Any
) -> JudgeSpec:
    """The :class:`JudgeSpec` of a run's ``judge:`` section (``fields`` over it)."""
    given = config.model_dump(exclude_none=True) | fields
    return JudgeSpec.model_validate(given | ({"prompt_dir": prompt_dir} if prompt_dir else {}))


def judge_cache(spec: JudgeSpec) -> ResponseCache | None:
    """The response cache where ``spec``'s judge keeps its answers, opened (the caller
    closes it); None when ``spec`` turns caching off. The file is
    :func:`~answerx.judge.cache_location`'s: one rule for every caller."""
    where = cache_location(spec.cache, store=spec.results_db)
    return None if where is None else ResponseCache(where)


def judge_for_run(
    spec: JudgeConfig,
    *,
    cache: ResponseCache | None,
    prices: PriceTable,
    limits: ProviderLimits,
    prompt_dir: str | Path | None = None,
) -> LLMJudge:
    """The judge of a run: async calls within the provider's ``limits``, cached in the
    run's response cache (the manager itself caches nothing: the judge keys its own
    questions)."""
    manager = RunClientManager(
        spec.provider,
        spec.model,
        base_url=spec.base_url,
        modes=spec.modes,
        max_tokens=spec.max_tokens,
        limits=limits,
    )
    return open_judge(
        judge_spec(spec, prompt_dir=prompt_dir), manager=manager, cache=cache, prices=prices,
        cost_cap="judge: max_cost_usd",
    )  # fmt: skip


def judge_for_scoring(
    spec: JudgeConfig, *, cache: ResponseCache | None, prompt_dir: str | Path | None = None
) -> LLMJudge:
    """The judge of ``answerx runs score --judge``: plain (threaded) calls, the same cache
    keys as a run's judge, so what the run asked costs nothing again."""
    judge = judge_spec(spec, prompt_dir=prompt_dir)
    return open_judge(judge, cache=cache, cost_cap="judge: max_cost_usd")


def charge_earlier_rulings(judge: LLMJudge, items: Iterable[ItemRecord]) -> int:
    """Count the judge calls stored with ``items`` (a resumed run's earlier sessions)
    against ``judge``'s budget; returns the calls counted."""
    rulings = [r for r in map(stored_ruling, items) if r is not None]
    calls = sum(r.calls for r in rulings)
    if calls:
        judge.budget.note(calls=calls)
        usage = Usage(
            input_tokens=sum(r.input_tokens for r in rulings),
            output_tokens=sum(r.output_tokens for r in rulings),
        )
        judge.budget.spend(usage, 0)
    return calls


# Settings of a run's judge that hold for another judge model too.
_PORTABLE = JUDGE_LIMIT_KEYS | {"min_confidence", "max_tokens"}


def stored_run_config_judge(
    run: RunRecord, target: str, *, max_calls: int | None = None
) -> JudgeConfig:
    """The judge ``target`` (``provider/model``) with the settings of ``run``'s own
    ``judge:`` (its budget, min_confidence, concurrency; its base URL and modes too when
    it is the same model); ``max_calls`` overrides the budget of calls."""
    try:
        wanted = TargetSpec.model_validate(target)
    except (ValidationError, ValueError) as exc:
        raise ConfigError(f"--judge {target!r}: give PROVIDER or PROVIDER/MODEL ({exc})") from None
    stored: dict[str, Any] = run.config.get("judge") or {}
    same = (stored.get("provider"), stored.get("model")) == (wanted.provider, wanted.model)
    fields = dict(stored) if same else {k: v for k, v in stored.items() if k in _PORTABLE}
    fields |= {"provider": wanted.provider, "model": wanted.model}
    if wanted.base_url is not None:
        fields["base_url"] = wanted.base_url
    if max_calls is not None:
        fields["max_calls"] = max_calls
    try:
        return JudgeConfig.model_validate(fields)
    except ValidationError as exc:
        raise ConfigError(f"the judge of run {run.run_id}: {exc}") from None


@contextmanager
def stored_run_judge(
    run: RunRecord, target: str, *, db: str | Path, max_calls: int | None = None
) -> Iterator[tuple[LLMJudge, int]]:
    """The judge (and its concurrency) that re-scoring ``run`` asks, in the run's response
    cache beside ``db`` (when the run used one), so what the run already asked costs
    nothing. Its budget (``max_calls``, the run's ``max_cost_usd``) is this scoring's."""
    spec = stored_run_config_judge(run, target, max_calls=max_calls)
    where = None if run.config.get("cache", True) else "off"
    cache: ResponseCache | None
    if is_store_url(db) and not cache_override(where):
        cache = cache_for(str(db))  # a server's store keeps the run's cache in the server
    else:
        results_db = None if is_store_url(db) else Path(db)
        cache = judge_cache(judge_spec(spec, cache=where, results_db=results_db))
    try:
        prompt_dir = run.config.get("prompt_dir")
        yield judge_for_scoring(spec, cache=cache, prompt_dir=prompt_dir), spec.concurrency
    finally:
        if cache is not None:
            cache.close()
