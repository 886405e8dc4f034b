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
