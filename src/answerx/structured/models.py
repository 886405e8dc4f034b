"""Response models for structured extraction: reasoning and final answer, one per approach.

Instructor sends each model's JSON schema to the LLM, so **class docstrings and
field descriptions are instructions to the model** (a class docstring becomes the
tool description). Notes for developers live here and in comments.

``answer_value`` is cleaned by :func:`answerx.extraction.cleaning.clean_answer` and
must not be empty. When a task is known it is also normalised by the
deterministic acceptor (:func:`answerx.extraction.tasks.make_acceptor`), so an
answer the LLM returns is written exactly as deterministic extraction writes it
("1,234.50" → "1234.5", "(B)" → "B", option text → its letter, "Yes." → "yes"),
and a value of the wrong shape fails validation, which makes Instructor re-ask
with the error message. The task comes from, in this order:

1. Pydantic's validation context: ``Model.model_validate_json(data, context={"task":
   "multiple_choice", "choices": [...], "numbers": [...]})``. Instructor forwards
   ``create(..., context=...)`` there, **but it also renders every message as a
   Jinja template with that context**, which mangles LaTeX ("\\frac{{a}}{b}" loses
   "{a}") and raises on "{#". Do not pass ``context=`` to Instructor with model
   output in the messages.
2. A task-bound model, ``get_extraction_model(approach, task=..., choices=...)``:
   the same class with the task baked in and the expected shape stated in the
   ``answer_value`` description. This is the way to use with Instructor.

Without either, only cleaning and the non-empty check apply.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Final, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)
from pydantic.config import JsonDict

from answerx.errors import ConfigError, UnknownName
from answerx.extraction.cleaning import clean_answer
from answerx.extraction.models import OPTION_LETTERS, option_letters
from answerx.extraction.spec import AnswerSpec
from answerx.structured.repairs import keep_answer_without

__all__ = [
    "REASONING_EXTRACTION_MODELS",
    "AnswerSpec",
    "AnyReasoningExtraction",
    "Approach",
    "ChainOfThoughtExtraction",
    "ChainOfVerificationExtraction",
    "DirectAnswerExtraction",
    "NoneReasoningExtraction",
    "ProgramOfThoughtExtraction",
    "ReasoningAsPlanningExtraction",
    "ReasoningExtraction",
    "ReflectionExtraction",
    "SkeletonOfThoughtExtraction",
    "ThoughtBranch",
    "TreeOfThoughtExtraction",
    "VerificationQA",
    "extraction_prompt_fields",
    "get_extraction_model",
    "ml_agents_clean",
]

Approach = Literal[
    "none",
    "chain_of_thought",
    "tree_of_thought",
    "program_of_thought",
    "reasoning_as_planning",
    "reflection",
    "chain_of_verification",
    "skeleton_of_thought",
]


# No example *values* in what the model reads (prompt, field descriptions, re-asks): the
# bundled 135M model, and Gemma 3 270M, copied "42.5" from "for example 4, yes, B, 42.5"
# into answer_value for "17 + 25 = 42. Therefore, the answer is 42." (bench/README.md,
# issue 18). Shapes are described in words instead.
_ANSWER_SHAPES: Final = "a number, a word, an option letter or a formula"
_ANSWER_VALUE_DESCRIPTION: Final = (
    f"Only the final answer value, nothing else ({_ANSWER_SHAPES}), copied from the output. "
    "Leave out phrases such as 'The answer is', surrounding $ signs, ** and \\boxed{}."
)
_CONFIDENCE_MESSAGE: Final = (
    "confidence {value!r} is outside [0, 1]. Write confidence as a number from 0 to 1, "
    "such as 0.9 (a fraction, not a percentage: 0.9, not 90)."
)
_EMPTY_ANSWER_MESSAGE: Final = (
    "answer_value is empty. Put the final answer value that the reasoning arrives at into "
    f"answer_value ({_ANSWER_SHAPES}), and the reasoning into full_reasoning_text."
)


# --------------------------------------------------------------------------- answer shape


def _context_spec(context: object) -> AnswerSpec | None:
    try:
        return AnswerSpec.from_context(context)
    except ConfigError as exc:
        # ConfigError is a ValueError, which Pydantic would turn into a validation
        # error and Instructor into a pointless re-ask; a TypeError propagates.
        raise TypeError(f"invalid extraction validation context: {exc}") from exc


# --------------------------------------------------------------------------- lenient inputs
# Small local models often write a list as one string, a number where text is
# expected, or wrap code in Markdown fences. These before-validators accept those
# shapes (Instructor validates in strict mode, which would reject them) so a call
# is not spent re-asking for a field that does not carry the answer.


def _as_text(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def _as_text_list(value: object) -> object:
    if value is None:
        return []
    if isinstance(value, str):
        return [line.strip() for line in value.splitlines() if line.strip()]
    if isinstance(value, list):
        return [_as_text(item) for item in value]
    return value


def _as_model_list(value: object) -> object:
    return [] if value is None else value


_FENCE = re.compile(r"^\s*```[\w+-]*[ \t]*\n(?P<code>.*?)\n?```\s*$", re.DOTALL)


def _strip_fences(value: object) -> object:
    if isinstance(value, str) and (m := _FENCE.match(value)):
        return m.group("code")
    return _as_text(value)


_Text = Annotated[str, BeforeValidator(_as_text)]
_TextList = Annotated[list[str], BeforeValidator(_as_text_list)]


def _confidence_schema(schema: JsonDict) -> None:
    """``confidence`` in the schema: a number in [0, 1], required (not ``anyOf`` null)."""
    description = schema.get("description")
    schema.clear()
    schema.update({"type": "number", "minimum": 0.0, "maximum": 1.0})
    if description is not None:
        schema["description"] = description


def _answer_last(schema: JsonDict) -> None:
    """Order the schema's properties so a generating model writes the reasoning
    and the approach's own fields before committing to the answer."""
    props = schema.get("properties")
    if isinstance(props, dict):
        late = ("answer_value", "confidence")
        order = sorted(props, key=lambda name: (name != "reasoning_type", name in late))
        schema["properties"] = {name: props[name] for name in order}


