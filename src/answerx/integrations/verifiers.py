"""answerx for Prime Intellect's ``verifiers``: a Parser and a Rubric reward function.

For the Parser/Rubric API (verifiers 0.1 to 0.3, ``vf.Parser``, ``vf.Rubric``)::

    import verifiers as vf
    from answerx.integrations.verifiers import AnswerxParser, answerx_reward

    parser = AnswerxParser(task="math")
    rubric = vf.Rubric(funcs=[answerx_reward], parser=parser)

``AnswerxParser.parse`` is :func:`answerx.extract`'s answer (so
``parse_answer`` reads the last assistant message with answerx's rules);
``answerx_reward`` is an individual reward function: the Rubric passes it
``completion``, ``answer``, ``info`` and its ``parser``: the reward reads with
the parser's task, options and numbers, each overridden by the row's
``info["answerx"]`` (``{"task": ..., "choices": ..., "numbers": ...,
"question": ...}``) where it has one, and returns 1.0 or 0.0, leaving the full
verdict in ``state["answerx"]``. verifiers 0.3 reads ``info["task"]`` itself (a
task payload of its own, a JSON object: ``"multiple_choice"`` there stops its
rollout), so answerx's per-row task lives under ``info["answerx"]``;
``info["choices"]`` and ``info["numbers"]`` are read too, and ``info["task"]``
where it is an answerx task name (verifiers 0.1 and 0.2). How the rollout ended
comes from the state: truncated at the token limit (``is_truncated``) is
``finish_reason="length"``, a completed rollout ``stop``.
``answerx_extracted`` (1.0 when an answer was stated) suits ``rubric.add_metric``.
verifiers 0.4 keeps only its ``verifiers.v1`` stack, which has no Parser (see
the README). The class is built on first use, so this module imports without
verifiers.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from answerx.errors import ConfigError
from answerx.extraction import extract
from answerx.extraction.models import TASKS, Task
from answerx.extraction.tasks import check_task
from answerx.grading import Verdict
from answerx.grading.rewards import RewardRow, judge_rows, prompt_question, row_from_label
from answerx.integrations.trl import completion_text

# AnswerxParser is built on first access (module __getattr__), when verifiers is imported.
__all__ = [  # noqa: F822
    "AnswerxParser",
    "answerx_extracted",
    "answerx_reward",
    "reward_row",
    "rollout_finish_reason",
]


def reward_row(
    answer: Any,
    info: Mapping[str, Any] | None,
    parser: Any = None,
    prompt: Any = None,
    finish_reason: str | None = None,
) -> RewardRow:
    """The row a completion is graded on: the Rubric's :class:`AnswerxParser` gives the
    task, options and numbers; the row's ``info`` overrides each one it holds, and
    ``info["answerx"]`` each one it holds in turn. ``answer`` may be a list of accepted
    answers; the question is ``info["question"]``, else the last user message of
    ``prompt``."""
    options: dict[str, Any] = {
        "task": "auto", "choices": None, "numbers": None, "question": prompt_question(prompt)
    }  # fmt: skip
    if callable(getattr(parser, "answerx_options", None)):
        options.update(parser.answerx_options())
    info = info if isinstance(info, Mapping) else {}
    own = info.get("answerx")
    for source in (info, own if isinstance(own, Mapping) else {}):
        options.update({k: v for k, v in source.items() if k in options and v is not None})
    # info["task"] may be verifiers' own task payload (a dict, or a JSON object's text):
    # only an answerx task name is answerx's
    task = options["task"] if options["task"] in TASKS else "auto"
    return row_from_label(
        {**options, "task": task, "answer": answer}, task=task, finish_reason=finish_reason
    )


def rollout_finish_reason(state: Any) -> str | None:
    """How a verifiers rollout ended: ``length`` when its state says it was truncated at
    the token limit, ``stop`` when it was completed untruncated, None when the state does
    not say (a hand-built state)."""
    if not isinstance(state, Mapping) or "is_truncated" not in state:
        return None
    if state.get("is_truncated"):
        return "length"
    return "stop" if state.get("is_completed", True) else None


def _verdict(
    completion: Any,
    answer: Any,
    info: Mapping[str, Any] | None,
    state: Any,
    parser: Any,
    prompt: Any = None,
) -> Verdict:
    row = reward_row(answer, info, parser, prompt, rollout_finish_reason(state))
    (verdict,) = judge_rows([completion_text(_assistant_only(completion))], [row])
    if isinstance(state, dict):
        # verifiers keeps the state of each rollout: the verdict travels with it.
        state["answerx"] = verdict.model_dump(mode="json", exclude={"extraction"})
    return verdict


def _assistant_only(completion: Any) -> Any:
    # verifiers' messages may be dicts or message objects with .role/.content.
    if isinstance(completion, Sequence) and not isinstance(completion, str):
        return [
            m if isinstance(m, Mapping) else {"role": getattr(m, "role", "assistant"),
                                               "content": getattr(m, "content", "")}
            for m in completion
        ]  # fmt: skip
    return completion


def answerx_reward(
    completion: Any,
    answer: Any,
    info: Mapping[str, Any] | None = None,
    state: Any = None,
    parser: Any = None,
    prompt: Any = None,
    **kwargs: Any,
) -> float:
    """1.0 when the completion's final answer is equivalent to ``answer`` (or to any of a
    list of accepted answers), else 0.0.

    Read with the Rubric's parser when it is an :class:`AnswerxParser` (its task,
    options and numbers), each overridden by the row's ``info`` where it has one; the
    Rubric's ``prompt`` gives the question.
    """
    return _verdict(completion, answer, info, state, parser, prompt).reward


def answerx_extracted(
    completion: Any,
    answer: Any = None,
    info: Mapping[str, Any] | None = None,
    parser: Any = None,
    **kwargs: Any,
) -> float:
    """1.0 when the completion states an answer at all (a metric, weight 0)."""
    row = reward_row(answer, info, parser)
    text = completion_text(_assistant_only(completion))
    found = extract(text, row.task, choices=row.choices, numbers=row.numbers).found
    return 1.0 if found else 0.0


_PARSER: type | None = None


def _parser_class() -> type:
    global _PARSER
    if _PARSER is not None:
        return _PARSER
    try:
        base = importlib.import_module("verifiers").Parser
    except (ImportError, AttributeError):
        raise ConfigError(
            "AnswerxParser needs verifiers with its Parser API (0.1 to 0.3): "
            "pip install 'verifiers<0.4'"
        ) from None

    class AnswerxParser(base):  # type: ignore[misc, valid-type]
        """A verifiers Parser whose ``parse`` is answerx's extraction (the final answer)."""

        def __init__(
            self,
            task: Task | str = "auto",
            *,
            choices: Sequence[str] | None = None,
            numbers: Sequence[int | float] | None = None,
        ) -> None:
            super().__init__()
            self.task = check_task(task)
            self.choices = list(choices) if choices is not None else None
            self.numbers = list(numbers) if numbers is not None else None

        def parse(self, text: str) -> str | None:
            return extract(text, self.task, choices=self.choices, numbers=self.numbers).answer

        def answerx_options(self) -> dict[str, Any]:
            """The task, options and numbers answerx_reward grades with."""
            return {"task": self.task, "choices": self.choices, "numbers": self.numbers}

        def get_format_reward_func(self) -> Any:
            parser = self

            def format_reward_func(completion: Any, **kwargs: Any) -> float:
                """1.0 when the completion states a final answer answerx can read."""
                return 1.0 if parser.parse_answer(completion) is not None else 0.0

            return format_reward_func

    AnswerxParser.__module__ = __name__
    _PARSER = AnswerxParser
    return AnswerxParser


def __getattr__(name: str) -> Any:
    if name == "AnswerxParser":
        return _parser_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
