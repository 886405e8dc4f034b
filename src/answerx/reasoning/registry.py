"""The one registry of approaches by name (:data:`APPROACHES`), and :func:`get_approach`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Final, Unpack, get_args

from answerx.errors import ConfigError, UnknownName
from answerx.reasoning.base import BaseReasoning
from answerx.reasoning.calls import ReasoningManager
from answerx.reasoning.program import ProgramOfThought
from answerx.reasoning.reflection import Reflection
from answerx.reasoning.response import ApproachName
from answerx.reasoning.search_loops import (
    IRCoT,
    IterRetGen,
    R1Searcher,
    SearchO1,
    SearchR1,
    SearchReasoning,
)
from answerx.reasoning.settings import ApproachOptions
from answerx.reasoning.single import ChainOfThought, DirectAnswer, ReasoningAsPlanning
from answerx.reasoning.skeleton import SkeletonOfThought
from answerx.reasoning.tree import TreeOfThought
from answerx.reasoning.verification import ChainOfVerification
from answerx.retrieval.base import Retriever

__all__ = [
    "APPROACHES",
    "APPROACH_DESCRIPTIONS",
    "SEARCH_APPROACHES",
    "check_approach",
    "get_approach",
]

_CLASSES: tuple[type[BaseReasoning[Any]], ...] = (
    DirectAnswer, ChainOfThought, TreeOfThought, ProgramOfThought, ReasoningAsPlanning,
    Reflection, ChainOfVerification, SkeletonOfThought,
    SearchR1, R1Searcher, SearchO1, IRCoT, IterRetGen,
)  # fmt: skip

#: Approach name → class: the reasoning approaches, then the search loops (in the order
#: of :data:`~answerx.reasoning.ApproachName`). The one list of approach names: the
#: CLI, experiment configs and records check names against it.
APPROACHES: Final[Mapping[str, type[BaseReasoning[Any]]]] = MappingProxyType(
    {cls.name: cls for cls in _CLASSES}
)
#: The approaches of :data:`APPROACHES` that search: they need ``retriever=``.
SEARCH_APPROACHES: Final[Mapping[str, type[BaseReasoning[Any]]]] = MappingProxyType(
    {name: cls for name, cls in APPROACHES.items() if issubclass(cls, SearchReasoning)}
)
#: Approach name → one line saying what it does.
APPROACH_DESCRIPTIONS: Final[Mapping[str, str]] = MappingProxyType(
    {name: cls.description for name, cls in APPROACHES.items()}
)

if tuple(APPROACHES) != get_args(ApproachName):  # pragma: no cover - caught by any import
    raise AssertionError("ApproachName and the approach classes disagree")


def check_approach(name: str, among: Iterable[str] | None = None) -> ApproachName:
    """``name`` when it is an approach (of ``among``, default every approach); else
    :class:`~answerx.errors.UnknownName` with the closest valid name (did you mean …?)."""
    valid = list(APPROACHES if among is None else among)
    if name not in valid:
        raise UnknownName("approach", name, valid, listed="valid approaches")
    return name  # type: ignore[return-value]  # checked against the names just above


def get_approach(
    name: str,
    manager: ReasoningManager,
    *,
    retriever: Retriever | None = None,
    **options: Unpack[ApproachOptions],
) -> BaseReasoning[Any]:
    """The approach ``name`` bound to ``manager``; ``options`` are those of
    :class:`BaseReasoning` (strategy, task, prompt_dir, budget, result_mode) and the
    approach's own settings (see :class:`~answerx.reasoning.settings.ApproachOptions`).

    >>> approach = get_approach("reflection", manager, multi_call=True, rounds=2)  # doctest: +SKIP
    >>> approach.execute("What is 17 * 23?").extracted_answer                      # doctest: +SKIP
    '391'

    The search approaches (``SEARCH_APPROACHES``: ``search_r1``, ``search_o1``, …)
    need ``retriever=``, an :class:`answerx.retrieval.Index` or any
    :class:`~answerx.retrieval.Retriever`; the others refuse one.

    An unknown approach raises :class:`~answerx.errors.UnknownName` (did you mean …?);
    an unknown strategy, task or setting a :class:`ConfigError` listing the valid ones.
    """
    cls = APPROACHES[check_approach(name)]
    if issubclass(cls, SearchReasoning):
        if retriever is None:
            raise ConfigError(f"approach {name!r} searches: pass retriever= (an "
                              "answerx.retrieval.Index; on the command line --index, in an "
                              "experiment config index:)")  # fmt: skip
        return cls(manager, retriever=retriever, **options)
    if retriever is not None:
        raise ConfigError(f"approach {name!r} does not search; retriever= is for "
                          f"{', '.join(SEARCH_APPROACHES)}")  # fmt: skip
    return cls(manager, **options)
