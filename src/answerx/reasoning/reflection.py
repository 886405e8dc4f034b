"""``reflection``: draft → critique → revise, as one prompt or as real calls.

Multi-call (``multi_call=True, rounds=N``), one conversation:

1. draft (``chain_of_thought`` template): an answer step;
2. critique (``reflection_critique``): free text ending in ``<verdict>correct</verdict>``
   or ``<verdict>revise</verdict>``; "correct" ends the loop early, a missing
   verdict counts as "revise";
3. revision (``reflection_revise``): an answer step; back to 2, at most N rounds.

The answer is the last revision's (the draft's when the first critique finds
nothing). Metadata: ``revisions`` made and ``stopped_early``.
"""

from __future__ import annotations

from typing import ClassVar

from answerx.reasoning.engine import Answer, Run, Steps
from answerx.reasoning.parsing import verdict_of
from answerx.reasoning.settings import ReflectionSettings
from answerx.reasoning.single import MultiCallReasoning
from answerx.reasoning.steps import answer_step, text_step

__all__ = ["Reflection"]


class Reflection(MultiCallReasoning[ReflectionSettings]):
    """``reflection``: draft an answer, critique it, revise it.

    Default (``multi_call=False``): one prompt that asks for draft, critique and revision
    in a single reply; one answer step, read per the strategy as in ``chain_of_thought``.

    Multi-call (``multi_call=True``, ``rounds=N``), one conversation: a draft (answer
    step, ``draft``); then up to N rounds of a critique (free text, ``critique i``) ending
    in ``<verdict>correct</verdict>``, which stops early, or ``<verdict>revise</verdict>``
    (also assumed when the verdict is missing), and a revision (answer step, ``revision
    i``). The answer is the last revision's, or the draft's when the first critique finds
    nothing. Metadata: ``revisions``, ``stopped_early``.

    Budget: one call by default; multi-call makes at most ``1 + 2·N`` calls, plus one
    extraction call per answer step when ``two_stage`` needs one. When the budget does
    not allow the next call, it is not made: one final attempt answers from the
    conversation so far (``metadata.stage == "final_attempt"``, ``budget_exhausted``
    naming the limit); when that finds nothing, :class:`~answerx.agent.StepLimitReached`
    (or a response saying why, with ``result_mode=True``).
    """

    name: ClassVar[str] = "reflection"
    description: ClassVar[str] = (
        "Draft, critique, revise; multi_call=True makes them separate calls (rounds=N)."
    )
    settings_model = ReflectionSettings

    def multi_call_steps(self, run: Run) -> Steps[Answer]:
        run.begin(run.prompts.user("chain_of_thought"))
        answer = yield from answer_step(run, "draft")
        revisions, stopped_early = 0, False
        for round_ in range(1, self.settings.rounds + 1):
            run.say(run.prompts.user("reflection_critique"))
            critique = yield from text_step(run, f"critique {round_}")
            if verdict_of(critique) is True:
                stopped_early = True
                break
            run.say(run.prompts.user("reflection_revise"))
            answer = yield from answer_step(run, f"revision {round_}")
            revisions = round_
        run.extras.update(revisions=revisions, stopped_early=stopped_early)
        return answer
