"""The words printed in a raster figure or table, read by Tesseract (`spiqa_demo.extraction.ocr`).

Benchmark images come without vector text, so the names a figure prints (methods, models,
datasets) are read by OCR. OCR costs far more than the other signals and the same images
recur across questions, so results are cached on disk, keyed by the image bytes' SHA-256 and the
Tesseract settings. Tesseract missing is an `InputError` that says how to install it; callers
treat it as "no figure text" and rank with the other signals.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

from spiqa_demo.errors import InputError
from spiqa_demo.extraction.ocr import Tesseract, find_tesseract, words_text
from spiqa_demo.settings import ExtractionSettings

# Bumped when the text read changes, so cached results of an older reading are not served.
_CACHE_VERSION = 2
# Small crops read badly at screen resolution; Tesseract wants letters of about 30 px.
MIN_WIDTH_PX = 1000
TIMEOUT_S = 60.0  # one figure image; a run past it reads as an image OCR could not read
# Every word Tesseract reads is kept: a name read with low confidence still matches a candidate's
# words, and the ranking builds no layout from them (dropping them ranked no better on M3SciQA).
MIN_CONFIDENCE = 0.0


@dataclass(frozen=True)
class FigureReading:
    """How figure images are read: Tesseract's language, and the folder its results are kept in (None: not kept)."""

    language: str = "eng"
    cache_dir: Path | None = None

    @classmethod
    def from_settings(cls, settings: ExtractionSettings) -> FigureReading:
        """Extraction's OCR language; results beside the extraction cache, in `<cache>/ocr`."""
        return cls(settings.ocr_language, settings.cache_dir / "ocr")


def find_engine(language: str = FigureReading.language) -> Tesseract | str:
    """The Tesseract program (`spiqa_demo.extraction.ocr`) for `language`, or why the figure's printed
    names cannot be read, with what to install."""
    engine = find_tesseract(language)
    if isinstance(engine, Tesseract):
        return engine
    return (f"{engine}, so names printed in figure images are not read (the other ranking signals still "
            "work). Install it with `apt-get install tesseract-ocr` (Debian/Ubuntu) or `brew install tesseract`.")


def image_key(image: Path, language: str) -> str:
    """The cache key of an image: its content hash, the OCR language and the reading's version."""
    digest = hashlib.sha256(Path(image).read_bytes()).hexdigest()
    return f"{digest}-{language}-v{_CACHE_VERSION}"


def _read(engine: Tesseract, image: Path) -> str:
    from PIL import Image

    with Image.open(image) as opened:
        rgb = opened.convert("RGB")
    if rgb.width < MIN_WIDTH_PX:
        rgb = rgb.resize((MIN_WIDTH_PX, max(1, round(rgb.height * MIN_WIDTH_PX / rgb.width))), Image.Resampling.BICUBIC)
    encoded = io.BytesIO()
    rgb.save(encoded, format="PNG")
    return words_text(engine.read_image(encoded.getvalue(), TIMEOUT_S, min_confidence=MIN_CONFIDENCE))


def ocr_text(image: Path, reading: FigureReading) -> str:
    """The text Tesseract reads in `image` (cached under `reading.cache_dir` when given).

    Raises `InputError` when Tesseract is not installed or the image cannot be read.
    """
    image = Path(image)
    if not image.is_file():
        raise InputError(f"figure image not found: {image}")
    key = image_key(image, reading.language)
    cached = reading.cache_dir / f"{key}.json" if reading.cache_dir else None
    if cached and cached.is_file():
        return str(json.loads(cached.read_text(encoding="utf-8"))["text"])
    engine = find_engine(reading.language)
    if isinstance(engine, str):
        raise InputError(engine)
    try:
        text = _read(engine, image)
    except OSError as exc:  # TimeoutError is one
        raise InputError(f"figure image cannot be read by OCR: {image} ({exc})") from exc
    if cached:
        cached.parent.mkdir(parents=True, exist_ok=True)
        staging = cached.with_suffix(".tmp")
        staging.write_text(json.dumps({"image": image.name, "text": text}), encoding="utf-8")
        staging.replace(cached)
    return text

