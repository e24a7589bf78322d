"""Body passages in reading order, and the sentences that cite each figure or table.

Reading order is two-column aware: a page is cut into horizontal bands at full-width blocks, and
inside a band the left column is read before the right one. Mentions are matched on sentences so
that a retriever gets the sentence that talks about the figure, not a whole paragraph about many.
"""

from __future__ import annotations

import re

from spiqa_demo.extraction.captions import NUMBER, normalise_number
from spiqa_demo.extraction.layout import ClassifiedPage, DocumentLayout
from spiqa_demo.types import Figure, Mention, Passage

# A sub-figure letter attached to the number: "3b", "3(b)", "3 (b)" (not the "a" of "and").
_SUB = r"(?:\s?\([a-z]\)|[a-z](?![A-Za-z]))?"
_REF_RE = re.compile(
    rf"\b(?P<word>Figures?|Figs?\.|Fig\.?|FIGURES?|Tables?|TABLES?|Tabs?\.)\s*"
    rf"(?P<nums>{NUMBER}{_SUB}(?:\s*(?:,|and|&|or|to|\u2013|-)\s*{NUMBER}{_SUB})*)"
)
_NUM_RE = re.compile(NUMBER)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")
# "Fig." / "e.g." / "et al." end with a period but not a sentence.
_NO_SPLIT = re.compile(r"(?:Figs?|Tabs?|Eqs?|Sec|Secs|e\.g|i\.e|et al|cf|vs|resp|approx|No)\.$", re.IGNORECASE)


def reading_order(page: ClassifiedPage, doc: DocumentLayout) -> list[int]:
    """Body block numbers of `page` in reading order."""
    blocks = [page.blocks[i] for i in sorted(page.body_blocks)]
    if len(doc.columns) < 2:
        return [b.number for b in sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0]))]
    gutter = (doc.columns[0][1] + doc.columns[1][0]) / 2
    full = sorted((b for b in blocks if b.bbox[0] < gutter - 10 and b.bbox[2] > gutter + 10), key=lambda b: b.bbox[1])
    cuts = [b.bbox[1] for b in full] + [float("inf")]
    order: list[int] = []
    top = float("-inf")
    for cut, full_block in zip(cuts, full + [None]):
        band = [b for b in blocks if b not in full and top <= b.bbox[1] < cut]
        order += [b.number for b in sorted(band, key=lambda b: (b.bbox[0] >= gutter, b.bbox[1]))]
        if full_block is not None:
            order.append(full_block.number)
        top = cut
    return order


def page_passages(page: ClassifiedPage, doc: DocumentLayout) -> list[Passage]:
    """The page's body paragraphs as `Passage`s, in reading order."""
    out = []
    for number in reading_order(page, doc):
        block = page.blocks[number]
        text = block.text
        if len(text) >= 20:
            out.append(Passage(text=text, page=page.number, bbox=tuple(round(v, 2) for v in block.bbox)))  # type: ignore[arg-type]
    return out


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph, not split after abbreviations such as "Fig." or "e.g."."""
    parts = _SENTENCE_RE.split(text)
    sentences: list[str] = []
    for part in parts:
        if sentences and _NO_SPLIT.search(sentences[-1]):
            sentences[-1] = f"{sentences[-1]} {part}"
        else:
            sentences.append(part)
    return sentences


def cited_items(sentence: str) -> set[tuple[str, str]]:
    """(kind, number) pairs a sentence cites: "Figs. 2 and 3(b)" -> {("figure","2"), ("figure","3")}."""
    found: set[tuple[str, str]] = set()
    for m in _REF_RE.finditer(sentence):
        kind = "table" if m.group("word").lower().startswith("tab") else "figure"
        nums = [normalise_number(n) for n in _NUM_RE.findall(m.group("nums"))]
        if re.search(r"\d\s*(?:\u2013|-|to)\s*\d", m.group("nums")) and len(nums) == 2 and all(n.isdigit() for n in nums):
            lo, hi = int(nums[0]), int(nums[1])
            if 0 < hi - lo <= 10:
                nums = [str(n) for n in range(lo, hi + 1)]
        found.update((kind, n) for n in nums)
    return found


def attach_mentions(passages: list[Passage], items: list[Figure]) -> None:
    """Fill each item's `mentions` with the sentences that cite it (its own caption excluded)."""
    by_key = {(item.kind, item.number): item for item in items if item.number}
    for index, passage in enumerate(passages):
        if not _REF_RE.search(passage.text):
            continue
        for sentence in split_sentences(passage.text):
            for key in cited_items(sentence):
                item = by_key.get(key)
                if item is not None and not any(m.sentence == sentence for m in item.mentions):
                    item.mentions.append(Mention(passage=index, sentence=sentence))
