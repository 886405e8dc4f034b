"""Extraction and verification over Arrow tables: one call per batch, flat result columns.

:func:`extract_arrays` and :func:`verify_arrays` (behind the public
:func:`~answerx.batch.table_calls.extract_table` and
:func:`~answerx.batch.table_calls.verify_table`, and the file mode's jobs) take a
``pyarrow.Table`` and return it with flat columns added, so that any engine that speaks
Arrow (Hugging Face ``datasets``, polars, DuckDB, Ray Data, the ``--file`` mode) runs the
same code row for row.

A null output gives a null result. A row that cannot be read (an output that
is not a string, an unknown task, choices that are not a list of strings)
gives a null result and its reason in the ``error`` column: one bad row never
raises, so a ten-million-row job never dies on row 7,341,022.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import pyarrow as pa
import pyarrow.compute as pc

from answerx.errors import AnswerxError, ConfigError, InputError
from answerx.extraction import TASKS, Extraction, extract
from answerx.extraction.tasks import check_task

if TYPE_CHECKING:
    from answerx.grading import Verdict
    from answerx.grading.judgement import Judge

__all__ = [
    "ERROR_COLUMN",
    "EXTRACT_COLUMNS",
    "JUDGE_COLUMNS",
    "VERIFY_COLUMNS",
    "RowError",
    "add_columns",
    "added_columns",
    "as_table",
    "extract_arrays",
    "gold_value",
    "missing_column",
    "result_struct",
    "result_type",
    "verify_arrays",
]

EXTRACT_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("answer", pa.string()),
    ("method", pa.string()),
    ("confidence", pa.float64()),
    ("valid", pa.bool_()),
    ("unfinished", pa.bool_()),
    ("span_start", pa.int64()),
    ("span_end", pa.int64()),
)
"""The columns :func:`extract_table` adds (before ``prefix``), with their Arrow types."""

VERIFY_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("correct", pa.bool_()),
    ("reason", pa.string()),
    ("how", pa.string()),
    ("matched_gold", pa.string()),
    ("doubt", pa.string()),
    ("em", pa.float64()),
    ("f1", pa.float64()),
    ("cover", pa.float64()),
    *EXTRACT_COLUMNS,
)
"""The columns :func:`verify_table` adds (before ``prefix``), with their Arrow types:
the verdict (``matched_gold``: the accepted answer matched; ``doubt``: why the rules were
unsure, the items a judge is asked about), the short-answer measures (``em``, ``f1``,
``cover``; null for other tasks), then the extraction's."""

JUDGE_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("judge_verdict", pa.string()),
    ("judge_reason", pa.string()),
)
"""The columns a run with a judge adds after :data:`VERIFY_COLUMNS`: the judge's verdict
(``correct``, ``incorrect``, ``no_answer``; null when it was not asked or did not rule)
and its reason (or why it did not rule)."""


def added_columns(mode: str, judging: bool = False) -> tuple[tuple[str, pa.DataType], ...]:
    """The columns a run of ``mode`` (``extract``, ``verify``) adds, with a judge or not."""
    if mode != "verify":
        return EXTRACT_COLUMNS
    return (*VERIFY_COLUMNS, *JUDGE_COLUMNS) if judging else VERIFY_COLUMNS


ERROR_COLUMN = "error"
"""Name (before ``prefix``) of the column that says why a row has no result; null when fine."""

_T = TypeVar("_T")

TableLike: TypeAlias = Any
"""A pyarrow Table or RecordBatch, a pandas or polars DataFrame, a dict of columns."""


@dataclass(frozen=True, slots=True)
class RowError:
    """A row that gave no result: its 0-based index in the table, and why."""

    index: int
    reason: str


# --------------------------------------------------------------------------- public API
def as_table(data: TableLike) -> pa.Table:
    """``data`` as a ``pyarrow.Table`` (zero-copy where Arrow allows it).

    Raises :class:`~answerx.errors.InputError` for something Arrow cannot read as a table.
    """
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    module = type(data).__module__
    if module.startswith("pandas"):
        return pa.Table.from_pandas(data, preserve_index=False)
    if module.startswith("polars"):
        return data.to_arrow()
    try:
        return pa.table(data)
    except (TypeError, ValueError, pa.ArrowException) as exc:
        raise InputError(f"not a table Arrow can read ({type(data).__name__}): {exc}") from None