# --------------------------------------------------------------------------- base model


class ReasoningExtraction(BaseModel):
    """A response split into its reasoning and its final answer."""

    model_config = ConfigDict(json_schema_extra=_answer_last)

    #: The task a task-bound subclass enforces (see get_extraction_model); None: any answer.
    answer_spec: ClassVar[AnswerSpec | None] = None

    full_reasoning_text: _Text = Field(
        description=(
            "The complete reasoning, word for word: everything except the final answer value. "
            "Do not summarise or shorten it."
        )
    )
    # minLength only in the schema (servers that compile it to a grammar cannot emit
    # ""); the validator rejects empty values itself, with an instruction to the model.
    answer_value: str = Field(
        description=_ANSWER_VALUE_DESCRIPTION, json_schema_extra={"minLength": 1}
    )
    # None only when the model kept writing a number outside [0, 1] after the re-asks:
    # the answer is kept, the confidence recorded as missing (see _confidence_in_range).
    # The schema still asks for a number in [0, 1].
    confidence: float | None = Field(
        description=(
            "How confident you are that answer_value is right: a number from 0.0 (a guess) "
            "to 1.0 (certain), not a percentage."
        ),
        json_schema_extra=_confidence_schema,
    )

    @field_validator("answer_value", mode="before")
    @classmethod
    def _answer_from_scalar(cls, value: object) -> object:
        """A JSON number or boolean answer becomes its text (4 → "4", true → "yes")."""
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, int | float) and math.isfinite(value):
            return str(value)
        return value

    @field_validator("answer_value")
    @classmethod
    def _clean_answer_value(cls, value: str, info: ValidationInfo) -> str:
        """Clean the answer; with a task, normalise it and reject a wrong shape."""
        cleaned = clean_answer(value)
        if not cleaned:
            raise ValueError(_EMPTY_ANSWER_MESSAGE)
        spec = _context_spec(info.context) or cls.answer_spec
        if spec is None:
            return cleaned
        answer = spec.normalise(cleaned)
        if answer is None:
            raise ValueError(spec.rejection(cleaned))
        return answer

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence_from_text(cls, value: object) -> object:
        """Accept "0.9" and "90%" as written by small models."""
        if isinstance(value, str):
            text = value.strip()
            try:
                return float(text[:-1]) / 100 if text.endswith("%") else float(text)
            except ValueError:
                return value  # the float validation reports it
        return value

    @field_validator("confidence")
    @classmethod
    def _confidence_in_range(cls, value: float | None) -> float | None:
        """Reject a confidence outside [0, 1] with a message naming the bound (Instructor
        re-asks with it); on the last attempt of a manager call, keep the answer and
        record the confidence as missing instead of losing the whole object."""
        if value is None or 0.0 <= value <= 1.0:
            return value
        if keep_answer_without("confidence", value, "[0, 1]"):
            return None
        raise ValueError(_CONFIDENCE_MESSAGE.format(value=value))

    @model_validator(mode="before")
    @classmethod
    def _reasoning_type_spelling(cls, data: Any) -> Any:
        """Accept "Chain-of-Thought" or "chain of thought" for "chain_of_thought"."""
        if isinstance(data, dict) and isinstance(data.get("reasoning_type"), str):
            spelled = re.sub(r"[\s-]+", "_", data["reasoning_type"].strip().lower())
            if spelled != data["reasoning_type"]:
                data = {**data, "reasoning_type": spelled}
        return data


