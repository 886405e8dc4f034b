"""Whether a step accepts the action a reply holds (:func:`validate_action`), and a reply
read and checked in one go (:func:`parse_response`).

Only the step's own actions are accepted: any other is read as what it is and
rejected, the step kept (SurveyCPM's valid actions per state). Hard mode (off by
default, as in SurveyCPM's configuration) adds SurveyCPM's strict checks: counts, a
minimum length, no headings, the language of the instruction, and citations only of
keys retrieved for this part (read from the passages' ``bibkey:`` lines; SurveyCPM
upstream reads them with its ``\\cite`` pattern and so never checks them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from answerx.agent.survey.actions import THOUGHT, ActionName, read_reply
from answerx.agent.survey.citations import cited_keys
from answerx.agent.survey.outline import POSITION, Survey, node_at
from answerx.errors import InputError

__all__ = ["ParsedResponse", "parse_response", "validate_action"]

_CJK = re.compile(r"[\u4e00-\u9fff]")


class ParsedResponse(BaseModel):
    """One reply, read: its thought, its action (a dict), and why it failed if it did."""

    model_config = ConfigDict(frozen=True)

    thought: str
    action: dict[str, Any]
    ok: bool
    problem: str | None = None


def _same_language(text: str, instruction: str) -> bool:
    """Mostly CJK text for a CJK instruction, almost none otherwise (SurveyCPM's check)."""
    letters = re.sub(r"\\\w*cite\w*\{[^{}]*\}", "", text)
    letters = re.sub(r"[\s\d!-/:-@\[-`{-~]", "", letters)
    if not letters:
        return True
    share = len(_CJK.findall(letters)) / len(letters)
    return share > 0.6 if _CJK.search(instruction) else share < 0.05


def _plans(items: Any, field: str) -> str | None:
    if not isinstance(items, list) or not items:
        return f"{field} must be a non-empty list"
    for item in items:
        if not isinstance(item, dict) or set(item) != {"title", "plan"}:
            return f"each of {field} must be {{'title', 'plan'}}"
        if not all(isinstance(item[k], str) and item[k].strip() for k in ("title", "plan")):
            return f"each of {field} needs a non-empty title and plan"
    return None


def validate_action(
    action: Mapping[str, Any],
    valid: Sequence[ActionName],
    *,
    survey: Survey | None = None,
    cursor: str | None = None,
    instruction: str | None = None,
    retrieved: Sequence[str] | None = None,
    hard_mode: bool = False,
) -> str | None:
    """Why ``action`` is not acceptable now; None when it is.

    Always: the name is one of ``valid``, the fields are exactly the action's, and
    written content is not empty. Hard mode (off by default, as in SurveyCPM's
    configuration) adds SurveyCPM's strict checks: 1–5 keywords; 3–12 sections; 2–7
    subsections; written content longer than 50 characters without ``#`` or the word
    "bibkey", with at most 12 citations, all of keys in ``retrieved``; plans and
    content in the language of ``instruction``. An extension must be at ``cursor``
    (when one is given) of a section or subsection that has no subsections yet.
    """
    name = action.get("name")
    if name not in valid:
        return f"action {name!r} is not one of {', '.join(valid)} here"
    fields = set(action)
    if name == "search":
        keywords = action.get("keywords")
        if fields != {"name", "keywords"} or not isinstance(keywords, list) or not keywords:
            return "search needs exactly a non-empty list of keywords"
        if not all(isinstance(k, str) and k.strip() for k in keywords):
            return "every keyword must be a non-empty string"
        if hard_mode and len(keywords) > 5:
            return f"at most 5 keywords, got {len(keywords)}"
    elif name == "init-plan":
        if fields != {"name", "title", "sections"}:
            return "init-plan needs exactly a title and sections"
        title = action["title"]
        if not isinstance(title, str) or not title.strip():
            return "the title must be a non-empty string"
        problem = _plans(action["sections"], "sections")
        if problem:
            return problem
        if hard_mode and not 3 <= len(action["sections"]) <= 12:
            return f"3 to 12 sections, got {len(action['sections'])}"
        if (
            hard_mode
            and instruction
            and not _same_language(
                json.dumps([title, action["sections"]], ensure_ascii=False), instruction
            )
        ):
            return "the plan is not in the language of the instruction"
    elif name == "extend-plan":
        if fields != {"name", "position", "subsections"}:
            return "extend-plan needs exactly a position and subsections"
        position = action["position"]
        if not isinstance(position, str) or POSITION.fullmatch(position) is None:
            return f"position must be section-i or section-i.j, got {position!r}"
        if position.count(".") >= 2:
            return "only sections and subsections can be extended"
        if cursor is not None and position != cursor:
            return f"the extension must be at {cursor}, not {position}"
        if survey is not None:
            try:
                if node_at(survey, position).subsections:
                    return f"{position} already has subsections"
            except InputError as exc:
                return str(exc)
        problem = _plans(action["subsections"], "subsections")
        if problem:
            return problem
        if hard_mode and not 2 <= len(action["subsections"]) <= 7:
            return f"2 to 7 subsections, got {len(action['subsections'])}"
        if (
            hard_mode
            and instruction
            and not _same_language(
                json.dumps(action["subsections"], ensure_ascii=False), instruction
            )
        ):
            return "the subsections are not in the language of the instruction"
    elif name == "nop":
        if fields != {"name"}:
            return "nop takes no fields"
    elif name == "write":
        content = action.get("content")
        if fields != {"name", "content"} or not isinstance(content, str):
            return "write needs exactly its content"
        if not content.strip():
            return "the content is empty"
        if hard_mode:
            return _check_content(content, instruction, retrieved)
    return None


def _check_content(
    content: str, instruction: str | None, retrieved: Sequence[str] | None
) -> str | None:
    if len(content.strip()) <= 50:
        return "the content must be longer than 50 characters"
    if "#" in content:
        return "the content must not hold headings ('#')"
    if "bibkey" in content.lower():
        return "the content must cite with \\cite{key}, not write 'bibkey'"
    if content.count("\\cite") > 12:
        return "at most 12 citations"
    if instruction and not _same_language(content, instruction):
        return "the content is not in the language of the instruction"
    unknown = [key for key in cited_keys(content) if key not in (retrieved or ())]
    if unknown:
        return f"cites keys that were not retrieved: {', '.join(unknown)}"
    return None


def parse_response(
    text: str,
    valid: Sequence[ActionName],
    *,
    survey: Survey | None = None,
    cursor: str | None = None,
    instruction: str | None = None,
    retrieved: Sequence[str] | None = None,
    hard_mode: bool = False,
) -> ParsedResponse:
    """Read ``<thought>…</thought><action>…</action>`` (:func:`read_action`): the action as
    JSON or XML, with or without the wrapper. In the write step (``valid == ["write"]``)
    an ``<action>`` block that holds no action is the content itself, as SurveyCPM
    reads it; an action of another kind is read as what it is and rejected (only the
    step's own actions are valid). Section text that only *mentions* an action (a
    ``<search>`` tag, ``<nop/>``, an inline ``{"name": …}`` example) is content: a reply
    is an action when the action is the whole of its ``<action>`` block, not a phrase
    inside prose. See :func:`validate_action` for the checks."""
    thought_match = THOUGHT.search(text)
    thought = thought_match.group(1).strip() if thought_match else ""
    read = read_reply(text)
    action, problem = read.action, read.problem
    quoted = not read.whole and (action is None or action.get("name") != "write")
    if read.body and list(valid) == ["write"] and quoted:
        # plain text, or prose quoting another action: the content itself
        action, problem = {"name": "write", "content": read.body}, None
    if action is None:
        missing = problem or ("no <action> block" if read.body is None else "no action")
        return ParsedResponse(thought=thought, action={}, ok=False, problem=missing)
    problem = validate_action(
        action, valid, survey=survey, cursor=cursor, instruction=instruction,
        retrieved=retrieved, hard_mode=hard_mode,
    )  # fmt: skip
    return ParsedResponse(thought=thought, action=action, ok=problem is None, problem=problem)
