"""The last call when a budget runs out: a final attempt, or a forced answer.

Two prompts, both sent at temperature 0 as a user message after the
conversation so far (the conversation itself is never modified):

- :func:`final_attempt` — the call or step limit (or the clock) is reached:
  ``prompts/final_attempt.txt`` ("Return your best final answer now."), and the
  reply is read with the deterministic extractor (:func:`answerx.extract`, every
  rule). Found → ``answer``; not found → the limit's own reason, no prediction.
- :func:`force_answer` — the context limit is reached: ``prompts/force_answer.txt``
  (DeepResearch's wording). An ``<answer>`` block in the reply →
  ``generate an answer as token limit reached`` with the block's cleaned
  content; none → ``format error: generate an answer as token limit reached``
  with the whole reply as the prediction (as DeepResearch records it).

:func:`raise_if_unanswered` turns a :class:`FinalAnswer` without a prediction
into :class:`StepLimitReached`. A provider error in the last call is not raised:
it gives a :class:`FinalAnswer` without prediction (``error`` set, ``info`` the
failed call's ``call_info``: the tokens it used still count), so a run records
why it stopped rather than losing the item.

The manager may be any object with ``complete_text`` (``acomplete_text`` for the
async variants) returning ``(text, CallInfo)``, such as
:class:`answerx.structured.InstructorClientManager`; ``kw`` goes to the provider
(``max_tokens``, …), except ``temperature``, which is always 0 (the manager
itself leaves it out where a provider's SDK takes none). Two user messages
in a row (a tool result, then the final prompt) are accepted by every provider
API answerx has an adapter for (some join consecutive turns of one role).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from answerx.agent.termination import StepLimitReached, Termination
from answerx.errors import ConfigError, ProviderError
from answerx.extraction import AnswerSpec, Extraction, extract
from answerx.structured.callinfo import CallInfo
from answerx.structured.sansio import Steps, arun, run
from answerx.support.resources import prompt_template

__all__ = [
    "AsyncTextManager",
    "FinalAnswer",
    "TextManager",
    "afinal_attempt",
    "aforce_answer",
    "final_attempt",
    "force_answer",
    "raise_if_unanswered",
]

log = logging.getLogger("answerx.agent")

Messages = Sequence[dict[str, Any]]

#: The reasons a final attempt may be made for (and keeps when it finds nothing).
FINAL_ATTEMPT_REASONS = frozenset(
    {Termination.EXCEED_CALLS, Termination.TIMEOUT, Termination.ANSWER_NOT_FOUND}
)


class TextManager(Protocol):
    """What the final-attempt functions need of a manager (sync)."""

    def complete_text(self, messages: Messages, **kw: Any) -> tuple[str, CallInfo]: ...


class AsyncTextManager(Protocol):
    """What the final-attempt functions need of a manager (async)."""

    async def acomplete_text(self, messages: Messages, **kw: Any) -> tuple[str, CallInfo]: ...


class FinalAnswer(BaseModel):
    """The outcome of a final attempt or a forced answer."""

    model_config = ConfigDict(frozen=True)

    prediction: str | None = Field(description="The answer; None when nothing was found.")
    text: str = Field(description="The model's whole reply to the final prompt ('' if none).")
    extraction: Extraction = Field(description="answerx.extract() of that reply.")
    termination: Termination
    info: CallInfo | None = Field(
        description="The final call's CallInfo; when it failed, what it used (None if unknown)."
    )
    prompt: str = Field(default="", description="The final prompt as sent (the last message).")
    error: str | None = Field(default=None, description="The provider error, when the call failed.")
    made: bool = Field(
        default=True,
        description="False: no call was made (the budget's final_attempt is off); the "
        "termination is the limit's own.",
    )

    @classmethod
    def skipped(cls, reason: Termination, spec: AnswerSpec) -> FinalAnswer:
        """No final attempt (``Budget(final_attempt=False)``): no answer, for ``reason``."""
        return cls(
            prediction=None, text="", extraction=_extract("", spec), termination=reason,
            info=None, made=False,
        )  # fmt: skip

    def messages(self, conversation: Messages) -> list[dict[str, Any]]:
        """``conversation`` followed by the final prompt and, if the call succeeded, the reply:
        the transcript a result record keeps."""
        if not self.made:
            return list(conversation)
        turns = [*conversation, {"role": "user", "content": self.prompt}]
        if self.error is None:
            turns.append({"role": "assistant", "content": self.text})
        return turns


def final_attempt(
    manager: TextManager,
    messages: Messages,
    *,
    task: str = "auto",
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    spec: AnswerSpec | None = None,
    reason: Termination = Termination.EXCEED_CALLS,
    prompt_dir: str | Path | None = None,
    answer_field: str | None = None,
    **kw: Any,
) -> FinalAnswer:
    """Ask for the best final answer now (temperature 0) and read it deterministically.

    ``reason`` is why the loop stopped (``exceed available llm calls``,
    ``timeout`` or ``answer not found``); it becomes the termination when the
    reply holds no answer. The call is one beyond the budget: that is the point.
    The item's answer shape is ``spec`` (an :class:`~answerx.extraction.AnswerSpec`) or,
    for convenience, ``task``/``choices``/``numbers``.

    ``answer_field="answer"`` reads the reply as tinyAgent's ReactAgent does: a JSON
    object with that key answers with its value as given, ``""`` and ``null`` included
    (answerx's extraction would find no answer in them); any other reply is read as usual.
    """
    last = _LastCall.final_attempt(
        messages, reason, prompt_dir, AnswerSpec.given(spec, task, choices, numbers), answer_field
    )
    return run(last.asked(lambda: manager.complete_text(last.request, **_at_temperature_zero(kw))))


async def afinal_attempt(
    manager: AsyncTextManager,
    messages: Messages,
    *,
    task: str = "auto",
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    spec: AnswerSpec | None = None,
    reason: Termination = Termination.EXCEED_CALLS,
    prompt_dir: str | Path | None = None,
    answer_field: str | None = None,
    **kw: Any,
) -> FinalAnswer:
    """Async :func:`final_attempt`."""
    last = _LastCall.final_attempt(
        messages, reason, prompt_dir, AnswerSpec.given(spec, task, choices, numbers), answer_field
    )
    options = _at_temperature_zero(kw)
    return await arun(last.asked(lambda: manager.acomplete_text(last.request, **options)))


def force_answer(
    manager: TextManager,
    messages: Messages,
    *,
    task: str = "auto",
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    spec: AnswerSpec | None = None,
    prompt_dir: str | Path | None = None,
    **kw: Any,
) -> FinalAnswer:
    """The context limit is reached: ask for the most likely answer in an ``<answer>`` block."""
    last = _LastCall.force_answer(
        messages, prompt_dir, AnswerSpec.given(spec, task, choices, numbers)
    )
    return run(last.asked(lambda: manager.complete_text(last.request, **_at_temperature_zero(kw))))


async def aforce_answer(
    manager: AsyncTextManager,
    messages: Messages,
    *,
    task: str = "auto",
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    spec: AnswerSpec | None = None,
    prompt_dir: str | Path | None = None,
    **kw: Any,
) -> FinalAnswer:
    """Async :func:`force_answer`."""
    last = _LastCall.force_answer(
        messages, prompt_dir, AnswerSpec.given(spec, task, choices, numbers)
    )
    options = _at_temperature_zero(kw)
    return await arun(last.asked(lambda: manager.acomplete_text(last.request, **options)))


def raise_if_unanswered(final: FinalAnswer) -> FinalAnswer:
    """``final`` when it answered; else :class:`StepLimitReached` with its termination.

    The message is tinyAgent's, ``Exceeded max steps without an answer.``, with the
    reason after it when the limit was not the calls' (a timeout, a step that stopped)
    or the final call failed."""
    if final.prediction is not None or final.termination is Termination.ANSWER:
        return final
    notes = [] if final.termination is Termination.EXCEED_CALLS else [str(final.termination)]
    if final.error:
        notes.append(f"the final call failed: {final.error}")
    detail = f" ({'; '.join(notes)})" if notes else ""
    raise StepLimitReached(
        f"Exceeded max steps without an answer.{detail}", termination=final.termination
    )


# --------------------------------------------------------------------------- helpers
def _extract(text: str, spec: AnswerSpec) -> Extraction:
    return extract(text, spec.task, choices=spec.choices, numbers=spec.numbers)


def _at_temperature_zero(kw: dict[str, Any]) -> dict[str, Any]:
    """``kw`` at temperature 0: the last word should not depend on sampling luck."""
    return {**kw, "temperature": 0}


@dataclass(frozen=True, slots=True)
class _LastCall:
    """One final attempt or forced answer: the request to send, and how to read its reply.

    ``reason`` is the termination when the reply gives no answer (or the call fails).
    """

    forced: bool
    prompt: str
    request: list[dict[str, Any]]
    reason: Termination
    spec: AnswerSpec
    answer_field: str | None = None

    @classmethod
    def final_attempt(
        cls,
        messages: Messages,
        reason: Termination,
        prompt_dir: str | Path | None,
        spec: AnswerSpec,
        answer_field: str | None = None,
    ) -> _LastCall:
        if reason not in FINAL_ATTEMPT_REASONS:
            valid = ", ".join(repr(str(r)) for r in sorted(FINAL_ATTEMPT_REASONS))
            raise ConfigError(f"a final attempt is made for {valid}, not {str(reason)!r}")
        prompt, request = _request("final_attempt", messages, prompt_dir)
        return cls(False, prompt, request, reason, spec, answer_field)

    @classmethod
    def force_answer(
        cls,
        messages: Messages,
        prompt_dir: str | Path | None,
        spec: AnswerSpec,
    ) -> _LastCall:
        prompt, request = _request("force_answer", messages, prompt_dir)
        reason = Termination.TOKEN_LIMIT_FORMAT_ERROR
        return cls(True, prompt, request, reason, spec)

    def asked(self, call: Callable[[], Any]) -> Steps[FinalAnswer]:
        """Send the request (``call``, a step of either driver) and read the reply; a
        provider error gives an answer without a prediction."""
        try:
            text, info = yield call
        except ProviderError as exc:
            return self.failed(exc)
        return self.read(text, info)

    def read(self, text: str, info: CallInfo) -> FinalAnswer:
        """The answer of the reply ``text`` (every deterministic rule reads it)."""
        extraction = _extract(text, self.spec)
        prediction: str | None
        field = _json_field(text, self.answer_field) if self.answer_field else None
        if field is not None:  # tinyAgent's `if "answer" in payload: return payload["answer"]`
            prediction, termination = field[0], Termination.ANSWER
        elif not self.forced:
            prediction = extraction.answer
            termination = Termination.ANSWER if extraction.found else self.reason
        elif extraction.method == "answer_block":
            prediction, termination = extraction.answer, Termination.TOKEN_LIMIT_ANSWER
        else:  # no usable block: the whole reply is the prediction, as DeepResearch keeps it
            prediction, termination = text.strip() or None, Termination.TOKEN_LIMIT_FORMAT_ERROR
        return FinalAnswer(
            prediction=prediction, text=text, extraction=extraction,
            termination=termination, info=info, prompt=self.prompt,
        )  # fmt: skip

    def failed(self, exc: ProviderError) -> FinalAnswer:
        """No answer: the call failed (what it used is kept in ``info``)."""
        log.warning("final call failed: %s", exc)  # ProviderError messages are already redacted
        return FinalAnswer(
            prediction=None, text="",
            extraction=_extract("", self.spec),
            termination=self.reason,
            info=exc.call_info,
            prompt=self.prompt, error=str(exc),
        )  # fmt: skip


def _json_field(text: str, name: str) -> tuple[str | None] | None:
    """``(value,)`` of key ``name`` when ``text`` is (or opens with) a JSON object that
    has it, the value as text (None for ``null``); None when it has no such key."""
    body = text.strip()
    start = body.find("{")
    if start < 0:
        return None
    try:
        payload, _ = json.JSONDecoder().raw_decode(body, start)
    except json.JSONDecodeError:
        return None
    if not isinstance(payload, dict) or name not in payload:
        return None
    value = payload[name]
    if value is None or isinstance(value, str):
        return (value,)
    return (json.dumps(value, ensure_ascii=False),)


def _request(
    name: str, messages: Messages, prompt_dir: str | Path | None
) -> tuple[str, list[dict[str, Any]]]:
    # safe_substitute: these prompts have no placeholders, and a user's override
    # may quote a "$" that a strict substitute() would reject.
    prompt = prompt_template(name, prompt_dir).safe_substitute().strip()
    return prompt, [*messages, {"role": "user", "content": prompt}]
