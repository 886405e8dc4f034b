"""A griffe extension: answerx's reStructuredText-flavoured docstrings read as Markdown.

answerx's docstrings hold bare ``>>>`` examples (run by the tests) between prose
paragraphs. Rendered as Markdown they would be reflowed text, and an example's output
such as ``[True, False]`` after a ``]`` reads as a reference-style link. Fencing each
example as ``pycon`` keeps it exactly as written. Sphinx roles (``:func:`verify```,
``:class:`~answerx.grading.Verdict```) become code spans with the name as the reader
would write it.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension


def fence_doctests(text: str) -> str:
    """``text`` with each run of ``>>>`` lines (and their output) in a ``pycon`` fence."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    in_fence = False
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if in_fence or not line.lstrip().startswith(">>>"):
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        block = []
        while i < len(lines) and lines[i].strip() and lines[i].startswith(indent):
            block.append(lines[i][len(indent) :])
            i += 1
        out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
    return "\n".join(out)


_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|exc|obj|const):`(~?)([^`]+)`")


def _role(match: re.Match[str]) -> str:
    name = match.group(2)
    return f"`{name.rsplit('.', 1)[-1] if match.group(1) else name}`"


def plain_roles(text: str) -> str:
    """``text`` with each Sphinx cross-reference role written as a code span."""
    return _ROLE.sub(_role, text)


class DoctestFences(Extension):
    """Fences the doctest examples of every docstring griffe loads."""

    def on_instance(self, *, obj: Any, **_: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain_roles(fence_doctests(obj.docstring.value))
