"""The settings each approach accepts, validated once by :func:`get_approach`.

Unknown names and bad values raise :class:`ConfigError` listing the valid
settings of that approach. The multi-call variants are off by default (the
single-prompt variant is the cheap one); a setting that only applies to the
multi-call variant is refused without ``multi_call=True`` rather than ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Final, Literal, Self, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from answerx.agent.budget import Budget
from answerx.errors import ConfigError, UnknownName
from answerx.extraction.models import Task
from answerx.reasoning.response import Strategy
from answerx.structured.extraction import MARKER_CONFIDENCE

__all__ = [
    "MARKER_CONFIDENCE",
    "RUN_OPTIONS",
    "ApproachOptions",
    "ApproachSettings",
    "MultiCallSettings",
    "ProgramSettings",
    "ReflectionSettings",
    "SkeletonSettings",
    "TreeSettings",
    "VerificationSettings",
    "parse_settings",
]


class ApproachSettings(BaseModel):
    """Settings every approach takes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float | None = Field(
        default=None, ge=0.0, le=2.0, description="Sampling temperature of every call."
    )
    max_tokens: int | None = Field(
        default=None, ge=1, description="Output tokens per call (default: the provider's)."
    )
    min_confidence: float = Field(
        default=MARKER_CONFIDENCE,
        ge=0.0,
        le=1.0,
        description="two_stage: ask the LLM to extract when the rules' confidence is below "
        "this (default: the manager's extraction settings, 0.85 unless changed there).",
    )

    def call_options(self) -> dict[str, Any]:
        """Provider options for every call (only those set)."""
        options: dict[str, Any] = {}
        if self.temperature is not None:
            options["temperature"] = self.temperature
        if self.max_tokens is not None:
            options["max_tokens"] = self.max_tokens
        return options


class MultiCallSettings(ApproachSettings):
    """Settings of an approach with a single-prompt and a multi-call variant."""

    multi_call: bool = Field(
        default=False, description="Make the several calls of the method instead of one prompt."
    )
    #: Settings that only mean something with multi_call=True.
    multi_call_only: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="after")
    def _multi_call_settings_need_multi_call(self) -> Self:
        stray = sorted(set(self.multi_call_only) & self.model_fields_set)
        if stray and not self.multi_call:
            raise ValueError(f"{', '.join(stray)} only apply with multi_call=True")
        return self


class ProgramSettings(ApproachSettings):
    """program_of_thought: optionally run the program the model wrote."""

    execute_code: bool = Field(
        default=False,
        description="Run the model's program in the sandbox and take its printed answer.",
    )
    code_time_limit_s: float = Field(default=5.0, gt=0.0, le=600.0)
    code_memory_limit_mb: int = Field(default=256, ge=32, le=65536)
    sandbox: Literal["isolated", "unsafe-local"] = Field(
        default="isolated",
        description="isolated: Linux namespaces (refused where unavailable); unsafe-local: "
        "only the limits and an empty environment, no protection against hostile code.",
    )


class ReflectionSettings(MultiCallSettings):
    """reflection: draft → (critique → revise) × up to ``rounds``."""

    multi_call_only: ClassVar[tuple[str, ...]] = ("rounds",)
    rounds: int = Field(default=2, ge=1, le=10, description="Critique/revise rounds at most.")


class VerificationSettings(MultiCallSettings):
    """chain_of_verification: baseline → plan → independent answers → final."""

    multi_call_only: ClassVar[tuple[str, ...]] = ("max_questions",)
    max_questions: int = Field(default=3, ge=1, le=10, description="Verification questions.")


class SkeletonSettings(MultiCallSettings):
    """skeleton_of_thought: skeleton → concurrent point expansions → answer."""

    multi_call_only: ClassVar[tuple[str, ...]] = ("max_points",)
    max_points: int = Field(default=5, ge=1, le=10, description="Skeleton points expanded.")


class TreeSettings(MultiCallSettings):
    """tree_of_thought: breadth-limited search over model-proposed, model-scored steps."""

    multi_call_only: ClassVar[tuple[str, ...]] = (
        "thoughts_per_step",
        "breadth",
        "depth",
        "proposal_temperature",
    )
    thoughts_per_step: int = Field(default=2, ge=1, le=8, description="k: thoughts per node.")
    breadth: int = Field(default=2, ge=1, le=8, description="b: best nodes kept per level.")
    depth: int = Field(default=2, ge=1, le=6, description="d: steps from the root to a leaf.")
    proposal_temperature: float = Field(
        default=0.7, ge=0.0, le=2.0, description="Temperature of proposals (they must differ)."
    )


class ApproachOptions(TypedDict, total=False):
    """The keyword arguments of :func:`~answerx.reasoning.get_approach` and of every
    approach's constructor, declared once: how the approach runs (the first five, see
    :class:`~answerx.reasoning.BaseReasoning`), then every setting of some approach's
    ``settings_model`` (each approach accepts only its own; others raise
    :class:`ConfigError`). A test keeps this list equal to the settings models' fields."""

    # Names from a command line or a config file are plain strings: checked on use.
    strategy: Strategy | str
    task: Task | str
    prompt_dir: str | Path | None
    budget: Budget | None
    result_mode: bool
    # ApproachSettings
    temperature: float | None
    max_tokens: int | None
    min_confidence: float
    # MultiCallSettings and its variants
    multi_call: bool
    rounds: int
    max_questions: int
    max_points: int
    thoughts_per_step: int
    breadth: int
    depth: int
    proposal_temperature: float
    # ProgramSettings
    execute_code: bool
    code_time_limit_s: float
    code_memory_limit_mb: int
    sandbox: Literal["isolated", "unsafe-local"]
    # the search loops' settings (answerx.reasoning.search_loops)
    top_k: int
    max_turns: int
    use_stop: bool
    max_searches: int
    max_steps: int
    max_passages: int
    no_query: Literal["search", "nudge"]
    next_query: Literal["generation", "answer"]


#: The options of :class:`ApproachOptions` that say how an approach runs, not what it does.
RUN_OPTIONS: Final = ("strategy", "task", "prompt_dir", "budget", "result_mode")


def parse_settings(
    approach: str, model: type[ApproachSettings], settings: Mapping[str, Any]
) -> ApproachSettings:
    """``settings`` validated by ``model``; :class:`ConfigError` lists the valid ones."""
    valid = ", ".join(sorted(model.model_fields))
    unknown = sorted(set(settings) - set(model.model_fields))
    if len(unknown) == 1:
        listed = f"valid settings of approach {approach!r}"
        raise UnknownName("setting", unknown[0], sorted(model.model_fields), listed=listed)
    if unknown:
        raise ConfigError(
            f"unknown setting {', '.join(map(repr, unknown))} for approach {approach!r}; "
            f"valid settings: {valid}"
        )
    try:
        return model.model_validate(dict(settings))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'settings'}: {e['msg']}" for e in exc.errors()
        )
        raise ConfigError(
            f"invalid settings for approach {approach!r}: {problems} (valid settings: {valid})"
        ) from None
