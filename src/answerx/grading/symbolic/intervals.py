"""Intervals, unions and one-variable inequalities compared as sets of numbers.

``(-\\infty, 1] \\cup [1, 3)`` is ``(-\\infty, 3)``; ``k < -5`` is ``(-\\infty, -5)``. Parts are
sorted and merged, infinite ends are open; an empty part, or a union with decimal ends
(which math-verify compares exactly, not rounded), cannot be told.
"""

from __future__ import annotations

from typing import Any

from answerx.grading.symbolic.equality import as_mpf, is_decimal, plain, same_value, value_of
from answerx.grading.symbolic.evaluate import free_variables, numeric_context
from answerx.grading.symbolic.parser import Node
from answerx.grading.symbolic.shapes import Interval, Shape
from answerx.grading.symbolic.surds import TooBig

__all__ = ["same_intervals"]


def same_intervals(answer: Shape, gold: Shape) -> bool | None:
    """Whether two interval shapes (or an open pair against intervals) are the same set."""
    return _interval_sets(_intervals(answer), _intervals(gold), answer, gold)


def _intervals(shape: Shape) -> list[Interval]:
    if shape[0] == "pair":
        return [(shape[1], False, shape[2], False)]
    return list(shape[2])


def _interval_sets(
    answer: list[Interval], gold: list[Interval], a_shape: Shape, g_shape: Shape
) -> bool | None:
    a_var = a_shape[1] if a_shape[0] == "intervals" else None
    g_var = g_shape[1] if g_shape[0] == "intervals" else None
    if a_var is not None and g_var is not None and a_var != g_var:
        return None  # k < -5 against x < -5
    try:
        mine, theirs = _canonical(answer), _canonical(gold)
    except (TooBig, ZeroDivisionError, OverflowError, RecursionError):
        return None
    if mine is None or theirs is None:
        return None
    if len(mine) != len(theirs):
        return False
    undecided = False
    for (a_lo, a_lc, a_hi, a_hc), (b_lo, b_lc, b_hi, b_hc) in zip(mine, theirs, strict=True):
        if a_lc != b_lc or a_hc != b_hc:
            return False
        for x, y in ((a_lo, b_lo), (a_hi, b_hi)):
            same = _endpoints_equal(x, y)
            if same is False:
                return False
            undecided |= same is None
    return None if undecided else True


_Endpoint = tuple[Node, Any]  # the node and its value (mpf), or ("inf", ±1)


def _canonical(parts: list[Interval]) -> list[tuple[_Endpoint, bool, _Endpoint, bool]] | None:
    """Sorted, overlapping parts merged, infinite ends open; None for an empty part or
    a union with decimal ends (math-verify compares those exactly, not rounded)."""
    ctx = numeric_context()
    valued = []
    for low, low_closed, high, high_closed in parts:
        lo, hi = _end(low, ctx), _end(high, ctx)
        if lo[1] is None or hi[1] is None:
            return None
        low_closed &= abs(lo[1]) != ctx.inf
        high_closed &= abs(hi[1]) != ctx.inf
        if lo[1] > hi[1] or (lo[1] == hi[1] and not (low_closed and high_closed)):
            return None
        valued.append((lo, low_closed, hi, high_closed))
    if len(valued) > 1 and any(is_decimal(end) for part in parts for end in (part[0], part[2])):
        return None
    valued.sort(key=lambda p: (p[0][1], not p[1]))
    merged = [valued[0]]
    for lo, lc, hi, hc in valued[1:]:
        m_lo, m_lc, m_hi, m_hc = merged[-1]
        if lo[1] < m_hi[1] or (lo[1] == m_hi[1] and (lc or m_hc)):
            if hi[1] > m_hi[1] or (hi[1] == m_hi[1] and hc):
                merged[-1] = (m_lo, m_lc, hi, hc or (hi[1] == m_hi[1] and m_hc))
        else:
            merged.append((lo, lc, hi, hc))
    return merged


def _end(node: Node, ctx: Any) -> _Endpoint:
    if node == ("inf",):
        return node, ctx.inf
    if node == ("neg", ("inf",)):
        return node, -ctx.inf
    if free_variables(node):
        return node, None
    return plain(node), as_mpf(value_of(plain(node), {}), ctx)


def _endpoints_equal(x: _Endpoint, y: _Endpoint) -> bool | None:
    if x[0] in (("inf",), ("neg", ("inf",))) or y[0] in (("inf",), ("neg", ("inf",))):
        return x[0] == y[0]
    return same_value(x[0], y[0])
