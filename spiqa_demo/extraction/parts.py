"""Parts of a paper that number their figures and tables from 1 again (a supplement or an appendix
bound after the paper): where such a part starts, what it is called, and its items' numbers.

A restart is read from the captions themselves: a "Figure 1" or "Table 1" after that kind already
reached 2 or more, followed by more numbers the paper already used. Its items keep their printed
number and say which part they are in: the number gets the part's prefix ("3" -> "S3", as a
supplement printing "Table S3" would number it) and the label names the part ("Table 3
(supplement)"), so the paper's Table 3 and the supplement's are two items, and a question naming
"Table 3 in the supplement" (`paper_text.find_label_refs`) finds the second.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from spiqa_demo.extraction.captions import Caption
from spiqa_demo.extraction.layout import ClassifiedPage, PageFrame
from spiqa_demo.extraction.regions import Region
from spiqa_demo.paper_text import PART_PREFIX, part_name

# A restart needs at least this many captions repeating numbers the paper already used (the "1"
# included): one repeated label alone is more likely a caption read twice.
_MIN_REPEATS = 2
# A heading naming the part has at most this many words; the part starts at the first page naming it
# from this many pages before its first repeated caption (its text before its figures) on.
_HEADING_WORDS = 8
_NAME_PAGES_BEFORE = 2
_DEFAULT_PART = "supplement"


@dataclass(frozen=True)
class PartStart:
    """The page where numbering restarts, and the part's name ("supplement", "appendix")."""

    page: int
    name: str


def page_part_name(page: ClassifiedPage) -> str | None:
    """The part a page's heading or running header names ("Supplementary Material" ->
    "supplement"), if any: a short line in the header band or set bold."""
    for line in page.lines:
        short = len(line.text.split()) <= _HEADING_WORDS
        heading = line.y1 <= page.header_bottom or all(s.bold for s in line.spans)
        if short and heading and (name := part_name(line.text)) is not None:
            return name
    return None


def find_part_start(regions: list[tuple[PageFrame, Region]], names: dict[int, str]) -> PartStart | None:
    """Where the captions' numbering restarts at 1 (None when it never does); `names`: the part
    named on each page that names one (`page_part_name`)."""
    captions = sorted(
        (r.caption for _, r in regions if r.caption is not None), key=lambda c: (c.page, c.bbox[1], c.bbox[0])
    )
    for start in captions:
        if start.number != "1":
            continue
        before = [c for c in captions if c.page < start.page]
        if not any(c.kind == start.kind and c.number.isdigit() and int(c.number) >= 2 for c in before):
            continue
        used = {(c.kind, c.number) for c in before}
        if sum((c.kind, c.number) in used for c in captions if c.page >= start.page) >= _MIN_REPEATS:
            first = min(c.page for c in captions if c.page >= start.page and (c.kind, c.number) in used)
            last_before = max(c.page for c in before)
            named = [p for p in range(max(first - _NAME_PAGES_BEFORE, last_before + 1), first + 1) if p in names]
            return PartStart(named[0], names[named[0]]) if named else PartStart(first, _DEFAULT_PART)
    return None


def in_part(caption: Caption, start: PartStart) -> Caption:
    """`caption` as an item of the part: its number prefixed, its label naming the part."""
    return replace(caption, number=PART_PREFIX + caption.number, label=f"{caption.label} ({start.name})")


def number_parts(regions: list[tuple[PageFrame, Region]], start: PartStart | None) -> list[tuple[PageFrame, Region]]:
    """`regions` with the captions of the restarted part (from `start.page` on) numbered in it."""
    if start is None:
        return regions
    return [
        (page, Region(in_part(r.caption, start), r.bbox) if r.caption is not None and page.number >= start.page else r)
        for page, r in regions
    ]

