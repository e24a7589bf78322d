"""Legends printed apart from their figure: each is paired with the graphic beside it or on another page.

Manuscripts and preprints set a figure on a page of its own with its legend on the next page, or
collect every figure after the references with the legends on pages before them (bioRxiv); some
head each figure page with its bare label ("Figure 1") and print the legend elsewhere. The page
search (`regions`) finds no content for such a legend and leaves the figure unlabelled, so the
pairing is done here, over the whole paper, after every page's regions are known:

1. a figure region whose caption is its bare label takes the text of that label's legend, and
   every other graphic of its page when that label is the page's only caption (a figure page);
2. a legend on a page with no graphic at all takes the graphics of the nearest page that has no
   caption (the page before it, else after it; for figures collected at the end, the first such
   page after it), all of that page's unlabelled pieces as one figure;
3. a page's only caption left without content (no region, or one holding none of the page's
   graphics and text lines: a sliver of gap) while its page has unlabelled graphics and no other
   captioned region: the legend set beside its figure, across the column (Science, Nature
   Communications), takes them all.

Only a legend on a page without graphics (rules aside) is paired across pages: a caption that found no content
on a page with figures is paired on its own page or not at all.

4. a figure's caption that only titles or points to a legend of the same label printed elsewhere
   (a figure page headed "Figure 1 - title" over the figure, "Fig. 6 (See legend on previous
   page.)") takes that legend's text (`_legend_of`); its box stays its own.
"""

from __future__ import annotations

import re
from dataclasses import replace

from spiqa_demo.extraction.captions import Caption
from spiqa_demo.extraction.geometry import union
from spiqa_demo.extraction.layout import PageFrame
from spiqa_demo.extraction.regions import PageSearch, Region, is_drawn
from spiqa_demo.paper_text import parse_caption_label

# A region narrower or shorter than this (pt) is a rule or a gap, not a figure.
_MIN_SIDE = 4.0
# A legend stands for a same-label title when its first words (the title's count and this many
# more) hold this share of the title's words.
_TITLE_SLACK = 2
_TITLE_SHARE = 0.8


def pair_legends(searches: list[PageSearch], regions: list[tuple[PageFrame, Region]]) -> list[tuple[PageFrame, Region]]:
    """`regions` with legends set apart from their figures joined to them (see the module)."""
    return _legends_elsewhere(searches, _paired(searches, regions))


def _paired(searches: list[PageSearch], regions: list[tuple[PageFrame, Region]]) -> list[tuple[PageFrame, Region]]:
    """Rules 1-3."""
    regions = _beside(searches, _figure_pages(searches, regions))
    # A legend's page draws nothing but rules; the region page search gave its caption there is the
    # legend's own text (its lines set apart from the caption's first), never a figure.
    legends = [c for s in searches if not any(is_drawn(e) for e in s.elements) for c in s.captions if c.kind == "figure"]
    if not legends:
        return regions
    regions = _label_takes_legend(regions, legends)
    placed = {r.caption for _, r in regions if r.caption is not None and r.caption not in legends}
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
    paired = set(pairs.values())
    kept = [(page, r) for page, r in regions if page.number not in pairs and r.caption not in paired]
    for number, legend in pairs.items():
        boxes = [r.bbox for page, r in regions if page.number == number]
        kept.append((free[number], Region(legend, union(boxes))))
    return kept


def _beside(searches: list[PageSearch], regions: list[tuple[PageFrame, Region]]) -> list[tuple[PageFrame, Region]]:
    """Rule 3: a page's one contentless caption takes the page's unlabelled graphics."""
    out: list[tuple[PageFrame, Region]] = []
    for search in searches:
        on_page = [(page, r) for page, r in regions if page.number == search.page.number]
        placed = {r.caption: r for _, r in on_page if r.caption is not None}
        empty = [c for c in search.captions if c not in placed or not _holds_content(placed[c], search)]
        pieces = [r for _, r in on_page if r.caption is None]
        if len(empty) == 1 and pieces and set(placed) <= set(empty):
            out.append((search.page, Region(empty[0], union([r.bbox for r in pieces]))))
        else:
            out += on_page
    return out


def _holds_content(region: Region, search: PageSearch) -> bool:
    """The region is more than a rule or a gap, and some graphic or text line of the page has its
    centre inside it."""
    x0, y0, x1, y1 = region.bbox
    return min(x1 - x0, y1 - y0) >= _MIN_SIDE and any(x0 <= (e.bbox[0] + e.bbox[2]) / 2 <= x1 and y0 <= (e.bbox[1] + e.bbox[3]) / 2 <= y1 for e in search.elements)


def _figure_pages(searches: list[PageSearch], regions: list[tuple[PageFrame, Region]]) -> list[tuple[PageFrame, Region]]:
    """A page whose only caption is a figure's bare label ("Figure 2" heading the page): every
    graphic on it is that figure, its unlabelled pieces joined to the label's region."""
    labelled = {
        s.page.number for s in searches if len(s.captions) == 1 and s.captions[0].kind == "figure" and _bare_label(s.captions[0])
    }
    if not labelled:
        return regions
    out = [(page, r) for page, r in regions if page.number not in labelled]
    for number in sorted(labelled):
        on_page = [(page, r) for page, r in regions if page.number == number]
        owner = next(((page, r) for page, r in on_page if r.caption is not None), None)
        if owner is None:
            out += on_page
            continue
        out.append((owner[0], Region(owner[1].caption, union([r.bbox for _, r in on_page]))))
    return out


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


def _legends_elsewhere(searches: list[PageSearch], regions: list[tuple[PageFrame, Region]]) -> list[tuple[PageFrame, Region]]:
    """Rule 4: a region's caption standing for a same-label legend on any page takes its text."""
    by_label: dict[tuple[str, str], list[Caption]] = {}
    for search in searches:
        for c in search.captions:
            if c.number:
                by_label.setdefault((c.kind, c.number), []).append(c)
    out = []
    for page, r in regions:
        caption = r.caption
        legend = _legend_of(caption, by_label[(caption.kind, caption.number)]) if caption is not None and caption.number else None
        out.append((page, r if caption is None or legend is None else Region(replace(caption, text=legend.text), r.bbox)))
    return out


def _legend_of(caption: Caption, same_label: list[Caption]) -> Caption | None:
    """The longer caption of the same label that `caption` stands for, if any: `caption` is a note
    in brackets ("Fig. 6 (See legend on previous page.)", "TABLE 1. (Continued.)"), or a title
    whose words open that legend ("Figure 1 - Stiffness regulates ..." over the figure, "Figure 1 –
    Substrate stiffness regulates ... (a) ..." under it or on another page)."""
    fuller = max(same_label, key=lambda c: len(c.text))
    found, legend = parse_caption_label(caption.text), parse_caption_label(fuller.text)
    if fuller is caption or found is None or legend is None:
        return None
    rest = found.rest.strip()
    if rest.startswith("(") and rest.rstrip(".").endswith(")"):
        return fuller
    title = _title_words(rest)
    opening = _title_words(legend.rest)[: len(title) + _TITLE_SLACK]
    return fuller if title and len(set(title) & set(opening)) >= _TITLE_SHARE * len(set(title)) else None


def _title_words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())
