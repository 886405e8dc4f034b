"""The approaches by name, and :func:`get_approach`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from answerx.agent.budget import Budget
from answerx.errors import ConfigError
from answerx.reasoning.base import BaseReasoning
from answerx.reasoning.calls import ReasoningManager
from answerx.reasoning.program import ProgramOfThought
from answerx.reasoning.reflection import Reflection
from answerx.reasoning.search_loops import SEARCH_APPROACHES
from answerx.reasoning.single import ChainOfThought, DirectAnswer, ReasoningAsPlanning
from answerx.reasoning.skeleton import SkeletonOfThought
from answerx.reasoning.tree import TreeOfThought
from answerx.reasoning.verification import ChainOfVerification
from answerx.retrieval.base import Retriever
from answerx.structured.models import APPROACHES as _MODEL_ORDER

__all__ = ["APPROACHES", "APPROACH_DESCRIPTIONS", "SEARCH_APPROACHES", "get_approach"]

_CLASSES: dict[str, type[BaseReasoning[Any]]] = {
    cls.name: cls
    for cls in (
        DirectAnswer, ChainOfThought, ProgramOfThought, ReasoningAsPlanning,
        Reflection, ChainOfVerification, SkeletonOfThought, TreeOfThought,
    )
}  # fmt: skip

#: Approach name → class, in the order of ``answerx.structured.APPROACHES``.
APPROACHES: Mapping[str, type[BaseReasoning[Any]]] = MappingProxyType(
    {name: _CLASSES[name] for name in _MODEL_ORDER}
)
#: Approach name → one line saying what it does.
APPROACH_DESCRIPTIONS: Mapping[str, str] = MappingProxyType(
    {name: cls.description for name, cls in APPROACHES.items()}
)


def get_approach(
    name: str,
    manager: ReasoningManager,
    *,
    strategy: str = "structured",
    task: str = "auto",
    prompt_dir: str | Path | None = None,
    budget: Budget | None = None,
    result_mode: bool = False,
    retriever: Retriever | None = None,
    **settings: Any,
) -> BaseReasoning[Any]:
    """The approach ``name`` bound to ``manager``; see :class:`BaseReasoning` for the rest.

    >>> approach = get_approach("reflection", manager, multi_call=True, rounds=2)  # doctest: +SKIP
    >>> approach.execute("What is 17 * 23?").extracted_answer                      # doctest: +SKIP
    '391'

    The search approaches (``SEARCH_APPROACHES``: ``search_r1``, ``search_o1``, …)
    need ``retriever=``, an :class:`answerx.retrieval.Index` or any
    :class:`~answerx.retrieval.Retriever`; the others refuse one.

    An unknown approach, strategy, task or setting raises :class:`ConfigError`
    listing the valid ones.
    """
    search_cls = SEARCH_APPROACHES.get(name)
    if search_cls is not None:
        if retriever is None:
            raise ConfigError(f"approach {name!r} searches: pass retriever= (an "
                              "answerx.retrieval.Index; on the command line --index)")  # fmt: skip
        return search_cls(
            manager, retriever=retriever, strategy=strategy, task=task, prompt_dir=prompt_dir,
            budget=budget, result_mode=result_mode, **settings,
        )  # fmt: skip
    if retriever is not None:
        raise ConfigError(f"approach {name!r} does not search; retriever= is for "
                          f"{', '.join(SEARCH_APPROACHES)}")  # fmt: skip
    cls = APPROACHES.get(name)
    if cls is None:
        valid = ", ".join([*APPROACHES, *SEARCH_APPROACHES])
        raise ConfigError(f"unknown reasoning approach {name!r}; valid approaches: {valid}")
    return cls(
        manager, strategy=strategy, task=task, prompt_dir=prompt_dir,
        budget=budget, result_mode=result_mode, **settings,
    )  # fmt: skip
