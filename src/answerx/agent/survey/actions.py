"""Reading the action out of a reply: a JSON object or XML elements, with or without the
``<thought>…</thought><action>…</action>`` wrapper (:func:`read_action`). What is read
here is not yet checked: :mod:`answerx.agent.survey.validation` decides whether the
step accepts it.
"""

from __future__ import annotations

import functools
import html
import json
import re
from typing import Any, Final, Literal, NamedTuple

__all__ = ["THOUGHT", "ActionName", "Reading", "read_action", "read_reply"]

ActionName = Literal["search", "init-plan", "extend-plan", "nop", "write"]

#: ``<thought>…</thought>``: the reasoning a reply gives before its action.
THOUGHT = re.compile(r"<thought>(.*?)</thought>", re.DOTALL)
# <action>…</action>, also <action name="search">…</action> (XML actions may name themselves so).
_ACTION = re.compile(r"<action(\s[^<>]*)?>(.*?)</action\s*>", re.DOTALL)
_ACTION_NAMES: Final[tuple[str, ...]] = ("search", "init-plan", "extend-plan", "nop", "write")


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
    return read_reply(text).action


class Reading(NamedTuple):
    """A reply as read: its action (None when there is none), and how it was written."""

    action: dict[str, Any] | None
    body: str | None  # the <action> block's text; None without one
    problem: str | None  # why an action written as JSON could not be read
    # The action (or the JSON that failed to read) opens the text: the reply *is* an
    # action, rather than prose that quotes one.
    whole: bool


def read_reply(text: str) -> Reading:
    """``text`` read for its action, its ``<action>`` block and whether it *is* an action."""
    match = _ACTION.search(text)
    attributes, body = (match.group(1) or "", match.group(2).strip()) if match else ("", None)
    source = body if body is not None else THOUGHT.sub("", text).strip()
    action, problem = _json_action(source)
    unfenced = _unfence(source)
    whole = unfenced.startswith("{")
    if action is None and problem is None:
        named = re.search(r"""\bname\s*=\s*["']([\w-]+)["']""", attributes)
        action = _xml_action(source, named.group(1) if named else None)
        # An XML action opens with its <name> or root element, or names itself on <action>.
        whole = named is not None or _XML_OPENING.match(unfenced) is not None
    return Reading(action, body, problem, whole)


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
