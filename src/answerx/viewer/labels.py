"""Where a scatter chart's labels go so that none covers another: greedy placement.

Each label is a box beside its point. The points are taken top to bottom; each label
takes the first free place among candidates ever further from its point (right of it,
then left, then a row up or down, and so on), free meaning inside the drawing and
crossing neither a placed label nor a point. A label placed away from its point gets a
leader line back to it. When no candidate is free (many arms crowded together), the
label goes to a numbered legend under the chart and the point shows its number.

The boxes are sized from the text (a generous width per character for an 11-unit
sans-serif face), and drawn behind the text, so what the reader sees is what was
placed: a test can check the boxes themselves.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

__all__ = ["CHAR_WIDTH", "LABEL_HEIGHT", "Box", "Placed", "label_width", "place_labels"]

#: Width of one character of a label, at the charts' 11-unit font (wide: digits and
#: capitals of common sans-serif faces fit).
CHAR_WIDTH = 6.4
#: A label box's height.
LABEL_HEIGHT = 14.0
_PAD = 4.0  # around the text inside its box
_GAP = 3.0  # between a point and its label, and between two labels
_POINT = 6.0  # a point's radius: its square is kept free of labels
_ROWS = 8  # rows up and down tried before the legend


class Box(BaseModel):
    """An axis-aligned rectangle: left, top, width, height."""

    model_config = ConfigDict(frozen=True)

    x: float
    y: float
    w: float
    h: float

    def crosses(self, other: Box) -> bool:
        """Whether the two overlap (touching edges do not count)."""
        return (
            self.x < other.x + other.w
            and other.x < self.x + self.w
            and self.y < other.y + other.h
            and other.y < self.y + self.h
        )

    def inside(self, bounds: Box) -> bool:
        """Whether the whole box lies within ``bounds``."""
        return (
            bounds.x <= self.x
            and self.x + self.w <= bounds.x + bounds.w
            and bounds.y <= self.y
            and self.y + self.h <= bounds.y + bounds.h
        )


class Placed(BaseModel):
    """Where one label went: its box, whether a leader line joins it to its point, or
    None when it went to the legend."""

    model_config = ConfigDict(frozen=True)

    box: Box | None
    leader: bool = False


def label_width(text: str) -> float:
    """The width of a label box holding ``text``."""
    return len(text) * CHAR_WIDTH + 2 * _PAD


def _candidates(x: float, y: float, w: float) -> list[tuple[Box, bool]]:
    """Boxes for a label of width ``w`` beside point (x, y), nearest first: (box, leader)."""
    h = LABEL_HEIGHT
    right, left = x + _POINT + _GAP, x - _POINT - _GAP - w
    found = []
    for row in range(_ROWS + 1):
        # Row 0 sits level with the point, a little above; row k is k rows up, then down.
        for shift in (0,) if row == 0 else (-row, row):
            top = y - h + _POINT / 2 + shift * (h + _GAP)
            found += [(Box(x=right, y=top, w=w, h=h), row > 1),
                      (Box(x=left, y=top, w=w, h=h), row > 1)]  # fmt: skip
    return found


def place_labels(
    points: Sequence[tuple[float, float]], widths: Sequence[float], bounds: Box
) -> list[Placed]:
    """A place for each point's label (``widths[i]`` wide), in the points' order: no two
    boxes cross, none covers a point, all lie within ``bounds``."""
    taken = [Box(x=x - _POINT, y=y - _POINT, w=2 * _POINT, h=2 * _POINT) for x, y in points]
    placed: dict[int, Placed] = {}
    for i in sorted(range(len(points)), key=lambda k: (points[k][1], points[k][0])):
        x, y = points[i]
        placed[i] = Placed(box=None)
        for box, leader in _candidates(x, y, widths[i]):
            spaced = Box(x=box.x - _GAP / 2, y=box.y - _GAP / 2, w=box.w + _GAP, h=box.h + _GAP)
            if box.inside(bounds) and not any(spaced.crosses(t) for t in taken):
                placed[i] = Placed(box=box, leader=leader)
                taken.append(box)
                break
    return [placed[i] for i in range(len(points))]
