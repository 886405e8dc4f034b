"""Request and response bodies of the deterministic endpoints, errors and service metadata.

Only pydantic and :mod:`answerx.extraction` here, so that :mod:`answerx.client`
imports them without the provider SDKs; the LLM endpoints' bodies live in
:mod:`answerx.service.llm_schemas`. Every model carries an OpenAPI example.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StringConstraints,
)

from answerx.extraction.models import OPTION_LETTERS, Extraction, Task

__all__ = [
    "EXTRACT_EXAMPLE",
    "MAX_CHOICES",
    "ApproachesResponse",
    "BatchItemResult",
    "BatchRequest",
    "BatchResponse",
    "ErrorDetail",
    "ErrorResponse",
    "ExtractRequest",
    "HealthResponse",
    "ReadyResponse",
    "TasksResponse",
    "Text",
]

MAX_CHOICES: Final = len(OPTION_LETTERS)  # one letter each


def _unicode_text(text: str) -> str:
    """Refuse a lone surrogate (JSON can spell one, ``"\\ud800"``): it is not Unicode
    text, so no answer could be written back as JSON; better a 422 than a 500."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"not Unicode text: a lone surrogate ({text[exc.start]!r}) at {exc.start}"
            ) from None
    return text


#: A string field of a request: any Unicode text.
Text = Annotated[str, AfterValidator(_unicode_text)]


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must contain more than whitespace")
    return text


#: "Some character that is not whitespace" as JSON Schema (ECMA-262) regex: Python's
#: whitespace (``str.isspace``, which the server checks) spelled out, because the
#: ``\s`` of JSON Schema, of pydantic (Rust) and of Python each differ.
NOT_BLANK_PATTERN: Final = (
    r"[^\t\n\u000b\u000c\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a"
    r"\u2028\u2029\u202f\u205f\u3000]"
)

#: Text with something in it besides whitespace.
NonBlankText = Annotated[
    str,
    AfterValidator(_unicode_text),
    AfterValidator(_not_blank),
    Field(json_schema_extra={"pattern": NOT_BLANK_PATTERN}),
]
#: A name, not text (a provider, a model id: OpenRouter's, the longest, stay well under this).
Name = Annotated[str, StringConstraints(max_length=200), AfterValidator(_unicode_text)]

#: A request of ``POST /v1/extract`` (also the OpenAPI example).
EXTRACT_EXAMPLE: Final[dict[str, Any]] = {
    "raw_output": "Each box holds 12 eggs, so 3 boxes hold 36. The answer is 36.",
    "task": "numeric",
}


class ExtractRequest(BaseModel):
    """One raw LLM output to extract the final answer from (no LLM is called)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [EXTRACT_EXAMPLE]})

    raw_output: Text = Field(description="The model's output, verbatim.")
    task: Task = Field(
        default="auto", description="What kind of answer to look for; 'auto' detects it."
    )
    choices: list[Text] | None = Field(
        default=None,
        max_length=MAX_CHOICES,
        description="Option texts of a multiple-choice question (A, B, ... in order): "
        "an answer naming an option's text is mapped to its letter.",
    )
    numbers: list[StrictInt | StrictFloat] | None = Field(
        default=None, description="The numbers a game24 expression must use."
    )


class BatchRequest(BaseModel):
    """Many extractions in one request; each item is judged on its own."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "items": [
                        EXTRACT_EXAMPLE,
                        {"raw_output": "Only B fits both facts.", "task": "multiple_choice"},
                    ]
                }
            ]
        },
    )

    # `| Any`: the server takes any JSON as an item and answers a malformed one with
    # that item's own error, so the schema must not call such a batch invalid.
    items: list[ExtractRequest | Any] = Field(
        description="The outputs, in order, each an ExtractRequest. An item that is not "
        "(malformed, an unknown task ...) gets its own error in the response; the other "
        "items are extracted all the same."
    )


class ErrorDetail(BaseModel):
    """What went wrong, for a client and a person."""

    model_config = ConfigDict(frozen=True)

    type: str = Field(description="A stable machine-readable name: 'validation_error', ...")
    message: str = Field(description="A clear sentence for a person.")


class ErrorResponse(BaseModel):
    """The body of every error response of the service."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra={
            "examples": [
                {
                    "error": {
                        "type": "validation_error",
                        "message": "task: Input should be 'auto', 'math', 'numeric', "
                        "'multiple_choice', 'boolean', 'game24' or 'text' (got 'algebra')",
                    }
                }
            ]
        },
    )

    error: ErrorDetail


class BatchItemResult(BaseModel):
    """The result of one batch item: its extraction, or the error that item alone met."""

    model_config = ConfigDict(frozen=True)

    extraction: Extraction | None = None
    error: ErrorDetail | None = None

    @property
    def ok(self) -> bool:
        """True when the item was extracted (even when no answer was found in it)."""
        return self.error is None


class BatchResponse(BaseModel):
    """One result per request item, in the order of the items."""

    model_config = ConfigDict(frozen=True)

    results: list[BatchItemResult]
    succeeded: int = Field(description="Items extracted (an answer found or not).")
    failed: int = Field(description="Items that got an error instead.")


class TasksResponse(BaseModel):
    """The task names ``task`` accepts."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra={
            "examples": [
                {
                    "tasks": [
                        "auto",
                        "math",
                        "numeric",
                        "multiple_choice",
                        "boolean",
                        "game24",
                        "text",
                    ],
                    "default": "auto",
                }
            ]
        },
    )

    tasks: list[str]
    default: str


class ApproachesResponse(BaseModel):
    """The reasoning approaches and strategies the LLM endpoints accept."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra={
            "examples": [
                {
                    "approaches": ["none", "chain_of_thought", "tree_of_thought"],
                    "strategies": ["structured", "two_stage"],
                    "providers": ["anthropic", "openai", "local-openai"],
                }
            ]
        },
    )

    approaches: list[str]
    strategies: list[str]
    providers: list[str] = Field(description="Providers configured on this server.")


class HealthResponse(BaseModel):
    """The process is up and answering."""

    model_config = ConfigDict(
        frozen=True, json_schema_extra={"examples": [{"status": "ok", "version": "0.1.0"}]}
    )

    status: str
    version: str


class ReadyResponse(BaseModel):
    """The service can take requests: its configuration loads and extraction runs."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra={
            "examples": [{"status": "ready", "llm_calls_in_flight": 0, "llm_concurrency": 16}]
        },
    )

    status: str
    llm_calls_in_flight: int
    llm_concurrency: int
