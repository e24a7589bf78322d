"""SPIQA figure file names -> (kind, number, page hint).

SPIQA names every figure/table image after the pdffigures2 convention: `<prefix>-<Kind><Name>-<n>.png`
where the prefix is the versioned arXiv id in test-A/train/val (`1611.05742v3-Figure1-1.png`) and
the page number in test-B/test-C (`4-Figure2-1.png`), optionally under a folder such as the
Semantic Scholar paper hash (`21117380.../3-TableII-1.png`). The printed number (`TableII`,
`TableB.1`) is reduced to the canonical form of `spiqa_demo.paper_text` ("2", "B1"), so it compares
with `spiqa_demo.types.Figure.number`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from spiqa_demo.paper_text import canonical_number, label_kind

_NAME = re.compile(
    r"^(?:(?P<prefix>[^/]*?)-)?(?P<kind>Figure|Table)(?P<number>[A-Za-z0-9.]+?)-(?P<index>\d+)\.(?:png|jpe?g)$",
    re.IGNORECASE,
)
_PAGE = re.compile(r"^\d{1,4}$")


@dataclass(frozen=True)
class FigureName:
    """What a SPIQA figure file name says about the figure it holds."""

    file: str
    kind: Literal["figure", "table"]
    number: str  # canonical: "2" for "TableII", "B1" for "TableB.1"
    page: int | None  # the page hint of test-B/test-C names; None when the prefix is an arXiv id


def parse_figure_file(file: str) -> FigureName | None:
    """Parse a SPIQA figure file name (any folder prefix); None when it does not follow the convention."""
    base = file.replace("\\", "/").rsplit("/", 1)[-1]
    match = _NAME.match(base)
    if not match:
        return None
    prefix = match["prefix"] or ""
    page = int(prefix) if _PAGE.match(prefix) else None
    return FigureName(file=file, kind=label_kind(match["kind"]), number=canonical_number(match["number"]), page=page)
