"""Experiment configuration: the YAML file that describes a run, validated with line numbers.

A run is datasets × approaches × strategies × targets (provider, model) ×
repetitions, with the settings they run under. :func:`load_config` reads a YAML
file (``config/experiments/*.yaml``), applies command-line overrides, and
validates it; every problem is reported as ``file:line: key.path: what is
wrong``, with a suggestion for a misspelt key. This module holds the schema and
the loading; :mod:`~answerx.experiments.overrides` applies command-line
overrides and :mod:`answerx.support.yamlerrors` formats the errors (``apply_overrides``,
``OVERRIDE_KEYS``, ``read_yaml``, ``format_validation_error`` and ``suggest``
stay importable from here).

Relative paths (dataset files, the output database, the prompt directory, the
index) are relative to the directory answerx runs in, not to the YAML file.

``extraction:`` changes how every target's extraction call runs (the two_stage LLM
step), over each provider's ``extraction:`` of ``providers.yaml``: some of
``temperature``, ``max_tokens``, ``min_confidence``, ``confidence_threshold``,
``enable_fallback``, or a preset (``extraction: ml-agents``; see
:mod:`answerx.structured.extraction`).

The search approaches (``search_r1``, ``r1_searcher``, ``search_o1``, ``ircot``,
``iter_retgen``) read from ``index:``, an index written by ``answerx index build``
(an FTS5 file or a bm25s folder) or ``bundled`` (the bundled fictional corpus).

``judge:`` asks an LLM judge (:class:`JudgeConfig`, :mod:`answerx.judge`) about the
items the scoring rules cannot decide with confidence, within a budget.

>>> config = config_from_dict({"datasets": [{"sample": "arithmetic"}], "approaches": ["none"]})
>>> config.targets[0].provider, config.output.db.as_posix()
('local', 'runs/answerx.db')
"""

from __future__ import annotations

import collections
import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_serializer,
    field_validator,
    model_validator,
)

from answerx.agent.budget import Budget
from answerx.errors import ConfigError
from answerx.experiments.datasets import DatasetSpec
from answerx.experiments.overrides import OVERRIDE_KEYS, apply_overrides
from answerx.experiments.store.url import default_store, display_url, store_location
from answerx.judge.spec import JudgeLimits
from answerx.reasoning.registry import APPROACHES, SEARCH_APPROACHES, check_approach
from answerx.reasoning.response import ApproachName as ReasoningApproachName
from answerx.reasoning.response import Strategy
from answerx.structured.extraction import ExtractionOverride
from answerx.structured.providers import ModeName, load_providers
from answerx.support.home import default_report_dir
from answerx.support.yamlerrors import (
    YamlPath,
    dotted,
    format_validation_error,
    line_of,
    read_yaml,
    suggest,
)

__all__ = [
    "HASH_EXCLUDED_KEYS",
    "OVERRIDE_KEYS",
    "ExperimentConfig",
    "JudgeConfig",
    "OutputConfig",
    "RateLimit",
    "Strategy",
    "TargetSpec",
    "apply_overrides",
    "config_from_dict",
    "config_hash",
    "format_validation_error",
    "load_config",
    "read_yaml",
    "suggest",
]

_STRUCTURED: Strategy = "structured"


def _known_provider(name: str) -> str:
    providers = load_providers()
    if name not in providers:
        raise ValueError(f"unknown provider {name!r}; valid providers: {', '.join(providers)}")
    return name


ProviderName = Annotated[str, AfterValidator(_known_provider)]


def _approach_name(value: Any) -> Any:
    # UnknownName is a ValueError: pydantic reports it at the key's file:line, with the
    # did-you-mean, before the Literal would report its bare list.
    return check_approach(value) if isinstance(value, str) else value


ApproachName = Annotated[ReasoningApproachName, BeforeValidator(_approach_name)]


