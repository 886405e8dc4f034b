"""Datasets for experiment runs: local JSONL, CSV and Parquet files, the bundled samples,
and Hugging Face datasets already in the local cache.

Every source becomes a list of :class:`DatasetItem` through one field mapping
(:class:`FieldMap`): which column holds the question, the gold answer, the
choices, the numbers, the task and the id.

File formats:

- **JSONL** (UTF-8): one JSON object per line; blank lines are skipped.
  ``choices`` and ``numbers`` are JSON arrays (a string is read as in CSV).
- **CSV** (UTF-8, header row): ``choices`` is a JSON array (``["red", "blue"]``)
  or the options separated by ``|`` (``red|blue``); ``numbers`` is a JSON array
  or integers separated by spaces, commas or ``|`` (``4 7 8 8``). Empty cells
  count as missing. Every row has as many cells as the header, and a quoted
  cell must be closed: a quote that never closes is reported with its line (the
  rows after it are still read and checked), never read as one long cell.
- **Parquet**: list columns for ``choices`` and ``numbers`` (strings are read as
  in CSV).

Several accepted answers (aliases, as NQ, TriviaQA and HotpotQA give them): an
``answers`` column holding a list (a JSON array; in CSV also ``a|b|c``), or a gold
column (``answer``/``gold``) that holds a list. The item's ``gold`` is then the first
of them and ``answers`` all of them, and grading accepts any one.

Choices list at least two options. A malformed row (invalid UTF-8 or JSON,
a bad value) is an :class:`~answerx.errors.InputError` that lists every bad row
of the file, each as ``file: line N: what is wrong``, so one pass finds them all;
a file that cannot be read at all (not Parquet) is an
:class:`~answerx.errors.UnreadableFile`. The files are read by
:mod:`answerx.recordfiles`, as ``answerx extract --file`` reads them.

Ids: the id column's value when mapped, else the item's 0-based position in the
file, so an id stays stable only while rows are not inserted or removed above
it: give an id column when the data set may change. Duplicate ids are an error
(a resumed run identifies items by id).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from answerx.errors import ConfigError, InputError, UnknownName
from answerx.extraction.models import OPTION_LETTERS, TASKS, Task
from answerx.extraction.spec import AnswerSpec
from answerx.grading.golds import nonfinite_spelling
from answerx.recordfiles.formats import INPUT_FORMATS, SUFFIXES, InputFormatName, format_of
from answerx.recordfiles.jsonl import json_object

__all__ = [
    "DatasetItem",
    "DatasetSpec",
    "FieldMap",
    "list_samples",
    "load_dataset",
    "load_datasets",
    "parse_dataset_ref",
    "sample_path",
]

DatasetFormat = InputFormatName

_SAMPLES_DIR = Path(__file__).resolve().parent / "samples"
# The suffixes of the formats a data set can be read from (not .json: one array).
_SUFFIXES = tuple(suffix for suffix, fmt in SUFFIXES.items() if fmt in INPUT_FORMATS)
# The column each optional field falls back to when the mapping leaves it unset.
_CONVENTIONAL: Mapping[str, tuple[str, ...]] = {
    "gold": ("answer", "gold"),
    "answers": ("answers",),
    "choices": ("choices",),
    "numbers": ("numbers",),
    "task": ("task",),
    "id": ("id",),
}
_NUMBER_SPLIT = re.compile(r"[\s,|]+")


class FieldMap(BaseModel):
    """Which column of a data set holds each part of an item.

    An optional field left unset (None) uses its conventional column when the
    data has one (``answer`` or ``gold``, ``answers``, ``choices``, ``numbers``,
    ``task``, ``id``) and is simply absent otherwise; a field set explicitly must exist.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str = "question"
    gold: str | None = None
    answers: str | None = Field(
        default=None, description="A column holding a list of accepted answers (aliases)."
    )
    choices: str | None = None
    numbers: str | None = None
    task: str | None = None
    id: str | None = None


