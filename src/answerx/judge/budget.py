"""What the judge may spend and what it has spent: :class:`JudgeBudget`, :class:`JudgeSummary`.

A budget caps the questions put to the judge (``max_calls``) and what they cost
(``max_cost_usd``). Once either is reached the judge stops asking, says so in every
ruling it then returns (the rules' verdict stands) and logs it once. A question is
counted when it is sent, under a lock, so threads never overshoot ``max_calls``;
the cost cap is checked before each question, so the questions already in flight
may end a little past it.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from answerx.callinfo import Usage
from answerx.errors import ConfigError

__all__ = ["JudgeBudget", "JudgeSummary", "Price"]

log = logging.getLogger("answerx.judge")


class Price(Protocol):
    """What a call costs (``answerx.structured.prices.Price`` is one)."""

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """USD for this many tokens."""
        ...


class JudgeSummary(BaseModel):
    """What one judge did and spent so far."""

    model_config = ConfigDict(frozen=True)

    asked: int = Field(
        default=0,
        description="Rulings the judge gave within its budget: calls made (failed ones too) "
        "and answers from the cache; a question the budget refused is not asked.",
    )
    judged: int = Field(default=0, description="Rulings with a verdict.")
    cache_hits: int = Field(default=0, description="Rulings answered from the cache.")
    skipped_budget: int = Field(default=0, description="Not asked: the budget was spent.")
    failed: int = Field(default=0, description="Asked, but the provider call failed.")
    unsure: int = Field(default=0, description="Answered below the judge's min_confidence.")
    calls: int = Field(default=0, description="Questions sent to the provider.")
    requests: int = Field(default=0, description="HTTP requests (re-asks and fallbacks too).")
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = Field(default=0.0, description="None when no price is known.")
    stopped: str | None = Field(default=None, description="Why the judge stopped asking.")
    failure: str | None = Field(default=None, description="Why the last failed call failed.")

    @property
    def failed_on_all(self) -> bool:
        """Every call made failed (none answered): the judge is broken, not unsure."""
        return self.failed > 0 and self.failed >= self.calls and self.cache_hits == 0


class JudgeBudget:
    """The caps of one judge and its running totals (thread-safe)."""

    def __init__(
        self,
        *,
        max_calls: int | None = None,
        max_cost_usd: float | None = None,
        price: Price | None = None,
        what: str = "judge",
    ) -> None:
        if max_calls is not None and max_calls < 0:
            raise ConfigError(f"max_calls must be 0 or more, not {max_calls}")
        if max_cost_usd is not None and max_cost_usd < 0:
            raise ConfigError(f"max_cost_usd must be 0 or more, not {max_cost_usd}")
        if max_cost_usd is not None and price is None:
            raise ConfigError(
                "a cost cap (max_cost_usd) needs the judge model's price: pass price=, "
                "e.g. answerx.structured.prices.price_of(provider, model)"
            )
        self.max_calls = max_calls
        self.max_cost_usd = max_cost_usd
        self.price = price
        self.what = what  # who spends it, in messages: the judge, the extractor
        self._lock = threading.Lock()
        self._summary = JudgeSummary(cost_usd=0.0 if price is not None else None)

    @property
    def summary(self) -> JudgeSummary:
        with self._lock:
            return self._summary

    def _add(self, **counts: int) -> None:
        s = self._summary
        self._summary = s.model_copy(update={k: getattr(s, k) + v for k, v in counts.items()})

    def note(self, **counts: int) -> None:
        """Add to the summary's counters (``asked=1``, ``cache_hits=1``, ...)."""
        with self._lock:
            self._add(**counts)

    def note_failure(self, why: str) -> None:
        """Record why a call failed (the summary says it when every call failed)."""
        with self._lock:
            self._summary = self._summary.model_copy(update={"failure": why})

    def reserve(self) -> str | None:
        """Count one more question if the budget allows it (None); else why not."""
        with self._lock:
            why = self._exhausted()
            if why is not None:
                self._stopped(why)
                self._add(skipped_budget=1)
                return why
            self._add(calls=1)
            return None

    def stop(self, why: str) -> None:
        """Ask nothing more (a rejected key: every further call would fail the same way)."""
        with self._lock:
            self._stopped(why)

    def _stopped(self, why: str) -> None:
        if self._summary.stopped is None:
            log.warning("the LLM %s stops asking: %s", self.what, why)
            self._summary = self._summary.model_copy(update={"stopped": why})

    def _exhausted(self) -> str | None:
        s = self._summary
        if s.stopped is not None:
            return s.stopped
        if self.max_calls is not None and s.calls >= self.max_calls:
            return f"the {self.what}'s budget of {self.max_calls} calls is spent"
        if self.max_cost_usd is not None and (s.cost_usd or 0.0) >= self.max_cost_usd:
            return (
                f"the {self.what}'s cost cap of ${self.max_cost_usd:.4f} is reached "
                f"(${s.cost_usd or 0.0:.4f} spent)"
            )
        return None

    def cost_of(self, usage: Usage) -> float | None:
        """What ``usage`` cost at the judge's price (None when no price is known)."""
        if self.price is None:
            return None
        return self.price.cost(usage.input_tokens, usage.output_tokens)

    def spend(self, usage: Usage, requests: int) -> float | None:
        """Record a call's usage; return its cost."""
        cost = self.cost_of(usage)
        with self._lock:
            s = self._summary
            self._summary = s.model_copy(
                update={
                    "requests": s.requests + requests,
                    "input_tokens": s.input_tokens + usage.input_tokens,
                    "output_tokens": s.output_tokens + usage.output_tokens,
                    "cost_usd": None if s.cost_usd is None else s.cost_usd + (cost or 0.0),
                }
            )
        return cost
