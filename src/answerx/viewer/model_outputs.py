"""Model outputs as HTML: ``<think>`` sections folded, the answer's span highlighted.

Everything from the store is escaped here (``markupsafe``) before any tag is added, so
an output that contains HTML shows as text and never runs in the page.
"""

from __future__ import annotations

import json
import re
from typing import Any

from markupsafe import Markup, escape

__all__ = [
    "ANSWER_ID",
    "FOLD_AT",
    "kept_parts",
    "message_text",
    "pretty_json",
    "render_output",
    "span_fits",
]

#: The id of the element that holds the answer's span (the first one, when split).
ANSWER_ID = "answer"
#: Characters of one text a page sends before folding the rest behind "show all": a
#: 2 MB output is sent as its start, its end and its answer's place (about 20 KB).
FOLD_AT = 20_000

# A <think> section, closed or running to the end (an output cut off while thinking).
_THINK = re.compile(r"<\s*think\s*>(.*?)(<\s*/\s*think\s*>|\Z)", re.IGNORECASE | re.DOTALL)


def _marked(
    text: str, lo: int, hi: int, span: tuple[int, int] | None, rule: str, mark_id: str
) -> Markup:
    """``text[lo:hi]``, escaped, with the part inside ``span`` in a ``<mark>``."""
    if span is None or span[1] <= lo or span[0] >= hi or span[0] >= span[1]:
        return escape(text[lo:hi])
    a, b = max(lo, span[0]), min(hi, span[1])
    first = a == span[0]  # the mark that starts the span carries its id
    mark = Markup(
        '<mark class="answer"{id} data-rule="{rule}" title="read by rule {rule}">'
    ).format(id=Markup(' id="{}"').format(mark_id) if first else Markup(""), rule=rule)
    return escape(text[lo:a]) + mark + escape(text[a:b]) + Markup("</mark>") + escape(text[b:hi])


def span_fits(text: str, span: tuple[int, int] | None) -> bool:
    """Whether ``span`` marks characters of ``text`` (a store whose span does not match
    its output, written by another version or edited, gets no highlight)."""
    return span is not None and 0 <= span[0] < span[1] <= len(text)


def kept_parts(length: int, span: tuple[int, int] | None, limit: int) -> list[tuple[int, int]]:
    """The ranges of a text of ``length`` characters shown when it is longer than
    ``limit``: its start and its end (two fifths of the limit each) and the answer's
    ``span`` with a tenth of the limit around it, merged where they touch.

    >>> kept_parts(100_000, (50_000, 50_003), 1_000)
    [(0, 400), (49900, 50103), (99600, 100000)]
    """
    edge, around = limit * 2 // 5, limit // 10
    parts = [(0, edge), (length - edge, length)]
    if span is not None:
        parts.append(
            (max(0, span[0] - around), min(length, span[0] + limit // 5, span[1]) + around)
        )
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(parts):
        hi = min(hi, length)
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def render_output(
    text: str,
    span: tuple[int, int] | None = None,
    rule: str = "",
    *,
    fold: bool = True,
    mark_id: str = ANSWER_ID,
    limit: int | None = None,
    more: str = "",
) -> Markup:
    """``text`` as HTML for a ``<pre>``: each ``<think>`` section in a ``<details>`` (open
    when it holds the answer's span), the span in ``<mark class="answer" id=mark_id>``
    naming ``rule``. A span outside the text (a store that does not match its output) is
    not marked. A text longer than ``limit`` is sent in part (:func:`kept_parts`), each
    gap a link to ``more`` (the page with every character)."""
    if not span_fits(text, span):
        span = None

    def marked(lo: int, hi: int) -> Markup:
        return _marked(text, lo, hi, span, rule, mark_id)

    if limit is not None and len(text) > limit:
        shown: list[Markup] = []
        at = 0
        for lo, hi in kept_parts(len(text), span, limit):
            if lo > at:
                shown.append(_elided(lo - at, len(text), more))
            shown.append(marked(lo, hi))
            at = hi
        return Markup("").join(shown)
    if not fold:
        return marked(0, len(text))
    parts: list[Markup] = []
    at = 0
    for section in _THINK.finditer(text):
        parts.append(marked(at, section.start()))
        holds_answer = span is not None and span[0] < section.end() and span[1] > section.start()
        closed = bool(section.group(2))
        size = len(section.group(1))
        note = f"thinking: {size:,} characters" + ("" if closed else ", never closed (cut off)")
        parts.append(
            Markup('<details class="think"{open}><summary>{note}</summary>').format(
                open=Markup(" open") if holds_answer else Markup(""), note=note
            )
            + marked(section.start(), section.end())
            + Markup("</details>")
        )
        at = section.end()
    parts.append(marked(at, len(text)))
    return Markup("").join(parts)


def _elided(count: int, total: int, more: str) -> Markup:
    return Markup(
        '<a class="elided" href="{more}">… {count:,} characters not shown · show all {total:,}</a>'
    ).format(more=more, count=count, total=total)


def message_text(content: Any) -> str:
    """A chat message's content as text: a string as it is, the text blocks of a list of
    content blocks, anything else as JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict)]
        if texts and all(isinstance(t, str) for t in texts):
            return "\n".join(t for t in texts if isinstance(t, str))
    return pretty_json(content)


def pretty_json(value: Any) -> str:
    """``value`` as indented JSON; a string that holds JSON is parsed and indented too."""
    if isinstance(value, str):
        try:
            parsed: Any = json.loads(value)
        except ValueError:
            return value
        value = parsed
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)
