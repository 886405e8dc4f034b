"""``LLMJudge``: an LLM rules on the items grading's rules could not decide.

The judge is one structured call through :class:`~answerx.structured.InstructorClientManager`
(tools mode, then the provider's JSON modes, re-asks on an invalid object: the
same chain the reasoning approaches use) with the task's verdict model
(:func:`~answerx.judge.models.judgement_model`) and the ``judge`` prompt. It is asked
only about the residue (``Verdict.doubt``): pass it to ``verify(..., judge=...)`` or
``verify_batch(..., judge=...)``. A provider error or a spent budget gives a ruling
without a verdict, and the rules' verdict stands.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from answerx.callinfo import CallInfo
from answerx.errors import ConfigError, ProviderError
from answerx.extraction.models import OPTION_LETTERS
from answerx.grading.judgement import DEFAULT_JUDGE_MIN_CONFIDENCE, JudgeRequest, JudgeRuling
from answerx.judge.budget import JudgeBudget, Price
from answerx.judge.cache import JudgeCache, judge_cache_key
from answerx.judge.caller import BudgetedCaller
from answerx.judge.models import TASK_RULES, Judgement, judgement_model
from answerx.redactor import describe_failure, sanitise_provider_text
from answerx.structured.manager import InstructorClientManager
from answerx.structured.sansio import Steps, arun, run
from answerx.support.resources import prompt_template

__all__ = ["LLMJudge"]

#: A reply longer than this is shown to the judge as its head and its tail.
DEFAULT_MAX_OUTPUT_CHARS: Final = 6000

_DOUBT_NOTES: Final = {
    "nothing_extracted": "no final answer was found in the reply.",
    "low_confidence_guess": "the reply marks no final answer; {answer} was guessed from it.",
    "cover_f1_disagree": "the reply shares words with an accepted answer, but not clearly.",
    "guard_fired": "an accepted answer appears in the reply, but it may be negated, hedged, "
    "or one of several candidates.",
    "name_unclear": "the surname of an accepted name appears in the reply, but it may "
    "name a place, a company or another person.",
    "comparison_timeout": "comparing {answer} with the accepted answers took too long.",
    "math_unreadable": "the accepted answers could not be parsed as mathematics.",
}


class LLMJudge(BudgetedCaller):
    """A :class:`~answerx.grading.judgement.Judge` that asks an LLM, within a budget.

    >>> judge = LLMJudge(InstructorClientManager("openai", "gpt-4o-mini"),   # doctest: +SKIP
    ...                  max_calls=200, max_cost_usd=0.50, price=price)
    >>> verify(output, ["Paris", "City of Light"], question=q, judge=judge)  # doctest: +SKIP

    ``max_calls`` caps the questions sent, ``max_cost_usd`` what they cost (it needs
    ``price``, e.g. ``answerx.structured.prices.price_of(provider, model)``;
    :func:`~answerx.judge.open_judge` looks it up);
    ``cache`` (a :class:`~answerx.judge.cache.JudgeCache`, such as the experiments'
    ``ResponseCache``) answers a repeated question for free; a ruling whose
    confidence is below ``min_confidence`` (default
    :data:`~answerx.grading.judgement.DEFAULT_JUDGE_MIN_CONFIDENCE`) is not used.
    ``options`` go to the provider with every call (default ``temperature=0``). A
    provider that refuses the first mode of the manager's chain (tools) is asked in the
    mode that worked from then on: one request per question, not a refusal each time.
    Thread-safe.
    """

    def __init__(
        self,
        manager: InstructorClientManager,
        *,
        max_calls: int | None = None,
        max_cost_usd: float | None = None,
        price: Price | None = None,
        cache: JudgeCache | None = None,
        min_confidence: float = DEFAULT_JUDGE_MIN_CONFIDENCE,
        options: Mapping[str, Any] | None = None,
        prompt_dir: str | Path | None = None,
        max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
    ) -> None:
        if not 0.0 <= min_confidence <= 1.0:
            raise ConfigError(f"min_confidence must be in [0, 1], not {min_confidence}")
        if max_output_chars < 200:
            raise ConfigError(f"max_output_chars must be at least 200, not {max_output_chars}")
        self.manager = manager
        self.budget = JudgeBudget(max_calls=max_calls, max_cost_usd=max_cost_usd, price=price)
        self.cache = cache
        self.min_confidence = min_confidence
        self.options: dict[str, Any] = {"temperature": 0, **(options or {})}
        self.prompt_dir = prompt_dir
        self.max_output_chars = max_output_chars
        # The modes a call tries: the whole chain until a mode is refused (remembered).
        self._modes: tuple[str, ...] | None = None
        prompt_template("judge", prompt_dir)  # a missing or broken prompt fails here

    # ------------------------------------------------------------------ judging
    def judge(self, request: JudgeRequest) -> JudgeRuling:
        """The ruling on ``request`` (never raises for a provider failure)."""
        return run(self._judge(request, is_async=False))

    async def ajudge(self, request: JudgeRequest) -> JudgeRuling:
        """Async :meth:`judge`."""
        return await arun(self._judge(request, is_async=True))

    def _judge(self, request: JudgeRequest, *, is_async: bool) -> Steps[JudgeRuling]:
        """The ruling's steps, for either driver: the cache or the budget may answer
        without a call; else one structured call through the manager."""
        model, messages, key = self._prepare(request)
        ready = self._before_call(model, key)
        if ready is not None:
            return ready
        create = self.manager.acreate if is_async else self.manager.create
        options = self._call_options()
        try:
            result, info = yield lambda: create(messages, model, **options)
        except ProviderError as exc:
            return self._noted(self._failed(exc))
        return self._after_call(result, info, key)

    def _noted(self, failed: JudgeRuling) -> JudgeRuling:
        """``failed``, its reason kept for the summary (said when every call fails)."""
        self.budget.note_failure(failed.reason)
        return failed

    def _call_options(self) -> dict[str, Any]:
        modes = self._modes
        return self.options if modes is None else {**self.options, "modes": modes}

    def _remember_modes(self, info: CallInfo) -> None:
        """After a call that fell back past refused modes, ask in the mode that worked."""
        if info.mode is None or not info.fell_back or info.mode not in self.manager.modes:
            return
        self._modes = tuple(self.manager.modes[self.manager.modes.index(info.mode) :])

    # ------------------------------------------------------------------ steps
    def _prepare(self, request: JudgeRequest) -> tuple[type[Judgement], list[dict[str, str]], str]:
        model = judgement_model(request.task)
        messages = [{"role": "user", "content": self.prompt(request)}]
        key = "" if self.cache is None else self._key(model, request)
        return model, messages, key

    def _before_call(self, model: type[Judgement], key: str) -> JudgeRuling | None:
        """A ruling without a call (from the cache, or refused by the budget), or None."""
        if key and self.cache is not None:
            entry = self.cache.get(key)
            if entry is not None:
                self.budget.note(asked=1, cache_hits=1)
                return self._ruling(model.model_validate_json(entry.payload), None, cached=True)
        why = self.budget.reserve()
        if why is not None:
            return JudgeRuling(verdict=None, reason=f"not asked: {why}", judge=self.name)
        self.budget.note(asked=1)  # only a question the budget allowed is asked
        return None

    def _after_call(self, result: Judgement, info: CallInfo, key: str) -> JudgeRuling:
        self._remember_modes(info)
        if key and self.cache is not None:
            self.cache.put(key, result.model_dump_json(), info)
        return self._ruling(result, info, cached=False)

    def _ruling(self, result: Judgement, info: CallInfo | None, *, cached: bool) -> JudgeRuling:
        cost: float | None = 0.0
        if info is not None:
            cost = self.budget.spend(info.usage, info.attempts)
        verdict: Any = result.verdict
        # The model's own words reach clients and stores: no piece of a key in them.
        reason = sanitise_provider_text(result.reason) or "(no reason given)"
        if result.confidence < self.min_confidence:
            self.budget.note(unsure=1)
            verdict = None
            reason = f"judge unsure ({result.confidence:.2f} < {self.min_confidence:.2f}): {reason}"
        else:
            self.budget.note(judged=1)
        return JudgeRuling(
            verdict=verdict,
            reason=reason,
            confidence=result.confidence,
            judge=self.name,
            calls=0 if info is None else 1,
            input_tokens=0 if info is None else info.usage.input_tokens,
            output_tokens=0 if info is None else info.usage.output_tokens,
            cost_usd=cost,
            cached=cached,
        )

    def _failed(self, error: ProviderError) -> JudgeRuling:
        """A failed call: its paid attempts counted, the rules' verdict left standing."""
        info = error.call_info
        self.budget.note(failed=1)
        cost = self.budget.spend(info.usage, info.attempts) if info is not None else None
        return JudgeRuling(
            verdict=None,
            # Summarised, never quoted: the provider's message can hold what it was sent.
            reason=f"judge failed: {describe_failure(error)}",
            judge=self.name,
            calls=1,
            input_tokens=info.usage.input_tokens if info is not None else 0,
            output_tokens=info.usage.output_tokens if info is not None else 0,
            cost_usd=cost,
        )

    # ------------------------------------------------------------------ the question
    def prompt(self, request: JudgeRequest) -> str:
        """The judge prompt for ``request`` (``prompts/judge.txt``)."""
        template = prompt_template("judge", self.prompt_dir)
        shown = request.answer if request.answer is not None else "nothing"
        question = f"\nThe question:\n<question>\n{request.question}\n</question>\n"
        options = ""
        if request.choices:
            options = "\nOptions:\n" + "\n".join(
                f"({OPTION_LETTERS[i]}) {c}" for i, c in enumerate(request.choices)
            )
        answer_note = (
            f"An automatic extractor read the reply's final answer as: {shown}"
            if request.answer is not None
            else "An automatic extractor found no final answer in the reply."
        )
        return template.substitute(
            question_block=(question if request.question else "") + options,
            golds="\n".join(f"- {g}" for g in request.golds) or "- (none given)",
            raw_output=_shortened(request.raw_output, self.max_output_chars),
            answer_note=answer_note,
            task_rule=TASK_RULES.get(request.task, TASK_RULES["text"]),
            doubt_note=_DOUBT_NOTES[request.doubt].format(answer=repr(shown)),
        )

    def _key(self, model: type[Judgement], request: JudgeRequest) -> str:
        # From the question's parts as JSON, not from the rendered prompt: joined into
        # text, the golds ["Paris", "Lyon\n- Nice"] read as ["Paris", "Lyon", "Nice"].
        template = prompt_template("judge", self.prompt_dir).template
        return judge_cache_key(
            provider=self.manager.provider,
            model=self.manager.model,
            base_url=self.manager.endpoint_identity,
            modes=self.manager.modes,
            prompt_version=hashlib.sha256(template.encode("utf-8")).hexdigest(),
            question=request.question,
            golds=list(request.golds),
            answer=request.answer,
            raw_output=_shortened(request.raw_output, self.max_output_chars),
            choices=None if request.choices is None else list(request.choices),
            task=request.task,
            doubt=request.doubt,
            schema=_schema_of(model),
            params=self.options,
            max_tokens=self.manager.max_tokens,
        )


@functools.lru_cache(maxsize=64)
def _schema_of(model: type[Judgement]) -> dict[str, Any]:
    return {"name": model.__name__, "schema": model.model_json_schema()}


def _shortened(text: str, limit: int) -> str:
    """``text``, or its first third and last two thirds around a note of what was cut:
    the final answer sits at the end of a reply, the question it answers at its start."""
    if len(text) <= limit:
        return text
    head, tail = limit // 3, limit - limit // 3
    return f"{text[:head]}\n[... {len(text) - head - tail} characters left out ...]\n{text[-tail:]}"
