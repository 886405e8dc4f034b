"""What the workers of one run share beyond its items (``answerx run --join``, ``answerx
runs work``): the judge's budget and the run's progress, both counted in the store.

- :class:`SharedBudget`: the judge's caps (``judge: max_calls``, ``max_cost_usd``) hold
  for the run, not per worker. Every call is counted in the store's ``budgets`` row of
  the run by one atomic ``UPDATE … WHERE calls < cap`` before it is sent, so workers
  asking together never pass ``max_calls`` between them; a call's cost is added once it
  is known, so the cost cap can be passed only by the calls in flight when it is
  reached (as with one worker).
- :class:`RunCount`: how many of the run's answers every worker has stored, read from
  the store about once a second, so each worker's progress shows the run's total.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from answerx.callinfo import Usage
from answerx.experiments.records import ItemKey
from answerx.experiments.store import ResultStore
from answerx.judge.budget import JudgeBudget

__all__ = ["RunCount", "SharedBudget"]

#: How often a worker reads the run's count of finished answers (seconds).
COUNT_EVERY_S = 1.0


class SharedBudget(JudgeBudget):
    """``budget``'s caps counted for the whole run ``run_id`` in ``store`` (the row
    ``name``), started at what the run spent before (``budget``'s counts so far: its
    earlier sessions' rulings). This worker's own counts stay in :attr:`summary`."""

    def __init__(self, budget: JudgeBudget, store: ResultStore, run_id: str, name: str) -> None:
        super().__init__(
            max_calls=budget.max_calls,
            max_cost_usd=budget.max_cost_usd,
            price=budget.price,
            what=budget.what,
        )
        self._summary = budget.summary
        self.store, self.run_id, self.name = store, run_id, name
        store.open_budget(run_id, name, budget.summary.calls, budget.summary.cost_usd or 0.0)

    def reserve(self) -> str | None:
        """Count one more call of the run's budget if every worker's calls so far leave
        room for it (None); else why not."""
        with self._lock:
            stopped = self._summary.stopped
        if stopped is None and self.store.take_budget(
            self.run_id, self.name, max_calls=self.max_calls, max_cost_usd=self.max_cost_usd
        ):
            with self._lock:
                self._add(calls=1)
            return None
        why = stopped or self._spent()
        with self._lock:
            self._stopped(why)
            self._add(skipped_budget=1)
        return why

    def _spent(self) -> str:
        calls, cost = self.store.budget_spent(self.run_id, self.name)
        if self.max_calls is not None and calls >= self.max_calls:
            return f"the run's {self.what} budget of {self.max_calls} calls is spent (all workers)"
        return (
            f"the run's {self.what} cost cap of ${self.max_cost_usd or 0.0:.4f} is reached "
            f"(${cost:.4f} spent by all workers)"
        )

    def spend(self, usage: Usage, requests: int) -> float | None:
        """Record a call's usage here and its cost in the run's row; return its cost."""
        cost = super().spend(usage, requests)
        if cost:
            self.store.spend_budget(self.run_id, self.name, cost)
        return cost


class RunCount:
    """The run's answers stored by every worker: those of earlier sessions (``done`` when
    this worker joined, less what this session's workers had finished by then) and every
    item a worker of this session has finished since (the store's finished claims)."""

    def __init__(self, store: ResultStore, run_id: str, done: set[ItemKey]) -> None:
        self.store, self.run_id = store, run_id
        self._earlier = len(done - store.finished_claims(run_id))
        self.value = self._earlier + store.count_finished_claims(run_id)

    def refresh(self) -> int:
        """Read the count now; returns it."""
        self.value = self._earlier + self.store.count_finished_claims(self.run_id)
        return self.value

    async def follow(self, changed: Callable[[], None]) -> None:
        """Read the count about once a second (off the event loop), calling ``changed``
        when another worker's answers moved it; until cancelled."""
        while True:
            await asyncio.sleep(COUNT_EVERY_S)
            before = self.value
            reading = asyncio.ensure_future(asyncio.to_thread(self.refresh))
            try:
                await asyncio.shield(reading)
            finally:
                # Cancelled meanwhile (the run ends): the read in its thread ends before
                # the store it reads can be closed.
                await asyncio.wait({reading})
            if self.value != before:
                changed()
