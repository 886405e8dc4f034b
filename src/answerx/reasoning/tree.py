"""``tree_of_thought`` (ToT): a breadth-limited search over model-proposed steps.

Multi-call (``multi_call=True, thoughts_per_step=k, breadth=b, depth=d``), a
breadth-first search as in Yao et al. (2023):

1. propose (``tree_of_thought_propose``): from each of the (at most b) kept
   nodes, k candidate next steps, sampled at ``proposal_temperature``;
2. score (``tree_of_thought_score``): the model rates each candidate from 1 to 10
   (``<score>N</score>``, read deterministically; none reads as 0);
3. keep the b best-scored nodes; repeat to depth d;
4. answer (``tree_of_thought_answer``, with the best leaf's steps): the answer step.

Each level's proposals run concurrently, then its scores. Calls: at most
``d·b·2k + 1``. Metadata: ``best_path`` (the steps of the best leaf),
``best_score`` (in [0, 1]), ``thoughts_scored``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from answerx.reasoning.engine import Answer, Run, Steps
from answerx.reasoning.parsing import score_of
from answerx.reasoning.settings import TreeSettings
from answerx.reasoning.single import MultiCallReasoning
from answerx.reasoning.steps import answer_step, text_batch

__all__ = ["TreeOfThought"]


@dataclass(frozen=True, slots=True)
class _Node:
    steps: tuple[str, ...]
    score: float

    def listing(self) -> str:
        if not self.steps:
            return "(none yet)"
        return "\n".join(f"Step {i}: {step}" for i, step in enumerate(self.steps, 1))


class TreeOfThought(MultiCallReasoning[TreeSettings]):
    """``tree_of_thought`` (ToT): a breadth-limited search over model-proposed steps.

    Default (``multi_call=False``): one prompt that explores and compares branches within
    one reply; one answer step, read per the strategy as in ``chain_of_thought``.

    Multi-call (``multi_call=True``, ``thoughts_per_step=k``, ``breadth=b``, ``depth=d``): a
    breadth-first search, level by level: k proposed next steps from each kept node
    (sampled at ``proposal_temperature``, one concurrent batch), each scored by the model
    from 1 to 10 (``<score>N</score>``, read deterministically; a second concurrent
    batch); the b best-scored nodes are kept; after d levels (or when no proposal is
    left), the answer step with the best leaf's steps. Metadata: ``best_path``,
    ``best_score`` (in [0, 1]), ``thoughts_scored``.

    Budget: one call by default; multi-call makes at most ``d·b·2k + 1`` calls (plus a
    ``two_stage`` extraction call). Each level's batch starts only when the budget has a
    call left for all of it; otherwise one final attempt answers from the best path
    found so far (``stage == "final_attempt"``); when that finds nothing,
    :class:`~answerx.agent.StepLimitReached` (or a response saying why, with
    ``result_mode=True``).
    """

    name: ClassVar[str] = "tree_of_thought"
    description: ClassVar[str] = (
        "Explore and score branches of thought; multi_call=True runs a real search."
    )
    settings_model = TreeSettings

    def multi_call_steps(self, run: Run) -> Steps[Answer]:
        s = self.settings
        frontier = [_Node((), 1.0)]
        run.begin(run.prompts.user("tree_of_thought_answer", steps=frontier[0].listing()))
        sampling = {**run.options, "temperature": s.proposal_temperature}
        scored = 0
        for level in range(1, s.depth + 1):
            parents = [node for node in frontier for _ in range(s.thoughts_per_step)]
            thoughts = yield from text_batch(run, [
                (f"thought {level}.{n}", [run.prompts.user(
                    "tree_of_thought_propose",
                    steps_so_far=node.listing(), step_number=level, depth=s.depth,
                )])
                for n, node in enumerate(parents, 1)
            ], sampling)  # fmt: skip
            candidates = [(node, t.strip()) for node, t in zip(parents, thoughts, strict=True)]
            candidates = [(node, thought) for node, thought in candidates if thought]
            if not candidates:
                break
            evaluations = yield from text_batch(run, [
                (f"score {level}.{n}", [run.prompts.user(
                    "tree_of_thought_score", steps_so_far=node.listing(), thought=thought
                )])
                for n, (node, thought) in enumerate(candidates, 1)
            ])  # fmt: skip
            children = [
                _Node((*node.steps, thought), score_of(evaluation))
                for (node, thought), evaluation in zip(candidates, evaluations, strict=True)
            ]
            scored += len(children)
            # sorted() is stable: among equal scores the earlier proposal wins.
            frontier = sorted(children, key=lambda child: -child.score)[: s.breadth]
            run.begin(run.prompts.user("tree_of_thought_answer", steps=frontier[0].listing()))
        best = frontier[0]
        run.extras.update(best_path=list(best.steps), best_score=best.score, thoughts_scored=scored)
        return (yield from answer_step(run, "answer"))
