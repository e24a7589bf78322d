"""Where SPIQA's own figure images are on this machine, if anywhere (they are not in the repo).

Looked up by file name in `SPIQA_IMAGES_DIR`, else in the folders `spiqa_demo.spiqa.hub` unpacks
downloaded image archives to. Without them the app shows captions (or the extracted crop) instead.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from spiqa_demo.settings import get_settings

MAX_FILES = 500_000  # a wrong folder (e.g. "/") must not make the lookup walk the whole disk


def image_roots() -> list[Path]:
    """The folders searched (they are also the only SPIQA folders the web server may read)."""
    settings = get_settings()
    if settings.spiqa_images_dir:
        return [Path(settings.spiqa_images_dir)]
    return [settings.cache_dir / "spiqa"]


@lru_cache(maxsize=4)
def _index(root: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    count = 0
    for folder, _, files in os.walk(root):
        for name in files:
            if name.lower().endswith((".png", ".jpg", ".jpeg")):
                found.setdefault(name, []).append(os.path.join(folder, name))
                count += 1
                if count >= MAX_FILES:
                    return found
    return found


def find_image(file: str, paper_id: str = "") -> str | None:
    """The local path of a SPIQA figure file, or None.

    Test-C names ("4-Figure2-1.png") repeat across papers, so a path under a folder named after
    `paper_id` wins; test-A/B names carry the paper id themselves.
    """
    base = file.rsplit("/", 1)[-1]
    for root in image_roots():
        if not root.is_dir():
            continue
        paths = _index(root.resolve()).get(base, [])
        if paper_id:
            paths = [p for p in paths if paper_id in p] or ([] if len(paths) > 1 else paths)
        if paths:
            return paths[0]
    return None