# --------------------------------------------------------------------------- per approach


class DirectAnswerExtraction(ReasoningExtraction):
    """A response that answers directly, split into its text and its final answer."""

    reasoning_type: Literal["none"] = Field(default="none", description='Always "none".')


class ChainOfThoughtExtraction(ReasoningExtraction):
    """Step-by-step reasoning split into its steps and its final answer."""

    reasoning_type: Literal["chain_of_thought"] = Field(
        default="chain_of_thought", description='Always "chain_of_thought".'
    )
    steps: _TextList = Field(
        default_factory=list,
        description="The reasoning steps in order, one short sentence or equation per item.",
    )


class ThoughtBranch(BaseModel):
    """One line of thought that the reasoning explored."""

    thought: _Text = Field(
        description="The idea or partial solution this branch tried, in a sentence or two."
    )
    evaluation: _Text = Field(
        default="",
        description=(
            "How the reasoning judged this branch, for example 'sure', 'likely', "
            "'impossible' or a score such as 0.8; empty if it did not say."
        ),
    )

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, data: Any) -> Any:
        """A bare string is a branch with no evaluation."""
        return {"thought": data} if isinstance(data, str) else data


class TreeOfThoughtExtraction(ReasoningExtraction):
    """Reasoning that explored several branches, split into the branches, the chosen
    one and the final answer."""

    reasoning_type: Literal["tree_of_thought"] = Field(
        default="tree_of_thought", description='Always "tree_of_thought".'
    )
    branches: Annotated[list[ThoughtBranch], BeforeValidator(_as_model_list)] = Field(
        default_factory=list,
        description="The branches of thought the reasoning explored, in the order it tried them.",
    )
    selected_branch: _Text = Field(
        default="",
        description=(
            "The thought of the branch the reasoning finally followed, as written in branches; "
            "empty if it chose none."
        ),
    )


class ProgramOfThoughtExtraction(ReasoningExtraction):
    """Reasoning written as a program, split into the code and the final answer."""

    reasoning_type: Literal["program_of_thought"] = Field(
        default="program_of_thought", description='Always "program_of_thought".'
    )
    code: Annotated[str, BeforeValidator(_strip_fences)] = Field(
        default="",
        description=(
            "The program the reasoning wrote, copied exactly, without Markdown ``` fences; "
            "empty if there is none."
        ),
    )


