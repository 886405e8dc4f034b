"""Verdicts as RL rewards: one reward row per rollout, shared by every trainer's plug-in.

The trainers hand over the same things in different shapes: verl numpy object
arrays of dicts holding numpy scalars, OpenRLHF a label column that may hold a
JSON object, TRL one list per dataset column. Each plug-in turns its shape into
:class:`RewardRow` s (the gold, the task, the options, the puzzle numbers and
whether the response was cut off) and :func:`judge_rows` grades them in one
``verify_batch`` call, so every reward reads a row the same way.

Trainers such as OpenRLHF hand over the whole rollout text — chat template,
prompt, response and special tokens — where grading needs the response alone:
:func:`strip_prompt`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from answerx.errors import InputError
from answerx.extraction.models import Task
from answerx.extraction.tasks import check_task
from answerx.grading.batch import verify_batch
from answerx.grading.golds import Golds, check_finite_gold
from answerx.grading.models import REASONS, Verdict

__all__ = [
    "GOLD_FIELDS",
    "LabelFields",
    "RewardRow",
    "ended_on_special_token",
    "judge_rows",
    "label_object",
    "plain",
    "prompt_question",
    "reward_gold",
    "reward_logs",
    "reward_verdicts",
    "row_from_label",
    "rows_of",
    "strip_prompt",
]

# Chat-template tokens: <|im_end|>, <|eot_id|>, <|endoftext|>, DeepSeek's <｜end▁of▁sentence｜>,
# Llama 2's </s> and [INST], Gemma's <end_of_turn>. <think> and <answer> are not among them.
_SPECIAL = re.compile(
    r"<[|｜][^<>\n]{1,60}?[|｜]>|</?s>|<(?:eos|bos|pad|unk)>|<(?:start|end)_of_turn>(?:model|user)?"
    r"|\[/?INST\]"
)
# A rollout text that ends on one of them ended with the model's own end-of-turn token: it
# stopped, it was not cut off (OpenRLHF's queries keep the special tokens).
_ENDS_ON_SPECIAL = re.compile(rf"(?:{_SPECIAL.pattern})\s*\Z")
_ROLE_HEADER = re.compile(r"\A(?:assistant|model)\s*\n")
# A chat template's turn header once its special tokens are gone: "user\n", "<start_of_turn>user".
_TURN = re.compile(r"(?m)^(system|user|assistant|model)[ \t]*$")

#: Keys a label object (a dict in the label column) may keep its gold answer under, in the
#: order tried: answerx's own, verl's reward-model dict, the usual dataset column names.
GOLD_FIELDS: Final = ("answer", "ground_truth", "gold", "solution", "label", "target")


class RewardRow(BaseModel):
    """What grading one rollout needs besides the response text."""

    model_config = ConfigDict(frozen=True)

    gold: Golds = Field(
        description="The gold answer, or a list of accepted answers (any one is right); None "
        "when the row has none (unjudged)."
    )
    task: Task = Field(default="auto", description="The kind of answer; 'auto' reads the gold.")
    choices: list[str] | None = Field(default=None, description="Option texts, if any.")
    numbers: list[int | float] | None = Field(default=None, description="game24's numbers.")
    finish_reason: str | None = Field(
        default=None, description="'length' when the response was cut off at the token limit."
    )
    question: str | None = Field(
        default=None,
        description="The question the rollout answers, when the trainer has it (short "
        "answers: a surname is right for a person asked for).",
    )


class LabelFields(BaseModel):
    """Where a label object keeps the row's task, options and numbers.

    ``gold`` None tries :data:`GOLD_FIELDS` in order.
    """

    model_config = ConfigDict(frozen=True)

    gold: str | None = None
    task: str = "task"
    choices: str = "choices"
    numbers: str = "numbers"
    question: str = "question"


def plain(value: Any) -> Any:
    """``value`` with numpy scalars and arrays made Python values (``tolist``), recursively
    inside dicts, lists and tuples; anything else as it is.

    verl keeps its non-tensor batch as numpy object arrays, so a row's ``extra_info`` is a
    dict whose values may be ``np.int64`` or ``np.ndarray``: grading must see ``int`` and
    ``list``. Duck-typed, so numpy is never imported here.
    """
    if isinstance(value, str | bytes | bool | int | float) or value is None:
        return value.decode() if isinstance(value, bytes) else value
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    tolist = getattr(value, "tolist", None)
    if callable(tolist):  # numpy scalar or array, torch tensor
        return plain(tolist())
    return value


def rows_of(values: Any, n: int, name: str) -> list[Any]:
    """``values`` as a list of ``n`` plain items: a list, a tuple, a numpy array (of any
    dtype) or any other sequence; None is ``n`` Nones. A wrong length is an InputError."""
    if values is None:
        return [None] * n
    if isinstance(values, str | bytes | Mapping):
        raise InputError(f"{name}: expected one value per rollout, not one {type(values).__name__}")
    items = [plain(v) for v in values]
    if len(items) != n:
        raise InputError(f"{name}: {len(items)} values for {n} rollouts; one per rollout is needed")
    return items


def reward_gold(value: Any) -> Golds:
    """The gold answer of a label as grading takes it: one answer, or a list of accepted
    answers (aliases: any one is right, ``Verdict.matched_gold`` says which).

    A verl reward-model dict (``{"ground_truth": ...}``) gives its ground truth; a list
    (or a numpy array) stays a list, of texts and numbers; an empty list is no gold.

    >>> reward_gold({"ground_truth": ["Paris", "City of Light"]}), reward_gold(72)
    (['Paris', 'City of Light'], 72)
    """
    value = plain(value)
    while isinstance(value, Mapping):
        value = next((value[k] for k in GOLD_FIELDS if k in value), None)
    if isinstance(value, list):
        golds = [_one_gold(v) for v in value]
        return golds or None
    return _one_gold(value)


def _one_gold(value: Any) -> str | int | float | None:
    if value is None or isinstance(value, str | int | float):
        return value
    return str(value)


def row_from_label(
    label: Any,
    *,
    task: Task | str = "auto",
    fields: LabelFields | None = None,
    finish_reason: str | None = None,
    question: str | None = None,
) -> RewardRow:
    """The reward row of one label: a gold answer (or a list of accepted answers) as it
    is, or a label object (a dict: OpenRLHF's label column holding JSON objects) carrying
    the gold and, per row, its ``task``, ``choices``, ``numbers`` and ``question`` under
    the names ``fields`` gives.

    A task in the label overrides ``task`` for that row; an unknown one is a ConfigError.
    ``question`` is the trainer's prompt, when it has one; a label's own wins.
    """
    fields = fields or LabelFields()
    label = label_object(label)
    if not isinstance(label, Mapping):
        return RewardRow(
            gold=reward_gold(label), task=check_task(task), finish_reason=finish_reason,
            question=question,
        )  # fmt: skip
    if fields.gold is not None:
        if fields.gold not in label:
            raise InputError(f"the label has no {fields.gold!r} field: {sorted(label)}")
        gold = reward_gold(label[fields.gold])
    else:
        gold = reward_gold(label)
    row_task = label.get(fields.task) or task
    return RewardRow(
        gold=gold,
        task=check_task(str(row_task)),
        choices=_options(label.get(fields.choices)),
        numbers=label.get(fields.numbers) or None,
        finish_reason=label.get("finish_reason", finish_reason),
        question=_text_or(label.get(fields.question), question),
    )


def label_object(label: Any) -> Any:
    """``label`` as a plain value, a label object stored as JSON text (a dataset column of
    strings: OpenRLHF's ``--label_key`` column, a Parquet file) read as the object it is.

    >>> label_object('{"answer": "42", "task": "numeric"}')
    {'answer': '42', 'task': 'numeric'}
    >>> label_object("{1, 2}")  # not JSON: a gold answer (a set) as it is
    '{1, 2}'
    """
    label = plain(label)
    if isinstance(label, str) and label.lstrip().startswith("{"):
        try:
            value = json.loads(label)
        except ValueError:
            return label
        if isinstance(value, dict):
            return value
    return label


def ended_on_special_token(text: str) -> bool:
    """Whether a rollout text ends on a chat template's end token (``<|im_end|>``,
    ``</s>``, ``<|eot_id|>``...): the model stopped there, so it was not cut off."""
    # Only the end can match: a 2,000-character response is not scanned whole.
    return _ENDS_ON_SPECIAL.search(text.rstrip()[-80:]) is not None


def _text_or(value: Any, default: str | None) -> str | None:
    return value if isinstance(value, str) and value.strip() else default


def _options(value: Any) -> list[str] | None:
    if isinstance(value, Mapping):  # ARC's {"text": [...], "label": [...]}
        value = value.get("text")
    if not value or isinstance(value, str):
        return None
    return [str(option) for option in value]


def judge_rows(responses: Sequence[Any], rows: Sequence[RewardRow]) -> list[Verdict]:
    """The verdict on each response against its row, in order (one ``verify_batch``)."""
    return verify_batch(
        list(responses),
        [row.gold for row in rows],
        task=[row.task for row in rows],
        choices=[row.choices for row in rows],
        numbers=[row.numbers for row in rows],
        finish_reasons=[row.finish_reason for row in rows],
        questions=[row.question for row in rows],
    )


def strip_prompt(query: str, prompt: str) -> str:
    """The response part of a rollout: what follows the prompt, special tokens out.

    >>> strip_prompt("<|im_start|>user\\nWhat is 2+2?<|im_end|>\\n<|im_start|>assistant\\n"
    ...              "It is 4.<|im_end|>", "<|im_start|>user\\nWhat is 2+2?<|im_end|>\\n")
    'It is 4.'
    """
    if prompt and query.startswith(prompt):
        query = query[len(prompt) :]
    elif prompt and prompt in query:  # a tokenizer round trip may change the text before it
        query = query[query.rindex(prompt) + len(prompt) :]
    return _ROLE_HEADER.sub("", _SPECIAL.sub("", query).strip())


def prompt_question(prompt: Any) -> str | None:
    """The question a rollout answers, read from the trainer's prompt: the last user turn of
    a conversation (a list of messages), or of a chat-templated text (its special tokens and
    turn headers out); None when there is none.

    >>> prompt_question("<|im_start|>system\\nBe brief.<|im_end|>\\n<|im_start|>user\\n"
    ...                 "Who wrote Hamlet?<|im_end|>\\n<|im_start|>assistant\\n")
    'Who wrote Hamlet?'
    >>> prompt_question([{"role": "user", "content": "Capital of France?"}])
    'Capital of France?'
    """
    prompt = plain(prompt)
    if isinstance(prompt, Mapping):
        prompt = [prompt]
    if isinstance(prompt, list):
        turns = [m for m in prompt if isinstance(m, Mapping)]
        asked = [m for m in turns if m.get("role") == "user"] or turns
        content = asked[-1].get("content") if asked else None
        if isinstance(content, list):  # multimodal parts: their text
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
        return _text_or(content, None)
    if not isinstance(prompt, str):
        return None
    text = _SPECIAL.sub("\n", prompt)
    parts = _TURN.split(text)  # [before, header, turn, header, turn, ...]
    if len(parts) > 1:
        users = [turn for header, turn in zip(parts[1::2], parts[2::2], strict=True)
                 if header == "user"]  # fmt: skip
        text = users[-1] if users else parts[-1]
    return _text_or(text.strip(), None)


def reward_verdicts(
    queries: Sequence[str],
    prompts: Sequence[str] | None,
    labels: Sequence[Any],
    *,
    task: Task | str = "auto",
    fields: LabelFields | None = None,
    metas: Sequence[Any] | None = None,
    max_golds: int | None = None,
) -> list[Verdict]:
    """The verdict on the response of each rollout against its label, in order.

    ``labels`` hold gold answers or label objects (:func:`row_from_label`), as objects
    or JSON text (:func:`label_object`); a query that ends on an end-of-turn token
    stopped there (``finish_reason="stop"``, unless its label or meta says otherwise); ``metas``
    (one dict per rollout, the per-sample metadata some OpenRLHF versions send) may carry
    a row's task, options and numbers too, which its label object overrides. A gold that
    is NaN or ±Infinity, or a list of more than ``max_golds`` accepted answers, raises
    InputError naming its ``labels[i]`` (before any grading: each alias costs a match).
    """
    check_task(task)
    fields = fields or LabelFields()
    n = len(queries)
    prompts = [""] * n if prompts is None else rows_of(prompts, n, "prompts")
    rows = [
        row_from_label(
            _with_meta(label_object(label), meta, fields), task=task, fields=fields,
            question=prompt_question(prompt),
            finish_reason="stop" if ended_on_special_token(str(query)) else None,
        )
        for label, meta, prompt, query in zip(
            rows_of(labels, n, "labels"), rows_of(metas, n, "metas"), prompts, queries,
            strict=True,
        )
    ]  # fmt: skip
    for i, row in enumerate(rows):  # named as the caller knows them, not as golds[i]
        check_finite_gold(row.gold, f"labels[{i}]", row.task)
        if max_golds is not None and isinstance(row.gold, list) and len(row.gold) > max_golds:
            raise InputError(
                f"labels[{i}] lists {len(row.gold)} accepted answers; at most {max_golds}"
            )
    responses = [strip_prompt(q, p or "") for q, p in zip(queries, prompts, strict=True)]
    return judge_rows(responses, rows)


def _with_meta(label: Any, meta: Any, fields: LabelFields) -> Any:
    if not isinstance(meta, Mapping):
        return label
    keys = (fields.task, fields.choices, fields.numbers, fields.question, "finish_reason")
    merged = {k: meta[k] for k in keys if k in meta}
    if not merged:
        return label
    base = label if isinstance(label, Mapping) else {fields.gold or "answer": label}
    return {**merged, **base}


def reward_logs(verdicts: Sequence[Verdict]) -> dict[str, float]:
    """``answerx_extraction_rate``, ``answerx_unfinished_rate`` (responses cut off at the
    token limit or inside ``<think>``) and ``answerx_<reason>`` (the share of each reason).
    """
    n = max(len(verdicts), 1)
    counts = Counter[str](v.reason for v in verdicts)
    logs = {
        "answerx_extraction_rate": sum(v.answer is not None for v in verdicts) / n,
        "answerx_unfinished_rate": sum(_unfinished(v) for v in verdicts) / n,
    }
    logs.update({f"answerx_{reason}": counts.get(reason, 0) / n for reason in REASONS})
    return logs


def _unfinished(verdict: Verdict) -> bool:
    return verdict.reason == "unfinished" or bool(
        verdict.extraction is not None and verdict.extraction.unfinished
    )
