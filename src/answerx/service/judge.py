"""The server's LLM judge: built once per app from the settings, bounded, counted.

``ANSWERX_JUDGE`` (``answerx serve --judge PROVIDER/MODEL``) names it; the settings
become a :class:`~answerx.judge.JudgeSpec` and :func:`~answerx.judge.open_judge` builds
it, as it builds the command line's and a run's; its budget and
cost cap are per worker process; a semaphore bounds its calls in flight, whichever
request thread asks. A client never names the judge's provider or model (see
:mod:`answerx.service.settings`): it can only decline judging for its request.
"""

from __future__ import annotations

import threading

from answerx.callinfo import Usage
from answerx.grading.judgement import JudgeRequest, JudgeRuling
from answerx.judge import JudgeSpec, LLMJudge, open_judge
from answerx.service.metrics import ServiceMetrics
from answerx.service.settings import ServiceSettings

__all__ = ["ServerJudge", "judge_spec", "server_judge"]


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


def judge_spec(settings: ServiceSettings) -> JudgeSpec | None:
    """The :class:`JudgeSpec` of the settings' judge (None when they name none)."""
    if settings.judge is None:
        return None
    return JudgeSpec.named(
        settings.judge, timeout_s=settings.llm_timeout_s, max_calls=settings.judge_max_calls,
        max_cost_usd=settings.judge_max_cost_usd, min_confidence=settings.judge_min_confidence,
        concurrency=settings.judge_concurrency, cache=settings.judge_cache,
    )  # fmt: skip


def server_judge(settings: ServiceSettings, metrics: ServiceMetrics) -> ServerJudge | None:
    """The judge the settings name (None when they name none). A provider without a key,
    or a cost cap without a known price, is a ConfigError: the server does not start."""
    spec = judge_spec(settings)
    if spec is None:
        return None
    from answerx.experiments.judging import judge_cache

    # The cache is open for the life of the server process; SQLite closes it at exit.
    judge = open_judge(spec, open_cache=judge_cache, cost_cap="ANSWERX_JUDGE_MAX_COST")
    return ServerJudge(judge, spec.concurrency, metrics)
