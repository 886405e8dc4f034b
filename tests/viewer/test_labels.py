"""A scatter chart's labels are placed so that none covers another or a point: beside
the point when there is room, further out with a leader line when not, and in a
numbered legend when the chart is too crowded."""

from __future__ import annotations

import random
import re
from itertools import combinations

from answerx.viewer.charts import Point, scatter
from answerx.viewer.labels import Box, label_width, place_labels


def _boxes(svg: str) -> list[Box]:
    found = re.findall(
        r'<rect class="label-box" x="([\d.-]+)" y="([\d.-]+)" width="([\d.]+)" height="([\d.]+)"',
        svg,
    )
    return [Box(x=float(x), y=float(y), w=float(w), h=float(h)) for x, y, w, h in found]


def _points(n: int, spread: float, seed: int) -> list[Point]:
    draw = random.Random(seed)
    return [
        Point(
            x=1000 + draw.uniform(0, spread),
            y=0.6 + draw.uniform(0, spread / 10_000),
            label=f"approach_{k}/two_stage · provider/model-{k}",
            href=f"/runs/r/items?k={k}",
            note=f"arm {k}",
        )
        for k in range(n)
    ]


def test_labels_of_points_close_together_never_overlap_and_stay_in_the_drawing() -> None:
    for seed in range(20):
        svg = scatter(_points(8, 300, seed), "t", "tokens", "accuracy")
        boxes = _boxes(svg)
        width, height = (float(v) for v in re.findall(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)[0])
        for one, other in combinations(boxes, 2):
            assert not one.crosses(other), (seed, one, other)
        assert all(b.inside(Box(x=0, y=0, w=width, h=height)) for b in boxes)
        legend = re.findall(r'<text class="legend"', svg)
        assert len(boxes) + len(legend) == 8  # every point labelled, once


def test_a_label_placed_away_from_its_point_has_a_leader_line_back_to_it() -> None:
    svg = scatter(_points(8, 10, 1), "t", "tokens", "accuracy")  # all on one spot
    assert '<line class="leader"' in svg
    for x1, y1 in re.findall(r'<line class="leader" x1="([\d.]+)" y1="([\d.]+)"', svg):
        assert f'cx="{x1}" cy="{y1}"' in svg  # it starts at a point


def test_far_more_labels_than_room_go_to_a_numbered_legend() -> None:
    svg = scatter(_points(60, 5, 2), "t", "tokens", "accuracy")
    numbers = re.findall(r'<text class="legend" x="8" y="[\d.]+">(\d+) · ', svg)
    assert numbers and numbers == [str(k) for k in range(1, len(numbers) + 1)]
    assert len(_boxes(svg)) + len(numbers) == 60
    for one, other in combinations(_boxes(svg), 2):
        assert not one.crosses(other)


def test_placed_labels_cover_no_point() -> None:
    draw = random.Random(7)
    points = [(draw.uniform(60, 600), draw.uniform(20, 180)) for _ in range(15)]
    bounds = Box(x=50, y=16, w=590, h=170)
    placed = place_labels(points, [label_width("x" * 20)] * 15, bounds)
    for place in placed:
        if place.box is None:
            continue
        assert place.box.inside(bounds)
        for x, y in points:
            assert not place.box.crosses(Box(x=x - 6, y=y - 6, w=12, h=12))


def test_a_lone_point_is_labelled_right_beside_it() -> None:
    (place,) = place_labels([(300.0, 100.0)], [80.0], Box(x=0, y=0, w=640, h=200))
    assert place.box is not None and not place.leader
    assert place.box.x > 300 and abs(place.box.y + place.box.h / 2 - 100) < 10
