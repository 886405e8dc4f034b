"""``LLMExtractor``: the ``two_stage`` idea applied to saved outputs.

The rules read every output first. Only where they cannot read it with confidence — a
finished output in which they found no answer, or an answer a fallback rule guessed
below the confidence threshold — one structured extraction call
(:meth:`~answerx.structured.InstructorClientManager.extract_structured`: tools mode,
then the provider's JSON modes, the answer's shape bound to the task, exactly as
``two_stage`` makes it) asks an LLM for the final answer. A cut-off output is not asked
about (there is nothing more in it to read), a provider error or a spent budget leaves
the rules' reading, and answers are cached so that a re-run costs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from answerx.callinfo import CallInfo
from answerx.errors import ConfigError, ProviderAuthError, ProviderError
from answerx.extraction.models import Extraction
from answerx.grading.residue import extraction_in_doubt
from answerx.judge.budget import JudgeBudget, Price
from answerx.judge.cache import JudgeCache, judge_cache_key
from answerx.judge.caller import BudgetedCaller
from answerx.redactor import describe_failure
from answerx.structured.manager import InstructorClientManager

__all__ = ["LLMExtraction", "LLMExtractor"]


class LLMExtraction(BaseModel):
    """What asking the LLM about one output gave, and what it cost.

    ``extraction`` is the LLM's (method ``structured_llm``) when ``used``; else the
    rules' own, unchanged, and ``reason`` says why (budget spent, provider error).
    """

    model_config = ConfigDict(frozen=True)

    extraction: Extraction
    used: bool = Field(description="The LLM's answer replaced the rules' reading.")
    reason: str = Field(default="", description="Why the LLM's answer was not used.")
    calls: int = Field(default=0, ge=0, description="Requests paid for (0 when cached).")
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cost_usd: float | None = Field(default=None, ge=0.0)
    cached: bool = False


class _Stored(BaseModel):
    """A cached extraction call: the answer and the model's own confidence."""

    answer: str | None
    confidence: float | None


class LLMExtractor(BudgetedCaller):
    """Structured LLM extraction for the outputs the rules cannot read, within a budget.

    >>> llm = LLMExtractor(InstructorClientManager("openai", "gpt-4o-mini"),  # doctest: +SKIP
    ...                    max_calls=500, cache=ResponseCache("cache.db"))
    >>> found = extract(output, "math")                                       # doctest: +SKIP
    >>> llm.extract(found, question=q).extraction.answer if llm.needs(found) else found.answer

    ``min_confidence`` is the rules' confidence below which their answer is a guess
    worth a second reading (default: the manager's two-stage threshold, the weakest
    explicit marker); an output that is the answer and nothing else is never asked
    about. ``max_calls``, ``max_cost_usd`` (with ``price``) and ``cache`` work as for
    :class:`~answerx.judge.LLMJudge`. A rejected key stops all further calls. Thread-safe.
    """

    def __init__(
        self,
        manager: InstructorClientManager,
        *,
        min_confidence: float | None = None,
        max_calls: int | None = None,
        max_cost_usd: float | None = None,
        price: Price | None = None,
        cache: JudgeCache | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        threshold = manager.extraction.min_confidence if min_confidence is None else min_confidence
        if not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"min_confidence must be in [0, 1], not {threshold}")
        self.manager = manager
        self.min_confidence = threshold
        self.budget = JudgeBudget(
            max_calls=max_calls, max_cost_usd=max_cost_usd, price=price, what="extractor"
        )
        self.cache = cache
        self.options: dict[str, Any] = dict(options or {})

    def needs(self, found: Extraction) -> bool:
        """Whether the rules' reading ``found`` is in doubt: no answer in a finished output,
        or a guess below :attr:`min_confidence` picked out of a longer output."""
        return extraction_in_doubt(found, self.min_confidence)

    def extract(
        self,
        found: Extraction,
        *,
        question: str | None = None,
        choices: Sequence[str] | None = None,
        numbers: Sequence[int | float] | None = None,
    ) -> LLMExtraction:
        """The LLM's reading of ``found.raw_output`` (never raises for a provider failure)."""
        self.budget.note(asked=1)
        key = self._key(found, question, choices, numbers) if self.cache is not None else ""
        if key and self.cache is not None:
            entry = self.cache.get(key)
            if entry is not None:
                self.budget.note(cache_hits=1, judged=1)
                stored = _Stored.model_validate_json(entry.payload)
                return LLMExtraction(extraction=_llm(found, stored), used=True, cached=True)
        why = self.budget.reserve()
        if why is not None:
            return LLMExtraction(extraction=found, used=False, reason=f"not asked: {why}")
        try:
            result, info = self.manager.extract_structured(
                found.raw_output, "none", question=question, task=found.task,
                choices=choices, numbers=numbers, **self.options,
            )  # fmt: skip
        except ProviderError as exc:
            return self._failed(found, exc)
        stored = _Stored(answer=result.answer_value, confidence=result.confidence)
        if key and self.cache is not None:
            self.cache.put(key, stored.model_dump_json(), info)
        cost = self.budget.spend(info.usage, info.attempts)
        self.budget.note(judged=1)
        return LLMExtraction(
            extraction=_llm(found, stored), used=True, calls=1,
            input_tokens=info.usage.input_tokens, output_tokens=info.usage.output_tokens,
            cost_usd=cost,
        )  # fmt: skip

    def _failed(self, found: Extraction, error: ProviderError) -> LLMExtraction:
        info: CallInfo | None = error.call_info
        self.budget.note(failed=1)
        if isinstance(error, ProviderAuthError):
            self.budget.stop(f"the provider refused the key ({describe_failure(error)})")
        cost = self.budget.spend(info.usage, info.attempts) if info is not None else None
        return LLMExtraction(
            extraction=found, used=False,
            reason=f"extraction failed: {describe_failure(error)}", calls=1,
            input_tokens=info.usage.input_tokens if info is not None else 0,
            output_tokens=info.usage.output_tokens if info is not None else 0,
            cost_usd=cost,
        )  # fmt: skip

    def _key(
        self,
        found: Extraction,
        question: str | None,
        choices: Sequence[str] | None,
        numbers: Sequence[int | float] | None,
    ) -> str:
        manager = self.manager
        return judge_cache_key(
            kind="extraction", provider=manager.provider, model=manager.model,
            base_url=manager.endpoint_identity, modes=manager.modes,
            raw_output=found.raw_output, question=question, task=found.task,
            choices=list(choices) if choices else None,
            numbers=list(numbers) if numbers else None,
            settings=manager.extraction.model_dump(mode="json"), params=self.options,
            max_tokens=manager.max_tokens,
        )  # fmt: skip


def _llm(found: Extraction, stored: _Stored) -> Extraction:
    """An :class:`Extraction` of method ``structured_llm`` from a stored call, as
    ``two_stage`` builds one (its reading of the same raw output)."""
    return Extraction(
        answer=stored.answer,
        method="structured_llm" if stored.answer is not None else "none",
        confidence=stored.confidence if stored.confidence is not None else 0.0,
        task=found.task,
        candidate=stored.answer,
        raw_output=found.raw_output,
        reasoning=found.reasoning,
        value_count=1 if stored.answer is not None else 0,
    )
