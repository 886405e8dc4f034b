"""``open_judge(JudgeSpec)``: the one place an :class:`~answerx.judge.LLMJudge` is built.

The command line, experiment runs, ``runs score`` and the service all describe
their judge as a :class:`~answerx.judge.spec.JudgeSpec` and build it here: the
manager (provider, model, URL, modes, key variable, timeout), the price that its
cost cap needs (:mod:`answerx.structured.prices`), its budget and its floor.
Where its answers are cached is :func:`~answerx.judge.cache.cache_location`'s one
rule; the cache object itself is handed in (a run's own response cache, or the one
the caller opened at that location), because the SQLite cache lives with the
experiments, a layer above.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from answerx.errors import ConfigError, CredentialsMissing
from answerx.judge.cache import JudgeCache
from answerx.judge.llm import LLMJudge
from answerx.judge.spec import JudgeSpec
from answerx.structured.manager import InstructorClientManager
from answerx.structured.prices import PRICES_ENV, Price, PriceTable, price_of

__all__ = ["judge_manager", "judge_price", "open_judge"]


def open_judge(
    spec: JudgeSpec,
    *,
    manager: InstructorClientManager | None = None,
    cache: JudgeCache | None = None,
    open_cache: Callable[[JudgeSpec], JudgeCache | None] | None = None,
    prices: PriceTable | None = None,
    cost_cap: str = "max_cost_usd",
) -> LLMJudge:
    """The judge ``spec`` describes.

    ``manager`` replaces the one ``spec`` would build (a run's rate-limited manager);
    ``cache`` is where its answers are kept (None: nowhere), or ``open_cache(spec)`` opens
    it once the key and the price are known good (so a judge that cannot work leaves no
    cache file behind); ``prices`` the price table
    (None: the bundled one and ``$ANSWERX_PRICES``). ``cost_cap`` is how the caller
    spells ``max_cost_usd`` (``--judge-max-cost``), for the error when the model has no
    price. Raises :class:`~answerx.errors.ConfigError` for an unusable spec and
    :class:`~answerx.errors.CredentialsMissing` when the key is not set.
    """
    manager = manager if manager is not None else judge_manager(spec)
    price = judge_price(spec, manager.model, prices=prices, cost_cap=cost_cap)
    if cache is None and open_cache is not None:
        cache = open_cache(spec)
    return LLMJudge(
        manager,
        max_calls=spec.max_calls,
        max_cost_usd=spec.max_cost_usd,
        price=price,
        cache=cache,
        min_confidence=spec.min_confidence,
        prompt_dir=spec.prompt_dir,
    )


def judge_manager(spec: JudgeSpec) -> InstructorClientManager:
    """The structured manager ``spec``'s judge asks through (plain, threaded calls)."""
    return InstructorClientManager(
        spec.provider, spec.model, api_key=_key(spec), base_url=spec.base_url,
        modes=spec.modes, timeout=spec.timeout_s, max_tokens=spec.max_tokens,
    )  # fmt: skip


def judge_price(
    spec: JudgeSpec,
    model: str,
    *,
    prices: PriceTable | None = None,
    cost_cap: str = "max_cost_usd",
) -> Price | None:
    """The price of ``spec``'s judge model ``model`` (resolved: the provider's default
    filled in); a cost cap without a price is a :class:`~answerx.errors.ConfigError`."""
    price = price_of(spec.provider, model, prices=prices)
    if price is None and spec.max_cost_usd is not None:
        raise ConfigError(
            f"{cost_cap} needs the price of {spec.provider}/{model}, which the price table "
            f"lacks: add it in a YAML file named by ${PRICES_ENV} (or drop {cost_cap})"
        )
    return price


def _key(spec: JudgeSpec) -> str | None:
    """The key from ``spec.api_key_env`` when it names one (None: the provider's own)."""
    if spec.api_key_env is None:
        return None
    key = os.environ.get(spec.api_key_env)
    if not key:
        raise CredentialsMissing(
            f"no API key for the judge {spec.label}: set the {spec.api_key_env} "
            "environment variable",
            provider=spec.provider, variable=spec.api_key_env,
        )  # fmt: skip
    return key