class ReasoningAsPlanningExtraction(ReasoningExtraction):
    """Reasoning that made a plan first, split into the plan and the final answer."""

    reasoning_type: Literal["reasoning_as_planning"] = Field(
        default="reasoning_as_planning", description='Always "reasoning_as_planning".'
    )
    plan: _TextList = Field(
        default_factory=list,
        description="The steps of the plan, in order, one short instruction per item.",
    )


class ReflectionExtraction(ReasoningExtraction):
    """Reasoning that reviewed its own first attempt, split into the critique, the
    corrections and the final answer."""

    reasoning_type: Literal["reflection"] = Field(
        default="reflection", description='Always "reflection".'
    )
    critique: _Text = Field(
        default="",
        description="What the review found wrong or doubtful in the first attempt; empty if none.",
    )
    corrections: _TextList = Field(
        default_factory=list,
        description="Each change made because of the critique, one per item; empty if none.",
    )


class VerificationQA(BaseModel):
    """One verification question and the answer the reasoning gave it."""

    question: _Text = Field(description="A question asked to check a claim of the draft answer.")
    answer: _Text = Field(default="", description="The answer the reasoning gave to that question.")

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, data: Any) -> Any:
        """A bare string is a question whose answer was not given."""
        return {"question": data} if isinstance(data, str) else data


class ChainOfVerificationExtraction(ReasoningExtraction):
    """Reasoning that checked a draft with verification questions, split into those
    questions with their answers and the final answer."""

    reasoning_type: Literal["chain_of_verification"] = Field(
        default="chain_of_verification", description='Always "chain_of_verification".'
    )
    verifications: Annotated[list[VerificationQA], BeforeValidator(_as_model_list)] = Field(
        default_factory=list,
        description="The verification questions in order, each with the answer it received.",
    )


class SkeletonOfThoughtExtraction(ReasoningExtraction):
    """Reasoning that first wrote an outline, split into the outline points and the
    final answer."""

    reasoning_type: Literal["skeleton_of_thought"] = Field(
        default="skeleton_of_thought", description='Always "skeleton_of_thought".'
    )
    skeleton_points: _TextList = Field(
        default_factory=list,
        description="The points of the outline, in order, a few words each.",
    )


# --------------------------------------------------------------------------- registry


class _ApproachModels(Mapping[str, type[ReasoningExtraction]]):
    """A read-only mapping of approach names to models that also finds a name written the
    ml-agents way (``chainofthought``, ``ChainOfThought``, ``chain-of-thought``): its
    registry keys are the lower-cased class names, answerx's are snake_case. Iterating
    gives answerx's names only, each once."""

    def __init__(self, models: Mapping[str, type[ReasoningExtraction]]) -> None:
        self._models = MappingProxyType(dict(models))
        self._spellings = {_squeezed(name): name for name in models}

    def __getitem__(self, name: str) -> type[ReasoningExtraction]:
        found = self._models.get(name)
        if found is None and isinstance(name, str):
            canonical = self._spellings.get(_squeezed(name))
            if canonical is not None:
                return self._models[canonical]
        if found is None:
            raise KeyError(name)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._models)

    def __len__(self) -> int:
        return len(self._models)

    def __repr__(self) -> str:
        return f"REASONING_EXTRACTION_MODELS({dict(self._models)!r})"


def _squeezed(name: str) -> str:
    return re.sub(r"[\s_-]+", "", name).lower()


REASONING_EXTRACTION_MODELS: Mapping[str, type[ReasoningExtraction]] = _ApproachModels(
    {
        "none": DirectAnswerExtraction,
        "chain_of_thought": ChainOfThoughtExtraction,
        "tree_of_thought": TreeOfThoughtExtraction,
        "program_of_thought": ProgramOfThoughtExtraction,
        "reasoning_as_planning": ReasoningAsPlanningExtraction,
        "reflection": ReflectionExtraction,
        "chain_of_verification": ChainOfVerificationExtraction,
        "skeleton_of_thought": SkeletonOfThoughtExtraction,
    }
)

