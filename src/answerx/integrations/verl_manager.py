"""answerx's own reward manager for verl 0.9's reward loop, which knows how each response ended.

verl 0.9 registers the reward managers ``naive``, ``dapo``, ``gdpo``, ``rate_limited``
and ``remote`` (no ``batch``); it also loads a manager class from a module of one's own::

    reward.reward_manager.source=importlib
    reward.reward_manager.name=AnswerxRewardManager
    reward.reward_manager.module.path=pkg://answerx.integrations.verl_manager

Each response is graded as :func:`answerx.integrations.verl.compute_score` grades it,
with the finish reason verl's ``naive`` manager never passes on: a response that fills
the rollout's ``response_length`` without ending on the tokenizer's EOS id was cut off
(``finish_reason="length"``: no answer is guessed from the clipped text), any other
stopped (``stop``: a final sentence without a period is a finished answer). A
``finish_reason`` in the row's ``extra_info`` wins. The manager ignores
``reward.custom_reward_function`` (it is answerx's grading); the result's keys land
in ``reward_extra_info`` as with ``compute_score``.

The class subclasses verl's ``RewardManagerBase``, so it is built when verl first
asks for it (module ``__getattr__``): this module imports without verl.
"""

from __future__ import annotations

import importlib
from typing import Any

from answerx.integrations.trl import finish_reason
from answerx.integrations.verl import compute_score

# AnswerxRewardManager is built on first access (module __getattr__), when verl is there.
__all__ = ["AnswerxRewardManager", "response_limit"]  # noqa: F822


def response_limit(config: Any, width: int) -> int:
    """The longest response the rollout generates: ``actor_rollout_ref.rollout.
    response_length`` in the trainer's config where it is set, else the width verl pads
    every response to (the same number in a PPO run)."""
    try:
        limit = config.actor_rollout_ref.rollout.response_length
    except (AttributeError, KeyError):  # a config without the rollout section
        return width
    return int(limit) if isinstance(limit, int) and limit > 0 else width


def _eos_ids(tokenizer: Any) -> frozenset[int]:
    eos = getattr(tokenizer, "eos_token_id", None)
    if isinstance(eos, int):
        return frozenset({eos})
    if isinstance(eos, list | tuple):
        return frozenset(int(i) for i in eos)
    return frozenset()


_MANAGER: type | None = None


def _manager_class() -> type:
    global _MANAGER
    if _MANAGER is not None:
        return _MANAGER
    base = importlib.import_module("verl.experimental.reward_loop.reward_manager.base")

    class AnswerxRewardManager(base.RewardManagerBase):  # type: ignore[misc, name-defined]
        """verl's reward-loop manager grading each response with answerx, cut-off ones
        as unfinished."""

        def __init__(
            self, config: Any, tokenizer: Any, compute_score: Any = None, **kwargs: Any
        ) -> None:
            # verl passes its default or the custom reward function: answerx grades here.
            super().__init__(config, tokenizer, compute_score)
            self.eos = _eos_ids(tokenizer)

        async def run_single(self, data: Any) -> dict[str, Any]:
            item = data[-1:][0]  # several sequences of one sample: the last one is graded
            response_ids = item.batch["responses"]
            width = int(response_ids.shape[-1])
            valid = int(item.batch["attention_mask"][-width:].sum())
            ids = [int(i) for i in response_ids[:valid].tolist()]
            text = await self.loop.run_in_executor(
                None, lambda: self.tokenizer.decode(ids, skip_special_tokens=True)
            )
            info = dict(item.non_tensor_batch.get("extra_info") or {})
            limit = response_limit(self.config, width)
            info.setdefault("finish_reason", finish_reason(ids, limit, self.eos))
            source = item.non_tensor_batch["data_source"]
            gold = item.non_tensor_batch["reward_model"]["ground_truth"]
            result = await self.loop.run_in_executor(
                None, lambda: compute_score(source, text, gold, info)
            )
            return {"reward_score": result["score"], "reward_extra_info": result}

    AnswerxRewardManager.__module__ = __name__
    AnswerxRewardManager.__qualname__ = "AnswerxRewardManager"
    _MANAGER = AnswerxRewardManager
    return AnswerxRewardManager


def __getattr__(name: str) -> Any:
    if name == "AnswerxRewardManager":
        return _manager_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
