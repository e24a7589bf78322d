"""SPIQA figure file names -> (kind, number, page hint).

SPIQA names every figure/table image after the pdffigures2 convention: `<prefix>-<Kind><Name>-<n>.png`
where the prefix is the versioned arXiv id in test-A/train/val (`1611.05742v3-Figure1-1.png`) and
the page number in test-B/test-C (`4-Figure2-1.png`), optionally under a folder such as the
Semantic Scholar paper hash (`21117380.../3-TableII-1.png`). IEEE papers number tables in roman
numerals (`TableII`); the parsed number is normalised to arabic so it compares with
`spiqa_demo.types.Figure.number`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

_NAME = re.compile(
    r"^(?:(?P<prefix>[^/]*?)-)?(?P<kind>Figure|Table)(?P<number>[A-Za-z0-9.]+?)-(?P<index>\d+)\.(?:png|jpe?g)$",
    re.IGNORECASE,
)
_PAGE = re.compile(r"^\d{1,4}$")
_ROMAN = re.compile(r"^(?=[IVXL])L?X{0,3}(?:IX|IV|V?I{0,3})$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50}


@dataclass(frozen=True)
class FigureName:
    """What a SPIQA figure file name says about the figure it holds."""

    file: str
    kind: Literal["figure", "table"]
    number: str  # normalised: "2" for "TableII", "A1" kept as printed
    page: int | None  # the page hint of test-B/test-C names; None when the prefix is an arXiv id


def roman_to_int(text: str) -> int | None:
    """`"II" -> 2`, `"XIV" -> 14`; None when `text` is not an upper-case roman numeral up to L."""
    if not _ROMAN.match(text):
        return None
    total = 0
    for i, char in enumerate(text):
        value = _ROMAN_VALUES[char]
        following = _ROMAN_VALUES[text[i + 1]] if i + 1 < len(text) else 0
        total += -value if value < following else value
    return total


def normalise_number(raw: str) -> str:
    """A printed figure/table number in the form `Figure.number` uses: roman -> arabic, no dots."""
    raw = raw.strip().rstrip(".")
    roman = roman_to_int(raw)
    return str(roman) if roman is not None else raw


def parse_figure_file(file: str) -> FigureName | None:
    """Parse a SPIQA figure file name (any folder prefix); None when it does not follow the convention."""
    base = file.replace("\\", "/").rsplit("/", 1)[-1]
    match = _NAME.match(base)
    if not match:
        return None
    prefix = match["prefix"] or ""
    kind = "table" if match["kind"].lower() == "table" else "figure"
    page = int(prefix) if _PAGE.match(prefix) else None
    return FigureName(file=file, kind=kind, number=normalise_number(match["number"]), page=page)
