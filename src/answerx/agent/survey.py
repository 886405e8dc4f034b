"""SurveyCPM: a survey writer that plans, searches, writes and extends, step by step.

The writer is a state machine over a survey JSON and a *cursor*::

    search ──► analyst-init_plan ──► search ──► write ──► search ──► write … ──►
        analyst-extend_plan ──(extended)──► search … ──(nop, or no extensions left)──► done

* The **survey** is ``{"title", "sections": [{"title", "plan", "content"?,
  "subsections"?}]}``, three levels deep at most (:class:`Survey`).
* The **cursor** is ``outline`` before the plan exists, ``section-i[.j[.k]]``
  for the first part (depth first) without content, and ``None`` once everything
  is written (:func:`cursor_of`).
* Each step asks the model for ``<thought>…</thought><action>…</action>``. The
  action (:func:`read_action`) is a JSON object or XML elements (``search`` with
  keywords, ``init-plan`` with sections, ``extend-plan`` at a position, ``nop``,
  ``write`` with content), with or without the ``<thought>/<action>`` wrapper; in
  the write step, an ``<action>`` that holds no action is the content itself. Only
  the step's own actions are accepted: any other is read as what it is and
  rejected, the step kept (SurveyCPM's valid actions per state).
  :func:`parse_response` validates it (:func:`validate_action`), strictly in hard
  mode (off by default, as in SurveyCPM's configuration): counts, a minimum
  length, no headings, the language of the instruction, and citations only of
  keys retrieved for this part (read from the passages' ``bibkey:`` lines;
  SurveyCPM upstream reads them with its ``\\cite`` pattern and so never checks
  them). A reply that fails keeps the old state and is retried, within
  ``max_step`` steps (140) and ``max_extend_step`` extension attempts (12).
* A search retrieves each keyword, deduplicates the passages and interleaves
  them up to ``top_k`` (:func:`interleave_passages`); each passage keeps one
  citation key (``textidN``, or its own ``bibkey:`` line) and one citation number
  (the order it was first retrieved in; ``textidN`` is number N) for the whole
  survey.

:func:`write_survey` runs the machine against a manager and a retriever and
returns a :class:`SurveyResult`: the Markdown (:func:`format_survey`), the survey
JSON, the citation numbers, the steps taken and the termination (``answer`` when the survey is done;
``exceed available llm calls`` at the step limit or call/token budget;
``timeout``). :func:`transition` is the pure state update, testable alone.
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from answerx.agent.budget import Budget, BudgetTracker
from answerx.agent.final import TextManager
from answerx.agent.termination import Termination
from answerx.errors import ConfigError, InputError, ProviderError
from answerx.resources import prompt_template
from answerx.retrieval.base import Passage, Retriever
from answerx.structured.callinfo import Usage

__all__ = [
    "ActionName",
    "ParsedResponse",
    "Section",
    "State",
    "Survey",
    "SurveyResult",
    "SurveyRun",
    "apply",
    "citation_numbers",
    "cited_keys",
    "clean_title",
    "cursor_of",
    "format_survey",
    "interleave_passages",
    "parse_response",
    "read_action",
    "retrieved_keys",
    "transition",
    "validate_action",
    "write_survey",
]

State = Literal["search", "analyst-init_plan", "write", "analyst-extend_plan", "done"]
ActionName = Literal["search", "init-plan", "extend-plan", "nop", "write"]
ExtendResult = Literal["extended", "nop", "retry", ""]

MAX_STEP: Final = 140
MAX_EXTEND_STEP: Final = 12
_THOUGHT = re.compile(r"<thought>(.*?)</thought>", re.DOTALL)
# <action>…</action>, also <action name="search">…</action> (XML actions may name themselves so).
_ACTION = re.compile(r"<action(\s[^<>]*)?>(.*?)</action\s*>", re.DOTALL)
_ACTION_NAMES: Final[tuple[str, ...]] = ("search", "init-plan", "extend-plan", "nop", "write")
_POSITION = re.compile(r"section-(\d{1,3})(?:\.(\d{1,3}))?(?:\.(\d{1,3}))?")
_CITE = re.compile(r"\\\w*cite(?!style)\w*\{([^{}]*)\}")
_BIBKEY_LINE = re.compile(r"^\s*bibkey:\s*(\S+)\s*$", re.MULTILINE | re.IGNORECASE)
_CJK = re.compile(r"[\u4e00-\u9fff]")


# --------------------------------------------------------------------------- the survey


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


def _walk(survey: Survey) -> list[tuple[str, Section]]:
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
    return next((position for position, s in _walk(survey) if s.content is None), None)


def node_at(survey: Survey, position: str) -> Section:
    """The part at ``section-i[.j[.k]]``; :class:`InputError` if there is none."""
    match = _POSITION.fullmatch(position)
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


def _updated(survey: Survey, position: str, **fields: Any) -> Survey:
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
    for position, section in _walk(survey):
        depth = position.count(".")
        label = position[0].upper() + position[1:]
        if section.content is not None:
            text = " ".join(section.content.split())
            body = "[OK] " + (text if len(text) <= preview else text[:preview] + " …")
        else:
            body = "[PLAN] " + " ".join(section.plan.split())
        lines.append(f"{'#' * (depth + 2)} {label} [{section.title}]\n{body}")
    return "\n\n".join(lines)


# --------------------------------------------------------------------------- actions


class ParsedResponse(BaseModel):
    """One reply, read: its thought, its action (a dict), and why it failed if it did."""

    model_config = ConfigDict(frozen=True)

    thought: str
    action: dict[str, Any]
    ok: bool
    problem: str | None = None


def cited_keys(text: str) -> list[str]:
    """The keys cited with ``\\cite{a, b}`` (and ``\\citep``, …), in order, each once."""
    keys: list[str] = []
    for group in _CITE.findall(text):
        for key in group.split(","):
            key = key.strip()
            if key.lower().startswith("bibkey:"):
                key = key[len("bibkey:") :].strip()
            if key and key != "*" and key not in keys:
                keys.append(key)
    return keys


def retrieved_keys(passages_text: str) -> list[str]:
    """The citation keys of retrieved passages: their ``bibkey:`` lines."""
    return _BIBKEY_LINE.findall(passages_text)


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
        if not isinstance(position, str) or _POSITION.fullmatch(position) is None:
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
    thought_match = _THOUGHT.search(text)
    thought = thought_match.group(1).strip() if thought_match else ""
    read = _read(text)
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


def read_action(text: str) -> dict[str, Any] | None:
    """The action of a reply, unvalidated: a JSON object or XML elements, inside
    ``<action>…</action>`` or bare (a fenced JSON block too); None when there is none.

    XML actions name themselves with a ``<name>`` element, a ``name`` attribute on
    ``<action>``, or their root element, and hold their fields as elements::

        <action><name>search</name><keywords><keyword>Lumen Rail</keyword></keywords></action>
        <init-plan><title>…</title><sections><section><title>…</title><plan>…</plan>
          </section>…</sections></init-plan>
        <extend-plan><position>section-2</position><subsections><subsection>…</subsection>
          </subsections></extend-plan>
        <nop/>    <write><content>…</content></write>

    >>> read_action('<action>{"name": "search", "keywords": ["Lumen Rail"]}</action>')
    {'name': 'search', 'keywords': ['Lumen Rail']}
    >>> read_action("<action><name>nop</name></action>")
    {'name': 'nop'}
    """
    return _read(text).action


class _Reading(NamedTuple):
    action: dict[str, Any] | None
    body: str | None  # the <action> block's text; None without one
    problem: str | None  # why an action written as JSON could not be read
    # The action (or the JSON that failed to read) opens the text: the reply *is* an
    # action, rather than prose that quotes one.
    whole: bool


def _read(text: str) -> _Reading:
    match = _ACTION.search(text)
    attributes, body = (match.group(1) or "", match.group(2).strip()) if match else ("", None)
    source = body if body is not None else _THOUGHT.sub("", text).strip()
    action, problem = _json_action(source)
    unfenced = _unfence(source)
    whole = unfenced.startswith("{")
    if action is None and problem is None:
        named = re.search(r"""\bname\s*=\s*["']([\w-]+)["']""", attributes)
        action = _xml_action(source, named.group(1) if named else None)
        # An XML action opens with its <name> or root element, or names itself on <action>.
        whole = named is not None or _XML_OPENING.match(unfenced) is not None
    return _Reading(action, body, problem, whole)


_XML_OPENING = re.compile(
    r"<(?:name|" + "|".join(map(re.escape, _ACTION_NAMES)) + r")(?:\s[^<>]*)?/?>", re.IGNORECASE
)


# A JSON action that follows some text: {"name": …
_JSON_START = re.compile(r'\{\s*"name"\s*:')


def _json_action(source: str) -> tuple[dict[str, Any] | None, str | None]:
    """The JSON object ``source`` holds (fenced or not); a problem when it starts as JSON
    but is not one; (None, None) when it is not JSON at all."""
    body = _unfence(source)
    if body.startswith("{"):
        start = 0
    else:
        found = _JSON_START.search(body)
        if found is None:
            return None, None
        start = found.start()
    try:
        loaded, _ = json.JSONDecoder().raw_decode(body, start)
    except json.JSONDecodeError as exc:
        return None, f"the action is not JSON ({exc.msg})"
    if not isinstance(loaded, dict):
        return None, "the action must be a JSON object"
    return loaded, None


def _xml_action(source: str, name: str | None) -> dict[str, Any] | None:
    """The action written as XML elements (see :func:`read_action`); None when no name."""
    scope = source
    if name is None:
        named = _first(source, "name")
        name = named.strip() if named is not None else None
    if name is None:
        root = re.search(
            r"<(" + "|".join(map(re.escape, _ACTION_NAMES)) + r")(?:\s[^<>]*)?(/?)>", source
        )
        if root is None:
            return None
        name = root.group(1)
        inner = _first(source, name)
        scope = inner if inner is not None else ""
    action: dict[str, Any] = {"name": name}
    sections, scope_rest = _block(scope, "sections")
    subsections, scope_rest = _block(scope_rest, "subsections")
    for field in ("title", "position", "content"):
        value = _first(scope_rest, field)
        if value is not None:
            action[field] = value if field == "content" else _leaf(value)
    keywords = _keywords(scope_rest)
    if keywords is not None:
        action["keywords"] = keywords
    if sections is not None:
        action["sections"] = _plans_of(sections, "section")
    if subsections is not None:
        action["subsections"] = _plans_of(subsections, ("subsection", "section"))
    return action


@functools.lru_cache(maxsize=32)
def _element(tag: str) -> re.Pattern[str]:
    return re.compile(
        rf"<{re.escape(tag)}(?:\s[^<>]*)?>(.*?)</{re.escape(tag)}\s*>", re.DOTALL | re.IGNORECASE
    )


def _first(text: str, tag: str) -> str | None:
    found = _element(tag).search(text)
    return None if found is None else html.unescape(found.group(1).strip())


def _leaf(text: str) -> str:
    return " ".join(text.split())


def _block(text: str, tag: str) -> tuple[str | None, str]:
    """The inner text of the first ``<tag>`` element, and ``text`` without it."""
    found = _element(tag).search(text)
    if found is None:
        return None, text
    return found.group(1), text[: found.start()] + text[found.end() :]


def _keywords(text: str) -> list[str] | None:
    items = [_leaf(html.unescape(k)) for k in _element("keyword").findall(text)]
    if items:
        return items
    block = _first(text, "keywords")
    if block is None:
        return None
    if block.startswith("["):
        try:
            listed = json.loads(block)
        except json.JSONDecodeError:
            listed = None
        if isinstance(listed, list):
            return [str(k) for k in listed]
    return [line.strip() for line in block.splitlines() if line.strip()]


def _plans_of(block: str, tags: str | tuple[str, ...]) -> list[dict[str, str]]:
    plans = []
    for tag in (tags,) if isinstance(tags, str) else tags:
        for item in _element(tag).findall(block):
            plan = {k: _leaf(v) for k in ("title", "plan") if (v := _first(item, k)) is not None}
            plans.append(plan)
        if plans:
            break
    return plans


def _unfence(body: str) -> str:
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, re.DOTALL)
    return fenced.group(1) if fenced else body


