"""Steps shared by the approaches: a free-text reply, and an answer read per strategy.

``answer_step`` is where the two strategies differ (DESIGN.md):

- ``structured``: one call whose response model is the approach's extraction model
  (bound to the task), so reasoning and answer come back in one object;
- ``two_stage``: a free-text call, then :func:`answerx.extract` on the reply, then
  ``extract_structured`` only when the rules found nothing or only a weak answer
  (confidence below the ``min_confidence`` setting, or the manager's extraction
  settings' when the approach sets none); it runs with the manager's extraction
  settings (temperature, max_tokens, confidence threshold, mode fallback:
  :mod:`answerx.structured.extraction`) and gets the task, the choices
  and the game-of-24 numbers, bound into its response model. If that structured
  call fails in every mode, the rules' answer (possibly none) stands, and the
  failed call still counts in the response's usage, attempts and calls. A reply
  that was cut off (``answerx.extract`` says ``unfinished``: the provider's finish
  reason, or the text) and states no answer has nothing to extract: instead of the
  extraction call, one ``force_answer`` call asks for the answer in ``<answer>``
  tags, and ``metadata.forced_answer`` records its termination.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from answerx.agent.termination import Termination
from answerx.errors import ProviderAuthError, ProviderError
from answerx.extraction import Extraction, extract
from answerx.grading.residue import extraction_in_doubt
from answerx.reasoning.calls import ExtractCall, FinalCall, Message, StructuredCall, TextCall
from answerx.reasoning.engine import Answer, Run, Steps, render_structured
from answerx.structured.models import ReasoningExtraction

__all__ = ["answer_step", "read_reply", "structured_extraction", "text_batch", "text_step"]


def text_step(
    run: Run,
    step: str,
    messages: Sequence[Message] | None = None,
    options: Mapping[str, Any] | None = None,
) -> Steps[str]:
    """A free-text reply. Without ``messages`` it answers the conversation and joins it."""
    in_conversation = messages is None
    sent = tuple(run.conversation if messages is None else messages)
    [reply] = yield (TextCall(step, sent, run.options if options is None else options),)
    if in_conversation:
        run.heard(reply)
    return str(reply)


def answer_step(run: Run, step: str, messages: Sequence[Message] | None = None) -> Steps[Answer]:
    """A reply with its answer read per the run's strategy. Without ``messages`` it
    answers the conversation and joins it."""
    in_conversation = messages is None
    sent = list(run.conversation if messages is None else messages)
    if run.strategy == "structured":
        sent[-1] = _with_field_instructions(run, sent[-1])
        [obj] = yield (StructuredCall(step, tuple(sent), run.response_model, run.options),)
        answer = Answer(
            structured_extraction(obj, run.task), "structured", render_structured(obj), obj
        )
    else:
        [reply] = yield (TextCall(step, tuple(sent), run.options),)
        answer = yield from read_reply(run, reply, sent)
    if in_conversation:
        run.heard(answer.reply)
    return answer


def read_reply(run: Run, reply: str, sent: Sequence[Message] | None = None) -> Steps[Answer]:
    """The answer of a free-text reply: the rules, then the LLM only when they are weak
    (or, for a cut-off reply that states nothing, one forced answer). ``sent`` is the
    conversation the reply answers (default: the run's)."""
    found = extract(
        reply, run.task, choices=run.spec.choices, numbers=run.spec.numbers,
        finish_reason=run.extras.get("finish_reason"),
    )  # fmt: skip
    if not found.found and found.unfinished:
        return (yield from _forced_answer(run, reply, sent))
    if not extraction_in_doubt(found, run.min_confidence):  # grading's one guess rule
        return Answer(found, "deterministic", reply)
    request = ExtractCall(
        step="structured extraction", raw_output=reply, approach=run.approach,
        question=run.question, spec=run.spec,
        # Not the steps' temperature and max_tokens: the manager's extraction settings
        # decide them (temperature 0: extraction copies the answer, it does not create
        # one; the provider's max_tokens: the copy holds the whole reasoning, which a cap
        # meant for the reasoning steps would cut off).
        options={k: v for k, v in run.options.items() if k not in ("max_tokens", "temperature")},
    )  # fmt: skip
    try:
        [obj] = yield (request,)
    except ProviderAuthError:
        raise  # a configuration problem, not this reply's: say so
    except ProviderError as exc:
        # The extraction is a second opinion on a reply already read by the rules:
        # when it fails (every mode invalid, cut off, the provider down after its
        # retries) the rules' result stands, and the response says why.
        run.extras["structured_extraction_error"] = str(exc)
        return Answer(found, "deterministic", reply)
    extraction = structured_extraction(obj, run.task, raw_output=reply)
    return Answer(extraction, "structured_llm", reply, obj)


def _forced_answer(run: Run, reply: str, sent: Sequence[Message] | None) -> Steps[Answer]:
    """One ``force_answer`` call after a cut-off reply, as the agent layer makes at its
    context limit: an LLM extraction call would find nothing in it to extract."""
    conversation = list(run.conversation if sent is None else sent)
    request = FinalCall(
        step="forced answer", messages=(*conversation, {"role": "assistant", "content": reply}),
        reason=Termination.TOKEN_LIMIT_ANSWER, spec=run.spec,
        prompt_dir=run.prompts.prompt_dir, options=run.options,
    )  # fmt: skip
    [final] = yield (request,)
    run.transcript.append(("forced answer", final.text))
    run.extras["forced_answer"] = str(final.termination)
    if final.error is not None:
        run.extras["forced_answer_error"] = final.error  # already redacted
    # The forced reply read with every rule (its <answer> block first); the reply kept
    # in the conversation is the cut-off one the model wrote.
    return Answer(final.extraction, "final_attempt", reply)


def structured_extraction(
    obj: ReasoningExtraction, task: str, *, raw_output: str | None = None
) -> Extraction:
    """An :class:`Extraction` (method ``structured_llm``) from a structured reply.

    ``raw_output`` is what the answer was read from: the free-text reply for
    two-stage extraction, else the structured reply itself as JSON. ``candidate``
    is ``answer_value`` as the response model returns it (its validator has
    already cleaned it).
    """
    return Extraction(
        answer=obj.answer_value,
        method="structured_llm",
        # None: the model's confidence stayed outside [0, 1]; the answer was kept.
        confidence=obj.confidence if obj.confidence is not None else 0.0,
        task=task,
        candidate=obj.answer_value,
        span=None,
        reasoning=obj.full_reasoning_text,
        raw_output=raw_output if raw_output is not None else obj.model_dump_json(),
    )


def _with_field_instructions(run: Run, message: Message) -> Message:
    """The prompt with the ``structured_fields`` template appended: it maps the prompt's
    ``<answer>`` instruction onto the response model's fields."""
    return {**message, "content": f"{message['content']}{run.prompts.render('structured_fields')}"}


def text_batch(
    run: Run,
    calls: Sequence[tuple[str, Sequence[Message]]],
    options: Mapping[str, Any] | None = None,
) -> Steps[list[str]]:
    """Independent free-text replies, requested together (concurrently), in order."""
    if not calls:
        return []
    sent = run.options if options is None else options
    replies = yield tuple(TextCall(step, tuple(messages), sent) for step, messages in calls)
    return [str(reply) for reply in replies]
