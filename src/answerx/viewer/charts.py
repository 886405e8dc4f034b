"""Charts as SVG drawn on the server: no script, no library, nothing fetched; each bar
or point is a link to the items behind it.

Three shapes cover the run page's charts: bars with an interval (accuracy per arm,
calibration), points on two axes (accuracy against tokens or cost), and a histogram
(tokens, latency, calls). Every text is escaped (``markupsafe``) before it is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup
from pydantic import BaseModel, ConfigDict

from answerx.viewer.labels import Box, Placed, label_width, place_labels

__all__ = ["Bar", "Point", "bars", "histogram", "scatter"]

_WIDTH = 640  # the drawing's own units: it scales to its box (viewBox)
_ROW = 22
_LEFT = 210


class Bar(BaseModel):
    """One bar: its label, value (0 to 1), interval, link and tooltip."""

    model_config = ConfigDict(frozen=True)

    label: str
    value: float
    low: float | None = None
    high: float | None = None
    href: str
    note: str


class Point(BaseModel):
    """One point: its place on both axes, label, link and tooltip."""

    model_config = ConfigDict(frozen=True)

    x: float
    y: float
    label: str
    href: str
    note: str


def _svg(height: float, body: Markup, title: str) -> Markup:
    return Markup(
        '<svg class="chart" viewBox="0 0 {w} {h}" role="img" aria-label="{t}" '
        'preserveAspectRatio="xMinYMin meet"><title>{t}</title>{body}</svg>'
    ).format(w=_WIDTH, h=round(height), t=title, body=body)


def bars(items: Sequence[Bar], title: str) -> Markup:
    """Horizontal bars from 0 to 1 (a share), each with its interval's whisker."""
    scale = _WIDTH - _LEFT - 60
    parts = []
    for i, bar in enumerate(items):
        y = 8 + i * _ROW
        width = max(0.0, min(1.0, bar.value)) * scale
        whisker = Markup("")
        if bar.low is not None and bar.high is not None:
            whisker = Markup(
                '<line class="whisker" x1="{a}" x2="{b}" y1="{y}" y2="{y}"/>'
            ).format(a=round(_LEFT + bar.low * scale, 1), b=round(_LEFT + bar.high * scale, 1),
                     y=y + 8)  # fmt: skip
        parts.append(
            Markup(
                '<a href="{href}" class="bar-link"><title>{note}</title>'
                '<text class="label" x="{lx}" y="{ty}" text-anchor="end">{label}</text>'
                '<rect class="bar" x="{x}" y="{y}" width="{w}" height="16"/>{whisker}'
                '<text class="value" x="{vx}" y="{ty}">{value}</text></a>'
            ).format(
                href=bar.href,
                note=bar.note,
                lx=_LEFT - 6,
                ty=y + 12,
                label=bar.label[:34],
                x=_LEFT,
                y=y,
                w=round(width, 1),
                whisker=whisker,
                vx=round(_LEFT + scale + 6, 1),
                value=f"{100 * bar.value:.0f}%",
            )
        )
    return _svg(16 + len(items) * _ROW, Markup("").join(parts), title)


def histogram(counts: Sequence[tuple[float, float, int, str]], title: str, unit: str) -> Markup:
    """Columns of counts, one per (low, high, count, link) bin, labelled at both ends."""
    top = max((c for _, _, c, _ in counts), default=0) or 1
    height, bottom, left = 180, 150, 40
    step = (_WIDTH - left - 10) / max(1, len(counts))
    parts = []
    for i, (low, high, count, href) in enumerate(counts):
        h = (bottom - 10) * count / top
        parts.append(
            Markup(
                '<a href="{href}" class="bar-link"><title>{n:,} items, {lo:,.4g} to {hi:,.4g} '
                '{unit}</title><rect class="bar" x="{x}" y="{y}" width="{w}" height="{h}"/></a>'
            ).format(
                href=href,
                n=count,
                lo=low,
                hi=high,
                unit=unit,
                x=round(left + i * step + 1, 1),
                y=round(bottom - h, 1),
                w=round(max(1.0, step - 2), 1),
                h=round(h, 1),
            )
        )
    if counts:
        parts.append(
            Markup(
                '<text class="axis" x="{l}" y="{t}">{lo:,.4g}</text>'
                '<text class="axis" x="{r}" y="{t}" text-anchor="end">{hi:,.4g} {unit}</text>'
                '<text class="axis" x="{a}" y="12" text-anchor="end">{top:,}</text>'
            ).format(
                l=left,
                r=_WIDTH - 10,
                t=bottom + 16,
                lo=counts[0][0],
                hi=counts[-1][1],
                unit=unit,
                a=left - 4,
                top=top,
            )
        )
    return _svg(height, Markup("").join(parts), title)


