"""A SPIQA paper as a `spiqa_demo.types.Paper`, so retrieval and QA run on benchmark data unchanged.

Each SPIQA figure file becomes a `Figure` (kind and number from its file name, label "Figure 3",
the SPIQA caption, no crop geometry); the split's passages (test-B passages, test-C full text)
become `Passage`s, and the sentences in them that cite an item ("as shown in Fig. 3") become its
`mentions`, found exactly as extraction finds them in PDFs.
"""

from __future__ import annotations

import hashlib

from spiqa_demo.extraction.passages import attach_mentions
from spiqa_demo.spiqa.model import SpiqaPaper
from spiqa_demo.types import Figure, Paper, Passage

_NO_BOX = (0.0, 0.0, 0.0, 0.0)


def to_paper(spiqa_paper: SpiqaPaper, passages: bool = True) -> tuple[Paper, dict[str, Figure]]:
    """The `Paper` and the SPIQA file -> `Figure` mapping (items keep the SPIQA file order).

    `passages=False` leaves text and mentions out (captions-only retrieval, as on test-A).
    """
    items: list[Figure] = []
    by_file: dict[str, Figure] = {}
    for file, figure in spiqa_paper.figures.items():
        label = f"{figure.kind.capitalize()} {figure.number}" if figure.number else ""
        item = Figure(
            kind=figure.kind, label=label, number=figure.number, page=figure.page or 0, bbox=_NO_BOX, caption=figure.caption
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
