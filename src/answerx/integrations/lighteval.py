"""answerx inside lighteval: the ``answerx_metric`` sample-level metric and answerx task variants.

Use the metric in any task, or run the tasks this module defines: gsm8k, math_500 and
gpqa from the Hub, and ``answerx_local_gsm8k``, ``answerx_local_math`` and
``answerx_local_multiple_choice`` on answerx's bundled items (offline)::

    from answerx.integrations.lighteval import answerx_metric, make_answerx_metric
    LightevalTaskConfig(..., metrics=[answerx_metric])       # or make_answerx_metric("math")

    lighteval endpoint litellm <model config> "gsm8k_answerx|0" \\
        --custom-tasks answerx.integrations.lighteval
    lighteval custom my-model my_model.py "answerx_local_gsm8k|0" \\
        --custom-tasks answerx.integrations.lighteval

lighteval 0.13 needs three fixes of its own to run offline (the README, "lighteval",
says what to do).

The metric reads each response's final answer with answerx (``ModelResponse.final_text``,
so lighteval's own removal of ``<think>`` blocks applies first), reads the gold the same
way (lighteval's gsm8k and MATH docs keep the whole reference solution as the gold), and
grades with ``answerx.grade``. Like lighteval's extractive match it writes what it read to
``doc.specific["extracted_predictions"]`` and ``["extracted_golds"]``, so lighteval's
detail files show the answers, and answerx's rule names to
``doc.specific["answerx_methods"]``.

This module imports without lighteval installed (``answerx_metric`` and the tasks are then
unavailable); lighteval itself pulls torch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from answerx.integrations._common import answer_of, check_task, grade_answer, question_text

if TYPE_CHECKING:
    from answerx.grading import Verdict

__all__ = [
    "TASKS_TABLE",
    "AnswerxMatch",
    "answerx_metric",
    "gold_answers",
    "local_mc_prompt",
    "make_answerx_metric",
]


def gold_answers(golds: Sequence[Any], task: str) -> list[str]:
    """The gold answers as answers: a reference solution ("... #### 42", "... \\boxed{7}")
    becomes the answer it states; a bare answer stays as it is, a number its text. A
    missing gold (None, NaN: a dataset's empty cell) is no gold, not a model output to
    read: the document is then graded ``unreadable_gold`` (0.0), never an error."""
    answers = []
    for gold in golds:
        if gold is None or (isinstance(gold, float) and not math.isfinite(gold)):
            continue
        text = gold if isinstance(gold, str) else str(gold)
        found = answer_of(text, task).answer
        answers.append(found if found is not None else text.strip())
    return answers


class AnswerxMatch:
    """lighteval's sample-level computation: answerx's extraction and grading per response.

    ``compute(doc, model_response)`` returns the aggregate (``max`` by default, as
    lighteval's extractive match) over the responses of 1.0 when answerx grades the
    answer equal to any gold answer (several golds are accepted answers, graded
    together: ``doc.specific["answerx_matched_golds"]`` names the one matched), else
    0.0. The doc's ``query`` is the question grading sees.
    """

    def __init__(
        self, task: str = "auto", aggregation_function: Callable[[list[float]], float] = max
    ) -> None:
        self.task = check_task(task)
        self.aggregation_function = aggregation_function

    def _verdict(
        self, answer: str | None, golds: list[str], choices: list[str] | None, question: Any
    ) -> Verdict | None:
        if answer is None:
            return None
        # Several golds are accepted answers (any one is right); one is graded as itself.
        gold: Any = golds if len(golds) > 1 else (golds[0] if golds else "")
        return grade_answer(
            answer, gold, self.task, choices=choices, question=question_text(question)
        )

    def compute(self, doc: Any, model_response: Any, **_: Any) -> float:
        """Score one document's responses; records the answers in ``doc.specific``."""
        # lighteval's multiple-choice docs list the options (or their letters) as choices;
        # elsewhere (gsm8k, MATH) "choices" holds the reference solution, not options.
        choices = list(doc.choices) if self.task == "multiple_choice" else None
        golds = gold_answers(doc.get_golds(), self.task)
        question = getattr(doc, "query", None)
        found = [
            answer_of(text or "", self.task, choices=choices) for text in model_response.final_text
        ]
        verdicts = [self._verdict(e.answer, golds, choices, question) for e in found]
        scores = [1.0 if v is not None and v.correct else 0.0 for v in verdicts]
        if doc.specific is None:
            doc.specific = {}
        doc.specific["extracted_predictions"] = [e.answer or "" for e in found]
        doc.specific["extracted_golds"] = golds
        doc.specific["answerx_methods"] = [e.method for e in found]
        doc.specific["answerx_matched_golds"] = [
            (v.matched_gold or "") if v is not None else "" for v in verdicts
        ]
        return self.aggregation_function(scores) if scores else 0.0


def make_answerx_metric(task: str = "auto", metric_name: str = "answerx") -> Any:
    """A lighteval ``SampleLevelMetric`` grading with answerx for ``task`` (mean over docs)."""
    import numpy as np
    from lighteval.metrics.metrics_sample import SampleLevelComputation
    from lighteval.metrics.utils.metric_utils import SampleLevelMetric
    from lighteval.tasks.requests import SamplingMethod

    # lighteval dispatches on isinstance(SampleLevelComputation): the class joins it here,
    # so this module still imports without lighteval.
    computation = type("AnswerxMatch", (AnswerxMatch, SampleLevelComputation), {})(task)
    return SampleLevelMetric(
        metric_name=metric_name,
        sample_level_fn=computation,
        category=SamplingMethod.GENERATIVE,
        corpus_level_fn=np.mean,
        higher_is_better=True,
    )


# --- the answerx task variants (``--custom-tasks answerx.integrations.lighteval``) -------

_MATH_PROMPT = (
    "Solve the following problem step by step. Put your final answer in \\boxed{{}}.\n\n{problem}"
)
_GPQA_PROMPT = (
    "Answer the following multiple choice question. Think step by step, then finish with "
    "'The answer is (X)' where X is one of ABCD.\n\n{question}\n\n"
    "A) {A}\nB) {B}\nC) {C}\nD) {D}"
)


def gsm8k_prompt(line: dict[str, Any], task_name: str | None = None) -> Any:
    """A GSM8K row as a lighteval Doc; the gold is the number after ``####``."""
    from lighteval.tasks.requests import Doc

    return Doc(
        task_name=task_name,
        query=f"Question: {line['question']}\nAnswer: Let's think step by step.",
        choices=[line["answer"].split("####")[-1].strip()],
        gold_index=0,
    )


def math_500_prompt(line: dict[str, Any], task_name: str | None = None) -> Any:
    """A MATH-500 row as a lighteval Doc; the gold is the dataset's ``answer``."""
    from lighteval.tasks.requests import Doc

    return Doc(
        task_name=task_name,
        query=_MATH_PROMPT.format(problem=line["problem"]),
        choices=[line["answer"]],
        gold_index=0,
    )


def gpqa_prompt(line: dict[str, Any], task_name: str | None = None) -> Any:
    """A GPQA row as a lighteval Doc with its four options in a fixed, seeded order.

    The order is seeded by the question text, so a rerun asks the same question the same
    way (lighteval's own gpqa draws the gold position with the unseeded global random).
    """
    import random

    from lighteval.tasks.requests import Doc

    options = [
        line["Incorrect Answer 1"],
        line["Incorrect Answer 2"],
        line["Incorrect Answer 3"],
        line["Correct Answer"],
    ]
    options = [str(o).strip() for o in options]
    gold = options[3]
    random.Random(line["Question"]).shuffle(options)
    lettered = dict(zip("ABCD", options, strict=True))
    return Doc(
        task_name=task_name,
        query=_GPQA_PROMPT.format(question=line["Question"].strip(), **lettered),
        choices=options,
        gold_index=options.index(gold),
    )


def local_mc_prompt(line: dict[str, Any], task_name: str | None = None) -> Any:
    """A bundled multiple-choice item as a lighteval Doc: lettered options in the query."""
    from lighteval.tasks.requests import Doc

    options = [str(o) for o in line["choices"]]
    lettered = "\n".join(f"({'ABCD'[i]}) {o}" for i, o in enumerate(options))
    return Doc(
        task_name=task_name,
        query=f"{line['question']}\n{lettered}\nFinish with 'The answer is (X)'.",
        choices=options,
        gold_index="ABCD".index(line["answer"]),
    )


def _local_tasks() -> list[Any]:
    # answerx's bundled items (answerx.integrations.local_data), read from their folders
    # with datasets' JSON loader: no Hub, no network.
    from lighteval.tasks.lighteval_task import LightevalTaskConfig

    from answerx.integrations.local_data import local_path

    kinds = (
        ("gsm8k", gsm8k_prompt, "numeric"),
        ("math", math_500_prompt, "math"),
        ("multiple_choice", local_mc_prompt, "multiple_choice"),
    )
    return [
        LightevalTaskConfig(
            name=f"answerx_local_{name}",
            prompt_function=prompt,
            hf_repo=str(local_path(name).parent),
            hf_subset="default",
            hf_avail_splits=["test"],
            evaluation_splits=["test"],
            few_shots_split=None,
            few_shots_select=None,
            generation_size=1024,
            stop_sequence=[],
            metrics=[make_answerx_metric(task)],
            version=0,
        )
        for name, prompt, task in kinds
    ]


def _tasks() -> list[Any]:
    from lighteval.tasks.lighteval_task import LightevalTaskConfig

    common: dict[str, Any] = {
        "few_shots_split": None,
        "few_shots_select": None,
        "version": 0,
    }
    return [
        LightevalTaskConfig(
            name="gsm8k_answerx",
            prompt_function=gsm8k_prompt,
            hf_repo="openai/gsm8k",
            hf_subset="main",
            hf_avail_splits=["train", "test"],
            evaluation_splits=["test"],
            generation_size=1024,
            stop_sequence=["Question:"],
            metrics=[make_answerx_metric("numeric")],
            **common,
        ),
        LightevalTaskConfig(
            name="math_500_answerx",
            prompt_function=math_500_prompt,
            hf_repo="HuggingFaceH4/MATH-500",
            hf_subset="default",
            hf_avail_splits=["test"],
            evaluation_splits=["test"],
            generation_size=32768,
            stop_sequence=[],
            metrics=[make_answerx_metric("math")],
            **common,
        ),
        LightevalTaskConfig(
            name="gpqa_diamond_answerx",
            prompt_function=gpqa_prompt,
            hf_repo="Idavidrein/gpqa",
            hf_subset="gpqa_diamond",
            hf_avail_splits=["train"],
            evaluation_splits=["train"],
            generation_size=32768,
            stop_sequence=[],
            metrics=[make_answerx_metric("multiple_choice")],
            **common,
        ),
    ]


try:
    import lighteval  # noqa: F401  (only whether it is there)
except ImportError:
    TASKS_TABLE: list[Any] = []
    answerx_metric: Any = None
else:
    answerx_metric = make_answerx_metric()
    TASKS_TABLE = _tasks() + _local_tasks()