def extract_arrays(
    data: pa.Table,
    options: RowOptions,
    tasks: list[str | None] | None = None,
    *,
    extractions: list[Extraction | None] | None = None,
) -> list[pa.Array]:
    """The extraction columns for ``data``'s rows (the row options already checked), in
    :func:`added_columns` order, ``error`` last; :func:`add_columns` adds them. ``tasks``,
    when given, receives the task each row's extraction used (None: no result),
    ``extractions`` each row's extraction."""
    results: list[Extraction | None] = []
    errors: list[str | None] = []
    for row in options.rows(data):
        if isinstance(row, RowError):
            results.append(None)
            errors.append(row.reason)
        elif row is None:
            results.append(None)
            errors.append(None)
        else:
            result, error = _guarded(partial(_extract_row, row))
            results.append(result)
            errors.append(error)
    if tasks is not None:
        tasks.extend(e.task if e is not None else None for e in results)
    if extractions is not None:
        extractions.extend(results)
    return [*_extraction_arrays(results), _errors(errors)]


def verify_arrays(
    data: pa.Table,
    options: RowOptions,
    gold: str,
    tasks: list[str | None] | None = None,
    *,
    verdicts: list[Verdict | None] | None = None,
    judging: bool = False,
    judge: Judge | None = None,
    judge_concurrency: int = 4,
    pending: list[int] | None = None,
) -> list[pa.Array]:
    """The verdict columns for ``data``'s rows (the row options already checked), in
    :func:`added_columns` order, ``error`` last; :func:`add_columns` adds them. ``tasks``
    as in :func:`extract_arrays`; ``verdicts``, when given, receives each row's verdict
    (None: no result). ``judging`` adds the judge's columns, filled only where ``judge``
    is given (a file run asks its judge later, in the calling process). ``pending``, when
    given, receives the rows whose math-verify comparison was deferred
    (:func:`answerx.grading.pool.defer_while_warming`): they have no result yet."""
    # The grading layer sits above extraction: imported only when verifying.
    from answerx.grading import verify
    from answerx.grading.pool import GradingPending

    if gold not in data.column_names:
        raise ConfigError(missing_column(gold, data))
    golds = data.column(gold).to_pylist()
    found: list[Any] = []
    errors: list[str | None] = []
    for row, gold_value_ in zip(options.rows(data), golds, strict=True):
        if isinstance(row, RowError):
            found.append(None)
            errors.append(row.reason)
        elif row is None or gold_value_ is None:
            found.append(None)
            errors.append(None)
        else:
            call = partial(_verify_row, verify, row, gold_value(gold_value_))
            try:
                verdict, error = _guarded(call, GradingPending)
            except GradingPending:
                if pending is None:
                    raise
                pending.append(len(found))
                verdict, error = None, None
            found.append(verdict)
            errors.append(error)
    if judge is not None:
        _judge_found(found, golds, options.rows(data), judge, judge_concurrency)
    if tasks is not None:
        tasks.extend(v.extraction.task if v and v.extraction else None for v in found)
    if verdicts is not None:
        verdicts.extend(found)
    return verdict_arrays(found, errors, judging)


def _judge_found(
    found: list[Any],
    golds: list[Any],
    rows: list[_Row | RowError | None],
    judge: Judge,
    concurrency: int,
) -> None:
    """The verdicts in ``found`` the rules were unsure of, replaced by the judge's."""
    from answerx.batch.residue import Residue, judge_residue

    items = []
    for i, verdict in enumerate(found):
        row = rows[i]
        if verdict is not None and verdict.doubt is not None and isinstance(row, tuple):
            items.append(
                Residue(i, verdict=verdict, gold=gold_value(golds[i]), question=row[5],
                        choices=row[2], numbers=row[3])
            )  # fmt: skip
    ruled = judge_residue(items, judge, concurrency) or []
    for item, verdict in zip(items, ruled, strict=True):
        found[item.index] = verdict


