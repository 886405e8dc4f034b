"""``JudgeSpec``: everything that says which judge to build, as one validated model.

The command line (``verify --judge``), experiment runs (``judge:``), ``runs score
--judge`` and the service (``ANSWERX_JUDGE*``) each fill one and hand it to
:func:`answerx.judge.open_judge`, so the judge is configured one way whoever asks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from answerx.errors import ConfigError
from answerx.grading.judgement import DEFAULT_JUDGE_MIN_CONFIDENCE
from answerx.structured.providers import ModeName

__all__ = ["JudgeLimits", "JudgeSpec"]


class JudgeLimits(BaseModel):
    """What a judge may spend, and when its ruling counts: shared by :class:`JudgeSpec` and
    a run's ``judge:`` section (:class:`~answerx.experiments.config.JudgeConfig`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_calls: int | None = Field(default=None, ge=0, description="Questions it may be asked.")
    max_cost_usd: float | None = Field(
        default=None, ge=0, description="What its calls may cost, in USD (needs a price)."
    )
    min_confidence: float = Field(
        default=DEFAULT_JUDGE_MIN_CONFIDENCE,
        ge=0.0,
        le=1.0,
        description="Rulings below this leave the rules' verdict.",
    )
    concurrency: int = Field(default=4, ge=1, description="Judge calls in flight at once.")
    max_tokens: int | None = Field(
        default=None, ge=1, description="Per judge call; None: the provider's default."
    )


class JudgeSpec(JudgeLimits):
    """Which LLM judges, how it is reached, what it may spend (:class:`JudgeLimits`) and
    where it caches.

    ``JudgeSpec.model_validate("openai/gpt-4o-mini")`` reads the ``PROVIDER/MODEL``
    shorthand (``openrouter/openai/gpt-4o-mini``: the model is everything after the
    first slash; ``provider`` alone: its default model).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str = Field(min_length=1)
    model: str | None = Field(default=None, description="None: the provider's default model.")
    base_url: str | None = Field(default=None, description="Overrides the provider's URL.")
    modes: tuple[ModeName, ...] | None = Field(
        default=None, min_length=1, description="Overrides the provider's mode chain."
    )
    api_key_env: str | None = Field(
        default=None,
        description="The environment variable holding the key; None: the provider's own.",
    )
    timeout_s: float | None = Field(default=None, gt=0, description="Per request.")
    cache: str | None = Field(
        default=None,
        description="The cache override: a file, or 'off'; None: the rule of "
        "answerx.judge.cache.cache_location ($ANSWERX_JUDGE_CACHE, else cache.db beside "
        "the results store).",
    )
    results_db: Path | None = Field(
        default=None, description="The results store the cache sits beside (None: the default)."
    )
    prompt_dir: Path | None = Field(default=None, description="Overrides prompts/judge.txt.")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if isinstance(data, str):
            provider, _, model = data.strip().partition("/")
            return {"provider": provider, **({"model": model} if model else {})}
        return data

    @classmethod
    def named(cls, name: str, **fields: Any) -> JudgeSpec:
        """The judge ``name`` names (``PROVIDER/MODEL`` or ``PROVIDER``), with ``fields``."""
        provider, _, model = name.strip().partition("/")
        if not provider:
            raise ConfigError(
                f"{name!r} names no provider: give PROVIDER/MODEL, e.g. openai/gpt-4o-mini"
            )
        return cls(provider=provider, model=model or None, **fields)

    @property
    def label(self) -> str:
        """``provider/model`` (``provider`` alone when the model is the default)."""
        return self.provider if self.model is None else f"{self.provider}/{self.model}"
