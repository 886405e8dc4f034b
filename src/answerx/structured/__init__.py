"""Structured extraction: Pydantic response models and the provider-aware Instructor manager."""

from answerx.structured.callinfo import CallInfo, ModeAttempt, Usage
from answerx.structured.extraction import ExtractionSettings
from answerx.structured.manager import InstructorClientManager
from answerx.structured.models import (
    REASONING_EXTRACTION_MODELS,
    AnswerSpec,
    AnyReasoningExtraction,
    Approach,
    ChainOfThoughtExtraction,
    ChainOfVerificationExtraction,
    DirectAnswerExtraction,
    NoneReasoningExtraction,
    ProgramOfThoughtExtraction,
    ReasoningAsPlanningExtraction,
    ReasoningExtraction,
    ReflectionExtraction,
    SkeletonOfThoughtExtraction,
    ThoughtBranch,
    TreeOfThoughtExtraction,
    VerificationQA,
    extraction_prompt_fields,
    get_extraction_model,
)
from answerx.structured.providers import ProviderSpec, get_provider, load_providers

__all__ = [
    "REASONING_EXTRACTION_MODELS",
    "AnswerSpec",
    "AnyReasoningExtraction",
    "Approach",
    "CallInfo",
    "ChainOfThoughtExtraction",
    "ChainOfVerificationExtraction",
    "DirectAnswerExtraction",
    "ExtractionSettings",
    "InstructorClientManager",
    "ModeAttempt",
    "NoneReasoningExtraction",
    "ProgramOfThoughtExtraction",
    "ProviderSpec",
    "ReasoningAsPlanningExtraction",
    "ReasoningExtraction",
    "ReflectionExtraction",
    "SkeletonOfThoughtExtraction",
    "ThoughtBranch",
    "TreeOfThoughtExtraction",
    "Usage",
    "VerificationQA",
    "extraction_prompt_fields",
    "get_extraction_model",
    "get_provider",
    "load_providers",
]
