"""Every approach documents itself: ``help()`` on an approach class says what it does,
its stages and how it behaves when the budget runs out."""

import inspect
from typing import Any

import pytest

import answerx.reasoning.search_loops  # noqa: F401  (defines the search approaches)
from answerx.reasoning.base import BaseReasoning


def _approach_classes() -> list[type[BaseReasoning[Any]]]:
    """The concrete approach classes, found as subclasses (not through a registry)."""
    found: list[type[BaseReasoning[Any]]] = []
    todo = list(BaseReasoning.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if not inspect.isabstract(cls) and "name" in vars(cls):
            found.append(cls)
    return sorted(found, key=lambda cls: cls.name)


APPROACH_CLASSES = _approach_classes()


def test_every_registered_approach_is_among_the_documented_classes() -> None:
    from answerx.reasoning import APPROACHES, SEARCH_APPROACHES

    names = {cls.name for cls in APPROACH_CLASSES}
    assert set(APPROACHES) | set(SEARCH_APPROACHES) <= names


@pytest.mark.parametrize("cls", APPROACH_CLASSES, ids=lambda cls: cls.name)
def test_an_approach_class_has_its_own_docstring_naming_it_its_stages_and_budget(
    cls: type[BaseReasoning[Any]],
) -> None:
    doc = vars(cls).get("__doc__") or ""  # its own, not one inherited from a base class
    assert doc.strip().startswith(f"``{cls.name}``"), doc[:80]
    assert "Budget:" in doc and "final attempt" in doc
    assert "Stages" in doc or "Multi-call" in doc
