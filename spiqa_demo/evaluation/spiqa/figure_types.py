"""SPIQA's figure categories (the paper's Table 6) and the mapping from the raw, messy labels.

SPIQA's `figure_type` values are free text written by a model ("plot", "** Schematic", "N/A",
"photograph(s) and table", "Map.", ...). They normalise to five categories. In the released
files every table image has `content_type == "table"` (its `figure_type` is usually "N/A"), so content
type wins; for figures the first category named in the label wins ("photograph(s) and plot" is a
visualization); photographs and maps are visualizations; anything unknown is "other".
"""

from __future__ import annotations

import re
from typing import Literal

FigureType = Literal["table", "schematic", "plot", "visualization", "other"]

FIGURE_TYPES: tuple[FigureType, ...] = ("table", "schematic", "plot", "visualization", "other")
FIGURE_TYPE_NAMES: dict[FigureType, str] = {
    "table": "Tables",
    "schematic": "Schematics",
    "plot": "Plots & charts",
    "visualization": "Visualizations",
    "other": "Others",
}

# Keyword (first occurrence in the cleaned label decides) -> category.
_KEYWORDS: tuple[tuple[str, FigureType], ...] = (
    ("table", "table"),
    ("schematic", "schematic"),
    ("diagram", "schematic"),
    ("plot", "plot"),
    ("chart", "plot"),
    ("graph", "plot"),
    ("photo", "visualization"),
    ("map", "visualization"),
    ("visuali", "visualization"),
    ("image", "visualization"),
)


def normalise_figure_type(raw: str | None, kind: str = "figure") -> FigureType:
    """The Table 6 category of a figure from its raw `figure_type` label and its kind/content type."""
    if kind == "table":
        return "table"
    text = re.sub(r"[^a-z() ]+", " ", (raw or "").lower())
    hits = [(text.find(word), category) for word, category in _KEYWORDS if word in text]
    return min(hits)[1] if hits else "other"
