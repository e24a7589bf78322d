"""Where SPIQA's own figure images are on this machine, if anywhere (they are not in the repo).

Looked up (`spiqa_demo.evaluation.spiqa.images.ImageFolder`) in `SPIQA_IMAGES_DIR`, else in the folders
`spiqa_demo.evaluation.spiqa.hub` unpacks downloaded image archives to. Without them the app shows captions
(or the extracted crop) instead.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from spiqa_demo.evaluation.spiqa.images import ImageFolder
from spiqa_demo.ui.serving.app_settings import app_settings


def image_roots() -> list[Path]:
    """The folders searched (they are also the only SPIQA folders the web server may read)."""
    settings = app_settings()
    if settings.evaluation.spiqa_images_dir:
        return [Path(settings.evaluation.spiqa_images_dir)]
    return [settings.ui.cache_dir / "spiqa"]


@lru_cache(maxsize=4)
def _folder(root: Path) -> ImageFolder:
    return ImageFolder(root)


def forget_index() -> None:
    """Index the folders again on the next look-up (images were just downloaded)."""
    _folder.cache_clear()


def find_image(file: str, paper_id: str = "") -> str | None:
    """The local path of a SPIQA figure file of the paper `paper_id`, or None."""
    for root in image_roots():
        if root.is_dir() and (found := _folder(root.resolve()).find(file, [paper_id] if paper_id else [])):
            return str(found)
    return None
