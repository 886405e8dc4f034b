"""The survey as Markdown (:func:`format_survey`): numbered headings, the model's own
numbering cleaned off titles, and citations as numbers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import ValidationError

from answerx.agent.survey.outline import Section, Survey
from answerx.errors import InputError

__all__ = ["clean_title", "format_survey"]

_DOT = r"[.\uFF0E\u3002]"
_CN_NUM = "一二三四五六七八九十百千"
_TITLE_PREFIXES: Final = (
    re.compile(rf"(?i)^\s*section[-\s]*[\d{_DOT[1:-1]}]*\s*[:：]?\s*"),
    re.compile(rf"^(?:第\s*[0-9{_CN_NUM}]+\s*(?:章|节|部分?|篇|卷)\s*[-—:：.、，,]?\s*)+"),
    re.compile(rf"^\s*\d+(?:{_DOT}\d+)+[.、，,]?\s*"),
    re.compile(r"^\s*\d+[.、，,)）]\s*"),
    re.compile(r"^\s*[\(（]\d+[\)）]\s*"),
    re.compile(rf"^\s*[{_CN_NUM}]+[.、，,]\s*"),
    re.compile(rf"^\s*[\(（][{_CN_NUM}]+[\)）]\s*"),
)
# \cite{…} and its natbib/biblatex kin (\citep, \citet, \citealp, \parencite, …), optional
# arguments included (\citep[p.~3]{key}); \nocite cites nothing in the text.
_CITE_GROUP = re.compile(r"\\(no)?(?:[a-z]*cite[a-z]*)\*?(?:\[[^\]\n]*\]){0,2}\{([^{}]*)\}")


def clean_title(title: str) -> str:
    """``title`` without the numbering the model wrote (``Section-1.``, ``2.3``, ``(1)``,
    ``第一章``, ``一、``): :func:`format_survey` numbers the headings itself."""
    for pattern in _TITLE_PREFIXES:
        title = pattern.sub("", title, count=1)
    return title.strip()


def _clean_content(content: str) -> str:
    content = re.sub(r"[ \t]*\bSection-\d+(?:\.\d+)*\b", "", content)
    content = re.sub(r"^[ \t]+(#{1,6})\s+", r"\1 ", content, flags=re.MULTILINE)
    return re.sub(r"\n{3,}", "\n\n", content).strip()


def _citations(match: re.Match[str], numbers: Mapping[str, int]) -> str:
    if match.group(1):  # \nocite
        return ""
    found, others = set(), []
    for key in (k.strip() for k in match.group(2).split(",")):
        if key.lower().startswith("bibkey:"):
            key = key[len("bibkey:") :].strip()
        textid = re.fullmatch(r"textid(\d+)", key)
        if key in numbers:
            found.add(numbers[key])
        elif textid:
            found.add(int(textid.group(1)))
        elif key:
            others.append(key)
    return "".join(f"[{n}]" for n in sorted(found)) + "".join(f"[{k}]" for k in others)


def format_survey(
    survey: Survey | Mapping[str, Any] | None, *, citations: Mapping[str, int] | None = None
) -> str:
    """The survey as Markdown: ``# Title``, ``## 1 Section``, ``### 1.1 Subsection``,
    ``#### 1.1.1 …``; titles and content as written (the model's numbering prefixes and
    ``Section-1.2`` references cleaned off), a part's plan in italics where its content is
    missing, and citations numbered: ``\\cite{textid3, textid1}`` (or ``\\citep``,
    ``\\citet``, …) as ``[1][3]``; a key of ``citations`` (key → number, such as a
    passage's own bibkey: :attr:`SurveyResult.citations`) as its number, any other key
    as ``[key]``."""
    if survey is None:
        return "No survey was written."
    if not isinstance(survey, Survey):
        try:
            survey = Survey.model_validate(survey)
        except ValidationError as exc:
            raise InputError(f"not a survey: {exc.errors()[0]['msg']}") from None
    lines = [f"# {clean_title(survey.title) or 'Untitled survey'}", ""]

    def render(sections: Sequence[Section], prefix: str, depth: int) -> None:
        for i, section in enumerate(sections, start=1):
            number = f"{prefix}{i}"
            lines.extend([f"{'#' * (depth + 1)} {number} {clean_title(section.title)}", ""])
            if section.content and _clean_content(section.content):
                lines.extend([_clean_content(section.content), ""])
            elif section.plan.strip():
                lines.extend([f"*{section.plan.strip()}*", ""])
            if section.subsections and depth < 3:  # three levels, as SurveyCPM writes
                render(section.subsections, f"{number}.", depth + 1)

    render(survey.sections, "", 1)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    numbers = citations or {}
    return _CITE_GROUP.sub(lambda match: _citations(match, numbers), text)
