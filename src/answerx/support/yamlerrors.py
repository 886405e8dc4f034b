"""YAML with line numbers, and validation errors that point into it.

Every YAML file answerx validates (experiment configs, ``providers.yaml``, price
tables) reports a problem as ``file:line: key.path: what is wrong``, with the
closest valid key for a misspelt one (``did you mean 'question'?``, from
:func:`answerx.didyoumean.suggest`, re-exported here).
:func:`read_yaml` reads a file within the limits of :mod:`answerx.support.yamlsafe` and
maps every key to its line; :func:`format_validation_error` turns a pydantic
``ValidationError`` into those lines; :func:`suggest` is the did-you-mean.

A bottom-layer utility: it knows nothing of what the files describe.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, RootModel, ValidationError

from answerx.didyoumean import suggest
from answerx.errors import ConfigError
from answerx.support.yamlsafe import read_yaml_file

__all__ = ["YamlPath", "dotted", "format_validation_error", "line_of", "read_yaml", "suggest"]


#: A key path in a YAML document: mapping keys and list positions.
YamlPath = tuple[str | int, ...]


def read_yaml(path: str | Path) -> tuple[Any, dict[YamlPath, int]]:
    """A YAML file's data, and the 1-based line of every key and list item in it.

    The line map is keyed by path (``("datasets", 0, "fields", "question")``);
    the root is ``()``, line 1. Duplicate keys, which YAML loaders silently
    collapse, are an error here. The file is read within the limits of
    :mod:`answerx.support.yamlsafe` (size, alias expansion, nesting).
    """
    source = Path(path)
    data, node = read_yaml_file(source)
    lines: dict[YamlPath, int] = {(): 1}
    if node is not None:
        _collect_lines(node, (), lines, source)
    return data, lines


def _collect_lines(
    node: yaml.Node, path: YamlPath, lines: dict[YamlPath, int], source: Path
) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            child = (*path, key)
            if child in lines:
                raise ConfigError(
                    f"{source}:{key_node.start_mark.line + 1}: {dotted(child)}: duplicate key "
                    f"(first on line {lines[child]})"
                )
            lines[child] = key_node.start_mark.line + 1
            _collect_lines(value_node, child, lines, source)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            child = (*path, index)
            lines[child] = item.start_mark.line + 1
            _collect_lines(item, child, lines, source)


def dotted(path: Sequence[str | int]) -> str:
    """``path`` as written in messages: ``datasets[0].fields.question``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def format_validation_error(
    exc: ValidationError,
    *,
    source: str,
    lines: Mapping[YamlPath, int] | None = None,
    overridden: Iterable[tuple[str, ...]] = (),
    model: type[BaseModel] | None = None,
    prefix: YamlPath = (),
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
            line = line_of(path, lines)
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
        messages.append((line, f"{where}: {dotted(path)}: {message}"))
    return "\n".join(text for _, text in sorted(messages, key=lambda m: m[0]))


def _path_in_data(loc: Sequence[str | int], lines: Mapping[YamlPath, int]) -> YamlPath:
    """The error location as a path in the data: drops pydantic's own segments
    (``[key]``, union member names) that are not keys of the YAML."""
    path: YamlPath = ()
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


def line_of(path: YamlPath, lines: Mapping[YamlPath, int]) -> int:
    """The line of ``path``, or of its nearest ancestor that is in the file."""
    for end in range(len(path), -1, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return 1


def _keys_at(model: type[BaseModel], path: YamlPath) -> list[str]:
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