def verdict_arrays(
    verdicts: Sequence[Verdict | None], errors: list[str | None], judging: bool = False
) -> list[pa.Array]:
    """The added columns of a verify run, in :func:`added_columns` order, ``error`` last."""
    values = [verdict_values(v, judging) for v in verdicts]
    columns = added_columns("verify", judging)
    arrays = [
        pa.array([row[name] if row else None for row in values], type_) for name, type_ in columns
    ]
    return [*arrays, _errors(errors)]


def verdict_values(verdict: Verdict | None, judging: bool = False) -> dict[str, Any] | None:
    """One verdict as the values of the added columns (None for no verdict)."""
    if verdict is None:
        return None
    scores = verdict.scores
    ruling = verdict.judge
    values: dict[str, Any] = {
        "correct": verdict.correct,
        "reason": verdict.reason,
        "how": verdict.how,
        "matched_gold": verdict.matched_gold,
        "doubt": verdict.doubt,
        "em": scores.em if scores is not None else None,
        "f1": scores.f1 if scores is not None else None,
        "cover": scores.cover if scores is not None else None,
        **extraction_values(verdict.extraction, verdict.answer),
    }
    if judging:
        values["judge_verdict"] = ruling.verdict if ruling is not None else None
        values["judge_reason"] = ruling.reason if ruling is not None else None
    return values


def extraction_values(e: Extraction | None, answer: str | None = None) -> dict[str, Any]:
    """The extraction columns' values of ``e`` (all null but ``answer`` when there is none)."""
    if e is None:
        return {name: answer if name == "answer" else None for name, _ in EXTRACT_COLUMNS}
    span = e.span
    return {
        "answer": e.answer,
        "method": e.method,
        "confidence": e.confidence,
        "valid": e.valid,
        "unfinished": e.unfinished,
        "span_start": span[0] if span else None,
        "span_end": span[1] if span else None,
    }


