"""One result line per question, as DeepResearch writes them: :class:`AgentRecord`.

A DeepResearch result line is ``{"question", "answer", "messages", "prediction",
"termination"}``; its two last fields are strings a whole tool chain reads (here as
termination, then prediction):

- it answered: ``answer``, the answer;
- no answer, calls left: ``answer not found``, ``No answer found.``;
- no answer, calls spent: ``exceed available llm calls``, ``No answer found.``;
- the time limit: ``No answer found after 2h30mins``, the same string;
- the context is full and the forced reply holds both ``<answer>`` and ``</answer>``:
  ``generate an answer as token limit reached``, the text between them;
- … and it holds none (an unclosed block included): ``format error: generate an
  answer as token limit reached``, the whole reply.

answerx writes those two strings exactly so (:func:`deepresearch_fields`; a time limit
other than DeepResearch's 150 minutes is named in the same form), and keeps its own
typed reading beside them: ``extracted_answer`` (``None`` when there is none) and
``stopped_by`` (a :class:`~answerx.agent.Termination`), plus ``usage``, ``calls``,
``latency_s`` and ``final_attempt``. Files written by other tools, or by answerx before
the pair existed, read as well: unknown fields are ignored, missing ones are derived or
take their defaults (usage 0), and a gold answer that is a number or a list is kept as
text. :func:`termination_stats` counts a file (or records) the way DeepResearch's
evaluation does: by termination, with the success count and rate.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from answerx.agent.termination import Termination
from answerx.errors import InputError
from answerx.structured.callinfo import Usage
from answerx.support.nofollow import output_dir

__all__ = [
    "DEEPRESEARCH_TIME_LIMIT_S",
    "NO_ANSWER_FOUND",
    "AgentRecord",
    "TerminationStats",
    "deepresearch_fields",
    "extract_answer_from_response",
    "iter_records",
    "read_records",
    "tally_terminations",
    "termination_stats",
    "timeout_termination",
    "write_records",
]

#: DeepResearch's prediction when the agent gave no answer.
NO_ANSWER_FOUND: Final = "No answer found."
#: DeepResearch's own time limit (150 minutes), named in its termination string.
DEEPRESEARCH_TIME_LIMIT_S: Final = 150 * 60
_TIMEOUT_PREFIX: Final = "No answer found after "
# DeepResearch's tags, tested with `in` and cut with str.split (case-sensitive).
_OPEN: Final = "<answer>"
_CLOSE: Final = "</answer>"


def _slice(reply: str) -> str:
    """DeepResearch's prediction: ``reply.split('<answer>')[1].split('</answer>')[0]``."""
    return reply.split(_OPEN)[1].split(_CLOSE)[0]


def timeout_termination(time_limit_s: float | None = None) -> str:
    """DeepResearch's time-limit string: ``No answer found after 2h30mins`` for its own
    150-minute limit (the default); another limit in the same form (``…after 0h5mins``,
    or ``…after 30s`` below a minute).

    >>> timeout_termination(), timeout_termination(300)
    ('No answer found after 2h30mins', 'No answer found after 0h5mins')
    """
    seconds = DEEPRESEARCH_TIME_LIMIT_S if time_limit_s is None else time_limit_s
    if seconds < 60:
        return f"{_TIMEOUT_PREFIX}{seconds:g}s"
    hours, minutes = divmod(round(seconds / 60), 60)
    return f"{_TIMEOUT_PREFIX}{hours}h{minutes}mins"


