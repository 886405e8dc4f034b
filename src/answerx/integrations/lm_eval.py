"""answerx inside lm-evaluation-harness: the ``answerx`` filter and the ``answerx_verify`` metric.

In a task's YAML, the filter replaces each model response with the answer answerx finds
in it, and the metric grades that answer against the target with ``answerx.grade`` (so
``29.00`` equals ``29`` and ``\\frac{1}{2}`` equals ``0.5``)::

    filter_list:
      - name: answerx
        filter:
          - function: !function answerx.integrations.lm_eval.AnswerxFilter
            task: numeric            # answerx task; "auto" detects it
            # choices_field: options # the doc field(s) with the option texts
            # fallback: auto         # answerx's last-resort rules: auto | always | never
          - function: take_first
    metric_list:
      - metric: !function answerx.integrations.lm_eval.answerx_verify
        aggregation: mean
        higher_is_better: true
        task: numeric

The ``!function`` form works with every lm-eval release, in a plain ``lm_eval`` command.
By name (``function: answerx``, ``metric: answerx_verify``) the two are found where
answerx is imported in lm-eval's process: through ``answerx lm-eval ...`` (:func:`launch`,
lm-eval's own command line with both names registered and answerx's tasks on the include
path), in Python after ``import answerx.integrations.lm_eval``, and in lm-eval releases
with its plug-in registry (the ``lm_eval.filters`` / ``lm_eval.metrics`` entry points,
after 0.4.13), which answerx declares. lm-eval 0.4.13 itself has no plug-in discovery.

Ready-made tasks (``lm_eval --include_path <answerx>/config/integrations/lm_eval``, or
through ``answerx lm-eval``): ``answerx_local`` (twelve bundled items, offline), the Hub
tasks tagged ``answerx`` (gsm8k, MATH-500, MMLU-Pro) and GPQA (gated, tag ``answerx_gated``).

This module imports without lm-eval installed; the filter keeps lm-eval's filter contract
(``apply(resps, docs)`` returns the responses in the same shape and order), which is all
lm-eval asks of a filter.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerx.integrations._common import (
    answer_of,
    check_fallback,
    check_task,
    choices_from,
    grade_answer,
    question_text,
)

if TYPE_CHECKING:
    from answerx.grading import Verdict

__all__ = [
    "GOLD_FIELDS",
    "NO_ANSWER",
    "QUESTION_FIELDS",
    "AnswerxFilter",
    "answerx_verify",
    "launch",
    "process_results",
    "process_results_qa",
    "task_dir",
]

_log = logging.getLogger(__name__)

NO_ANSWER = "[invalid]"
"""What the filter puts where no answer was found: lm-eval's own regex filters' placeholder."""


class AnswerxFilter:
    """lm-eval filter: each response becomes the final answer answerx extracts from it.

    Options (the YAML keys next to ``function``): ``task`` (an answerx task, default
    ``"auto"``), ``choices_field`` (the doc field with the option texts, or a list of
    fields with one option each; default ``choices`` then ``options``), ``numbers_field``
    (the doc field with a Game-of-24 puzzle's numbers), ``fallback`` (answerx's
    last-resort rules: ``auto``, ``always`` or ``never``) and ``no_answer`` (the
    placeholder for "no answer found", default ``[invalid]``).
    """

    def __init__(
        self,
        task: str = "auto",
        choices_field: str | Sequence[str] | None = None,
        numbers_field: str | None = None,
        fallback: str = "auto",
        no_answer: str = NO_ANSWER,
        **unknown: Any,
    ) -> None:
        if unknown:
            # lm-eval hands every YAML key to the filter: a typo must not pass silently.
            raise TypeError(
                f"AnswerxFilter got unknown option(s) {sorted(unknown)}; valid: task, "
                "choices_field, numbers_field, fallback, no_answer"
            )
        self.task = check_task(task)
        self.choices_field = choices_field
        self.numbers_field = numbers_field
        self.fallback = check_fallback(fallback)
        self.no_answer = no_answer

    def apply(self, resps: Iterable[Any], docs: Sequence[Mapping[str, Any]]) -> list[Any]:
        """One list per document, in the input order: each response replaced by its answer.

        A document's responses are usually a list (one per repeat); a bare string (after
        ``take_first``) stays a bare string.
        """
        resps = list(resps)
        if len(resps) != len(docs):
            raise ValueError(f"{len(resps)} response lists for {len(docs)} documents")
        return [self._answers(item, doc) for item, doc in zip(resps, docs, strict=True)]

    def _answers(self, item: Any, doc: Mapping[str, Any]) -> Any:
        choices = choices_from(doc, self.choices_field)
        numbers = doc[self.numbers_field] if self.numbers_field else None
        if isinstance(item, str):
            return self._answer(item, choices, numbers)
        return [self._answer(response, choices, numbers) for response in item]

    def _answer(
        self, response: Any, choices: list[str] | None, numbers: Sequence[float] | None
    ) -> str:
        if not isinstance(response, str):
            # An API model whose reply was blocked gives None: no answer, not a crash.
            return self.no_answer
        found = answer_of(
            response, self.task, choices=choices, numbers=numbers, fallback=self.fallback
        )
        return found.answer if found.answer is not None else self.no_answer


def answerx_verify(
    references: Sequence[Any],
    predictions: Sequence[Any],
    task: str = "auto",
    no_answer: str = NO_ANSWER,
    **_: Any,
) -> float:
    """lm-eval metric: 1.0 when answerx grades the filtered answer equal to the target.

    lm-eval calls a generation metric with one reference and one prediction; the
    metric's YAML keys arrive as keyword arguments (``task``, ``no_answer``). A target
    that is a list (``doc_to_target`` returning NQ's or TriviaQA's aliases) is the
    accepted answers: any one is right. The metric never sees the document, so the
    question cannot reach grading here: :func:`process_results` grades with it.
    """
    check_task(task)
    gold, answer = references[0], predictions[0]
    if isinstance(answer, (list, tuple)):  # the filter pipeline kept every repeat
        answer = answer[0] if answer else None
    if not isinstance(answer, str) or answer == no_answer:
        return 0.0
    return 1.0 if grade_answer(answer, _gold(gold), task).correct else 0.0


#: Document fields tried for the gold answer(s) and the question by :func:`process_results`.
GOLD_FIELDS = ("answers", "answer", "aliases", "target", "gold", "solution")
QUESTION_FIELDS = ("question", "problem", "query", "input")


def process_results(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, float]:
    """lm-eval ``process_results``: ``{"answerx_verify": 1.0 | 0.0}``, graded with the
    document's question (``process_results: !function
    answerx.integrations.lm_eval.process_results``, after the ``answerx`` filter).

    The gold is the document's ``answers``, ``answer``, ``aliases``, ``target``, ``gold`` or
    ``solution`` field (the first present; TriviaQA's ``{"aliases": [...]}`` gives its
    aliases, a list gives accepted answers, GSM8K's ``... #### 72`` its number); the question
    is its ``question``, ``problem``, ``query`` or ``input`` field. The task is ``auto``.
    """
    verdict = _doc_verdict(doc, results)
    return {"answerx_verify": 1.0 if verdict is not None and verdict.correct else 0.0}


def process_results_qa(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, float]:
    """:func:`process_results` with the measures QA work reports beside the verdict:
    ``answerx_verify``, ``answerx_em``, ``answerx_f1``, ``answerx_cover`` (0.0 where the
    item is not a short answer). The task's ``metric_list`` names all four."""
    verdict = _doc_verdict(doc, results)
    scores = verdict.scores if verdict is not None else None
    return {
        "answerx_verify": 1.0 if verdict is not None and verdict.correct else 0.0,
        "answerx_em": scores.em if scores is not None else 0.0,
        "answerx_f1": scores.f1 if scores is not None else 0.0,
        "answerx_cover": scores.cover if scores is not None else 0.0,
    }


def _doc_verdict(doc: Mapping[str, Any], results: Sequence[Any]) -> Verdict | None:
    answer = results[0] if results else None
    if isinstance(answer, (list, tuple)):
        answer = answer[0] if answer else None
    field = next((name for name in GOLD_FIELDS if doc.get(name) is not None), None)
    if field is None:
        raise ValueError(f"the document has none of the gold fields {GOLD_FIELDS}: {sorted(doc)}")
    gold = _gold(doc[field])
    if isinstance(gold, str) and "####" in gold:  # GSM8K's reference solution
        gold = gold.split("####")[-1].strip()
    question = next((doc[n] for n in QUESTION_FIELDS if isinstance(doc.get(n), str)), None)
    text = answer if isinstance(answer, str) and answer != NO_ANSWER else ""
    return grade_answer(text, gold, question=question_text(question))


# Where an answer object keeps its gold: TriviaQA's aliases and value, then the names
# answerx's rewards read (answerx.grading.rewards.GOLD_FIELDS).
_ANSWER_KEYS = ("aliases", "value", "answer", "ground_truth", "gold", "solution", "label", "target")


def _gold(value: Any) -> Any:
    """A target as grading takes it: TriviaQA's answer object gives its aliases (else its
    ``value``, else a gold under the usual keys), a list its accepted answers, a number
    itself, other values their text. None, and an object with no gold inside, stay None
    (no gold: never the text ``"None"``, which an answer "None" would match)."""
    if isinstance(value, Mapping):
        value = next((value[k] for k in _ANSWER_KEYS if value.get(k) is not None), None)
    if isinstance(value, list | tuple):
        golds = [_one(v) for v in value if v is not None]
        return golds or None
    return None if value is None else _one(value)


def _one(value: Any) -> Any:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else str(value)


def task_dir() -> Path:
    """The folder of answerx's ready-made lm-eval tasks, for ``lm_eval --include_path``."""
    from answerx.support.resources import data_file

    # data_file finds files, so ask for one of the tasks and return its folder.
    return data_file("config/integrations/lm_eval/gsm8k_cot_answerx.yaml").parent


def launch(argv: Sequence[str]) -> None:
    """lm-eval's own command line (``lm-eval run ...``, ``ls``, ``validate``) with answerx's
    filter and metric registered by name and its tasks on the include path.

    ``answerx lm-eval ARGS`` runs this: a YAML that names ``function: answerx`` or
    ``metric: answerx_verify`` works (lm-eval 0.4.13 finds neither unless answerx was
    imported in its process), and ``--tasks answerx_local`` needs no ``--include_path``.
    A user's own ``--include_path`` is searched after answerx's, so its tasks win on a
    name clash. Raises SystemExit with lm-eval's status, as its command does.
    """
    try:
        from lm_eval._cli import HarnessCLI
        from lm_eval.utils import setup_logging
    except ImportError:
        from answerx.errors import ConfigError

        raise ConfigError("answerx lm-eval needs lm-eval: pip install 'answerx[lm-eval]'") from None
    _register()
    old_argv = sys.argv
    # lm-eval parses sys.argv itself (and inserts "run" when no subcommand is named).
    sys.argv = ["lm-eval", *argv]
    try:
        setup_logging()
        cli = HarnessCLI()
        args = cli.parse_args()
        if hasattr(args, "include_path"):
            ours = str(task_dir())
            # TaskManager takes a list of folders; lm-eval's option only one.
            args.include_path = [ours, args.include_path] if args.include_path else ours
        cli.execute(args)
    finally:
        sys.argv = old_argv


def _register() -> None:
    """Register ``answerx`` and ``answerx_verify`` by name when lm-eval is installed."""
    try:
        # lm_eval.api.metrics registers the built-in aggregations ("mean") ours refers to.
        from lm_eval.api import metrics, registry
    except ImportError:
        return
    del metrics
    if "answerx" not in registry.filter_registry:
        registry.register_filter("answerx")(AnswerxFilter)
    try:
        register = registry.register_metric(
            metric="answerx_verify", higher_is_better=True, aggregation="mean"
        )
        register(answerx_verify)
    except ValueError:
        # The name is held by another object (an older import of this module under a
        # different path): that one stays, as lm-eval's own registry would decide.
        _log.info("lm-eval metric 'answerx_verify' is already registered; kept the existing one")


_register()
