"""Fetch SPIQA files from the Hugging Face dataset `google/spiqa` (downloaded once, then cached).

Downloads show huggingface_hub's progress bar (the app shows it through `gr.Progress(track_tqdm=True)`);
`SPIQA_HF_ENDPOINT` points them at a mirror. JSON files live in huggingface_hub's own cache; image zips are unpacked under
`<SPIQA_CACHE_DIR>/spiqa/<split>/images/`, their images only and within `SPIQA_IMAGES_MAX_MB` (`archive`). Without a network (or with `HF_HUB_OFFLINE=1`) and
nothing cached, the functions raise `PaperError` saying how to get the files by hand.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.spiqa.archive import unpack_images
from spiqa_demo.settings import EvaluationSettings

# Paths inside the dataset repository (its "Files and versions" tab).
SPLIT_FILES: dict[str, str] = {
    "test-A": "test-A/SPIQA_testA.json",
    "test-B": "test-B/SPIQA_testB.json",
    "test-C": "test-C/SPIQA_testC.json",
    "train": "train_val/SPIQA_train.json",
    "val": "train_val/SPIQA_val.json",
}
# One figure image larger than this is no figure: an archive holding one is refused.
MAX_IMAGE_MB = 64
IMAGE_ZIPS: dict[str, str] = {
    "test-A": "test-A/SPIQA_testA_Images.zip",
    "test-B": "test-B/SPIQA_testB_Images.zip",
    "test-C": "test-C/SPIQA_testC_Images.zip",
}


def fetch_split_json(split: str, settings: EvaluationSettings | None = None) -> Path:
    """The local path of a split's JSON, downloading it on first use."""
    if split not in SPLIT_FILES:
        raise PaperError(f"unknown SPIQA split {split!r}; choose one of {', '.join(SPLIT_FILES)}")
    return _download(SPLIT_FILES[split], settings or EvaluationSettings())


def fetch_split_images(split: str, settings: EvaluationSettings | None = None) -> Path:
    """A folder with a split's figure images (downloaded and unpacked on first use)."""
    if split not in IMAGE_ZIPS:
        raise PaperError(f"no image archive for SPIQA split {split!r}; choose one of {', '.join(IMAGE_ZIPS)}")
    settings = settings or EvaluationSettings()
    target = settings.cache_dir / "spiqa" / split / "images"
    done = target / ".complete-images-only"  # a folder older versions unpacked whole is unpacked again
    if done.exists():
        return target
    archive = _download(IMAGE_ZIPS[split], settings)
    staging = target.with_name(f".{target.name}-{uuid.uuid4().hex}.part")  # unique per writer
    unpack_images(archive, staging, settings.spiqa_images_max_mb * 1_000_000, MAX_IMAGE_MB * 1_000_000)
    if done.exists():  # another writer (a batch run, the app) finished meanwhile
        shutil.rmtree(staging, ignore_errors=True)
        return target
    shutil.rmtree(target, ignore_errors=True)  # an unfinished folder, or one unpacked before only images were
    staging.replace(target)
    done.touch()
    return target


def _download(filename: str, settings: EvaluationSettings) -> Path:
    try:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError
    except ImportError as exc:  # pragma: no cover - huggingface_hub is a pinned dependency
        raise PaperError("huggingface_hub is not installed; pip install huggingface_hub") from exc
    url = f"https://huggingface.co/datasets/{settings.spiqa_hf_repo}/blob/main/{filename}"
    try:
        return Path(hf_hub_download(repo_id=settings.spiqa_hf_repo, repo_type="dataset", filename=filename,
                                    endpoint=settings.spiqa_hf_endpoint or None))
    except LocalEntryNotFoundError as exc:
        raise PaperError(
            f"cannot download {filename} from the Hugging Face dataset {settings.spiqa_hf_repo}: offline "
            f"(no network or HF_HUB_OFFLINE=1) and not cached. Download it from {url} and pass the local path."
        ) from exc
    except (HfHubHTTPError, OSError) as exc:
        raise PaperError(f"cannot download {filename} from {settings.spiqa_hf_repo}: {exc}. Get it from {url} and pass the local path.") from exc