def gold_value(value: Any) -> Any:
    """A gold cell as grading takes it: a list of accepted answers stays a list, and so does
    JSON text of one with at least one quoted answer (``'["Paris", "City of Light"]'``, as
    CSV holds a list); other text (``[0, 1]``: an interval) is one answer.

    >>> gold_value('["Paris", "City of Light"]'), gold_value("[0, 1]")
    (['Paris', 'City of Light'], '[0, 1]')
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not (text.startswith("[") and text.endswith("]") and '"' in text):
        return value
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return value
    if (
        isinstance(parsed, list)
        and any(isinstance(v, str) for v in parsed)
        and all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in parsed)
    ):
        return parsed
    return value


def result_struct(table: pa.Table, *, verify: bool = False, prefix: str = "") -> pa.StructArray:
    """The result columns of an :func:`extract_table` (or :func:`verify_table`) output as one
        struct array, null where the row had no result: what a UDF returns as one value.

        >>> import pyarrow as pa
    import pyarrow.compute as pc
        >>> result_struct(extract_table(pa.table({"raw_output": ["#### 4"]})))[0]["answer"]
        <pyarrow.StringScalar: '4'>
    """
    names = [name for name, _ in (VERIFY_COLUMNS if verify else EXTRACT_COLUMNS)]
    names.append(ERROR_COLUMN)
    arrays = [table.column(prefix + name).combine_chunks() for name in names]
    method = table.column(prefix + "method").combine_chunks()
    error = table.column(prefix + ERROR_COLUMN).combine_chunks()
    # A row without a result (null output, or an error) is a null struct, as SQL expects;
    # the error text stays readable through the error field of non-null rows only.
    missing = pc.and_(pc.is_null(method), pc.is_null(error))
    return pa.StructArray.from_arrays(arrays, names=names, mask=missing)


def result_type(*, verify: bool = False) -> pa.StructType:
    """The Arrow type of :func:`result_struct`."""
    columns = (*(VERIFY_COLUMNS if verify else EXTRACT_COLUMNS), (ERROR_COLUMN, pa.string()))
    return pa.struct([pa.field(name, type_) for name, type_ in columns])


# --------------------------------------------------------------------------- rows
_Row = tuple[str, str, list[str] | None, list[int | float] | None, str | None, str | None]
"""(output, task, choices, numbers, finish_reason, question) of one row, checked."""


@dataclass(frozen=True, slots=True)
class RowOptions:
    """Where each row's output, task, choices and numbers come from."""

    column: str
    default_task: str
    task_column: str | None
    choices_column: str | None
    numbers_column: str | None
    finish_column: str | None = None
    question_column: str | None = None

    @classmethod
    def of(
        cls,
        data: pa.Table,
        column: str,
        task: str,
        choices: str | None,
        numbers: str | None,
        finish_reason: str | None = None,
        *,
        question: str | None = None,
        optional_columns: bool = False,
    ) -> RowOptions:
        """Check the call against ``data``'s columns.

        With ``optional_columns`` (the file mode), ``task`` is the default task
        and task/choices/numbers/question columns are used when present; otherwise
        ``task`` is a task name or a column name and named columns must exist.
        """
        names = data.column_names
        if column not in names:
            raise ConfigError(missing_column(column, data))
        if optional_columns:
            check_task(task)
            return cls(
                column,
                task,
                "task" if "task" in names else None,
                choices if choices in names else None,
                numbers if numbers in names else None,
                "finish_reason" if "finish_reason" in names else None,
                question if question in names else None,
            )
        for name in (choices, numbers, finish_reason, question):
            if name is not None and name not in names:
                raise ConfigError(missing_column(name, data))
        if task in TASKS:
            return cls(column, task, None, choices, numbers, finish_reason, question)
        if task in names:
            return cls(column, "auto", task, choices, numbers, finish_reason, question)
        raise ConfigError(
            f"task {task!r} is neither a task ({', '.join(TASKS)}) nor a column "
            f"(columns: {', '.join(names)})"
        )

    @property
    def columns(self) -> list[str]:
        """The input columns the rows are read from."""
        named = (self.column, self.task_column, self.choices_column, self.numbers_column,
                 self.finish_column, self.question_column)  # fmt: skip
        return list(dict.fromkeys(name for name in named if name is not None))

    def rows(self, data: pa.Table) -> list[_Row | RowError | None]:
        """Each row's checked options; None for a null output; a RowError for a bad row."""
        outputs = data.column(self.column).to_pylist()
        n = len(outputs)
        tasks = self._values(data, self.task_column, n)
        choices = self._values(data, self.choices_column, n)
        numbers = self._values(data, self.numbers_column, n)
        finishes = self._values(data, self.finish_column, n)
        questions = self._values(data, self.question_column, n)
        rows: list[_Row | RowError | None] = []
        for i, output in enumerate(outputs):
            if output is None:
                rows.append(None)
                continue
            try:
                rows.append(
                    self._row(output, tasks[i], choices[i], numbers[i], finishes[i], questions[i])
                )
            except AnswerxError as exc:
                rows.append(RowError(i, str(exc)))
        return rows

    def _row(
        self,
        output: object,
        task: object,
        choices: object,
        numbers: object,
        finish: object,
        question: object = None,
    ) -> _Row:
        if not isinstance(output, str):
            raise InputError(f"{self.column!r} is {type(output).__name__}, not a string")
        if task is None or task == "":  # CSV has no null: an empty cell is no value
            task = self.default_task
        elif not isinstance(task, str):
            raise InputError(f"{self.task_column!r} is {type(task).__name__}, not a string")
        else:
            check_task(task)  # the ConfigError names the valid tasks: the row's reason
        if finish is not None and not isinstance(finish, str):
            raise InputError(f"{self.finish_column!r} is {type(finish).__name__}, not a string")
        if question is not None and not isinstance(question, str):
            raise InputError(f"{self.question_column!r} is {type(question).__name__}, not a string")
        return (
            output,
            task,
            _list_value(choices, self.choices_column, (str,), "strings"),
            _list_value(numbers, self.numbers_column, (int, float), "numbers"),
            finish or None,
            question or None,
        )

    @staticmethod
    def _values(data: pa.Table, name: str | None, n: int) -> list[Any]:
        return data.column(name).to_pylist() if name is not None else [None] * n