# --------------------------------------------------------------------------- passages


def interleave_passages(
    per_keyword: Sequence[Sequence[Passage]], top_k: int, keys: dict[str, str]
) -> list[tuple[str, Passage]]:
    """The passages of several keyword searches as (citation key, passage), at most
    ``top_k``: first up to ``top_k // len(per_keyword)`` (at least 1) from each
    keyword in turn, then the rest in order to fill up; each passage id once.

    ``keys`` (passage id → key) is the survey's registry: a passage keeps its key
    across searches; a new one gets its own ``bibkey:`` line's key, else ``textidN``,
    N its citation number (the order passages were first retrieved in, see
    :func:`citation_numbers`).
    """
    if not per_keyword:
        return []
    share = max(1, top_k // len(per_keyword))
    chosen: list[Passage] = []
    seen: set[str] = set()
    for rounds in ((p[:share] for p in per_keyword), (p[share:] for p in per_keyword)):
        for passages in rounds:
            for passage in passages:
                if len(chosen) >= top_k:
                    break
                if passage.id not in seen:
                    seen.add(passage.id)
                    chosen.append(passage)
    result = []
    for passage in chosen:
        if passage.id not in keys:
            own = retrieved_keys(passage.contents)
            keys[passage.id] = own[0] if own else f"textid{len(keys) + 1}"
        result.append((keys[passage.id], passage))
    return result


def citation_numbers(keys: Mapping[str, str]) -> dict[str, int]:
    """Citation key → number for a survey's registry (passage id → key): each passage's
    number is the order it was first retrieved in, so ``textidN`` is N and a passage's
    own bibkey gets the number of its place (a key met twice keeps its first)."""
    numbers: dict[str, int] = {}
    for number, key in enumerate(keys.values(), start=1):
        numbers.setdefault(key, number)
    return numbers


def passages_text(cited: Sequence[tuple[str, Passage]]) -> str:
    """Passages as the prompts show them: a ``bibkey:`` line, then the contents."""
    blocks = []
    for key, passage in cited:
        contents = _BIBKEY_LINE.sub("", passage.contents).strip()
        blocks.append(f"bibkey: {key}\n{contents}")
    return "\n\n".join(blocks)


# --------------------------------------------------------------------------- the machine


def transition(
    state: State,
    *,
    parsed: bool,
    cursor: str | None,
    step: int,
    extend_time: int,
    extend_result: ExtendResult = "",
    max_step: int = MAX_STEP,
    max_extend_step: int = MAX_EXTEND_STEP,
) -> tuple[State, int]:
    """The next state and extension count after a step in ``state`` (``step`` counts the
    steps made before this one). A failed parse keeps the state (an extension
    attempt still counts); at ``max_step`` everything is done."""
    if state == "done" or step >= max_step:
        return "done", extend_time
    if not parsed:
        if state != "analyst-extend_plan":
            return state, extend_time
        extend_time += 1
        return ("analyst-extend_plan" if extend_time <= max_extend_step else "done"), extend_time
    if state == "search":
        return ("analyst-init_plan" if cursor == "outline" else
                "write" if cursor is not None else "done"), extend_time  # fmt: skip
    if state == "analyst-init_plan":
        return ("search" if cursor not in ("outline", None) else "analyst-init_plan"), extend_time
    if state == "write":
        if cursor is not None:
            return "search", extend_time
        if extend_time < max_extend_step:
            return "analyst-extend_plan", extend_time + 1
        return "done", extend_time
    # analyst-extend_plan
    if extend_result == "extended":
        return "search", extend_time
    if extend_result == "nop" or extend_time >= max_extend_step:
        return "done", extend_time
    return "analyst-extend_plan", extend_time


class SurveyRun(BaseModel):
    """Where a survey stands: the machine's state, the survey, the cursor and counters."""

    instruction: str
    state: State = "search"
    survey: Survey | None = None
    step: int = 0
    extend_time: int = 0
    cited: list[tuple[str, Passage]] = Field(default_factory=list)  # the last search's
    keys: dict[str, str] = Field(default_factory=dict)  # passage id → citation key

    @property
    def cursor(self) -> str | None:
        return cursor_of(self.survey)

    @property
    def passages(self) -> str:
        return passages_text(self.cited)

    @property
    def citations(self) -> dict[str, int]:
        """Citation key → number (see :func:`citation_numbers`)."""
        return citation_numbers(self.keys)


class SurveyResult(BaseModel):
    """What :func:`write_survey` returns."""

    markdown: str
    survey: dict[str, Any] | None = Field(description="The survey JSON (None if never planned).")
    citations: dict[str, int] = Field(
        default_factory=dict,
        description="Citation key → the number the Markdown cites it by ([n]), for every "
        "passage retrieved (format_survey(survey, citations=…) renders the same).",
    )
    steps: int
    termination: str
    trace: list[dict[str, Any]] = Field(description="Per step: state, action name, ok, problem.")
    usage: Usage
    calls: int


_PROMPTS: Final[Mapping[State, str]] = {
    "search": "survey_search",
    "analyst-init_plan": "survey_init_plan",
    "write": "survey_write",
    "analyst-extend_plan": "survey_extend_plan",
}
_VALID: Final[Mapping[State, tuple[ActionName, ...]]] = {
    "search": ("search",),
    "analyst-init_plan": ("init-plan",),
    "write": ("write",),
    "analyst-extend_plan": ("extend-plan", "nop"),
}


def _extend_hint(survey: Survey | None) -> str:
    if survey is None:
        return "section-1"
    for position, section in _walk(survey):
        if position.count(".") < 2 and not section.subsections:
            return position
    return "section-1"


def _prompt(run: SurveyRun, prompt_dir: str | None) -> str:
    state = run.state
    cursor = run.cursor
    fields = {"instruction": run.instruction, "survey": outline_text(run.survey),
              "passages": run.passages or "(none)", "cursor": cursor or "none"}  # fmt: skip
    if state == "write" and run.survey is not None and cursor not in (None, "outline"):
        node = node_at(run.survey, cursor)
        fields.update(title=node.title, plan=node.plan or "(no plan)")
    if state == "analyst-extend_plan":
        fields["cursor"] = _extend_hint(run.survey)
    template = prompt_template(_PROMPTS[state], prompt_dir)
    try:
        return template.substitute(fields).rstrip()
    except (KeyError, ValueError) as exc:
        raise ConfigError(
            f"prompt template {_PROMPTS[state]!r} cannot be filled in ({exc!s}); it may use "
            + ", ".join(f"${k}" for k in sorted(fields))
            + " (write $$ for a dollar sign)"
        ) from None


def apply(
    run: SurveyRun,
    reply: str,
    retriever: Retriever,
    *,
    top_k: int,
    hard_mode: bool,
    max_step: int = MAX_STEP,
    max_extend_step: int = MAX_EXTEND_STEP,
) -> dict[str, Any]:
    """Read ``reply`` as the answer to ``run``'s current step, act on it (search, plan,
    write, extend) and move the machine on. Returns the step's trace entry."""
    state, cursor = run.state, run.cursor
    parsed = parse_response(
        reply, _VALID[state], survey=run.survey,
        cursor=cursor if state == "write" else None, instruction=run.instruction,
        retrieved=retrieved_keys(run.passages), hard_mode=hard_mode,
    )  # fmt: skip
    extend_result: ExtendResult = ""
    if parsed.ok:
        action = parsed.action
        if state == "search":
            found = retriever.search_many([k.strip() for k in action["keywords"]], top_k)
            run.cited = interleave_passages(found, top_k, run.keys)
        elif state == "analyst-init_plan":
            run.survey = Survey(title=action["title"].strip(),
                                sections=[Section(**s) for s in action["sections"]])  # fmt: skip
        elif state == "write" and cursor is not None and run.survey is not None:
            run.survey = _updated(run.survey, cursor, content=action["content"].strip())
        elif state == "analyst-extend_plan" and run.survey is not None:
            if action["name"] == "nop":
                extend_result = "nop"
            else:
                subsections = [Section(**s) for s in action["subsections"]]
                run.survey = _updated(run.survey, action["position"], subsections=subsections)
                extend_result = "extended"
    elif state == "analyst-extend_plan":
        extend_result = "retry"
    entry = {
        "step": run.step + 1, "state": state, "cursor": cursor,
        "action": parsed.action.get("name"), "ok": parsed.ok, "problem": parsed.problem,
    }  # fmt: skip
    if state == "search" and parsed.ok:
        entry["keywords"] = parsed.action["keywords"]
        entry["passage_ids"] = [p.id for _, p in run.cited]
    run.state, run.extend_time = transition(
        state, parsed=parsed.ok, cursor=run.cursor, step=run.step, extend_time=run.extend_time,
        extend_result=extend_result, max_step=max_step, max_extend_step=max_extend_step,
    )  # fmt: skip
    run.step += 1
    if run.step >= max_step and run.state != "done":
        run.state = "done"
    return entry


def write_survey(
    instruction: str,
    manager: TextManager,
    retriever: Retriever,
    *,
    hard_mode: bool = False,
    max_step: int = MAX_STEP,
    max_extend_step: int = MAX_EXTEND_STEP,
    top_k: int = 10,
    budget: Budget | None = None,
    prompt_dir: str | None = None,
    **options: Any,
) -> SurveyResult:
    """Write a survey for ``instruction`` from what ``retriever`` finds.

    One ``manager.complete_text`` call per step (``options`` go to the provider:
    ``max_tokens``, ``temperature``); the ``budget`` bounds calls, tokens and time.
    Provider errors propagate (as in :func:`answerx.agent.run_agent_loop`).

    >>> result = write_survey("A survey of Ostrand's companies", manager, index)  # doctest: +SKIP
    >>> print(result.markdown)                                                     # doctest: +SKIP
    """
    if not isinstance(instruction, str) or not instruction.strip():
        raise InputError("the instruction must be a non-empty string")
    if max_step < 1 or max_extend_step < 0 or top_k < 1:
        raise ConfigError("max_step and top_k must be at least 1, max_extend_step at least 0")
    run = SurveyRun(instruction=instruction.strip())
    tracker = BudgetTracker(budget if budget is not None else Budget())
    trace: list[dict[str, Any]] = []
    termination = Termination.ANSWER
    while run.state != "done":
        exhausted = tracker.exhausted()
        if exhausted is not None:
            termination = exhausted
            break
        prompt = _prompt(run, prompt_dir)
        try:
            reply, info = manager.complete_text([{"role": "user", "content": prompt}], **options)
        except ProviderError as exc:
            if exc.call_info is not None:
                tracker.record(exc.call_info)
            raise
        tracker.record(info)
        trace.append(apply(run, reply, retriever, top_k=top_k, hard_mode=hard_mode,
                           max_step=max_step, max_extend_step=max_extend_step))  # fmt: skip
    if termination is Termination.ANSWER and run.cursor is not None:
        # Stopped by the step limit with parts unwritten (or never planned).
        termination = Termination.EXCEED_CALLS
    return SurveyResult(
        markdown=format_survey(run.survey, citations=run.citations),
        survey=run.survey.model_dump(exclude_none=True) if run.survey is not None else None,
        citations=run.citations,
        steps=run.step, termination=str(termination), trace=trace,
        usage=tracker.usage, calls=tracker.calls,
    )  # fmt: skip


# --------------------------------------------------------------------------- Markdown

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