class DatasetSpec(BaseModel):
    """Where one data set comes from: exactly one of ``path``, ``sample`` or ``hf``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = Field(
        default=None, description="Name in results and reports; default from the source."
    )
    path: Path | None = Field(
        default=None, description="A local .jsonl, .csv or .parquet file (relative to the cwd)."
    )
    sample: str | None = Field(default=None, description="A bundled sample (list_samples()).")
    hf: str | None = Field(
        default=None, description="A Hugging Face dataset name, read from the local cache only."
    )
    hf_config: str | None = Field(default=None, description="The Hugging Face subset/config.")
    split: str | None = Field(default=None, description="Hugging Face split (default: test).")
    format: DatasetFormat | None = Field(
        default=None, description="File format; default from the file's suffix."
    )
    fields: FieldMap = FieldMap()
    task: Task = Field(default="auto", description="Task of items whose row names none.")
    limit: int | None = Field(default=None, ge=1, description="Keep only the first N items.")

    @model_validator(mode="after")
    def _one_source(self) -> DatasetSpec:
        sources = [k for k in ("path", "sample", "hf") if getattr(self, k) is not None]
        if len(sources) != 1:
            raise ValueError(
                "give exactly one of 'path', 'sample' or 'hf'"
                + (f" (got {', '.join(sources)})" if sources else "")
            )
        if self.sample is not None and self.sample not in list_samples():
            raise ValueError(
                f"unknown sample {self.sample!r}; bundled samples: {', '.join(list_samples())}"
            )
        if self.hf is None and (self.split is not None or self.hf_config is not None):
            raise ValueError("'split' and 'hf_config' apply only to 'hf' datasets")
        if self.format is not None and self.path is None:
            raise ValueError("'format' applies only to 'path' datasets")
        if self.path is not None and self.format is None and _suffix_format(self.path) is None:
            raise ValueError(
                f"cannot tell the format of {str(self.path)!r} from its suffix; "
                f"use one of {', '.join(_SUFFIXES)} or set 'format'"
            )
        return self

    @property
    def label(self) -> str:
        """The data set's name in results: ``name``, else the sample, file stem or HF name."""
        if self.name:
            return self.name
        if self.sample is not None:
            return self.sample
        if self.path is not None:
            return self.path.stem
        hf = cast(str, self.hf)
        return f"{hf}:{self.hf_config}" if self.hf_config else hf

    @property
    def file_format(self) -> DatasetFormat | None:
        """The format a ``path`` data set is read as."""
        if self.path is None:
            return None
        return self.format or _suffix_format(self.path)


class DatasetItem(BaseModel):
    """One question of a data set, ready for an approach."""

    model_config = ConfigDict(frozen=True)

    id: str
    question: str
    gold: str | None = Field(
        default=None, description="The gold answer, as text (the first, when there are several)."
    )
    answers: list[str] | None = Field(
        default=None,
        description="Every accepted answer (aliases), when the data gives a list; any one "
        "is right. None: ``gold`` alone.",
    )
    choices: list[str] | None = None
    numbers: list[int] | None = None
    task: Task = "auto"
    dataset: str = ""

    @property
    def uid(self) -> str:
        """``dataset/id``: unique across the datasets of a run (ids are unique per dataset,
        dataset names per run), so it is the ``item_id`` to store."""
        return f"{self.dataset}/{self.id}"

    @property
    def golds(self) -> str | list[str] | None:
        """What grading compares with: every accepted answer, or the one gold answer."""
        return self.answers if self.answers else self.gold

    @property
    def spec(self) -> AnswerSpec:
        """The shape of this item's answer: its task, choices and numbers as one value."""
        return AnswerSpec.for_item(self.task, self.choices, self.numbers)


def _suffix_format(path: Path) -> DatasetFormat | None:
    fmt = format_of(path)
    return cast(DatasetFormat, fmt) if fmt in INPUT_FORMATS else None


def list_samples() -> list[str]:
    """The names of the bundled sample data sets (``arithmetic``, ``game24``, ...)."""
    return sorted(p.stem for p in _SAMPLES_DIR.glob("*.jsonl"))


def sample_path(name: str) -> Path:
    """The file of bundled sample ``name``; an unknown name raises ConfigError listing them."""
    path = _SAMPLES_DIR / f"{name}.jsonl"
    if not path.is_file():
        raise UnknownName("sample", name, list_samples(), listed="bundled samples")
    return path


