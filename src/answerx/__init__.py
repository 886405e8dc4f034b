"""answerx: the clean final answer out of LLM reasoning output, and how it was found."""

from answerx.errors import AnswerxError, ConfigError, ExtractionError, InputError
from answerx.extraction import Extraction, clean_answer, extract
from answerx.grading import Verdict, grade, verify, verify_batch

__version__ = "0.1.0"

__all__ = [
    "AnswerxError",
    "ConfigError",
    "Extraction",
    "ExtractionError",
    "InputError",
    "Verdict",
    "__version__",
    "clean_answer",
    "extract",
    "grade",
    "verify",
    "verify_batch",
]
