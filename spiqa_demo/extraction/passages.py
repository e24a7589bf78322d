"""Body passages in reading order, and the sentences that cite each figure or table.

Reading order is two-column aware: a page is cut into horizontal bands at full-width blocks, and
inside a band the left column is read before the right one. Mentions are matched on sentences so
that a retriever gets the sentence that talks about the figure, not a whole paragraph about many.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from spiqa_demo.extraction.geometry import union
from spiqa_demo.extraction.layout import (
    Block,
    ClassifiedPage,
    DocumentLayout,
    continues_paragraph,
    is_heading,
    join_lines,
    reads_as_prose,
)
from spiqa_demo.paper_text import PART_PREFIX, LabelKey, find_label_refs, part_qualified, split_sentences
from spiqa_demo.types import Figure, Mention, Passage, Reference, round_bbox

# A block crossing the gutter by more than this many points on both sides spans the columns.
_GUTTER_SLACK = 10
# A body block shorter than this (characters) is no passage (a lone page number, an equation label).
_MIN_PASSAGE_CHARS = 20
# A passage is a bibliography's entries when more than this share of its runs of `_RUN_WORDS` words
# are runs of the entries' text, and at least `_MIN_SHARED_RUNS` of them: a sentence citing a title,
# or a short heading naming what a cited title names, shares a run or two.
_RUN_WORDS = 4
_IN_BIBLIOGRAPHY = 0.5
_MIN_SHARED_RUNS = 2
_SPACING_ACCENTS = dict.fromkeys(map(ord, "\u00b4\u00a8`\u02c6\u02dc\u02c7"))
_WORDS = re.compile(r"[^\W_]+")
# What the first sentence of a publisher's notice says: the licence, the copyright, the peer review.
_NOTICE = re.compile(
    r"\b(?:licensed under|open access article|Creative Commons|Peer review information|peer review file|Publisher['’]s note|All rights reserved)\b",
    re.IGNORECASE,
)


def reading_order(page: ClassifiedPage, doc: DocumentLayout) -> list[int]:
    """Body block numbers of `page` in reading order."""
    blocks = [page.blocks[i] for i in sorted(page.body_blocks)]
    if len(doc.columns) < 2:
        return [b.number for b in sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0]))]
    gutter = (doc.columns[0][1] + doc.columns[1][0]) / 2
    full = sorted((b for b in blocks if b.bbox[0] < gutter - _GUTTER_SLACK and b.bbox[2] > gutter + _GUTTER_SLACK), key=lambda b: b.bbox[1])
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
    for blocks in paragraphs(page, doc):
        text = join_lines([line.text for block in blocks for line in block.lines])
        if len(text) < _MIN_PASSAGE_CHARS or _is_publisher_notice(text) or (page.number == 1 and _is_front_matter(blocks, doc)):
            continue
        out.append(Passage(text=text, page=page.number, bbox=round_bbox(union([block.bbox for block in blocks]))))
    return out


def _is_publisher_notice(text: str) -> bool:
    """The article's licence, copyright or peer-review note, which journals set as paragraphs of the
    text: it says nothing of the work itself. Its first sentence says so."""
    sentences = split_sentences(text)
    return bool(sentences) and _NOTICE.search(sentences[0]) is not None


def _is_front_matter(blocks: list[Block], doc: DocumentLayout) -> bool:
    """On the first page, a paragraph that neither reads as sentences nor heads a section is the
    paper's names, affiliations or addresses (a manuscript sets them at the body size, a line each)."""
    merged = Block(blocks[0].number, [line for block in blocks for line in block.lines])
    return not reads_as_prose(merged) and not is_heading(merged, doc)


def paragraphs(page: ClassifiedPage, doc: DocumentLayout) -> list[list[Block]]:
    """The page's body blocks in reading order, those that go on with the paragraph before them
    (`layout.continues_paragraph`) joined to it."""
    out: list[list[Block]] = []
    for number in reading_order(page, doc):
        block = page.blocks[number]
        if out and continues_paragraph(out[-1][-1], block, doc):
            out[-1].append(block)
        else:
            out.append([block])
    return out


def outside_bibliography(passages: list[Passage], references: list[Reference]) -> list[Passage]:
    """`passages` without the bibliography's entries, which body text rules take for paragraphs
    where a journal sets them like its text (`references.find_references` reads them on their own):
    a passage most of whose runs of `_RUN_WORDS` words are the entries' runs is one of them (a line
    cut off an entry too: "we done with imagenet? arXiv, 2020."), unless
    it says no more than a title ("Automated flow synthesis of vaccine epitopes" heads a section
    and titles the authors' earlier paper)."""
    runs = {run for reference in references for run in _word_runs(reference.text)}
    if not runs:
        return passages
    titles = {run for reference in references for run in _word_runs(reference.title)}
    out = []
    for passage in passages:
        own = _word_runs(passage.text)
        shared = sum(run in runs for run in own)
        if shared <= _IN_BIBLIOGRAPHY * len(own) or shared < _MIN_SHARED_RUNS or all(run in titles for run in own):
            out.append(passage)  # a heading that a cited paper's title also says stays
    return out


def _word_runs(text: str) -> list[tuple[str, ...]]:
    """The text's runs of `_RUN_WORDS` words, letters folded: ligatures spelled out and accents
    dropped, spacing ones too ("T\u00a8ackstr\u00a8om", which the bibliography's text joins)."""
    folded = unicodedata.normalize("NFKD", text.translate(_SPACING_ACCENTS))
    words = _WORDS.findall("".join(ch for ch in folded if not unicodedata.combining(ch)).lower())
    return [tuple(words[i : i + _RUN_WORDS]) for i in range(len(words) - _RUN_WORDS + 1)]


def attach_mentions(passages: list[Passage], items: list[Figure], part_start: int | None = None) -> None:
    """Fill each item's `mentions` with the sentences that cite it (its own caption excluded); from
    page `part_start` on, a part numbers from 1 again and its sentences cite its own items."""
    by_key = {(item.kind, item.number): item for item in items if item.number}
    for index, passage in enumerate(passages):
        if not find_label_refs(passage.text):
            continue
        in_part = part_start is not None and passage.page >= part_start
        for sentence in split_sentences(passage.text):
            for key in _in_numbering(find_label_refs(sentence), by_key, in_part):
                item = by_key.get(key)
                if item is not None and not any(m.sentence == sentence for m in item.mentions):
                    item.mentions.append(Mention(passage=index, sentence=sentence))


def _in_numbering(refs: list[LabelKey], items: Mapping[LabelKey, object], in_part: bool) -> list[LabelKey]:
    """`refs` as the sentence means them where a part numbers from 1 again: inside that part, "Table
    3" is the part's ("S3"); a reference the sentence ties to the part names only the part's item.
    """
    if in_part:
        refs = [(kind, PART_PREFIX + n) if n.isdigit() and (kind, PART_PREFIX + n) in items else (kind, n) for kind, n in refs]
    return part_qualified(refs, items)
