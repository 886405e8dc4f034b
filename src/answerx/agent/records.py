"""One result line per question, as DeepResearch-style agents write them: :class:`AgentRecord`.

A DeepResearch result line is ``{"question", "answer", "messages", "prediction",
"termination"}``; answerx adds ``usage``, ``calls``, ``latency_s`` and
``final_attempt``. Files written by other tools read as well: unknown fields are
ignored, missing ones take their defaults (usage 0), and a gold answer that is a
number or a list is kept as text. :func:`tally_terminations` counts a file (or
records) by termination reason.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from answerx.errors import InputError
from answerx.structured.callinfo import Usage

if TYPE_CHECKING:
    from rich.table import Table

__all__ = [
    "AgentRecord",
    "iter_records",
    "read_records",
    "tally_terminations",
    "termination_table",
    "write_records",
]


class AgentRecord(BaseModel):
    """The result of one question answered by an agent loop or multi-call approach."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    question: str
    answer: str | None = Field(default=None, description="The gold answer, when known.")
    messages: list[dict[str, Any]] = Field(default_factory=list)
    prediction: str | None = Field(default=None, description="None when no answer was found.")
    termination: str = Field(description="A reason from answerx.agent.Termination (or another "
                             "tool's own, when read from its file).")  # fmt: skip
    usage: Usage = Field(default_factory=Usage, description="Provider tokens over every call.")
    calls: int = Field(default=0, ge=0, description="LLM calls, the final one included.")
    latency_s: float = Field(default=0.0, ge=0.0, description="Wall-clock seconds.")
    final_attempt: bool = Field(
        default=False,
        description="A final-attempt or forced-answer call was made (the prediction is its).",
    )

    @field_validator("answer", "prediction", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        # Other tools' gold answers may be numbers or lists of aliases.
        if value is None or isinstance(value, str):
            return value
        if isinstance(value, int | float):
            return str(value)
        return json.dumps(value, ensure_ascii=False)


def write_records(path: str | Path, records: Iterable[AgentRecord]) -> int:
    """Append ``records`` to the JSONL file ``path`` (created with its folder if needed);
    returns how many were written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("a", encoding="utf-8") as handle:
        for record in records:
            handle.write(record.model_dump_json() + "\n")
            count += 1
    return count


def iter_records(path: str | Path) -> Iterator[AgentRecord]:
    """The records of a JSONL file, one by one; blank lines are skipped.

    Raises :class:`InputError` naming the line of the first line that is not a
    JSON object with at least ``question`` and ``termination``.
    """
    path = Path(path)
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path.name}: not JSON ({exc.msg})", line=number) from None
            if not isinstance(data, dict):
                kind = type(data).__name__
                raise InputError(f"{path.name}: expected a JSON object, not {kind}", line=number)
            try:
                yield AgentRecord.model_validate(data)
            except ValidationError as exc:
                problems = "; ".join(
                    f"{'.'.join(map(str, e['loc'])) or 'record'}: {e['msg']}" for e in exc.errors()
                )
                raise InputError(f"{path.name}: {problems}", line=number) from None


def read_records(path: str | Path) -> list[AgentRecord]:
    """Every record of a JSONL file (see :func:`iter_records`)."""
    return list(iter_records(path))


def tally_terminations(records: str | Path | Iterable[AgentRecord]) -> dict[str, int]:
    """How many records ended for each termination reason, the most frequent first.

    ``records`` is a JSONL file or the records themselves. Ties keep the order
    in which the reasons first occur.

    >>> tally_terminations([AgentRecord(question="q", termination="answer")])
    {'answer': 1}
    """
    if isinstance(records, str | Path):
        records = iter_records(records)
    counts = Counter(record.termination for record in records)
    return dict(counts.most_common())


def termination_table(tally: dict[str, int], *, title: str | None = None) -> Table:
    """A :class:`rich.table.Table` of a tally: reason, count and share (for the CLI)."""
    from rich.table import Table  # rich is only needed when a table is drawn

    table = Table(title=title)
    table.add_column("termination")
    table.add_column("count", justify="right")
    table.add_column("share", justify="right")
    total = sum(tally.values())
    for reason, count in tally.items():
        table.add_row(reason, str(count), f"{count / total:.1%}" if total else "-")
    table.add_section()
    table.add_row("total", str(total), "100.0%" if total else "-")
    return table