def parse_dataset_ref(ref: str) -> DatasetSpec:
    """A :class:`DatasetSpec` from a short command-line reference.

    ``hf:NAME[:CONFIG][@SPLIT]`` is a cached Hugging Face dataset
    (``hf:openai/gsm8k:main@test``); a bundled sample's name is that sample
    (unless a file of that name exists); anything else is a file path.
    """
    fields: dict[str, Any]
    if ref.startswith("hf:"):
        rest, _, split = ref[3:].partition("@")
        name, _, subset = rest.partition(":")
        fields = {"hf": name or None, "hf_config": subset or None, "split": split or None}
    elif ref in list_samples() and not Path(ref).exists():
        fields = {"sample": ref}
    else:
        fields = {"path": Path(ref)}
    try:
        return DatasetSpec.model_validate(fields)
    except ValidationError as exc:
        reason = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())
        raise ConfigError(f"dataset {ref!r}: {reason}") from None


def load_dataset(spec: DatasetSpec | str | os.PathLike[str]) -> list[DatasetItem]:
    """Every item of a data set (at most ``spec.limit``), in file order.

    ``spec`` may be a :class:`DatasetSpec`, or a reference as in
    :func:`parse_dataset_ref` (a sample name or a file path). A malformed row
    raises :class:`InputError` naming the file and its line (or row); a missing
    file or a mapped field that the data lacks raises :class:`ConfigError`.
    """
    if not isinstance(spec, DatasetSpec):
        spec = parse_dataset_ref(os.fspath(spec))
    if spec.hf is not None:
        return _build_items(spec, spec.hf, _hf_rows(spec))
    if spec.sample is not None:
        path, fmt = sample_path(spec.sample), "jsonl"
    else:
        path, fmt = cast(Path, spec.path), cast(str, spec.file_format)
    return _build_items(spec, str(path), _file_rows(path, cast(DatasetFormat, fmt)))


def load_datasets(specs: Iterable[DatasetSpec]) -> list[DatasetItem]:
    """The items of several data sets, in order; two data sets with one name raise ConfigError
    (their items' :attr:`DatasetItem.uid` would collide)."""
    items: list[DatasetItem] = []
    names: set[str] = set()
    for spec in specs:
        if spec.label in names:
            raise ConfigError(f"two datasets are named {spec.label!r}; give one a 'name'")
        names.add(spec.label)
        items.extend(load_dataset(spec))
    return items


# A row (or why it could not be read), where it was found ("line 7" in text files,
# "row 7" otherwise) and its line number.
_Row = tuple[Mapping[str, Any] | InputError, str, int | None]
#: How many bad rows one error lists before it only counts the rest.
_MAX_LISTED = 20


def _file_rows(path: Path, fmt: DatasetFormat) -> Iterator[_Row]:
    if not path.is_file():
        raise ConfigError(f"dataset file {str(path)!r} does not exist")
    if fmt == "jsonl":
        return _jsonl_rows(path)
    if fmt == "csv":
        return _csv_rows(path)
    return _parquet_rows(path)


def _jsonl_rows(path: Path) -> Iterator[_Row]:
    # Each line on its own: a line that is not a JSON object is reported with its
    # number, and the lines after it are still read and checked.
    with path.open("rb") as f:
        for number, line in enumerate(f, 1):
            where = f"line {number}"
            if not line.strip():
                continue
            try:
                row = json_object(line, first=number == 1)
            except InputError as exc:
                yield _bad(path, where, str(exc), number), where, number
                continue
            yield row, where, number


def _csv_rows(path: Path) -> Iterator[_Row]:
    # Imported here: pyarrow only for the data sets that need it.
    from answerx.recordfiles.csvfile import CsvReader

    with path.open("rb") as f:
        # numbered: each row's line is known, for the errors _build_items reports later.
        for block in CsvReader(f, where=str(path), numbered=True):
            for bad in block.bad:
                where = f"line {bad.line}"
                yield _bad(path, where, bad.problem, bad.line), where, bad.line
            if block.rows is not None:
                for row, line in zip(block.rows.to_pylist(), block.lines or (), strict=True):
                    yield row, f"line {line}", line


def _parquet_rows(path: Path) -> Iterator[_Row]:
    from answerx.recordfiles.parquetfile import open_parquet, parquet_batches

    with path.open("rb") as f:
        parquet = open_parquet(f, str(path))
        number = 0
        for batch in parquet_batches(parquet, str(path)):
            for row in batch.to_pylist():
                number += 1
                yield row, f"row {number}", None


_OFFLINE = ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE")


