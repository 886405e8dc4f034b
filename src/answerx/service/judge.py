"""The server's LLM judge: built once per app from the settings, bounded, counted.

``ANSWERX_JUDGE`` (``answerx serve --judge PROVIDER/MODEL``) names it; its budget and
cost cap are per worker process; a semaphore bounds its calls in flight, whichever
request thread asks. A client never names the judge's provider or model (see
:mod:`answerx.service.settings`): it can only decline judging for its request.
"""

from __future__ import annotations

import threading
from pathlib import Path

from answerx.callinfo import Usage
from answerx.errors import ConfigError
from answerx.grading.judgement import JudgeRequest, JudgeRuling
from answerx.home import answerx_home
from answerx.judge import LLMJudge, manager_for
from answerx.service.metrics import ServiceMetrics
from answerx.service.settings import ServiceSettings

__all__ = ["ServerJudge", "server_judge"]

_NO_CACHE = frozenset({"off", "none", "no", "false", "0"})


class ServerJudge:
    """A :class:`~answerx.grading.judgement.Judge`: the server's LLM judge, at most
    ``concurrency`` calls at once, its tokens counted in the service's metrics."""

    def __init__(self, judge: LLMJudge, concurrency: int, metrics: ServiceMetrics) -> None:
        self.llm = judge
        self.concurrency = concurrency
        self._slots = threading.BoundedSemaphore(concurrency)
        self._metrics = metrics

    @property
    def name(self) -> str:
        """``provider/model``."""
        return self.llm.name

    def judge(self, request: JudgeRequest) -> JudgeRuling:
        """The LLM judge's ruling (never raises for a provider failure)."""
        with self._slots:
            ruling = self.llm.judge(request)
        if ruling.calls:
            manager = self.llm.manager
            usage = Usage(input_tokens=ruling.input_tokens, output_tokens=ruling.output_tokens)
            self._metrics.count_tokens(manager.provider, manager.model, usage)
        return ruling


def server_judge(settings: ServiceSettings, metrics: ServiceMetrics) -> ServerJudge | None:
    """The judge the settings name (None when they name none). A provider without a key,
    or a cost cap without a known price, is a ConfigError: the server does not start."""
    if settings.judge is None:
        return None
    from answerx.experiments.prices import price_of

    manager = manager_for(settings.judge, timeout=settings.llm_timeout_s)
    price = price_of(manager.provider, manager.model)
    if settings.judge_max_cost_usd is not None and price is None:
        raise ConfigError(
            f"ANSWERX_JUDGE_MAX_COST needs the price of {manager.provider}/{manager.model}, "
            "which the price table lacks ($ANSWERX_PRICES adds models)"
        )
    cache = None
    where = settings.judge_cache
    if where is None or where.strip().lower() not in _NO_CACHE:
        from answerx.experiments.cache import ResponseCache

        # Open for the life of the server process; SQLite closes it at exit.
        cache = ResponseCache(Path(where) if where else answerx_home() / "cache.db")
    judge = LLMJudge(
        manager, max_calls=settings.judge_max_calls, max_cost_usd=settings.judge_max_cost_usd,
        price=price, cache=cache, min_confidence=settings.judge_min_confidence,
    )  # fmt: skip
    return ServerJudge(judge, settings.judge_concurrency, metrics)
