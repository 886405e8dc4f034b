"""answerx: the clean final answer out of LLM reasoning output, and how it was found."""

from answerx._version import __version__
from answerx.errors import AnswerxError, ConfigError, InputError
from answerx.extraction import Extraction, clean_answer, extract
from answerx.grading import Verdict, grade, verify, verify_batch

__all__ = [
    "AnswerxError",
    "ConfigError",
    "Extraction",
    "InputError",
    "Verdict",
    "__version__",
    "clean_answer",
    "extract",
    "grade",
    "verify",
    "verify_batch",
]
