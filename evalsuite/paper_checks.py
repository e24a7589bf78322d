"""Checks of an extracted real paper: its figure/table numbers against `papers/manifest.json`, and its crops.

The manifest is a hand-made answer key and can be incomplete, so a number the extractor finds that
the manifest lacks is reported with the evidence a person needs to judge it (is its printed label
in the text of its page?) instead of being patched away per paper.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalsuite.extraction_gold import natural_key
from spiqa_demo.paper_text import PART_PREFIX

if TYPE_CHECKING:
    from spiqa_demo.types import Figure, Paper

KINDS = ("figure", "table")


@dataclass(frozen=True)
class UnlistedItem:
    """A labelled item the extractor found whose number the manifest entry does not list."""

    kind: str
    number: str
    label: str
    page: int
    printed: bool  # its label occurs in the text layer of its page

    def describe(self) -> str:
        evidence = "printed on" if self.printed else "NOT in the text of"
        return f"{self.kind} {self.number} ({self.label!r} {evidence} p{self.page})"


@dataclass
class ManifestCheck:
    """Figure/table numbers found in one paper vs the numbers its manifest entry lists."""

    file: str
    missing: dict[str, list[str]]
    unlisted: list[UnlistedItem]
    duplicates: list[str]
    unlabelled: list[str] = field(default_factory=list)  # "p6 figure [x0, y0, x1, y1]"

    @property
    def ok(self) -> bool:
        """Found numbers equal the listed ones, each once."""
        return not (any(self.missing.values()) or self.unlisted or self.duplicates)

    @property
    def clean(self) -> bool:
        """`ok`, and no unlabelled item: the manifest lists every figure and table, so an item with
        no caption is junk (or a caption missed)."""
        return self.ok and not self.unlabelled

    @property
    def all_listed_found(self) -> bool:
        """Every listed number was found, each at most once (unlisted finds aside)."""
        return not (any(self.missing.values()) or self.duplicates)

    def describe(self) -> str:
        if self.ok:
            return f"{self.file}: ok"
        parts = [f"{self.file}:"]
        for kind in KINDS:
            if self.missing[kind]:
                parts.append(f"missing {kind}s {', '.join(self.missing[kind])};")
        if self.unlisted:
            parts.append(f"found but not in the manifest: {', '.join(u.describe() for u in self.unlisted)};")
        if self.duplicates:
            parts.append(f"duplicates {', '.join(self.duplicates)};")
        if self.unlabelled:
            parts.append(f"unlabelled {', '.join(self.unlabelled)}")
        return " ".join(parts).rstrip(";")

    def describe_all(self) -> str:
        """`describe`, with the unlabelled items of a paper whose numbers are right."""
        if self.ok and self.unlabelled:
            return f"{self.file}: numbers ok; unlabelled {', '.join(self.unlabelled)}"
        return self.describe()


def check_manifest(entry: Mapping[str, Any], paper: Paper, pdf: Path) -> ManifestCheck:
    """Compare a paper's labelled items (extracted from `pdf`) with its `papers/manifest.json` entry.

    The manifest writes numbers as printed ("A.1"), the extractor normalised ("A1"): an item answers
    a listed number when either its number or the number in its printed label equals it. An entry
    with `numbering_restarts_at_page` prints every listed number twice, in the paper and in the part
    starting there: each is expected once in each (the part's with `PART_PREFIX`, "S3").
    """
    restarts = "numbering_restarts_at_page" in entry
    listed = {
        kind: {str(n) for n in entry[f"{kind}_numbers"]} | ({PART_PREFIX + str(n) for n in entry[f"{kind}_numbers"]} if restarts else set())
        for kind in KINDS
    }
    labelled = [f for f in paper.items if f.number]
    found = {kind: {n for f in labelled if f.kind == kind for n in _names(f)} for kind in KINDS}
    counts = Counter((f.kind, f.number) for f in labelled)
    unlisted = sorted(
        (f for f in labelled if not _names(f) & listed[f.kind]),
        key=lambda f: (f.kind, natural_key(f.number), f.page),
    )
    return ManifestCheck(
        file=entry["file"],
        missing={k: sorted(listed[k] - found[k], key=natural_key) for k in KINDS},
        unlisted=_with_evidence(pdf, unlisted),
        duplicates=sorted(f"{kind} {number} x{n}" for (kind, number), n in counts.items() if n > 1),
        unlabelled=[f"p{f.page} {f.kind} {[round(v) for v in f.bbox]}" for f in paper.items if not f.number],
    )


def crop_problem(path: str | Path) -> str | None:
    """Why a crop is unusable ("missing", "not a PNG", "blank", ...), or None when it is fine."""
    from PIL import Image, UnidentifiedImageError

    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return "missing or empty file"
    try:
        with Image.open(path) as img:
            if img.format != "PNG":
                return f"not a PNG ({img.format})"
            if img.width < 2 or img.height < 2:
                return f"degenerate size {img.width}x{img.height}"
            low, high = img.convert("L").getextrema()
    except (OSError, UnidentifiedImageError) as exc:
        return f"unreadable ({exc})"
    if low == high:
        return f"blank (uniform gray {low})"
    return None


def _names(item: Figure) -> set[str]:
    """The item's normalised number and the number as its label prints it ("Figure A.1" -> "A.1"),
    with the part's prefix for an item of a part that numbers from 1 again."""
    if not item.label:
        return {item.number}
    return {item.number, (PART_PREFIX if item.part else "") + _printed(item).split()[-1]}


def _printed(item: Figure) -> str:
    """The label as printed on the page: without the part it names ("Table 3 (supplement)")."""
    return item.label.removesuffix(f" ({item.part})") if item.part else item.label


def _with_evidence(pdf: Path, items: list[Figure]) -> list[UnlistedItem]:
    if not items:
        return []
    import pymupdf

    with pymupdf.open(pdf) as doc:
        return [
            UnlistedItem(f.kind, f.number, f.label, f.page, _squash(_printed(f)) in _squash(doc[f.page - 1].get_text()))
            for f in items
        ]


def _squash(text: str) -> str:
    """NFKC with whitespace runs made one space, so a label matches however the PDF spaces it."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text))
