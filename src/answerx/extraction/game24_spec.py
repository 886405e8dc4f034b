"""graph_bot's parsing spec for Game of 24, as an option beside :func:`answerx.extract`.

The spec (graph_bot, "Model Output Parsing Spec", v0.2) reads a Game-of-24 reply in
this order: the ``<answer>`` block; else the *last* ``Output:`` line (``= 24``
stripped); else a bottom-up scan for the first plausible expression line — and it
always returns that line, finished output or not. :func:`answerx.extract` differs in
two ways, both kept as its default:

- **Order.** ``\\boxed{}`` and JSON ``"answer"`` fields outrank ``Output:`` there, and
  an answer phrase (``Answer: …``) written after an ``Output:`` line wins over it (the
  later statement of one tier). :func:`extract_game24_spec` follows the spec's order:
  an ``Output:`` line wins over any marker but the ``<answer>`` block, wherever they
  stand. Markers the spec does not know (``\\boxed``, JSON, answer phrases) still count
  after ``Output:``, before the scan: the spec's scan skips such lines (they hold
  characters outside its ``[0-9 ()+-*/]``), so they never make its candidate, and
  answerx keeps what the model stated rather than an earlier line.
- **Abstention.** On an output that looks unfinished, ``extract`` withholds the bottom
  scan's guess (``answer=None``, ``unfinished=True``, the guess in ``candidate``);
  ``fallback="always"`` gives the spec's behaviour, the first plausible line. Here
  ``fallback="always"`` is the default.

The spec's logged extraction methods map onto answerx's ``method``
(:data:`SPEC_METHODS`): ``answer_block``, ``output_line`` (its "GoT style"),
``fallback_bottom_scan`` (``bottom_scan``), ``empty`` (``none``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from answerx.extraction.engine import ascii_lower, extract
from answerx.extraction.finish import unfinished_reason
from answerx.extraction.models import Extraction, Fallback
from answerx.extraction.rules import RULES
from answerx.extraction.tasks import make_acceptors

__all__ = ["SPEC_METHODS", "extract_game24_spec", "spec_method"]

#: answerx's ``method`` → the extraction method graph_bot's spec logs.
SPEC_METHODS: Final[Mapping[str, str]] = {
    "answer_block": "answer_block",
    "output_line": "output_line",
    "bottom_scan": "fallback_bottom_scan",
    "none": "empty",
}
# What the spec reads before an Output: line: only the answer block.
_BEFORE_OUTPUT: Final = frozenset({"answer_block", "output_line"})
_OUTPUT_LINE = next(rule for rule in RULES if rule.name == "output_line")


def extract_game24_spec(
    raw_output: str,
    numbers: Sequence[int | float] | None = None,
    *,
    finish_reason: str | None = None,
    fallback: Fallback = "always",
) -> Extraction:
    """A Game-of-24 answer read in graph_bot's order: ``<answer>`` block, then the last
    ``Output:`` line (before a later ``Answer:``, ``\\boxed`` or JSON answer), then
    answerx's other markers, then the bottom-up scan, which answers even on an
    unfinished output unless ``fallback="auto"``. ``numbers`` are the puzzle's.

    >>> reply = "Output: (10 - 4) * (13 - 9)\\nDouble-check.\\nAnswer: (13 - 9) * (10 - 4)"
    >>> extract_game24_spec(reply, [4, 9, 10, 13]).answer
    '(10 - 4) * (13 - 9)'
    >>> extract(reply, "game24", numbers=[4, 9, 10, 13]).answer  # answerx: the later one
    '(13 - 9) * (10 - 4)'
    """
    result = extract(
        raw_output, "game24", numbers=numbers, finish_reason=finish_reason, fallback=fallback
    )
    if result.method in _BEFORE_OUTPUT:
        return result
    lower = ascii_lower(raw_output)
    stated, _ = make_acceptors("game24", None, numbers)
    found = _OUTPUT_LINE.find(raw_output, lower, 0, len(raw_output), stated)
    if found is None:
        return result
    why = unfinished_reason(raw_output, lower, finish_reason, answer_end=found.marker_end)
    return Extraction(
        answer=found.answer,
        method="output_line",
        confidence=_OUTPUT_LINE.confidence,
        task="game24",
        candidate=found.candidate,
        span=(found.start, found.end),
        reasoning=raw_output[: found.marker_start] + raw_output[found.marker_end :],
        raw_output=raw_output,
        valid=found.problem is None,
        problem=found.problem,
        unfinished=why is not None,
    )


def spec_method(extraction: Extraction) -> str:
    """The extraction method graph_bot's spec would log for ``extraction`` (its
    ``answer_block``, ``output_line``, ``fallback_bottom_scan``, ``empty``); answerx's own
    name for a method the spec does not have."""
    return SPEC_METHODS.get(extraction.method, extraction.method)