#: ml-agents' name for the model of the ``none`` approach (a direct answer).
NoneReasoningExtraction = DirectAnswerExtraction

#: Any approach's model, told apart by ``reasoning_type`` (for reading stored records).
AnyReasoningExtraction = Annotated[
    DirectAnswerExtraction
    | ChainOfThoughtExtraction
    | TreeOfThoughtExtraction
    | ProgramOfThoughtExtraction
    | ReasoningAsPlanningExtraction
    | ReflectionExtraction
    | ChainOfVerificationExtraction
    | SkeletonOfThoughtExtraction,
    Field(discriminator="reasoning_type"),
]


def get_extraction_model(
    approach: str,
    *,
    task: str | None = None,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    spec: AnswerSpec | None = None,
    cleaning: Literal["answerx", "ml-agents"] = "answerx",
) -> type[ReasoningExtraction]:
    """The response model for ``approach``; bound to ``task`` when one is given
    (or to ``spec``'s task, unless it is ``auto``). ``approach`` may be spelled the
    ml-agents way too (``chainofthought``).

    A bound model is a cached subclass with the same name (so the same tool name)
    whose ``answer_value`` must have the task's shape and whose schema says so.
    An unknown approach or task raises :class:`ConfigError` listing the valid names.

    ``cleaning="ml-agents"`` gives the ml-agents Phase-15 model to the letter: only its
    seven prefixes are removed from ``answer_value`` (in its order), only an empty
    string is rejected (``"   "`` and ``"The answer is"`` clean to ``""``),
    ``confidence`` is a required number in [0, 1] (no ``None``, no ``"90%"``); no task
    shapes.
    """
    model = REASONING_EXTRACTION_MODELS.get(approach)
    if model is None:
        raise UnknownName(
            "approach", approach, REASONING_EXTRACTION_MODELS,
            listed="valid approaches",
        )  # fmt: skip
    if cleaning == "ml-agents":
        if task is not None or choices or numbers or (spec is not None and spec.task != "auto"):
            raise ConfigError("the ml-agents models have no task shapes: pass no task or spec")
        return _ml_agents_model(model)
    if cleaning != "answerx":
        raise UnknownName("cleaning", cleaning, ("answerx", "ml-agents"))
    if spec is not None:
        if task is not None or choices or numbers:
            raise ConfigError("pass spec= or task=/choices=/numbers=, not both")
        if spec.task == "auto":
            spec = None
    else:
        spec = _spec(task, choices, numbers)
    return model if spec is None else _bound_model(model, spec)


#: ml-agents' prefixes, in its order (each removed once, case-insensitively).
ML_AGENTS_PREFIXES: Final = (
    "the answer is", "answer:", "final answer:", "therefore,", "thus,", "so,", "hence,",
)  # fmt: skip


def ml_agents_clean(value: str) -> str:
    """ml-agents' ``clean_answer_value``, to the letter: empty → ``ValueError("Answer
    value cannot be empty")``; each of :data:`ML_AGENTS_PREFIXES` in turn is cut when the
    (stripped, lower-cased) value starts with it; the rest stripped.

    >>> ml_agents_clean("Therefore, the answer is 4"), ml_agents_clean("**7**")
    ('the answer is 4', '**7**')
    """
    if not value:
        raise ValueError("Answer value cannot be empty")
    clean = value.strip().lower()
    for prefix in ML_AGENTS_PREFIXES:
        if clean.startswith(prefix):
            # The spec slices the unstripped value: kept, to give its results exactly.
            value = value[len(prefix) :].strip()
            clean = value.lower()
    return value.strip()


