"""SPIQA's figures for error analysis: the image and caption of a figure file, and getting them.

Images are found where `spiqa_images` looks (SPIQA_IMAGES_DIR, or the folder the hub's archives are
unpacked to); captions in the SPIQA files the app loaded (`spiqa_data.benchmark_datasets`) and in
the test-C file fetched here. The result files name figures only, so without these a detail view
could show names alone: `fetch_test_c` downloads the test-C images and captions from the Hugging
Face dataset (cached, with progress); offline it says which file to put where.
"""

from __future__ import annotations

import logging
from pathlib import Path

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.spiqa import SpiqaDataset
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.untrusted import code, inert
from spiqa_demo.ui.shared.spiqa_images import find_image, forget_index

log = logging.getLogger(__name__)

SPLIT = "test-C"  # the split of the official response files
_fetched: list[SpiqaDataset] = []  # the test-C file fetched in this process (its captions)


def _datasets() -> list[SpiqaDataset]:
    from spiqa_demo.ui.shared.spiqa_data import benchmark_datasets

    return [*benchmark_datasets(), *_fetched]


def caption(paper_id: str, file: str) -> str:
    """The SPIQA caption of a figure file, when a loaded SPIQA file has it."""
    for dataset in _datasets():
        paper = dataset.paper(paper_id)
        if paper is not None and (figure := paper.figure(file)) is not None and figure.caption:
            return figure.caption
    return ""


def missing_help() -> str:
    """Where to put SPIQA's test-C figures by hand."""
    from spiqa_demo.evaluation.spiqa.hub import IMAGE_ZIPS, SPLIT_FILES

    settings = app_settings().evaluation
    images = Path(settings.spiqa_images_dir) if settings.spiqa_images_dir else settings.cache_dir / "spiqa" / SPLIT / "images"
    data = app_settings().ui.data_dir / "spiqa"
    hub = f"https://huggingface.co/datasets/{settings.spiqa_hf_repo}/blob/main/"
    return (f"unzip [{IMAGE_ZIPS[SPLIT]}]({hub}{IMAGE_ZIPS[SPLIT]}) into `{images}` (or set SPIQA_IMAGES_DIR) and put "
            f"[{SPLIT_FILES[SPLIT]}]({hub}{SPLIT_FILES[SPLIT]}) in `{data}` for the captions")


def figure_view(paper_id: str, file: str | None, label: str, right: bool | None = None) -> tuple[str | None, str]:
    """(image path or None, Markdown) of one figure of a detail view; `right`: whether it is a ground-truth figure."""
    if not file:
        return None, f"**{label}:** none"
    image = find_image(file, paper_id)
    text = caption(paper_id, file)
    mark = "" if right is None else (" ✓ a ground-truth figure" if right else " ✗ not a ground-truth figure")
    markdown = f"**{label}:** {code(file)}{mark}" + (f" — {inert(text)}" if text else "")
    if image is None and not text:
        markdown += "\n\n*No image or caption of it on this machine (see “SPIQA's figures” above).*"
    return image, markdown


def fetch_test_c() -> str:
    """Download (once; cached) the test-C figure images and captions from the hub; a line saying what happened."""
    from spiqa_demo.evaluation.spiqa import fetch_split_images, fetch_split_json, load_dataset

    settings = app_settings().evaluation
    try:
        folder = fetch_split_images(SPLIT, settings)
        dataset = load_dataset(fetch_split_json(SPLIT, settings), split=SPLIT, settings=settings)
    except PaperError as exc:
        log.warning("SPIQA figures not fetched: %s", exc)
        return f"> ⚠️ **The test-C figures could not be downloaded.** {inert(str(exc))}\n\nBy hand: {missing_help()}."
    _fetched[:] = [dataset]
    forget_index()
    return f"SPIQA test-C figures ready: images in `{folder}`, captions of {len(dataset.papers)} papers."