@contextmanager
def _hf_offline() -> Iterator[Any]:
    """The ``datasets`` module with every download switched off while the block runs.

    The libraries read the environment variables when first imported, and later
    calls read module constants: both are set, and restored afterwards. (A first
    import made here keeps the offline constants it was imported with.)
    """
    saved_env = {name: os.environ.get(name) for name in _OFFLINE}
    os.environ.update(dict.fromkeys(_OFFLINE, "1"))
    patched: list[tuple[Any, str, Any]] = []
    try:
        try:
            import datasets
        except ImportError:
            raise ConfigError(
                "Hugging Face datasets need the 'hf' extra: pip install 'answerx[hf]'"
            ) from None
        for module_name in ("datasets.config", "huggingface_hub.constants"):
            module = sys.modules.get(module_name)
            for attr in _OFFLINE:
                if module is not None and hasattr(module, attr):
                    patched.append((module, attr, getattr(module, attr)))
                    setattr(module, attr, True)
        yield datasets
    finally:
        for module, attr, value in patched:
            setattr(module, attr, value)
        for name, env_value in saved_env.items():
            if env_value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = env_value


def _hf_rows(spec: DatasetSpec) -> Iterator[_Row]:
    split = spec.split or "test"
    what = f"Hugging Face dataset {spec.label!r} (split {split!r})"
    with _hf_offline() as datasets:
        try:
            data = datasets.load_dataset(
                spec.hf,
                spec.hf_config,
                split=split,
                download_mode="reuse_dataset_if_exists",
            )
        except Exception as exc:  # datasets raises many types (ConnectionError, ValueError, ...)
            raise ConfigError(
                f"{what} is not in the local Hugging Face cache ({type(exc).__name__}: {exc}); "
                "answerx never downloads: load it once with the `datasets` library yourself"
            ) from None
    return ((row, f"row {number}", None) for number, row in enumerate(data, 1))


def _bad(path: Path | str, where: str, message: str, line: int | None = None) -> InputError:
    error = InputError(f"{path}: {where}: {message}")
    error.line = line
    return error


def _all_bad(source: str, bad: list[InputError]) -> InputError:
    """One error for every bad row of a file: each row's own line, then how many in all.
    ``line`` is the first bad row's, as when there is one."""
    if len(bad) == 1:
        return bad[0]
    listed = [str(error) for error in bad[:_MAX_LISTED]]
    if len(bad) > _MAX_LISTED:
        listed.append(f"{source}: … and {len(bad) - _MAX_LISTED} more")
    listed.append(f"{source}: {len(bad)} malformed rows: fix or remove them, then run again")
    return _bad_lines("\n".join(listed), bad[0].line)


def _bad_lines(message: str, line: int | None) -> InputError:
    error = InputError(message)
    error.line = line
    return error


def _build_items(spec: DatasetSpec, source: str, rows: Iterable[_Row]) -> list[DatasetItem]:
    fields = spec.fields
    explicit = {name: getattr(fields, name) for name in _CONVENTIONAL if getattr(fields, name)}
    seen_explicit: set[str] = set()
    items: list[DatasetItem] = []
    bad: list[InputError] = []
    ids: dict[str, str] = {}
    for index, (row, where, line) in enumerate(rows):
        if spec.limit is not None and len(items) + len(bad) >= spec.limit:
            break
        if isinstance(row, InputError):
            bad.append(row)
            continue
        if fields.question not in row:
            raise ConfigError(
                f"{source}: {where}: no {fields.question!r} field for the question "
                f"(row fields: {', '.join(map(str, row)) or 'none'}); "
                "map the right one with fields.question"
            )
        values: dict[str, Any] = {}
        for name in _CONVENTIONAL:
            column = explicit.get(name)
            candidates = (column,) if column else _CONVENTIONAL[name]
            for candidate in candidates:
                # An empty cell (CSV) or null is a missing value, not an empty answer.
                if row.get(candidate) not in (None, ""):
                    values[name] = row[candidate]
                    if column:
                        seen_explicit.add(name)
                    break
        try:
            item = _make_item(spec, row[fields.question], values, index)
        except ValueError as exc:
            bad.append(_bad(source, where, str(exc), line))
            continue
        if item.id in ids:
            bad.append(
                _bad(source, where, f"duplicate id {item.id!r} (first at {ids[item.id]})", line)
            )
            continue
        ids[item.id] = where
        items.append(item)
    if bad:
        raise _all_bad(source, bad)
    never = [f"{explicit[n]!r} (mapped as {n})" for n in explicit if n not in seen_explicit]
    if items and never:
        raise ConfigError(f"{source}: no row has the field {', '.join(never)}")
    return items


