"""Box geometry in PDF points (origin top-left, `(x0, y0, x1, y1)`): the one place extraction, its
debug view and the evaluation suite compute unions, overlaps and IoU.

The free functions take plain `BBox` tuples, the form every stage holds and the `Paper` stores, so
the hot loops of region search build no objects. `Box` is the same four numbers with names and
methods, for code that reads better with them; being a tuple, it is a `BBox` wherever one is expected.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from spiqa_demo.types import BBox


def union(boxes: Sequence[BBox]) -> BBox:
    """The smallest box holding every box of `boxes` (not empty).

    One pass with the comparisons `min` and `max` make (a box only replaces a smaller or larger
    corner): a hot loop of page reading, four generator passes cost more."""
    first = boxes[0]
    x0, y0, x1, y1 = first[0], first[1], first[2], first[3]
    for b in boxes[1:]:
        if b[0] < x0:
            x0 = b[0]
        if b[1] < y0:
            y0 = b[1]
        if b[2] > x1:
            x1 = b[2]
        if b[3] > y1:
            y1 = b[3]
    return (x0, y0, x1, y1)


def area(b: BBox) -> float:
    """The area, 0 for an inverted box (the intersection of boxes that do not meet)."""
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def intersection(a: BBox, b: BBox) -> BBox:
    """The part of `a` inside `b`; inverted (x0 > x1 or y0 > y1) when they do not meet."""
    return max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])


def overlap(a: BBox, b: BBox) -> float:
    """The area `a` and `b` share."""
    return area(intersection(a, b))


def iou(a: BBox, b: BBox) -> float:
    """Intersection over union (0 when the boxes do not meet or either has no area)."""
    shared = overlap(a, b)
    if shared <= 0:
        return 0.0
    joint = area(a) + area(b) - shared
    return shared / joint if joint > 0 else 0.0


def contains(outer: BBox, inner: BBox, margin: float = 0.0) -> bool:
    """`inner` lies inside `outer` grown by `margin` on every side."""
    return (
        outer[0] - margin <= inner[0] and inner[2] <= outer[2] + margin
        and outer[1] - margin <= inner[1] and inner[3] <= outer[3] + margin
    )  # fmt: skip


def expand(b: BBox, amount: float) -> BBox:
    """`b` grown by `amount` on every side (shrunk when negative)."""
    return b[0] - amount, b[1] - amount, b[2] + amount, b[3] + amount


class Box(NamedTuple):
    """A box with named corners (pdffigures2's `Box`), immutable."""

    x0: float
    y0: float
    x1: float
    y1: float

    @classmethod
    def of(cls, corners: Iterable[float]) -> Box:
        """A `Box` from any four corners in order: a `BBox`, a PyMuPDF `Rect`, a JSON list."""
        x0, y0, x1, y1 = corners
        return cls(x0, y0, x1, y1)

    @property
    def area(self) -> float:
        return area(self)

    @property
    def is_empty(self) -> bool:
        """Inverted: what `intersection` gives for boxes that do not meet (a hairline is not empty)."""
        return self.x0 > self.x1 or self.y0 > self.y1

    def intersection(self, other: BBox) -> Box:
        return Box.of(intersection(self, other))

    def overlap(self, other: BBox) -> float:
        return overlap(self, other)

    def expand(self, amount: float) -> Box:
        return Box.of(expand(self, amount))
