"""The survey and where the writer stands in it: the parts, their positions, the cursor.

The survey is ``{"title", "sections": [{"title", "plan", "content"?, "subsections"?}]}``,
three levels deep at most. A part's *position* is ``section-i[.j[.k]]``; the *cursor*
is ``outline`` before the plan exists, the first part (depth first) without content,
and None once everything is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from answerx.errors import InputError

__all__ = [
    "POSITION",
    "Section",
    "Survey",
    "cursor_of",
    "extend_hint",
    "node_at",
    "outline_text",
    "updated",
    "walk",
]

#: ``section-i[.j[.k]]``: a part's position (the groups are its indices).
POSITION = re.compile(r"section-(\d{1,3})(?:\.(\d{1,3}))?(?:\.(\d{1,3}))?")


class Section(BaseModel):
    """A section of the survey (its subsections are Sections too, two levels more at most)."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1)
    plan: str = ""
    content: str | None = None
    subsections: list[Section] | None = None


class Survey(BaseModel):
    """The survey JSON: a title and its sections."""

    model_config = ConfigDict(extra="forbid")

    title: str
    sections: list[Section] = Field(default_factory=list)


def walk(survey: Survey) -> list[tuple[str, Section]]:
    """Every part with its position, depth first (a section before its subsections)."""
    parts: list[tuple[str, Section]] = []

    def visit(sections: Sequence[Section], prefix: str, depth: int) -> None:
        for i, section in enumerate(sections, start=1):
            position = f"{prefix}{i}" if prefix else f"section-{i}"
            parts.append((position, section))
            if section.subsections and depth < 3:
                visit(section.subsections, f"{position}.", depth + 1)

    visit(survey.sections, "", 1)
    return parts


def cursor_of(survey: Survey | None) -> str | None:
    """``outline`` without a survey; the first part without content; None when all are written."""
    if survey is None:
        return "outline"
    return next((position for position, s in walk(survey) if s.content is None), None)


def node_at(survey: Survey, position: str) -> Section:
    """The part at ``section-i[.j[.k]]``; :class:`InputError` if there is none."""
    match = POSITION.fullmatch(position)
    if match is None:
        raise InputError(f"not a position: {position!r} (expected section-i, -i.j or -i.j.k)")
    node: Section | None = None
    children: list[Section] | None = survey.sections
    for index in (int(g) for g in match.groups() if g is not None):
        if not children or not 1 <= index <= len(children):
            raise InputError(f"the survey has no {position}")
        node = children[index - 1]
        children = node.subsections
    assert node is not None
    return node


def updated(survey: Survey, position: str, **fields: Any) -> Survey:
    """A copy of ``survey`` with ``fields`` set on the part at ``position``."""
    copy = survey.model_copy(deep=True)
    node = node_at(copy, position)
    for name, value in fields.items():
        setattr(node, name, value)
    return copy


def outline_text(survey: Survey | None, *, preview: int = 300) -> str:
    """The survey as the model reads it: headings with positions, ``[OK]`` content
    (cut to ``preview`` characters) or ``[PLAN]``."""
    if survey is None:
        return "There is no survey yet."
    lines = [f"# Title: {survey.title}"]
    for position, section in walk(survey):
        depth = position.count(".")
        label = position[0].upper() + position[1:]
        if section.content is not None:
            text = " ".join(section.content.split())
            body = "[OK] " + (text if len(text) <= preview else text[:preview] + " …")
        else:
            body = "[PLAN] " + " ".join(section.plan.split())
        lines.append(f"{'#' * (depth + 2)} {label} [{section.title}]\n{body}")
    return "\n\n".join(lines)


def extend_hint(survey: Survey | None) -> str:
    """The position the extension step proposes: the first section or subsection
    without subsections (``section-1`` when there is none, or no survey)."""
    if survey is None:
        return "section-1"
    for position, section in walk(survey):
        if position.count(".") < 2 and not section.subsections:
            return position
    return "section-1"
