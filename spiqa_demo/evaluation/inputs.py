"""What the QA flows need to answer a SPIQA question offline: a `Paper` built from the SPIQA entry.

SPIQA gives figure images (from its image archives, found by `spiqa.images.ImageFolder`) and
captions, not PDFs. `spiqa_paper_input` turns a `SpiqaPaper` into the `Paper` the flows read (one
`Figure` per SPIQA image, with its caption; the passages and the sentences citing each figure
where the split has paper text), and
`spiqa_candidates` is SPIQA's candidate protocol: the ground-truth figure(s) and other figures of
the paper, at most `SPIQA_MAX_CANDIDATES`, in an order shuffled with a seed of the question, so runs are repeatable.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from spiqa_demo.evaluation.spiqa import SpiqaPaper, SpiqaQuestion
from spiqa_demo.evaluation.spiqa.convert import to_paper
from spiqa_demo.evaluation.spiqa.images import ImageFolder
from spiqa_demo.qa import Candidate
from spiqa_demo.questions import SPIQA_MAX_CANDIDATES
from spiqa_demo.types import Figure, Paper

HUB_IMAGES_HINT = (
    "download the split's image archive (e.g. test-A/SPIQA_testA_Images.zip) from "
    "https://huggingface.co/datasets/google/spiqa, unzip it, and pass --images FOLDER "
    "(or --images hub to download it on first use)"
)


@dataclass
class PaperInput:
    """A SPIQA paper as the flows read it, and the SPIQA file behind each of its `Figure`s."""

    paper: Paper
    files: dict[str, str]  # Figure.id -> SPIQA file name (one file per figure, so ids are unique)
    missing: list[str]  # SPIQA files whose image was not found

    def file_of(self, figure: Figure | None) -> str | None:
        return None if figure is None else self.files.get(figure.id)


def spiqa_paper_input(paper: SpiqaPaper, images: ImageFolder | None) -> PaperInput:
    """The `Paper` of a SPIQA entry (`spiqa.convert.to_paper`): every figure with its caption and image."""
    found = {file: images.find(file, (paper.source_id, paper.paper_id)) for file in paper.figures} if images is not None else {}
    built, by_file = to_paper(paper, images={file: str(path) for file, path in found.items() if path})
    missing = [file for file, path in found.items() if path is None]
    return PaperInput(paper=built, files={figure.id: file for file, figure in by_file.items()}, missing=missing)


def spiqa_candidates(
    source: PaperInput, paper: SpiqaPaper, question: SpiqaQuestion, k: int = SPIQA_MAX_CANDIDATES
) -> list[Candidate]:
    """SPIQA's protocol: the reference figure(s) plus other figures, at most `k`, in a seeded shuffle.

    Scores fall with the position, so a flow that must drop figures drops the last ones.
    """
    by_file = {file: figure for figure in source.paper.items if (file := source.files[figure.id])}
    references = [f for f in question.references if f in by_file][:k]
    others = [f for f in by_file if f not in references]
    seed = int.from_bytes(hashlib.sha256(f"{paper.paper_id}/{question.key}".encode()).digest()[:8], "big")
    rng = random.Random(seed)
    rng.shuffle(others)
    chosen = references + others[: k - len(references)]
    rng.shuffle(chosen)
    return [Candidate(figure=by_file[f], score=1.0 - i / len(chosen)) for i, f in enumerate(chosen)]