def deepresearch_fields(
    stopped_by: Termination,
    answer: str | None,
    *,
    final_reply: str | None = None,
    time_limit_s: float | None = None,
) -> tuple[str, str]:
    """``(prediction, termination)`` as DeepResearch writes them, for an agent that stopped
    for ``stopped_by`` with answerx's ``answer`` (None: none found) read from its last
    reply ``final_reply``.

    DeepResearch's prediction is its slice of the reply, as written (not stripped):
    ``reply.split('<answer>')[1].split('</answer>')[0]`` — what follows the first
    ``<answer>`` up to the next ``</answer>``, or to the end when the block is not
    closed — where answerx's answer is cleaned (``Paris.`` → ``Paris``); an answer
    answerx read elsewhere (``\\boxed{}``, a phrase) is its prediction. After a forced
    answer (the context limit) DeepResearch judges the forced reply itself: both tags
    anywhere in it make an answer (its slice), anything else (an unclosed block
    included) a format error whose prediction is the whole reply. ``time_limit_s`` names
    the limit in the timeout string (DeepResearch's 150 minutes by default).
    """
    reply = final_reply or ""
    if stopped_by in (Termination.TOKEN_LIMIT_ANSWER, Termination.TOKEN_LIMIT_FORMAT_ERROR):
        if _OPEN in reply and _CLOSE in reply:
            return _slice(reply), str(Termination.TOKEN_LIMIT_ANSWER)
        return reply, str(Termination.TOKEN_LIMIT_FORMAT_ERROR)
    if stopped_by is Termination.TIMEOUT:
        text = timeout_termination(time_limit_s)
        return text, text
    if stopped_by is Termination.ANSWER and answer is not None:
        return (_slice(reply) if _OPEN in reply else answer), str(Termination.ANSWER)
    reason = Termination.ANSWER_NOT_FOUND if stopped_by is Termination.ANSWER else stopped_by
    return NO_ANSWER_FOUND, str(reason)


def extract_answer_from_response(response: str) -> tuple[str, str]:
    """DeepResearch's standalone ``extract_answer_from_response``, to the letter: with both
    tags in ``response``, the text after the first ``<answer>`` up to the next
    ``</answer>``, stripped, and ``answer``; else ``No answer found.`` and ``answer not
    found``. answerx's own reading, :func:`answerx.extract`, takes the last complete
    block (models quote drafts) and cleans it.

    >>> extract_answer_from_response("<answer> Paris. </answer>")
    ('Paris.', 'answer')
    """
    if _OPEN in response and _CLOSE in response:
        return _slice(response).strip(), str(Termination.ANSWER)
    return NO_ANSWER_FOUND, str(Termination.ANSWER_NOT_FOUND)


def _typed_reason(termination: str) -> Termination | None:
    """answerx's reason for a termination string (DeepResearch's or answerx's own)."""
    if termination.startswith(_TIMEOUT_PREFIX):
        return Termination.TIMEOUT
    try:
        return Termination(termination)
    except ValueError:
        return None  # another tool's own reason


_ANSWERED = (Termination.ANSWER, Termination.TOKEN_LIMIT_ANSWER)


