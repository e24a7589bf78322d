"""Link an uploaded paper to SPIQA: which SPIQA paper it is, and which extracted figure each SPIQA file is.

A PDF's `Paper` matches a SPIQA paper by arXiv id (versions ignored), else by exact normalised
title. SPIQA figure files map to the extracted `Figure`s by kind and canonical number (both sides
parse labels with `spiqa_demo.paper_text`); when several extracted items share that key, or none
has it (an unlabelled figure), caption similarity decides. This is what lets the app say "the
ground-truth figure is Figure 3" and check whether the model chose it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from spiqa_demo.evaluation.spiqa.model import SpiqaDataset, SpiqaFigure, SpiqaPaper
from spiqa_demo.paper_text import normalise_arxiv_id, normalise_title, strip_caption_label
from spiqa_demo.types import Figure, Paper

# Caption similarity needed to accept a figure matched by caption alone (no kind+number match).
# SequenceMatcher ratio of two unrelated captions of one paper is typically 0.2-0.4.
MIN_CAPTION_SIMILARITY = 0.6


@dataclass(frozen=True)
class FigureMatch:
    """Where one SPIQA figure file lands among a paper's extracted items."""

    file: str
    figure: Figure | None  # None when nothing in the extracted paper corresponds
    method: Literal["number", "caption", "none"]
    caption_similarity: float  # 0..1 between the SPIQA caption and the chosen item's caption


def find_spiqa_paper(paper: Paper, datasets: Iterable[SpiqaDataset]) -> SpiqaPaper | None:
    """The SPIQA paper this extracted `Paper` is, by arXiv id then by title; None when not in SPIQA."""
    datasets = list(datasets)
    arxiv = normalise_arxiv_id(paper.arxiv_id) or normalise_arxiv_id(paper.source)
    if arxiv:
        for dataset in datasets:
            if found := dataset.paper(arxiv):
                return found
    title = normalise_title(paper.title)
    if len(title) < 12:  # short or missing titles ("Introduction") would match by accident
        return None
    return next((p for d in datasets for p in d.papers if p.title and normalise_title(p.title) == title), None)


def map_figures(spiqa_paper: SpiqaPaper, paper: Paper) -> dict[str, FigureMatch]:
    """Every SPIQA figure file of `spiqa_paper` mapped to its extracted item in `paper`."""
    return {file: match_figure(figure, paper) for file, figure in spiqa_paper.figures.items()}


def match_figure(figure: SpiqaFigure, paper: Paper) -> FigureMatch:
    """The extracted item that is this SPIQA figure: same kind and number, caption as tie-breaker."""
    same_number = [f for f in paper.items if f.kind == figure.kind and figure.number and f.number == figure.number]
    if same_number:
        best, score = _best_by_caption(figure.caption, same_number)
        return FigureMatch(figure.file, best, "number", score)
    same_kind = [f for f in paper.items if f.kind == figure.kind]
    if figure.caption and same_kind:
        best, score = _best_by_caption(figure.caption, same_kind)
        if score >= MIN_CAPTION_SIMILARITY:
            return FigureMatch(figure.file, best, "caption", score)
    return FigureMatch(figure.file, None, "none", 0.0)


def caption_similarity(a: str, b: str) -> float:
    """0..1 similarity of two captions, ignoring their "Figure 3:" / "TABLE IV." prefixes and case."""
    a, b = _normalise_caption(a), _normalise_caption(b)
    if not a or not b:
        return 0.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def _best_by_caption(caption: str, candidates: list[Figure]) -> tuple[Figure, float]:
    scored = [(caption_similarity(caption, f.caption), i) for i, f in enumerate(candidates)]
    score, index = max(scored, key=lambda s: (s[0], -s[1]))  # ties: the first in page order
    return candidates[index], score


def _normalise_caption(text: str) -> str:
    return normalise_title(strip_caption_label(text or ""))
