"""answerx: the clean final answer out of LLM reasoning output, and how it was found."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from answerx._version import __version__

if TYPE_CHECKING:
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

# Imported on first use (PEP 562) rather than here: `import answerx.cli` or any other
# submodule runs this file first, and the command must start (and take its signal
# handlers, see answerx.__main__) before pydantic, extraction and grading have loaded.
_HOMES: dict[str, str] = {
    "AnswerxError": "answerx.errors",
    "ConfigError": "answerx.errors",
    "InputError": "answerx.errors",
    "Extraction": "answerx.extraction",
    "clean_answer": "answerx.extraction",
    "extract": "answerx.extraction",
    "Verdict": "answerx.grading",
    "grade": "answerx.grading",
    "verify": "answerx.grading",
    "verify_batch": "answerx.grading",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'answerx' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    # The public names only: not the machinery of the lazy imports (importlib, Any,
    # _HOMES), nor the submodules a caller happened to import.
    return sorted(__all__)
