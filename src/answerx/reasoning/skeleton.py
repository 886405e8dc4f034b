"""``skeleton_of_thought``: an outline first, then every point expanded at once.

Multi-call (``multi_call=True, max_points=N``):

1. skeleton (``skeleton_of_thought_skeleton``): at most N numbered points, read
   deterministically (a reply without numbered lines is one point);
2. expand (``skeleton_of_thought_expand``): one call per point, each seeing the
   question and the outline, all **concurrently** (threads in ``execute``,
   ``asyncio.gather`` in ``aexecute``);
3. answer (``skeleton_of_thought_answer``, with the expanded points): the answer step.

Metadata: ``skeleton_points``.
"""

from __future__ import annotations

from typing import ClassVar

from answerx.reasoning.engine import Answer, Run, Steps
from answerx.reasoning.parsing import numbered_items
from answerx.reasoning.settings import SkeletonSettings
from answerx.reasoning.single import MultiCallReasoning
from answerx.reasoning.steps import answer_step, text_batch, text_step

__all__ = ["SkeletonOfThought"]


class SkeletonOfThought(MultiCallReasoning[SkeletonSettings]):
    """``skeleton_of_thought``: an outline first, then every point expanded at once.

    Default (``multi_call=False``): one prompt that writes the outline, expands it and
    answers in one reply; one answer step, read per the strategy as in
    ``chain_of_thought``.

    Multi-call (``multi_call=True``, ``max_points=N``): a skeleton of at most N numbered
    points (free text; a reply without numbered lines is one point); one expansion call
    per point, each seeing the question and the outline, all concurrently (threads in
    :meth:`execute`, ``asyncio.gather`` in :meth:`aexecute`); then the answer step with
    the expanded points. Metadata: ``skeleton_points``.

    Budget: one call by default; multi-call makes ``2 + points`` calls (plus a
    ``two_stage`` extraction call). The expansions start only when the budget has a call
    left for each of them; otherwise, as for any call the budget does not allow, one
    final attempt answers (``stage == "final_attempt"``); when that finds nothing,
    :class:`~answerx.agent.StepLimitReached` (or a response saying why, with
    ``result_mode=True``).
    """

    name: ClassVar[str] = "skeleton_of_thought"
    description: ClassVar[str] = (
        "Outline, expand each point, answer; multi_call=True expands points concurrently."
    )
    settings_model = SkeletonSettings

    def multi_call_steps(self, run: Run) -> Steps[Answer]:
        limit = self.settings.max_points
        run.begin(run.prompts.user("skeleton_of_thought_skeleton", max_points=limit))
        skeleton = yield from text_step(run, "skeleton")
        points = numbered_items(skeleton, limit) or ([skeleton.strip()] if skeleton.strip() else [])
        outline = "\n".join(f"{i}. {point}" for i, point in enumerate(points, 1))
        expansions = yield from text_batch(run, [
            (f"point {i}", [run.prompts.user(
                "skeleton_of_thought_expand", skeleton=outline, point_number=i, point=point
            )])
            for i, point in enumerate(points, 1)
        ])  # fmt: skip
        expanded = "\n\n".join(
            f"{i}. {point}\n{text.strip()}"
            for i, (point, text) in enumerate(zip(points, expansions, strict=True), 1)
        )
        run.extras["skeleton_points"] = points
        # The answer prompt holds everything so far: a final attempt continues from it.
        run.begin(run.prompts.user("skeleton_of_thought_answer", expansions=expanded or "(none)"))
        return (yield from answer_step(run, "answer"))
