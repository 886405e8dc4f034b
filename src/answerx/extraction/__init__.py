"""Deterministic extraction: the final answer out of raw LLM output, no LLM needed."""

from answerx.extraction.cleaning import clean_answer, repair_json_latex
from answerx.extraction.engine import extract
from answerx.extraction.files import FileSummary, extract_file
from answerx.extraction.models import METHODS, TASKS, Extraction, Method, Task
from answerx.extraction.queries import SearchQuery, extract_final_information, extract_query
from answerx.extraction.spec import AnswerSpec

__all__ = [
    "METHODS",
    "TASKS",
    "AnswerSpec",
    "Extraction",
    "FileSummary",
    "Method",
    "SearchQuery",
    "Task",
    "clean_answer",
    "extract",
    "extract_file",
    "extract_final_information",
    "extract_query",
    "repair_json_latex",
]
