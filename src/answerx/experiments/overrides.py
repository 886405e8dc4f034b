"""Command-line overrides of an experiment config: flat flags or dotted keys, applied
to the raw mapping before it is validated (so the errors still point at lines)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from answerx.errors import ConfigError
from answerx.experiments.datasets import parse_dataset_ref
from answerx.support.yamlerrors import suggest

__all__ = ["OVERRIDE_KEYS", "apply_overrides"]

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
    "index": "the search approaches' index: a path (answerx index build) or bundled",
    "judge": "the LLM judge of the items the rules are unsure of: provider/model",
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
    "index",
    "judge",
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
