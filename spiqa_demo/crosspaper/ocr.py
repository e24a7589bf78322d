"""The words printed in a raster figure or table, read by Tesseract (`pytesseract`).

Benchmark images come without vector text, so the names a figure prints (methods, models,
datasets) are read by OCR. OCR costs far more than the other signals and the same images
recur across questions, so results are cached on disk, keyed by the image bytes' SHA-256 and the
Tesseract settings. Tesseract missing is an `InputError` that says how to install it; callers
treat it as "no figure text" and rank with the other signals.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
from functools import lru_cache
from pathlib import Path

from spiqa_demo.errors import InputError

# Tesseract's default page segmentation (3, automatic layout): on M3SciQA's charts and tables the
# "sparse text" mode (11) found the same legend and row names at the same cost.
PSM = 3
_CACHE_VERSION = 1


def tesseract_missing_message() -> str:
    return (
        "Tesseract OCR is not installed, so names printed in figure images are not read (the other "
        "ranking signals still work). Install it with `apt-get install tesseract-ocr` (Debian/Ubuntu) "
        "or `brew install tesseract`, and the Python wrapper with `pip install pytesseract`."
    )


@lru_cache(maxsize=1)
def tesseract_available() -> bool:
    """Whether both the `tesseract` program and the `pytesseract` wrapper are there."""
    return importlib.util.find_spec("pytesseract") is not None and shutil.which("tesseract") is not None


def image_key(image: Path) -> str:
    """The cache key of an image: its content hash and the OCR settings."""
    digest = hashlib.sha256(Path(image).read_bytes()).hexdigest()
    return f"{digest}-psm{PSM}-v{_CACHE_VERSION}"


def _read(image: Path) -> str:
    import pytesseract
    from PIL import Image

    with Image.open(image) as opened:
        rgb = opened.convert("RGB")
        # Small crops read badly at screen resolution; Tesseract wants ~30 px letters.
        if rgb.width < 1000:
            scale = 1000 / rgb.width
            rgb = rgb.resize((1000, max(1, round(rgb.height * scale))), Image.Resampling.BICUBIC)
        return str(pytesseract.image_to_string(rgb, config=f"--psm {PSM}"))


def ocr_text(image: Path, cache_dir: Path | None) -> str:
    """The text Tesseract reads in `image` (cached under `cache_dir` when given).

    Raises `InputError` when Tesseract is not installed or the image cannot be read.
    """
    image = Path(image)
    if not image.is_file():
        raise InputError(f"figure image not found: {image}")
    key = image_key(image)
    cached = cache_dir / f"{key}.json" if cache_dir else None
    if cached and cached.is_file():
        return str(json.loads(cached.read_text(encoding="utf-8"))["text"])
    if not tesseract_available():
        raise InputError(tesseract_missing_message())
    try:
        text = _read(image)
    except OSError as exc:
        raise InputError(f"figure image cannot be read by OCR: {image} ({exc})") from exc
    if cached:
        cached.parent.mkdir(parents=True, exist_ok=True)
        staging = cached.with_suffix(".tmp")
        staging.write_text(json.dumps({"image": image.name, "text": text}), encoding="utf-8")
        staging.replace(cached)
    return text


def default_cache_dir() -> Path:
    """`<SPIQA_CACHE_DIR>/ocr`: OCR results live beside the extraction cache."""
    from spiqa_demo.settings import get_settings

    return get_settings().cache_dir / "ocr"
