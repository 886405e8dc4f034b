"""Do a data set's gold answers verify? A broken data set shows before a training run.

:func:`check_golds` writes each item's gold answer the way a model would state
it (:data:`FORMS`: ``\\boxed{gold}``, "The answer is gold.", ``<answer>gold</answer>``,
a JSON object) and verifies every form against the gold itself
(:func:`answerx.verify_batch`): a gold that does not come back as correct in
every form is one answerx would mark wrong whatever the model says (a gold
that is not an answer, a task that does not fit it). ``answerx verify
--self-check DATASET`` prints the result.
"""

from __future__ import annotations

import json
import os

from pydantic import BaseModel, Field

from answerx.experiments.datasets import DatasetItem, DatasetSpec, load_dataset
from answerx.grading import verify_batch

__all__ = ["FORMS", "FormFailure", "GoldCheck", "GoldFailure", "check_golds"]

#: How models state an answer; each gold answer must verify in every one of them.
FORMS: tuple[tuple[str, str], ...] = (
    ("boxed", "The final answer is $\\boxed{{{gold}}}$."),
    ("phrase", "The answer is {gold}."),
    ("answer_tag", "<answer>{gold}</answer>"),
    ("json", "{json}"),
)


class FormFailure(BaseModel):
    """How one written form of a gold answer was judged."""

    reason: str = Field(description="The verdict's reason (different, no_answer, …).")
    answer: str | None = Field(description="The answer read from the written form.")


class GoldFailure(BaseModel):
    """An item whose gold answer does not verify in some form."""

    id: str
    gold: str
    forms: dict[str, FormFailure] = Field(description="Each failing form, by name.")


class GoldCheck(BaseModel):
    """What :func:`check_golds` found."""

    checked: int = Field(description="Items with a gold answer, each checked in every form.")
    no_gold: int = Field(description="Items without a gold answer (nothing to check).")
    failed: list[GoldFailure] = Field(description="The items whose gold does not verify.")

    @property
    def ok(self) -> bool:
        """Every gold answer verifies in every form."""
        return not self.failed


def check_golds(
    dataset: DatasetSpec | str | os.PathLike[str] | list[DatasetItem], task: str = "auto"
) -> GoldCheck:
    """Check that every gold answer of ``dataset`` verifies in each of :data:`FORMS`.

    ``dataset`` is what :func:`~answerx.experiments.datasets.load_dataset` takes (a
    file, a bundled sample, ``hf:NAME``), or items already loaded; ``task`` is the
    task of items that name none.
    """
    items = dataset if isinstance(dataset, list) else load_dataset(dataset)
    outputs: list[str] = []
    golds: list[str] = []
    tasks: list[str] = []
    choices: list[list[str] | None] = []
    numbers: list[list[int] | None] = []
    owners: list[tuple[str, str]] = []
    for item in items:
        if item.gold is None:
            continue  # nothing to write; counted as "no gold answer"
        for name, form in FORMS:
            gold = item.gold
            outputs.append(
                form.format(gold=gold, json=json.dumps({"answer": gold}, ensure_ascii=False))
            )
            golds.append(gold)
            tasks.append(item.task if item.task != "auto" else task)
            choices.append(item.choices)
            numbers.append(item.numbers)
            owners.append((item.id, name))
    verdicts = verify_batch(outputs, golds, task=tasks, choices=choices, numbers=numbers)
    failures: dict[str, GoldFailure] = {}
    for (item_id, form), verdict, gold in zip(owners, verdicts, golds, strict=True):
        if verdict.correct:
            continue
        failure = failures.setdefault(item_id, GoldFailure(id=item_id, gold=gold, forms={}))
        failure.forms[form] = FormFailure(reason=verdict.reason, answer=verdict.answer)
    checked = len({owner[0] for owner in owners})
    return GoldCheck(checked=checked, no_gold=len(items) - checked, failed=list(failures.values()))
