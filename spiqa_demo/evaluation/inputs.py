"""What the QA flows need to answer a SPIQA question offline: a `Paper` built from the SPIQA entry.

SPIQA gives figure images (from its image archives) and captions, not PDFs. `ImageFolder` finds
each figure's image under the folder the user unpacked the archive into, whatever the archive's
top-level layout; `spiqa_paper_input` turns a `SpiqaPaper` into the `Paper` the flows read (one
`Figure` per SPIQA image, with its caption; the passages and the sentences citing each figure
where the split has paper text), and
`spiqa_candidates` is SPIQA's candidate protocol: the ground-truth figure(s) and other figures of
the paper, at most `SPIQA_MAX_CANDIDATES`, in an order shuffled with a seed of the question, so runs are repeatable.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from spiqa_demo.errors import PaperError
from spiqa_demo.qa import Candidate
from spiqa_demo.questions import SPIQA_MAX_CANDIDATES
from spiqa_demo.spiqa import SpiqaPaper, SpiqaQuestion
from spiqa_demo.spiqa.convert import to_paper
from spiqa_demo.types import Figure, Paper

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg"}
HUB_IMAGES_HINT = (
    "download the split's image archive (e.g. test-A/SPIQA_testA_Images.zip) from "
    "https://huggingface.co/datasets/google/spiqa, unzip it, and pass --images FOLDER "
    "(or --images hub to download it on first use)"
)


class ImageFolder:
    """Finds SPIQA figure images under a folder (indexed once, recursively)."""

    def __init__(self, root: Path) -> None:
        if not root.is_dir():
            raise PaperError(f"--images {root} is not a folder; {HUB_IMAGES_HINT}")
        self.root = root
        self._by_dir_and_name: dict[tuple[str, str], Path] = {}
        self._by_name: dict[str, list[Path]] = defaultdict(list)
        for path in root.rglob("*"):
            if path.suffix.lower() in IMAGE_SUFFIXES and path.is_file():
                self._by_dir_and_name[(path.parent.name, path.name)] = path
                self._by_name[path.name].append(path)

    def __len__(self) -> int:
        return sum(len(paths) for paths in self._by_name.values())

    def find(self, paper: SpiqaPaper, file: str) -> Path | None:
        """The image of `file` in `paper`, or None when it is not under the folder."""
        direct = self.root / file
        if direct.is_file():
            return direct
        name = file.replace("\\", "/").rsplit("/", 1)[-1]
        for folder in (paper.source_id, paper.paper_id):
            if (folder, name) in self._by_dir_and_name:
                return self._by_dir_and_name[(folder, name)]
        same_name = self._by_name.get(name, [])
        # Only a name that occurs once is safe: test-B/C names ("4-Figure2-1.png") repeat across papers.
        return same_name[0] if len(same_name) == 1 else None


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
    found = {file: images.find(paper, file) for file in paper.figures} if images is not None else {}
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
