"""Legends printed apart from their figure: each is paired with the graphic on another page.

Manuscripts and preprints set a figure on a page of its own with its legend on the next page, or
collect every figure after the references with the legends on pages before them (bioRxiv); some
head each figure page with its bare label ("Figure 1") and print the legend elsewhere. The page
search (`regions`) finds no content for such a legend and leaves the figure unlabelled, so the
pairing is done here, over the whole paper, after every page's regions are known:

1. a figure region whose caption is its bare label takes the text of that label's legend;
2. a legend on a page with no graphic at all takes the graphics of the nearest page that has no
   caption (the page before it, else after it; for figures collected at the end, the first such
   page after it), all of that page's unlabelled pieces as one figure.

Only a legend on a page without graphics is paired across pages: a caption that found no content
on a page with figures is a miss of the page search, not a legend set apart.
"""

from __future__ import annotations

from dataclasses import replace

from spiqa_demo.extraction.captions import Caption
from spiqa_demo.extraction.geometry import union
from spiqa_demo.extraction.layout import PageFrame
from spiqa_demo.extraction.regions import PageSearch, Region
from spiqa_demo.paper_text import parse_caption_label


def pair_legends(searches: list[PageSearch], regions: list[tuple[PageFrame, Region]]) -> list[tuple[PageFrame, Region]]:
    """`regions` with legends set apart from their figures joined to them (see the module)."""
    placed = {r.caption for _, r in regions if r.caption is not None}
    legends = [c for s in searches if not any(e.graphic for e in s.elements) for c in s.captions if c not in placed and c.kind == "figure"]
    if not legends:
        return regions
    regions = _label_takes_legend(regions, legends)
    placed = {r.caption for _, r in regions if r.caption is not None}
    legends = [c for c in legends if (c.kind, c.number) not in {(p.kind, p.number) for p in placed}]
    captioned = {s.page.number for s in searches if s.captions}
    free: dict[int, PageFrame] = {}
    for page, r in regions:
        if r.caption is None and page.number not in captioned:
            free[page.number] = page
    pairs: dict[int, Caption] = {}
    for legend in sorted(legends, key=lambda c: (c.page, c.bbox[1])):
        near = [p for p in (legend.page - 1, legend.page + 1) if p in free and p not in pairs]
        later = [p for p in sorted(free) if p > legend.page and p not in pairs]
        if near or later:
            pairs[(near or later)[0]] = legend
    if not pairs:
        return regions
    kept = [(page, r) for page, r in regions if page.number not in pairs]
    for number, legend in pairs.items():
        boxes = [r.bbox for page, r in regions if page.number == number]
        kept.append((free[number], Region(legend, union(boxes))))
    return kept


def _label_takes_legend(regions: list[tuple[PageFrame, Region]], legends: list[Caption]) -> list[tuple[PageFrame, Region]]:
    """A region captioned by its bare label ("Figure 1" over a figure page) with the text of that
    label's legend printed on another page; the caption's box stays the label's."""
    by_key = {(c.kind, c.number): c for c in legends}
    out = []
    for page, r in regions:
        legend = by_key.get((r.caption.kind, r.caption.number)) if r.caption is not None else None
        if r.caption is not None and legend is not None and _bare_label(r.caption):
            r = Region(replace(r.caption, text=legend.text), r.bbox)
        out.append((page, r))
    return out


def _bare_label(caption: Caption) -> bool:
    found = parse_caption_label(caption.text)
    return found is not None and not found.rest.strip()
