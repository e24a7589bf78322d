"""The words printed in a raster figure or table, read by OCR (`spiqa_demo.extraction.ocr`).

Benchmark images come without vector text, so the names a figure prints (methods, models,
datasets) are read by OCR: RapidOCR or Tesseract (`ExtractionSettings.figure_ocr_engine`). Either
engine's words are grouped into lines by their boxes (`boxes_to_words`), so a table's row comes
back as one line, its name first, whatever the engine's own layout analysis made of it. OCR costs
far more than the other signals and the same images recur across questions, so results are cached
on disk, keyed by the image bytes' SHA-256, the engine and its settings. An engine missing is an
`InputError` that says how to install it; callers treat it as "no figure text" and rank with the
other signals.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

from spiqa_demo.errors import InputError
from spiqa_demo.extraction.ocr import FigureEngine, OcrEngine, OcrWord, Tesseract, TextBox, boxes_to_words, words_text
from spiqa_demo.extraction.ocr import find_engine as find_ocr
from spiqa_demo.files import write_whole
from spiqa_demo.settings import ExtractionSettings

# Bumped when the text read changes, so cached results of an older reading are not served.
_CACHE_VERSION = 4
# Small crops read badly at screen resolution; Tesseract wants letters of about 30 px (RapidOCR's
# detector scales the image itself).
MIN_WIDTH_PX = 1000
TIMEOUT_S = 60.0  # one figure image; a run past it reads as an image OCR could not read
# Every word the engine reads is kept: a name read with low confidence still matches a candidate's
# words (dropping them ranked no better on M3SciQA).
MIN_CONFIDENCE = 0.0


@dataclass(frozen=True)
class FigureReading:
    """How figure images are read: the engine, Tesseract's language, and the folder results are kept in (None: not kept)."""

    engine: FigureEngine = ExtractionSettings.model_fields["figure_ocr_engine"].default
    language: str = "eng"
    cache_dir: Path | None = None

    @classmethod
    def from_settings(cls, settings: ExtractionSettings) -> FigureReading:
        """Extraction's figure OCR engine and language; results beside the extraction cache, in `<cache>/ocr`."""
        return cls(settings.figure_ocr_engine, settings.ocr_language, settings.cache_dir / "ocr")


def find_engine(reading: FigureReading | None = None) -> OcrEngine | str:
    """The OCR engine `reading` names (default: `FigureReading()`), or why the figure's printed names
    cannot be read, with what to install."""
    reading = reading or FigureReading()
    engine = find_ocr(reading.engine, reading.language)
    if not isinstance(engine, str):
        return engine
    how = ("`pip install rapidocr-onnxruntime`" if reading.engine == "rapidocr"
           else "`apt-get install tesseract-ocr` (Debian/Ubuntu) or `brew install tesseract`")
    return f"{engine}, so names printed in figure images are not read (the other ranking signals still work). Install it with {how}."


def image_key(image: Path, reading: FigureReading) -> str:
    """The cache key of an image: its content hash, the engine (and language) and the reading's version."""
    digest = hashlib.sha256(Path(image).read_bytes()).hexdigest()
    return f"{digest}-{reading.engine}-{reading.language}-v{_CACHE_VERSION}"


def _read(engine: OcrEngine, image: Path) -> list[OcrWord]:
    from PIL import Image

    with Image.open(image) as opened:
        rgb = opened.convert("RGB")
    scale = 1.0
    if isinstance(engine, Tesseract) and rgb.width < MIN_WIDTH_PX:
        scale = rgb.width / MIN_WIDTH_PX
        rgb = rgb.resize((MIN_WIDTH_PX, max(1, round(rgb.height * MIN_WIDTH_PX / rgb.width))), Image.Resampling.BICUBIC)
    encoded = io.BytesIO()
    rgb.save(encoded, format="PNG")
    words = engine.read_image(encoded.getvalue(), TIMEOUT_S, scale=scale, min_confidence=MIN_CONFIDENCE)
    return boxes_to_words([TextBox(w.text, w.bbox, w.confidence) for w in words])


def ocr_words(image: Path, reading: FigureReading) -> list[OcrWord]:
    """The words OCR reads in `image`, in image pixels, numbered by printed line (cached under
    `reading.cache_dir` when given).

    Raises `InputError` when the engine is not installed or the image cannot be read.
    """
    image = Path(image)
    if not image.is_file():
        raise InputError(f"figure image not found: {image}")
    key = image_key(image, reading)
    cached = reading.cache_dir / f"{key}.json" if reading.cache_dir else None
    if cached and cached.is_file():
        return [OcrWord(text, (x0, y0, x1, y1), confidence, 1, 1, line)
                for text, x0, y0, x1, y1, confidence, line in json.loads(cached.read_text(encoding="utf-8"))["words"]]
    engine = find_engine(reading)
    if isinstance(engine, str):
        raise InputError(engine)
    try:
        words = _read(engine, image)
    except (OSError, ValueError) as exc:  # TimeoutError is an OSError; an undecodable image a ValueError
        raise InputError(f"figure image cannot be read by OCR: {image} ({exc})") from exc
    if cached:
        rows = [[w.text, *w.bbox, w.confidence, w.line] for w in words]
        write_whole(cached, lambda partial: partial.write_text(json.dumps({"image": image.name, "words": rows}), encoding="utf-8"))
    return words


def ocr_text(image: Path, reading: FigureReading) -> str:
    """The text OCR reads in `image`, one line per printed line (`ocr_words`)."""
    return words_text(ocr_words(image, reading))