def _list_value(
    value: object, name: str | None, types: tuple[type, ...], what: str
) -> list[Any] | None:
    if value is None or value == "":  # CSV has no null: an empty cell is no value
        return None
    if isinstance(value, str):
        text = value
        # CSV holds lists as JSON text: '["Paris", "Rome"]'.
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            raise InputError(f"{name!r} must be a list of {what}, not {text[:40]!r}") from None
    # bool is an int subclass, but `true` is not a number a Game of 24 can use.
    if not isinstance(value, list) or not all(
        isinstance(v, types) and not isinstance(v, bool) for v in value
    ):
        raise InputError(f"{name!r} must be a list of {what}")
    return value or None


def _extract_row(row: _Row) -> Extraction:
    return extract(row[0], row[1], choices=row[2], numbers=row[3], finish_reason=row[4])


def _verify_row(verify: Callable[..., Any], row: _Row, gold: object) -> Any:
    return verify(
        row[0], gold, row[1], choices=row[2], numbers=row[3], finish_reason=row[4],
        question=row[5],
    )  # fmt: skip


def _guarded(
    call: Callable[[], _T], passed: type[Exception] | None = None
) -> tuple[_T | None, str | None]:
    """``call()``'s result, or None and the reason it failed (``passed``: raised as it is).

    Any exception is a row's failure, not the run's: a bug that one odd output
    triggers must cost that row, not the other ten million.
    """
    try:
        return call(), None
    except AnswerxError as exc:
        return None, str(exc)
    except Exception as exc:
        if passed is not None and isinstance(exc, passed):
            raise
        return None, f"internal error: {type(exc).__name__}: {exc}"


# --------------------------------------------------------------------------- columns
def _extraction_arrays(results: Sequence[Extraction | None]) -> list[pa.Array]:
    spans = [e.span if e is not None else None for e in results]
    return [
        pa.array([e.answer if e else None for e in results], pa.string()),
        pa.array([e.method if e else None for e in results], pa.string()),
        pa.array([e.confidence if e else None for e in results], pa.float64()),
        pa.array([_valid(e) for e in results], pa.bool_()),
        pa.array([_unfinished(e) for e in results], pa.bool_()),
        pa.array([s[0] if s else None for s in spans], pa.int64()),
        pa.array([s[1] if s else None for s in spans], pa.int64()),
    ]


def _valid(e: Extraction | None) -> bool | None:
    return e.valid if e is not None else None


def _unfinished(e: Extraction | None) -> bool | None:
    return e.unfinished if e is not None else None


def _errors(errors: list[str | None]) -> pa.Array:
    return pa.array(errors, pa.string())


def add_columns(data: pa.Table, arrays: list[pa.Array], prefix: str, *, verify: bool) -> pa.Table:
    """``data`` with a run's added ``arrays`` (in :func:`added_columns` order, ``error`` last)
    as columns named ``prefix + name``, replacing input columns of those names."""
    judging = verify and len(arrays) == len(VERIFY_COLUMNS) + len(JUDGE_COLUMNS) + 1
    names = [name for name, _ in added_columns("verify" if verify else "extract", judging)]
    names.append(ERROR_COLUMN)
    for name, array in zip(names, arrays, strict=True):
        key = prefix + name
        field = pa.field(key, array.type)
        if key in data.column_names:
            data = data.set_column(data.column_names.index(key), field, array)
        else:
            data = data.append_column(field, array)
    return data


def missing_column(name: str, data: pa.Table) -> str:
    """The message for a column ``data`` lacks, naming the ones it has."""
    return f"no column {name!r} (columns: {', '.join(data.column_names) or 'none'})"