@functools.cache
def _ml_agents_model(base: type[ReasoningExtraction]) -> type[ReasoningExtraction]:
    """``base`` with ml-agents' validation (see :func:`get_extraction_model`)."""

    class MlAgentsModel(base):  # type: ignore[valid-type,misc]
        confidence: float = Field(
            ge=0.0,
            le=1.0,
            description="Confidence that the answer_value is correctly extracted (0.0 to 1.0)",
        )

        # Same names as the base's validators: these replace them.
        @field_validator("answer_value")
        @classmethod
        def _clean_answer_value(cls, value: str, info: ValidationInfo) -> str:
            return ml_agents_clean(value)

        @field_validator("confidence", mode="before")
        @classmethod
        def _confidence_from_text(cls, value: object) -> object:
            return value

        @field_validator("confidence")
        @classmethod
        def _confidence_in_range(cls, value: float | None) -> float | None:
            return value

    MlAgentsModel.__name__ = MlAgentsModel.__qualname__ = base.__name__
    MlAgentsModel.__doc__ = base.__doc__
    return MlAgentsModel


def _spec(
    task: str | None, choices: Sequence[str] | None, numbers: Sequence[int | float] | None
) -> AnswerSpec | None:
    if task is None:
        if choices or numbers:
            raise ConfigError("choices and numbers need a task (multiple_choice or game24)")
        return None
    return AnswerSpec.of(task, choices, numbers)


@functools.lru_cache(maxsize=512)
def _bound_model(base: type[ReasoningExtraction], spec: AnswerSpec) -> type[ReasoningExtraction]:
    return create_model(
        base.__name__,
        __base__=base,
        __module__=base.__module__,
        __doc__=base.__doc__,
        __namespace__={"answer_spec": spec},
        answer_value=(
            str,
            Field(
                description=f"{_ANSWER_VALUE_DESCRIPTION} Write it as {spec.hint}.",
                json_schema_extra={"minLength": 1, **_answer_enum(spec)},
            ),
        ),
    )


def _answer_enum(spec: AnswerSpec) -> dict[str, Any]:
    """The closed set (or shape) of answers a task allows, put into the JSON schema.

    Servers that turn the schema into a grammar (llama.cpp, vLLM) or enforce it
    (a strict JSON-schema mode) then cannot produce another value; the
    validator still accepts and normalises looser forms from other providers.
    """
    if spec.task == "boolean":
        return {"enum": ["yes", "no"]}
    if spec.task == "multiple_choice":
        return {"enum": list(option_letters(spec.choices))}
    if spec.task == "numeric":
        # What the validator accepts, bounded so a grammar cannot run on for ever.
        return {"pattern": NUMERIC_ANSWER_PATTERN, "maxLength": 27}  # "-" 12 "." 6 "/" 6
    return {}


#: A numeric answer as the grammar-backed servers may write it: 42, -3.5, 1/2.
NUMERIC_ANSWER_PATTERN = r"^-?[0-9]{1,12}([.][0-9]{1,6})?(/[0-9]{1,6})?$"


# --------------------------------------------------------------------------- prompt fields


def extraction_prompt_fields(
    raw_output: str,
    *,
    question: str | None = None,
    task: str | None = None,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
) -> dict[str, str]:
    """The values of ``prompts/extraction.txt``'s placeholders, for ``string.Template``.

    ``raw_output`` verbatim; ``question_block`` the question in ``<problem>`` tags
    (or ""); ``task_hint`` a sentence stating the expected answer shape (or "").
    """
    question_block = ""
    if question and question.strip():
        question_block = (
            "\nThe problem it answers, for context only (do not solve it):\n"
            f"<problem>\n{question.strip()}\n</problem>\n"
        )
    task_hint = ""
    spec = _spec(task, choices, numbers)
    if spec is not None and spec.task != "auto":
        task_hint = f"\nWrite answer_value as {spec.hint}.\n"
        if spec.task == "multiple_choice" and spec.choices:
            options = "\n".join(f"{OPTION_LETTERS[i]}. {c}" for i, c in enumerate(spec.choices))
            task_hint += f"The options are:\n{options}\n"
    return {"raw_output": raw_output, "question_block": question_block, "task_hint": task_hint}