def scatter(points: Sequence[Point], title: str, x_label: str, y_label: str) -> Markup:
    """Points on a share (y, 0 to 1) against a quantity (x, from 0 to its largest), each
    labelled where no label covers another (:func:`~answerx.viewer.labels.place_labels`);
    labels with no room left are numbered in a legend under the chart."""
    height, bottom, left, right = 220, 185, 50, _WIDTH - 20
    largest = max((p.x for p in points), default=0) or 1
    at = [
        (left + (right - left) * p.x / largest, bottom - (bottom - 10) * max(0.0, min(1.0, p.y)))
        for p in points
    ]
    texts = [p.label[:30] for p in points]
    places = place_labels(
        at, [label_width(t) for t in texts], Box(x=left, y=16, w=_WIDTH - left, h=bottom - 16)
    )
    legend = [i for i, place in enumerate(places) if place.box is None]
    parts = [
        Markup(
            '<line class="axis-line" x1="{l}" x2="{r}" y1="{b}" y2="{b}"/>'
            '<line class="axis-line" x1="{l}" x2="{l}" y1="10" y2="{b}"/>'
            '<text class="axis" x="{r}" y="{t}" text-anchor="end">{xl} (up to {big:,.4g})</text>'
            '<text class="axis" x="4" y="14">{yl}</text>'
        ).format(l=left, r=right, b=bottom, t=bottom + 18, xl=x_label, big=largest, yl=y_label)
    ]
    for i, (p, (x, y), text, place) in enumerate(zip(points, at, texts, places, strict=True)):
        number = legend.index(i) + 1 if i in legend else 0
        label = _point_label(x, y, text, place, number, height + 16 * (number - 1))
        parts.append(
            Markup(
                '<a href="{href}" class="point-link"><title>{note}</title>'
                '<circle class="point" cx="{x}" cy="{y}" r="6"/>{label}</a>'
            ).format(href=p.href, note=p.note, x=round(x, 1), y=round(y, 1), label=label)
        )
    return _svg(height + 16 * len(legend), Markup("").join(parts), title)


def _point_label(x: float, y: float, text: str, place: Placed, number: int, row: float) -> Markup:
    """A point's label: in its box (with a leader line when away from the point), or,
    ``number`` > 0, the point's number and a legend row at ``row``."""
    if place.box is None:
        return Markup(
            '<text class="point-number" x="{x}" y="{y}" text-anchor="middle">{n}</text>'
            '<text class="legend" x="8" y="{row}">{n} · {label}</text>'
        ).format(x=round(x, 1), y=round(y + 4, 1), n=number, row=round(row, 1), label=text)
    box = place.box
    leader = Markup("")
    if place.leader:  # from the point to the nearer end of the box's middle
        end = box.x if box.x > x else box.x + box.w
        leader = Markup('<line class="leader" x1="{a}" y1="{b}" x2="{c}" y2="{d}"/>').format(
            a=round(x, 1), b=round(y, 1), c=round(end, 1), d=round(box.y + box.h / 2, 1)
        )
    return leader + Markup(
        '<rect class="label-box" x="{x}" y="{y}" width="{w}" height="{h}"/>'
        '<text class="point-label" x="{tx}" y="{ty}">{label}</text>'
    ).format(
        x=round(box.x, 1),
        y=round(box.y, 1),
        w=round(box.w, 1),
        h=round(box.h, 1),
        tx=round(box.x + 4, 1),
        ty=round(box.y + box.h - 3.5, 1),
        label=text,
    )
