"""Experiment configuration: the YAML file that describes a run, validated with line numbers.

A run is datasets × approaches × strategies × targets (provider, model) ×
repetitions, with the settings they run under. :func:`load_config` reads a YAML
file (``config/experiments/*.yaml``), applies command-line overrides, and
validates it; every problem is reported as ``file:line: key.path: what is
wrong``, with a suggestion for a misspelt key.

Relative paths (dataset files, the output database, the prompt directory) are
relative to the directory answerx runs in, not to the YAML file.

>>> config = config_from_dict({"datasets": [{"sample": "arithmetic"}], "approaches": ["none"]})
>>> config.targets[0].provider, config.output.db.as_posix()
('local', 'runs/answerx.db')
"""

from __future__ import annotations

import collections
import difflib
import hashlib
import json
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from answerx.agent.budget import Budget
from answerx.errors import ConfigError
from answerx.experiments.datasets import DatasetSpec, parse_dataset_ref
from answerx.structured.models import APPROACHES as APPROACH_NAMES
from answerx.structured.providers import SDK_MODES, ModeName, load_providers
from answerx.yamlsafe import read_yaml_file

__all__ = [
    "HASH_EXCLUDED_KEYS",
    "OVERRIDE_KEYS",
    "ExperimentConfig",
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

Strategy = Literal["structured", "two_stage"]
_STRUCTURED: Strategy = "structured"


def _known_provider(name: str) -> str:
    providers = load_providers()
    if name not in providers:
        raise ValueError(f"unknown provider {name!r}; valid providers: {', '.join(providers)}")
    return name


def _known_approach(name: str) -> str:
    if name not in APPROACH_NAMES:
        hint = suggest(name, APPROACH_NAMES)
        raise ValueError(
            f"unknown approach {name!r}"
            + (f" (did you mean {hint!r}?)" if hint else "")
            + f"; valid approaches: {', '.join(APPROACH_NAMES)}"
        )
    return name


def suggest(word: str, options: Iterable[str]) -> str | None:
    """The option ``word`` was most likely meant to be, or None when none is close.

    difflib finds the candidates; they are ranked by edit distance counting a
    swap of two neighbours as one edit, as difflib alone ranks ``modle`` nearer
    ``modes`` than ``model``.
    """
    candidates = difflib.get_close_matches(word, list(options), n=5, cutoff=0.6)
    if not candidates:
        return None
    return min(candidates, key=lambda c: _edits(word.lower(), c.lower()))


def _edits(a: str, b: str) -> int:
    """Optimal-string-alignment distance: insertions, deletions, substitutions, swaps."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(
                rows[i - 1][j] + 1,
                row[j - 1] + 1,
                rows[i - 1][j - 1] + (a[i - 1] != b[j - 1]),
            )
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


ProviderName = Annotated[str, AfterValidator(_known_provider)]
ApproachName = Annotated[str, Field(min_length=1), AfterValidator(_known_approach)]


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
            sdk = load_providers()[self.provider].sdk
            bad = [m for m in self.modes if m not in SDK_MODES[sdk]]
            if bad:
                raise ValueError(
                    f"modes {bad} are not available with provider {self.provider!r} "
                    f"({sdk} SDK); use some of {sorted(SDK_MODES[sdk])}"
                )
        return self

    @property
    def label(self) -> str:
        """``provider/model``, as results and reports name the target."""
        return f"{self.provider}/{self.model}"


class RateLimit(BaseModel):
    """A provider's rate limits; None means unlimited."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    requests_per_minute: float | None = Field(default=None, gt=0)
    tokens_per_minute: int | None = Field(default=None, gt=0)


class OutputConfig(BaseModel):
    """Where results go."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    db: Path = Field(default=Path("runs/answerx.db"), description="The SQLite results store.")
    report_dir: Path = Field(
        default=Path("runs/reports"), description="Reports and plots, one folder per run."
    )


class ExperimentConfig(BaseModel):
    """One experiment run, as written in ``config/experiments/*.yaml``.

    The run is every dataset item × approach × strategy × target × repetition.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(default="experiment", min_length=1)
    description: str = ""
    datasets: list[DatasetSpec] = Field(min_length=1)
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
        description="Sent as seed + repetition to providers that take one (OpenAI-compatible, "
        "Cohere; not Anthropic); None sends none. Providers promise best-effort determinism.",
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
    cache: bool = Field(default=True, description="Reuse identical earlier responses.")
    output: OutputConfig = Field(default_factory=OutputConfig)
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

    @field_validator("approaches", "strategies")
    @classmethod
    def _no_repeats(cls, names: list[str]) -> list[str]:
        repeated = _repeated(names)
        if repeated:
            raise ValueError(f"listed more than once: {', '.join(repeated)}")
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
    | {"approach_settings", "output"}
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
    }
)


def config_hash(config: ExperimentConfig) -> str:
    """sha256 (hex) of the canonical JSON of the result-determining settings.

    Canonical: keys sorted, no whitespace, defaults included, and the keys in
    :data:`HASH_EXCLUDED_KEYS` left out. Two configs with the same hash ask the
    same questions of the same models in the same way.
    """
    data = config.model_dump(mode="json", exclude=set(HASH_EXCLUDED_KEYS))
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# --- overrides -------------------------------------------------------------------------

#: Flat override keys (command-line flags) and what they set. Any dotted key
#: (``"budget.max_calls"``, ``"output.db"``, ``"rate_limits.openai.requests_per_minute"``)
#: sets that nested key too.
OVERRIDE_KEYS: Mapping[str, str] = {
    "name": "the run's name",
    "datasets": "replace the datasets: sample names, file paths or hf:NAME[:CONFIG][@SPLIT]",
    "limit": "keep only the first N items of every dataset",
    "approaches": "replace the approaches (list or comma-separated)",
    "strategies": "replace the strategies (list or comma-separated)",
    "targets": "replace the targets: provider or provider/model (list or comma-separated)",
    "provider": "run on this one provider only (with 'model': that model)",
    "model": "the model of the only target (or of 'provider')",
    "base_url": "the base URL of the only target (or of 'provider')",
    "temperature": "sampling temperature",
    "max_tokens": "max output tokens per call",
    "repetitions": "times each item is asked",
    "seed": "seed sent to providers that accept one",
    "concurrency": "items in flight at once",
    "requests_per_minute": "request rate limit for every target's provider",
    "tokens_per_minute": "token rate limit for every target's provider",
    "cache": "reuse identical earlier responses (true/false)",
    "db": "the SQLite results store (output.db)",
    "report_dir": "where reports go (output.report_dir)",
    "prompt_dir": "a folder of prompt templates overriding the bundled ones",
}
_LIST_KEYS = ("datasets", "approaches", "strategies", "targets")
_SIMPLE_KEYS = (
    "name",
    "temperature",
    "max_tokens",
    "repetitions",
    "seed",
    "concurrency",
    "cache",
    "prompt_dir",
)
_Put = Callable[[tuple[str, ...], Any], None]


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, Iterable) and not isinstance(value, Mapping):
        return list(value)
    return [value]


def apply_overrides(
    data: Mapping[str, Any], overrides: Mapping[str, Any] | None
) -> tuple[dict[str, Any], set[tuple[str, ...]]]:
    """``data`` (a raw, unvalidated config mapping) with ``overrides`` applied.

    ``overrides`` is flat, as command-line flags give it: keys from
    :data:`OVERRIDE_KEYS`, or dotted paths into the config. A None value means
    "not given" and is skipped, so a CLI can pass every option it has. Returns
    the new mapping and the key paths the overrides set (for error messages).
    """
    result: dict[str, Any] = json.loads(json.dumps(data, default=str))  # a deep, plain copy
    touched: set[tuple[str, ...]] = set()
    given = {k: v for k, v in (overrides or {}).items() if v is not None}

    def put(path: tuple[str, ...], value: Any) -> None:
        node: Any = result
        for depth, part in enumerate(path):
            last = depth == len(path) - 1
            if isinstance(node, list):  # "datasets.0.limit": a list item by position
                if not (part.isdigit() and int(part) < len(node)):
                    raise ConfigError(
                        f"override {'.'.join(path)!r}: {'.'.join(path[:depth])} has "
                        f"{len(node)} entries, no entry {part!r}"
                    )
                if last:
                    node[int(part)] = value
                node = node[int(part)]
            elif last:
                node[part] = value
            else:
                if not isinstance(node.get(part), dict | list):
                    node[part] = {}
                node = node[part]
        touched.add(path)

    unknown = [k for k in given if "." not in k and k not in OVERRIDE_KEYS]
    if unknown:
        hint = suggest(unknown[0], OVERRIDE_KEYS)
        raise ConfigError(
            f"unknown override {unknown[0]!r}"
            + (f" (did you mean {hint!r}?)" if hint else "")
            + f"; valid overrides: {', '.join(OVERRIDE_KEYS)}, or a dotted config key"
        )
    # Whole-value replacements first, so that limit and the rate limits then
    # apply to the datasets and targets the overrides chose; dotted keys last,
    # so the most specific override wins ("datasets.0.limit" after "limit").
    for key, value in given.items():
        if "." in key:
            continue
        if key == "datasets":
            put(("datasets",), [_dataset_entry(ref) for ref in _as_list(value)])
        elif key in _LIST_KEYS:
            put((key,), _as_list(value))
            if key == "approaches" and isinstance(result.get("approach_settings"), dict):
                # Settings of approaches the override left out are kept out, not an error.
                chosen = set(_as_list(value))
                settings = result["approach_settings"]
                result["approach_settings"] = {k: v for k, v in settings.items() if k in chosen}
        elif key in ("db", "report_dir"):
            put(("output", key), value)
        elif key in _SIMPLE_KEYS:
            put((key,), value)
    _override_target(result, given, put)
    if "limit" in given:
        for index, dataset in enumerate(result.get("datasets") or []):
            if isinstance(dataset, dict):
                dataset["limit"] = given["limit"]
                touched.add(("datasets", str(index), "limit"))
    for key in ("requests_per_minute", "tokens_per_minute"):
        if key in given:
            for provider in _target_providers(result):
                put(("rate_limits", provider, key), given[key])
    for key, value in given.items():
        if "." in key:
            put(tuple(key.split(".")), value)
    return result, touched


def _dataset_entry(ref: Any) -> Any:
    if isinstance(ref, str):
        return parse_dataset_ref(ref).model_dump(mode="json", exclude_defaults=True)
    return ref


def _target_providers(data: Mapping[str, Any]) -> list[str]:
    providers: list[str] = []
    for target in data.get("targets") or ["local"]:
        name = target.partition("/")[0] if isinstance(target, str) else target.get("provider")
        if isinstance(name, str) and name and name not in providers:
            providers.append(name)
    return providers


def _override_target(data: dict[str, Any], given: Mapping[str, Any], put: _Put) -> None:
    """--provider replaces the targets with one; --model / --base-url set the only target's."""
    if "provider" in given:
        target: dict[str, Any] = {"provider": given["provider"]}
    elif "model" in given or "base_url" in given:
        targets = data.get("targets") or ["local"]
        if len(targets) != 1:
            raise ConfigError(
                "the config has several targets: give a provider with the model "
                "(--provider NAME --model MODEL) or list targets as provider/model"
            )
        only = targets[0]
        target = {"provider": only.partition("/")[0]} if isinstance(only, str) else dict(only)
        if isinstance(only, str) and "/" in only and "model" not in given:
            target["model"] = only.partition("/")[2]
    else:
        return
    for key in ("model", "base_url"):
        if key in given:
            target[key] = given[key]
    put(("targets",), [target])


# --- reading YAML with line numbers ----------------------------------------------------

_Path = tuple[str | int, ...]


def read_yaml(path: str | Path) -> tuple[Any, dict[_Path, int]]:
    """A YAML file's data, and the 1-based line of every key and list item in it.

    The line map is keyed by path (``("datasets", 0, "fields", "question")``);
    the root is ``()``, line 1. Duplicate keys, which YAML loaders silently
    collapse, are an error here. The file is read within the limits of
    :mod:`answerx.yamlsafe` (size, alias expansion, nesting).
    """
    source = Path(path)
    data, node = read_yaml_file(source)
    lines: dict[_Path, int] = {(): 1}
    if node is not None:
        _collect_lines(node, (), lines, source)
    return data, lines


def _collect_lines(node: yaml.Node, path: _Path, lines: dict[_Path, int], source: Path) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            child = (*path, key)
            if child in lines:
                raise ConfigError(
                    f"{source}:{key_node.start_mark.line + 1}: {_dotted(child)}: duplicate key "
                    f"(first on line {lines[child]})"
                )
            lines[child] = key_node.start_mark.line + 1
            _collect_lines(value_node, child, lines, source)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            child = (*path, index)
            lines[child] = item.start_mark.line + 1
            _collect_lines(item, child, lines, source)


def _dotted(path: Sequence[str | int]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def format_validation_error(
    exc: ValidationError,
    *,
    source: str,
    lines: Mapping[_Path, int] | None = None,
    overridden: Iterable[tuple[str, ...]] = (),
    model: type[BaseModel] | None = None,
    prefix: _Path = (),
) -> str:
    """Every error of ``exc`` as ``source:line: key.path: message``, one per line.

    ``lines`` maps key paths to lines (from :func:`read_yaml`); an error inside a
    key set by an override says so instead of giving a line. With ``model`` (the
    model that was validated), an unknown key comes with the closest valid key.
    ``prefix`` is where the validated data sits in the file, when it is a part.
    """
    overrides = [tuple(str(p) for p in path) for path in overridden]
    messages: list[tuple[int, str]] = []
    for error in exc.errors():
        path = _path_in_data((*prefix, *error["loc"]), lines or {})
        as_text = tuple(str(p) for p in path)
        line = 0
        if any(as_text[: len(o)] == o for o in overrides):
            where = f"{source} (command-line override)"
        elif lines:
            line = _line_of(path, lines)
            where = f"{source}:{line}"
        else:
            where = source
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = "unknown key"
            valid = _keys_at(model, path[len(prefix) : -1]) if model is not None else []
            hint = suggest(str(path[-1]), valid) if path else None
            if hint:
                message += f" (did you mean {hint!r}?)"
            elif valid:
                message += f"; valid keys here: {', '.join(valid)}"
        elif error["type"] == "missing":
            message = "required key is missing"
        elif message.startswith("Value error, "):
            message = message[len("Value error, ") :]
        messages.append((line, f"{where}: {_dotted(path)}: {message}"))
    return "\n".join(text for _, text in sorted(messages, key=lambda m: m[0]))


def _path_in_data(loc: Sequence[str | int], lines: Mapping[_Path, int]) -> _Path:
    """The error location as a path in the data: drops pydantic's own segments
    (``[key]``, union member names) that are not keys of the YAML."""
    path: _Path = ()
    for part in loc:
        if isinstance(part, str) and part.startswith("["):  # "[key]": a dict key's own error
            continue
        candidate = (*path, part)
        if lines and candidate not in lines and path in lines and _is_internal(part):
            continue
        path = candidate
    return path


def _is_internal(part: str | int) -> bool:
    # pydantic names union members and validator wrappers ("function-after[...]", "str").
    return isinstance(part, str) and ("[" in part or "-" in part or part in {"str", "int"})


def _line_of(path: _Path, lines: Mapping[_Path, int]) -> int:
    """The line of ``path``, or of its nearest ancestor that is in the file."""
    for end in range(len(path), -1, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return 1


def _keys_at(model: type[BaseModel], path: _Path) -> list[str]:
    """The valid keys of the model found by walking ``path`` down from ``model``."""
    annotation: Any = model
    for part in path:
        annotation = _step(annotation, part)
        if annotation is None:
            return []
    inner = _model_in(annotation)
    if inner is None or issubclass(inner, RootModel):
        return []
    return list(inner.model_fields)


def _step(annotation: Any, part: str | int) -> Any:
    inner = _model_in(annotation)
    if inner is not None and issubclass(inner, RootModel):
        annotation, inner = inner.model_fields["root"].annotation, None
    if inner is not None and isinstance(part, str):
        field = inner.model_fields.get(part)
        return field.annotation if field is not None else None
    for arg in _args(annotation):
        origin = typing.get_origin(arg)
        if origin is list and isinstance(part, int):
            return typing.get_args(arg)[0]
        if origin is dict and isinstance(part, str):
            return typing.get_args(arg)[1]
    return None


def _args(annotation: Any) -> list[Any]:
    """``annotation`` and, for a union (``X | None``), its members; Annotated unwrapped."""
    if typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return [a for a in typing.get_args(annotation) if a is not type(None)]
    return [annotation]


def _model_in(annotation: Any) -> type[BaseModel] | None:
    for arg in _args(annotation):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    return None


# --- loading ---------------------------------------------------------------------------


def config_from_dict(
    data: Mapping[str, Any],
    overrides: Mapping[str, Any] | None = None,
    *,
    source: str = "<config>",
    lines: Mapping[_Path, int] | None = None,
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
    lines: Mapping[_Path, int] | None,
    overridden: Iterable[tuple[str, ...]],
) -> None:
    """Each approach's settings against that approach's own settings model.

    A separate step, after the config is valid, so its errors keep their lines;
    the reasoning package is imported here only (it sits above configuration).
    """
    from answerx.reasoning import APPROACHES

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
            where = f"{path}:{_line_of(key, lines)}" if key in lines else f"{path} (override)"
            raise ConfigError(
                f"{where}: {_dotted(key)}: dataset file {str(dataset.path)!r} does not exist"
            )
    return config
