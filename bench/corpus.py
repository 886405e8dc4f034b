"""Loading the shared answer-extraction corpus and judging agreement with its labels.

Shared by ``bench/extraction.py`` and ``tests/corpus/``. The corpus lives in
``../shared/data/corpus/`` (never copied into the project); every caller must
cope with it being absent.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "AUDIT_FILE",
    "CORPUS_FILES",
    "CorpusItem",
    "LabelAudit",
    "agrees",
    "audited_label",
    "corpus_dir",
    "label_audit",
    "load",
    "mmlu_pro_label_source",
    "normalise",
    "readable_label",
]

CORPUS_FILES = {
    "math_l5_zeroeval": ("math_l5_zeroeval.jsonl", "math"),
    "gsm8k_mixed": ("gsm8k_mixed.jsonl", "numeric"),
    "multiple_choice_mmlupro": ("multiple_choice_mmlupro.jsonl", "multiple_choice"),
}


@dataclass(frozen=True)
class CorpusItem:
    id: str
    task: str  # the answerx task to extract with
    raw_output: str
    model_answer: str | None
    gold: str
    choices: list[str] | None


def corpus_dir() -> Path | None:
    """The corpus folder (``ANSWERX_CORPUS`` or ``../shared/data/corpus``), or None."""
    env = os.environ.get("ANSWERX_CORPUS")
    here = Path(__file__).resolve().parent.parent
    for candidate in ([Path(env)] if env else []) + [here.parent / "shared" / "data" / "corpus"]:
        if candidate.is_dir():
            return candidate
    return None


def load(name: str, folder: Path | None = None) -> list[CorpusItem]:
    folder = folder or corpus_dir()
    if folder is None:
        raise FileNotFoundError(
            "corpus not found (set ANSWERX_CORPUS or add ../shared/data/corpus)"
        )
    filename, task = CORPUS_FILES[name]
    return list(_read(folder / filename, task))


def _read(path: Path, task: str) -> Iterator[CorpusItem]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            r: dict[str, Any] = json.loads(line)
            yield CorpusItem(
                r["id"], task, r["raw_output"], r["model_answer"], str(r["gold"]), r.get("choices")
            )


_STRIP = re.compile(
    r"\\left|\\right|\\!|\\,|\\;|\\ |\s+|\$|\\text\{\s*\}|\^\{?\\circ\}?|\\%|%|\\displaystyle"
)
_TEXT = re.compile(r"\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}")


def normalise(answer: str) -> str:
    """A forgiving string form for comparing answers (case, spacing, $ and \\text{})."""
    s = _TEXT.sub(r"\1", answer)
    s = s.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").replace("{,}", "")
    s = _STRIP.sub("", s).lower().rstrip(".")
    if re.fullmatch(r"-?[\d,]*\.?\d+", s):
        try:
            return repr(float(s.replace(",", "")))
        except ValueError:
            return s
    return s


def agrees(
    task: str, ours: str | None, label: str | None, verify: Callable[[str, str], bool] | None = None
) -> bool:
    """Whether our answer matches the label: normalised match, then (math) ``verify``."""
    if label is not None and not label.strip(" _"):
        # The model stated an empty answer, or echoed the prompt's "___" placeholder:
        # "no answer" agrees with it.
        label = None
    if ours is None or label is None:
        return ours is None and label is None
    if normalise(ours) == normalise(label):
        return True
    if task == "multiple_choice":
        return ours.strip().strip("()").upper() == label.strip().strip("()").upper()
    # Only an answer-sized string goes to `verify`: given a whole document (what a
    # naive baseline returns), math-verify would extract an answer itself and the
    # baseline would be credited with math-verify's work.
    if len(ours) > _ANSWER_SIZED or "\n" in ours.strip():
        return False
    return verify is not None and verify(label, ours)


_ANSWER_SIZED = 200


_STANDALONE_LETTER = re.compile(r"\b([A-J])\b")


def readable_label(item: CorpusItem) -> bool:
    """False for a multiple-choice label that appears nowhere in the text as a letter.

    MMLU-Pro's evaluation fills "regex found nothing" with a seeded random letter
    (always "G" in this corpus) and stores it as its prediction; no extractor can
    read it from the text.
    """
    if item.task != "multiple_choice" or item.model_answer is None:
        return True
    return item.model_answer in _STANDALONE_LETTER.findall(item.raw_output)


# --------------------------------------------------------------------------- label audit
#: The audited multiple-choice labels: one JSON object a line (see bench/README.md).
AUDIT_FILE = Path(__file__).with_name("mmlu_pro_label_audit.jsonl")


@dataclass(frozen=True)
class LabelAudit:
    """One audited label: what MMLU-Pro's regex stored, what the text states, the verdict.

    ``source`` is how MMLU-Pro's regex made the label (see :func:`mmlu_pro_label_source`,
    plus ``first_of_several``: the first of several different stated letters);
    ``verdict`` is ``excluded`` (the label is an artifact no text states) or ``kept``;
    ``evidence`` is a verbatim quote of the output that shows it.
    """

    id: str
    label: str
    source: str
    verdict: str
    text_states: str
    evidence: str
    why: str


def label_audit(path: Path = AUDIT_FILE) -> dict[str, LabelAudit]:
    """The audit rows by item id."""
    with path.open(encoding="utf-8") as fh:
        rows = [LabelAudit(**json.loads(line)) for line in fh if line.strip()]
    return {row.id: row for row in rows}


def audited_label(item: CorpusItem, audit: dict[str, LabelAudit] | None = None) -> bool:
    """False for a label the audit excludes (an artifact of MMLU-Pro's regex: a pronoun,
    a variable, a seeded random letter, the first of several statements)."""
    if item.task != "multiple_choice" or item.model_answer is None:
        return True
    row = (label_audit() if audit is None else audit).get(item.id)
    return row is None or row.verdict != "excluded"


# MMLU-Pro's own extraction (TIGER-AI-Lab/MMLU-Pro, evaluate_from_local.py: extract_answer,
# extract_again, extract_final), which made this corpus's multiple-choice labels. Its
# second and third patterns (r".*[aA]nswer:\s*([A-J])" and r"\b[A-J]\b(?!.*\b[A-J]\b)")
# backtrack quadratically on long outputs, so they are computed here by equivalent scans.
_MMLU_PRO_FIRST = re.compile(r"answer is \(?([A-J])\)?")
_MMLU_PRO_AGAIN = re.compile(r"[aA]nswer:\s*([A-J])")
_MMLU_PRO_LETTER = re.compile(r"\b[A-J]\b")


def mmlu_pro_label_source(text: str) -> tuple[str | None, str]:
    """(letter, which step of MMLU-Pro's regex gave it): ``first_match`` ("answer is (X)",
    the first), ``answer_colon``, ``last_resort`` (the last standalone capital A-J
    anywhere), or ``random_fill`` (nothing matched: MMLU-Pro then stores a seeded random
    letter, which no text states)."""
    m = _MMLU_PRO_FIRST.search(text)
    if m:
        return m.group(1), "first_match"
    m = _MMLU_PRO_AGAIN.search(text)
    if m:
        # ".*" does not cross a newline: the last "answer:" of the first line holding one.
        line_end = text.find("\n", m.start())
        line_end = len(text) if line_end == -1 else line_end
        for later in _MMLU_PRO_AGAIN.finditer(text, m.start() + 1):
            if later.start() >= line_end:
                break
            m = later
        return m.group(1), "answer_colon"
    last = None
    for last in _MMLU_PRO_LETTER.finditer(text):  # noqa: B007 - we want the last one
        pass
    return (last.group(0), "last_resort") if last else (None, "random_fill")
