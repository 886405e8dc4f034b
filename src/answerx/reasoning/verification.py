"""``chain_of_verification`` (CoVe): check a baseline answer with independent questions.

Multi-call (``multi_call=True, max_questions=N``):

1. baseline (``chain_of_thought`` template): free text;
2. plan (``chain_of_verification_plan``, in the same conversation): at most N
   numbered verification questions, read deterministically;
3. verify (``chain_of_verification_answer``): each question answered in a call of
   its own, **without the baseline or the original question in context** (the
   "factored" variant: the baseline's mistakes cannot leak into the checks), all
   concurrently;
4. final (``chain_of_verification_final``, back in the conversation, with the
   questions and answers): the answer step.

Metadata: ``verification_questions``.
"""

from __future__ import annotations

from typing import ClassVar

from answerx.reasoning.engine import Answer, Run, Steps
from answerx.reasoning.parsing import numbered_items
from answerx.reasoning.settings import VerificationSettings
from answerx.reasoning.single import MultiCallReasoning
from answerx.reasoning.steps import answer_step, text_batch, text_step

__all__ = ["ChainOfVerification"]


class ChainOfVerification(MultiCallReasoning[VerificationSettings]):
    """``chain_of_verification`` (CoVe): check a baseline answer with independent questions.

    Default (``multi_call=False``): one prompt that writes the baseline, the verification
    questions, their answers and the final answer in one reply; one answer step, read
    per the strategy as in ``chain_of_thought``.

    Multi-call (``multi_call=True``, ``max_questions=N``): a baseline (free text); a plan
    of at most N numbered verification questions (free text, same conversation, read
    deterministically); each question answered in a call of its own without the baseline
    or the original question in context, all concurrently (one batch); the final answer
    step, back in the conversation with the questions and answers. Metadata:
    ``verification_questions``.

    Budget: one call by default; multi-call makes ``3 + N`` calls (plus a ``two_stage``
    extraction call). The concurrent verification batch starts only when the budget
    has a call left for every question in it; otherwise, as for any call the budget does
    not allow, one final attempt answers from the conversation so far (``stage ==
    "final_attempt"``); when that finds nothing, :class:`~answerx.agent.StepLimitReached`
    (or a response saying why, with ``result_mode=True``).
    """

    name: ClassVar[str] = "chain_of_verification"
    description: ClassVar[str] = (
        "Answer, then verify with independent questions; multi_call=True makes real calls."
    )
    settings_model = VerificationSettings

    def multi_call_steps(self, run: Run) -> Steps[Answer]:
        limit = self.settings.max_questions
        run.begin(run.prompts.user("chain_of_thought"))
        yield from text_step(run, "baseline")
        run.say(run.prompts.user("chain_of_verification_plan", max_questions=limit))
        plan = yield from text_step(run, "plan")
        questions = numbered_items(plan, limit)
        checks = [
            (f"verification {i}",
             [run.prompts.user("chain_of_verification_answer", verification_question=q)])
            for i, q in enumerate(questions, 1)
        ]  # fmt: skip
        answers = yield from text_batch(run, checks)
        listing = "\n\n".join(
            f"{i}. Question: {q}\n   Answer: {a.strip()}"
            for i, (q, a) in enumerate(zip(questions, answers, strict=True), 1)
        )
        run.extras["verification_questions"] = questions
        run.say(run.prompts.user(
            "chain_of_verification_final",
            verifications=listing or "(no verification questions could be read from the plan)",
        ))  # fmt: skip
        return (yield from answer_step(run, "final"))