def _make_item(
    spec: DatasetSpec, question: Any, values: Mapping[str, Any], index: int
) -> DatasetItem:
    if not isinstance(question, str) or not question.strip():
        raise ValueError("the question must be a non-empty string")
    task = values.get("task", spec.task)
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; valid tasks: {', '.join(TASKS)}")
    answers = _answers(values.get("gold"), values.get("answers"))
    # A list of one accepted answer stays a list: verify(output, ["1945"]) grades it as
    # a short answer, and a run must grade it the same way (issue 38).
    listed = isinstance(values.get("gold"), list) or values.get("answers") is not None
    return DatasetItem(
        id=_text(values["id"], "id") if "id" in values else str(index),
        question=question,
        gold=answers[0] if answers else None,
        answers=answers if len(answers) > 1 or (listed and answers) else None,
        choices=_choices(values["choices"]) if "choices" in values else None,
        numbers=_numbers(values["numbers"]) if "numbers" in values else None,
        task=cast(Task, task),
        dataset=spec.label,
    )


def _text(value: Any, field: str) -> str:
    """A scalar cell as text: ``42`` → ``"42"``, ``2.0`` → ``"2"`` (gold answers and ids)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    spelled = nonfinite_spelling(value)
    if spelled is not None:  # JSON's NaN, a float column's missing value: no answer equals it
        raise ValueError(f"{field} is {spelled}: give text or a finite number (or leave it out)")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str | int | float):
        return str(value).strip()
    raise ValueError(f"{field} must be a string or a number, not {type(value).__name__}")


def _answers(gold: Any, answers: Any) -> list[str]:
    """The accepted answers of a row: its gold answer (one value, or a list), then those
    of its ``answers`` list, in order, repeats and empty ones dropped."""
    found: list[str] = []
    if gold is not None:
        found += _answer_list(gold, "gold") if isinstance(gold, list) else [_text(gold, "gold")]
    if answers is not None:
        if isinstance(answers, str):
            text = answers.strip()
            answers = _json_list(text) if text.startswith("[") else text.split("|")
        elif not isinstance(answers, list):
            answers = [answers]  # one accepted answer given as a bare value
        found += _answer_list(answers, "answers")
    kept = list(dict.fromkeys(a for a in found if a))
    if not kept and found[:1] == [""] and not isinstance(gold, list):
        return [""]  # one blank gold stays blank: a run calls it unreadable, --self-check lists it
    return kept


def _answer_list(values: list[Any], field: str) -> list[str]:
    return [_text(v, f"each of {field}") for v in values if v is not None]


def _choices(value: Any) -> list[str]:
    if isinstance(value, str):
        value = _json_list(value) if value.lstrip().startswith("[") else value.split("|")
    elif isinstance(value, Mapping) and isinstance(value.get("text"), list):
        value = value["text"]  # {"label": ["A", ...], "text": [...]}, as in ARC-style data
    if not isinstance(value, list) or not value:
        raise ValueError("choices must be a non-empty list (JSON array or 'a|b|c')")
    if len(value) < 2:
        raise ValueError(
            f"choices must list at least 2 options, got 1 ({value[0]!r}): "
            "give a JSON array or 'a|b|c'"
        )
    choices = [_text(v, "each choice") for v in value]
    if len(choices) > len(OPTION_LETTERS):
        most = len(OPTION_LETTERS)
        raise ValueError(f"{len(choices)} choices; at most {most} (letters A-{OPTION_LETTERS[-1]})")
    return choices


def _numbers(value: Any) -> list[int]:
    if isinstance(value, str):
        text = value.strip()
        value = _json_list(text) if text.startswith("[") else _NUMBER_SPLIT.split(text)
    if isinstance(value, int | float):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ValueError("numbers must be a non-empty list of integers")
    numbers: list[int] = []
    for v in value:
        number = _integer(v)
        if number is None:
            raise ValueError(f"numbers must be integers, got {v!r}")
        numbers.append(number)
    return numbers


def _integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"[-+]?\d+", value.strip()):
        return int(value)
    return None


def _json_list(text: str) -> list[Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON list {text[:40]!r} ({exc.msg})") from None
    if not isinstance(value, list):
        raise ValueError(f"expected a JSON list, got {text[:40]!r}")
    return value