class TargetSpec(BaseModel):
    """One (provider, model) to run every approach on.

    In YAML either a mapping or the shorthand ``"provider/model"`` (``"openai/gpt-4o-mini"``,
    ``"openrouter/openai/gpt-4o-mini"``) or just ``"provider"``. A missing model is
    the provider's ``default_model`` from ``config/providers.yaml``, filled in when
    the config is validated, so results and resumes always name a concrete model.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str
    model: str = Field(min_length=1)
    base_url: str | None = Field(default=None, description="Overrides the provider's URL.")
    modes: tuple[ModeName, ...] | None = Field(
        default=None, min_length=1, description="Overrides the provider's mode chain."
    )

    @model_validator(mode="before")
    @classmethod
    def _shorthand_and_default_model(cls, data: Any) -> Any:
        if isinstance(data, str):
            provider, _, model = data.partition("/")
            data = {"provider": provider, **({"model": model} if model else {})}
        if isinstance(data, Mapping) and isinstance(data.get("provider"), str):
            spec = load_providers().get(data["provider"])
            if spec is None:
                _known_provider(data["provider"])  # raises, listing the valid ones
            elif data.get("model") is None:
                data = {**data, "model": spec.default_model}
        return data

    @model_validator(mode="after")
    def _modes_fit_sdk(self) -> TargetSpec:
        if self.modes is not None:
            spec = load_providers()[self.provider]
            bad = [m for m in self.modes if m not in spec.adapter.modes]
            if bad:
                raise ValueError(
                    f"modes {bad} are not available with provider {self.provider!r} "
                    f"({spec.sdk} SDK); use some of {sorted(spec.adapter.modes)}"
                )
        return self

    @property
    def label(self) -> str:
        """``provider/model``, as results and reports name the target."""
        return f"{self.provider}/{self.model}"


class JudgeConfig(JudgeLimits, TargetSpec):
    """The LLM judge of a run (``judge:``): asked only about the items the rules are unsure
    of (``Verdict.doubt``), through the run's response cache, within a budget.

    ``provider``/``model`` as a target (``judge: openai/gpt-4o-mini`` is the shorthand);
    ``max_calls`` and ``max_cost_usd`` stop it asking (the cost cap needs the model's
    price); a ruling below ``min_confidence`` is not used; ``concurrency`` bounds its
    calls in flight (the provider's ``provider_concurrency`` and ``rate_limits`` hold too).
    """


#: Keys of ``judge:`` that bound how much it is asked, not what it answers: left out of
#: the config hash, so a run stopped by its judge's budget resumes with a larger one.
JUDGE_LIMIT_KEYS: Final = frozenset({"max_calls", "max_cost_usd", "concurrency"})


class RateLimit(BaseModel):
    """A provider's rate limits; None means unlimited."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    requests_per_minute: float | None = Field(default=None, gt=0)
    tokens_per_minute: int | None = Field(default=None, gt=0)


class OutputConfig(BaseModel):
    """Where results go."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    db: Annotated[Path | str, BeforeValidator(store_location)] = Field(
        default_factory=default_store,
        description="The results store: a SQLite file, or a postgresql:// URL "
        "($ANSWERX_DB, else answerx.db in $ANSWERX_HOME).",
    )
    report_dir: Path = Field(
        default_factory=default_report_dir,
        description="Reports and plots, one folder per run ($ANSWERX_HOME/reports).",
    )

    @field_serializer("db", when_used="json")
    def _db_without_password(self, db: Path | str) -> str:
        # The config is stored with its run and shown in reports: a URL's password never is.
        return display_url(db) if isinstance(db, str) else db.as_posix()


class ExperimentConfig(BaseModel):
    """One experiment run, as written in ``config/experiments/*.yaml``.

    The run is every dataset item × approach × strategy × target × repetition.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(default="experiment", min_length=1)
    description: str = ""
    datasets: list[DatasetSpec] = Field(min_length=1)
    # Before approaches, so that their validator sees it.
    index: Literal["bundled"] | Path | None = Field(
        default=None,
        description="The search approaches' retriever: an index built with answerx index "
        "build, or 'bundled' (the bundled corpus).",
    )
    approaches: list[ApproachName] = Field(min_length=1)
    strategies: list[Strategy] = Field(default_factory=lambda: [_STRUCTURED], min_length=1)
    targets: list[TargetSpec] = Field(
        default_factory=lambda: [TargetSpec.model_validate("local")],
        min_length=1,
        description="Default: the bundled local model.",
    )
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(
        default=None, ge=1, description="Per call; None: the provider's default."
    )
    repetitions: int = Field(default=1, ge=1, description="Times each item is asked.")
    seed: int | None = Field(
        default=None,
        ge=0,
        description="Sent as seed + repetition to providers whose API takes one (the SDK "
        "adapter's takes_seed); None sends none. Providers promise best-effort determinism.",
    )
    concurrency: int = Field(default=8, ge=1, description="Items in flight at once, overall.")
    provider_concurrency: dict[ProviderName, Annotated[int, Field(ge=1)]] = Field(
        default_factory=dict, description="Calls in flight at once per provider."
    )
    rate_limits: dict[ProviderName, RateLimit] = Field(default_factory=dict)
    budget: Budget = Field(default_factory=Budget, description="Per question (answerx.agent).")
    approach_settings: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Extra settings per approach name (e.g. rounds)."
    )
    extraction: ExtractionOverride | None = Field(
        default=None,
        description="How every target's extraction call runs, over its provider's "
        "extraction settings of providers.yaml: temperature, max_tokens, min_confidence, "
        "confidence_threshold, enable_fallback, or a preset (answerx, ml-agents).",
    )
    judge: JudgeConfig | None = Field(
        default=None,
        description="An LLM judge for the items the rules are unsure of (provider/model, "
        "max_calls, max_cost_usd, min_confidence, concurrency); None: the rules alone.",
    )
    cache: bool = Field(default=True, description="Reuse identical earlier responses.")
    output: OutputConfig = Field(default_factory=OutputConfig)
    log_to: list[Literal["mlflow", "wandb"]] = Field(
        default_factory=list,
        description="Experiment trackers the run is logged to as it goes (MLflow, Weights & "
        "Biases; the answerx[mlflow] / answerx[wandb] extras), set up by their own "
        "environment variables (MLFLOW_TRACKING_URI, WANDB_MODE, ...).",
    )
    prompt_dir: Path | None = Field(
        default=None, description="A folder of prompt templates overriding the bundled ones."
    )

    @model_validator(mode="before")
    @classmethod
    def _empty_sections_are_defaults(cls, data: Any) -> Any:
        # A YAML key left with nothing under it (everything commented out) is null:
        # for a section, that means "the default", not an error.
        if isinstance(data, Mapping):
            data = {k: v for k, v in data.items() if not (v is None and k in _SECTIONS)}
        return data

    @field_validator("approaches", "strategies", "log_to")
    @classmethod
    def _no_repeats(cls, names: list[str]) -> list[str]:
        repeated = _repeated(names)
        if repeated:
            raise ValueError(f"listed more than once: {', '.join(repeated)}")
        return names

    @field_validator("approaches")
    @classmethod
    def _search_approaches_need_an_index(cls, names: list[str], info: ValidationInfo) -> list[str]:
        searching = [name for name in names if name in SEARCH_APPROACHES]
        if searching and "index" in info.data and info.data["index"] is None:
            raise ValueError(
                f"{', '.join(searching)} {'search' if len(searching) > 1 else 'searches'}: "
                "add index: (a path to an index built with answerx index build, or bundled)"
            )
        return names

    @field_validator("targets")
    @classmethod
    def _distinct_targets(cls, targets: list[TargetSpec]) -> list[TargetSpec]:
        repeated = _repeated(t.label for t in targets)
        if repeated:
            raise ValueError(f"targets listed more than once: {', '.join(repeated)}")
        return targets

    @field_validator("datasets")
    @classmethod
    def _distinct_dataset_names(cls, datasets: list[DatasetSpec]) -> list[DatasetSpec]:
        repeated = _repeated(d.label for d in datasets)
        if repeated:
            raise ValueError(
                f"two datasets are named {', '.join(repeated)}; give one a 'name' "
                "(item ids are unique per dataset name)"
            )
        return datasets

    @field_validator("approach_settings")
    @classmethod
    def _settings_for_listed_approaches(
        cls, settings: dict[str, dict[str, Any]], info: ValidationInfo
    ) -> dict[str, dict[str, Any]]:
        approaches = info.data.get("approaches")
        if approaches is not None:
            stray = [name for name in settings if name not in approaches]
            if stray:
                raise ValueError(
                    f"settings for {', '.join(map(repr, stray))}, which is not in "
                    f"approaches ({', '.join(approaches)})"
                )
        return settings

    @property
    def providers(self) -> list[str]:
        """The distinct providers of the targets, in order."""
        return list(dict.fromkeys(t.provider for t in self.targets))


def _repeated(names: Iterable[str]) -> list[str]:
    """The names that occur more than once, sorted."""
    counts = collections.Counter(names)
    return sorted(name for name, count in counts.items() if count > 1)


_SECTIONS = frozenset(
    {"strategies", "targets", "provider_concurrency", "rate_limits", "budget"}
    | {"approach_settings", "output", "judge"}
)


# --- hashing ---------------------------------------------------------------------------

#: Keys that change how a run is executed or where it is written, never its results:
#: left out of :func:`config_hash`, so a run resumes under another concurrency or
#: output path (or name) and is still recognised as the same experiment.
HASH_EXCLUDED_KEYS: frozenset[str] = frozenset(
    {
        "name",
        "description",
        "concurrency",
        "provider_concurrency",
        "rate_limits",
        "cache",
        "output",
        "log_to",
    }
)


# Keys newer than some stored runs: left out of the hash while None (their old meaning).
_HASHED_WHEN_SET: frozenset[str] = frozenset({"index", "extraction", "judge"})


def config_hash(config: ExperimentConfig) -> str:
    """sha256 (hex) of the canonical JSON of the result-determining settings.

    Canonical: keys sorted, no whitespace, defaults included, and the keys in
    :data:`HASH_EXCLUDED_KEYS` left out. Two configs with the same hash ask the
    same questions of the same models in the same way. Keys added after runs were
    stored (``index``, ``extraction``, ``judge``) count only when set, so those runs still
    resume; the judge's limits (:data:`JUDGE_LIMIT_KEYS`) never count.
    """
    unset = {key for key in _HASHED_WHEN_SET if getattr(config, key) is None}
    data = config.model_dump(mode="json", exclude=set(HASH_EXCLUDED_KEYS) | unset)
    if config.judge is not None:
        data["judge"] = {k: v for k, v in data["judge"].items() if k not in JUDGE_LIMIT_KEYS}
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# --- loading ---------------------------------------------------------------------------


def config_from_dict(
    data: Mapping[str, Any],
    overrides: Mapping[str, Any] | None = None,
    *,
    source: str = "<config>",
    lines: Mapping[YamlPath, int] | None = None,
) -> ExperimentConfig:
    """Validate a config mapping (after ``overrides``); errors become one ConfigError."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: expected a mapping of config keys, got {type(data).__name__}")
    merged, touched = apply_overrides(data, overrides)
    try:
        config = ExperimentConfig.model_validate(merged)
    except ValidationError as exc:
        detail = format_validation_error(
            exc, source=source, lines=lines, overridden=touched, model=ExperimentConfig
        )
        raise ConfigError(f"invalid experiment config:\n{detail}") from None
    _check_approach_settings(config, source=source, lines=lines, overridden=touched)
    return config


def _check_approach_settings(
    config: ExperimentConfig,
    *,
    source: str,
    lines: Mapping[YamlPath, int] | None,
    overridden: Iterable[tuple[str, ...]],
) -> None:
    """Each approach's settings against that approach's own settings model.

    A separate step, after the config is valid, so its errors keep their lines;
    """
    details = []
    for name, settings in config.approach_settings.items():
        model = APPROACHES[name].settings_model
        try:
            model.model_validate(settings)
        except ValidationError as exc:
            details.append(
                format_validation_error(
                    exc,
                    source=source,
                    lines=lines,
                    overridden=overridden,
                    model=model,
                    prefix=("approach_settings", name),
                )
            )
    if details:
        raise ConfigError("invalid experiment config:\n" + "\n".join(details))


def load_config(path: str | Path, overrides: Mapping[str, Any] | None = None) -> ExperimentConfig:
    """Read, override and validate an experiment config file.

    ``name`` defaults to the file's stem. YAML and validation problems raise
    :class:`ConfigError` naming the file, the line and the key::

        config/experiments/x.yaml:7: datasets[0].fields.questoin: unknown key
        (did you mean 'question'?)
    """
    data, lines = read_yaml(path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: expected a mapping of config keys, got {type(data).__name__}")
    data.setdefault("name", Path(path).stem)
    config = config_from_dict(data, overrides, source=str(path), lines=lines)
    # Checked here rather than in the model: a stored config stays valid on a
    # machine without the files, but a config about to run must have them.
    for index, dataset in enumerate(config.datasets):
        if dataset.path is not None and not dataset.path.is_file():
            key = ("datasets", index, "path")
            where = f"{path}:{line_of(key, lines)}" if key in lines else f"{path} (override)"
            raise ConfigError(
                f"{where}: {dotted(key)}: dataset file {str(dataset.path)!r} does not exist"
            )
    _check_index(config, path, lines)
    return config


#: ``index:`` naming the bundled corpus rather than a file.
BUNDLED_INDEX: Final = "bundled"


def _check_index(config: ExperimentConfig, path: str | Path, lines: Mapping[YamlPath, int]) -> None:
    """The index must exist when a search approach will read it (as the dataset files)."""
    index = config.index
    if index is None or index == BUNDLED_INDEX or index.exists():
        return
    if not any(name in SEARCH_APPROACHES for name in config.approaches):
        return  # not read by this run (approaches overridden on the command line)
    key = ("index",)
    where = f"{path}:{line_of(key, lines)}" if key in lines else f"{path} (override)"
    hint = suggest(str(index), [BUNDLED_INDEX])
    also = f" (did you mean {hint!r}?)" if hint else ""
    raise ConfigError(
        f"{where}: index: no index at {str(index)!r}{also}; build one with: answerx index "
        f"build CORPUS.jsonl --out {index}, or write index: {BUNDLED_INDEX}"
    )