class AgentRecord(BaseModel):
    """The result of one question answered by an agent loop or an approach: DeepResearch's
    line (``question``, ``answer`` = the gold, ``messages``, ``prediction``,
    ``termination``) and answerx's typed fields beside it."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    question: str
    answer: str | None = Field(default=None, description="The gold answer, when known.")
    messages: list[dict[str, Any]] = Field(default_factory=list)
    prediction: str = Field(
        default=NO_ANSWER_FOUND,
        description="DeepResearch's prediction: the answer, 'No answer found.' (the "
        "time-limit string on a timeout), or the whole forced reply on a format error.",
    )
    termination: str = Field(
        description="DeepResearch's termination string ('answer', 'answer not found', "
        "'exceed available llm calls', 'No answer found after 2h30mins', …), or another "
        "tool's own when read from its file."
    )
    extracted_answer: str | None = Field(
        default=None, description="answerx's answer; None when none was found."
    )
    stopped_by: Termination | None = Field(
        default=None,
        description="answerx's reason (Termination); None for another tool's own reason.",
    )
    usage: Usage = Field(default_factory=Usage, description="Provider tokens over every call.")
    calls: int = Field(default=0, ge=0, description="LLM calls, the final one included.")
    latency_s: float = Field(default=0.0, ge=0.0, description="Wall-clock seconds.")
    final_attempt: bool = Field(
        default=False,
        description="A final-attempt or forced-answer call was made (the prediction is its).",
    )

    @classmethod
    def of(
        cls,
        *,
        question: str,
        stopped_by: Termination,
        extracted_answer: str | None,
        gold: str | None = None,
        messages: list[dict[str, Any]] | None = None,
        final_reply: str | None = None,
        time_limit_s: float | None = None,
        **fields: Any,
    ) -> AgentRecord:
        """A record from answerx's reading; DeepResearch's pair is derived from it
        (:func:`deepresearch_fields`). ``fields``: ``usage``, ``calls``, ``latency_s``,
        ``final_attempt``."""
        prediction, termination = deepresearch_fields(
            stopped_by, extracted_answer, final_reply=final_reply, time_limit_s=time_limit_s
        )
        return cls(
            question=question, answer=gold, messages=messages or [], prediction=prediction,
            termination=termination, extracted_answer=extracted_answer, stopped_by=stopped_by,
            **fields,
        )  # fmt: skip

    @property
    def succeeded(self) -> bool:
        """DeepResearch's success: the termination is ``answer``."""
        return self.termination == Termination.ANSWER

    @model_validator(mode="before")
    @classmethod
    def _typed_fields_of_a_plain_line(cls, data: Any) -> Any:
        # A DeepResearch line has no typed fields, and an answerx line from before the
        # pair existed wrote prediction None and termination "timeout": derive them.
        if not isinstance(data, dict) or not isinstance(data.get("termination"), str):
            return data
        data = dict(data)
        termination = data["termination"]
        if "stopped_by" not in data:
            data["stopped_by"] = _typed_reason(termination)
        stopped = data["stopped_by"]
        prediction = data.get("prediction")
        if "extracted_answer" not in data and prediction is not None and stopped in _ANSWERED:
            data["extracted_answer"] = prediction
        if termination == Termination.TIMEOUT:
            data["termination"] = timeout_termination()
        if prediction is None:
            timed_out = data["termination"].startswith(_TIMEOUT_PREFIX)
            data["prediction"] = data["termination"] if timed_out else NO_ANSWER_FOUND
        return data

    @field_validator("answer", "prediction", "extracted_answer", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        # Other tools' gold answers may be numbers or lists of aliases, and some
        # DeepResearch forks write the prediction as an object.
        if value is None or isinstance(value, str):
            return value
        if isinstance(value, int | float):
            return str(value)
        return json.dumps(value, ensure_ascii=False)


class TerminationStats(BaseModel):
    """Records counted as DeepResearch's evaluation counts them; ``model_dump()`` has its
    keys (``total``, ``successful``, ``by_termination``, ``success_rate``)."""

    model_config = ConfigDict(frozen=True)

    total: int
    successful: int = Field(description="Records whose termination is 'answer'.")
    by_termination: dict[str, int] = Field(description="Count per termination, most first.")
    success_rate: float | None = Field(
        description="successful / total × 100 (a percentage, as DeepResearch prints it); "
        "None without records."
    )


def write_records(path: str | Path, records: Iterable[AgentRecord]) -> int:
    """Append ``records`` to the JSONL file ``path`` (created with its folder if needed);
    returns how many were written."""
    path = Path(path)
    count = 0
    # Never through a symbolic link planted at the file (its folder is as given).
    with (
        output_dir(path.parent, follow=True) as folder,
        folder.open(path.name, "a", encoding="utf-8") as handle,
    ):
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
    """How many records ended for each termination, the most frequent first.

    ``records`` is a JSONL file or the records themselves. Ties keep the order
    in which the reasons first occur.

    >>> tally_terminations([AgentRecord(question="q", termination="answer")])
    {'answer': 1}
    """
    if isinstance(records, str | Path):
        records = iter_records(records)
    counts = Counter(record.termination for record in records)
    return dict(counts.most_common())


def termination_stats(records: str | Path | Iterable[AgentRecord]) -> TerminationStats:
    """The termination tally with the success count and rate (DeepResearch's evaluation).

    >>> stats = termination_stats([AgentRecord(question="q", termination="answer"),
    ...                            AgentRecord(question="q", termination="answer not found")])
    >>> stats.successful, stats.success_rate
    (1, 50.0)
    """
    tally = tally_terminations(records)
    total = sum(tally.values())
    successful = tally.get(str(Termination.ANSWER), 0)
    return TerminationStats(
        total=total, successful=successful, by_termination=tally,
        success_rate=successful / total * 100 if total else None,
    )  # fmt: skip
