"""A SPIQA paper as a `spiqa_demo.types.Paper`, so retrieval and QA run on benchmark data unchanged.

Each SPIQA figure file becomes a `Figure` (kind and number from its file name, label "Figure 3",
the SPIQA caption, its image when the caller has it, no crop geometry); the split's passages
(test-B passages, test-C full text) become `Passage`s, and the sentences in them that cite an item
("as shown in Fig. 3") become its `mentions`, found exactly as extraction finds them in PDFs. This
is the one conversion: retrieval benchmarks and the evaluation harness both read papers built here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from spiqa_demo.evaluation.spiqa.model import SpiqaPaper
from spiqa_demo.extraction.passages import attach_mentions
from spiqa_demo.types import Figure, Paper, Passage

_NO_BOX = (0.0, 0.0, 0.0, 0.0)


def to_paper(
    spiqa_paper: SpiqaPaper, passages: bool = True, images: Mapping[str, str] | None = None
) -> tuple[Paper, dict[str, Figure]]:
    """The `Paper` and the SPIQA file -> `Figure` mapping (items keep the SPIQA file order).

    `passages=False` leaves text and mentions out (captions-only retrieval, as on test-A).
    `images` gives the image path of each SPIQA file the caller found (others get no image).
    """
    items: list[Figure] = []
    by_file: dict[str, Figure] = {}
    for index, (file, figure) in enumerate(spiqa_paper.figures.items()):
        item = Figure(
            kind=figure.kind,
            label=figure.label,
            number=figure.number,
            page=figure.page or 0,
            # No layout: the file order stands for the order on the page (flows show candidates in it).
            bbox=(0.0, float(index), 0.0, float(index)),
            caption=figure.caption,
            image=(images or {}).get(file, ""),
        )
        items.append(item)
        by_file[file] = item
    paper_passages = [Passage(text=text, page=0, bbox=_NO_BOX) for text in spiqa_paper.passages] if passages else []
    if paper_passages:
        attach_mentions(paper_passages, items)
    paper = Paper(
        sha256=hashlib.sha256(f"spiqa:{spiqa_paper.split}:{spiqa_paper.source_id}".encode()).hexdigest(),
        source=f"SPIQA {spiqa_paper.split} {spiqa_paper.source_id}",
        title=spiqa_paper.title,
        arxiv_id=spiqa_paper.paper_id,
        page_sizes=[],
        passages=paper_passages,
        items=items,
    )
    return paper, by_file
