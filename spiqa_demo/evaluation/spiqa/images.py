"""Finding SPIQA's figure images on this machine (they come as archives, not with the JSON files).

`ImageFolder` indexes a folder once, whatever the archive's top-level layout, and finds a figure
file for a paper. Batch evaluation reads the images it shows models from it; the app finds the
images it shows people with it. The names of test-B/C figure files ("4-Figure2-1.png") repeat
across papers, so a file under a folder named after the paper wins, and a bare name is trusted
only when it occurs once.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from spiqa_demo.evaluation.spiqa.archive import IMAGE_SUFFIXES
from spiqa_demo.paper_text import normalise_arxiv_id

MAX_FILES = 500_000  # a wrong folder (e.g. "/") must not make the index walk the whole disk


def _folder_keys(name: str) -> set[str]:
    """A paper's folder is named by its SPIQA key, with or without the arXiv version ("1611.05742v3")."""
    return {name} | ({arxiv} if (arxiv := normalise_arxiv_id(name)) else set())


class ImageFolder:
    """The SPIQA figure images under `root` (indexed once, recursively, at most `MAX_FILES`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._by_folder_and_name: dict[tuple[str, str], Path] = {}
        self._by_name: dict[str, list[Path]] = defaultdict(list)
        count = 0
        for folder, subfolders, names in os.walk(root):
            subfolders.sort()  # walked in name order, so a file found twice resolves the same on any disk
            for name in sorted(names):
                if not name.lower().endswith(IMAGE_SUFFIXES):
                    continue
                path = Path(folder, name)
                for key in _folder_keys(path.parent.name):
                    self._by_folder_and_name.setdefault((key, name), path)
                self._by_name[name].append(path)
                count += 1
                if count >= MAX_FILES:
                    return

    def __len__(self) -> int:
        return sum(len(paths) for paths in self._by_name.values())

    def find(self, file: str, paper_ids: Iterable[str] = ()) -> Path | None:
        """The image of SPIQA figure `file` of the paper known by any of `paper_ids`, or None."""
        name = file.replace("\\", "/").rsplit("/", 1)[-1]
        for paper_id in paper_ids:
            for key in _folder_keys(paper_id):
                if (key, name) in self._by_folder_and_name:
                    return self._by_folder_and_name[(key, name)]
        same_name = self._by_name.get(name, [])
        return same_name[0] if len(same_name) == 1 else None
