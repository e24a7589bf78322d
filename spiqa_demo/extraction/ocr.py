"""OCR engines: find one, and read the words of an image with their boxes and lines.

Two engines read the same `OcrWord`s. Tesseract (scanned pages, and figure images by default):

The `tesseract` program is run on a rendered image and its TSV output (one row per word, with
box, confidence and its block/paragraph/line numbers) is read back. PyMuPDF's own OCR
(`Page.get_textpage_ocr`, MuPDF's built-in Tesseract) was measured on the same scanned pages and
is both slower and noisier: its text pages repeat lines as fragments ("fayer", "bY" beside
"layer by") and carry no confidence to filter them by, while the program's output is clean.

RapidOCR (`rapidocr-onnxruntime`, figure images when `ExtractionSettings.figure_ocr_engine` says so):
PP-OCR's text detector and recogniser, whose ONNX models ship inside the wheel (nothing is
downloaded). It finds small and rotated labels that Tesseract's page layout analysis skips, at a
higher CPU cost; it returns text boxes (a cell, a legend entry), which are split into words and
grouped into lines here so that both engines give the same shape.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, Protocol

from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.types import BBox

# Words Tesseract is less sure of than this are dropped: below it they are mostly shapes read
# as letters (plot marks, photo texture, rules).
MIN_CONFIDENCE = 40.0
# Tesseract's own threads compete with the rest of the process on a small machine and gain
# nothing on one page at a time.
_ENVIRONMENT = {"OMP_THREAD_LIMIT": "1"}


@dataclass(frozen=True)
class OcrWord:
    """A recognised word in page coordinates, with its place in Tesseract's layout."""

    text: str
    bbox: BBox
    confidence: float
    block: int
    paragraph: int
    line: int


class OcrEngine(Protocol):
    """What reads an encoded image into words (`Tesseract`, `RapidOcr`)."""

    def read_image(self, image: bytes, timeout_s: float, dpi: int | None = None, scale: float = 1.0,
                   origin: tuple[float, float] = (0.0, 0.0), min_confidence: float = MIN_CONFIDENCE) -> list[OcrWord]: ...


@dataclass(frozen=True)
class Tesseract:
    """An installed Tesseract program with data for the languages asked for."""

    program: str
    language: str

    def read(self, pixmap: pymupdf.Pixmap, origin: tuple[float, float], timeout_s: float) -> list[OcrWord]:
        """The words of `pixmap` (rendered at `pixmap.xres` dpi from a page area whose top-left
        corner is `origin`), in page points; a run past `timeout_s` raises `TimeoutError`."""
        dpi = pixmap.xres or 72
        return self.read_image(pixmap.tobytes("png"), timeout_s, dpi, 72 / dpi, origin)

    def read_image(self, image: bytes, timeout_s: float, dpi: int | None = None, scale: float = 1.0,
                   origin: tuple[float, float] = (0.0, 0.0), min_confidence: float = MIN_CONFIDENCE) -> list[OcrWord]:
        """The words of an encoded image (PNG, JPEG), their pixel boxes times `scale` shifted by
        `origin`; `dpi` None lets Tesseract estimate it. A run past `timeout_s` raises `TimeoutError`."""
        resolution = ["--dpi", str(dpi)] if dpi else []
        try:
            done = subprocess.run(
                [self.program, "stdin", "stdout", "-l", self.language, *resolution, "tsv"],
                input=image, capture_output=True, timeout=max(timeout_s, 1.0), check=False,
                env={**os.environ, **_ENVIRONMENT},
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"Tesseract took longer than {timeout_s:.0f} s") from None
        if done.returncode != 0:
            return []
        return parse_tsv(done.stdout.decode("utf-8", "replace"), scale, origin, min_confidence)


def parse_tsv(tsv: str, scale: float, origin: tuple[float, float], min_confidence: float = MIN_CONFIDENCE) -> list[OcrWord]:
    """Words of Tesseract's TSV output (pixel boxes times `scale`, shifted by `origin`)."""
    words = []
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        text = (row.get("text") or "").strip()
        if row.get("level") != "5" or not text:
            continue
        confidence = float(row["conf"])
        if confidence < min_confidence:
            continue
        left, top, width, height = (float(row[k]) for k in ("left", "top", "width", "height"))
        x, y = origin
        bbox = (x + left * scale, y + top * scale, x + (left + width) * scale, y + (top + height) * scale)
        words.append(OcrWord(text, bbox, confidence, int(row["block_num"]), int(row["par_num"]), int(row["line_num"])))
    return words


def words_text(words: list[OcrWord]) -> str:
    """The words as plain text: one line per Tesseract line, in reading order."""
    lines: dict[tuple[int, int, int], list[str]] = {}
    for w in words:
        lines.setdefault((w.block, w.paragraph, w.line), []).append(w.text)
    return "\n".join(" ".join(line) for line in lines.values())


def find_tesseract(language: str) -> Tesseract | str:
    """The Tesseract program for `language` ("eng", "eng+deu"), or why it cannot be used (a
    sentence naming the Debian/Ubuntu package to install)."""
    program = shutil.which("tesseract")
    if program is None:
        return "Tesseract OCR is not installed (Debian/Ubuntu package `tesseract-ocr`)"
    missing = [name for name in language.split("+") if name not in _languages(program)]
    if missing:
        packages = ", ".join(f"`tesseract-ocr-{name.lower().replace('_', '-')}`" for name in missing)
        return f"Tesseract has no data for {'+'.join(missing)} (package {packages}, or set SPIQA_OCR_LANGUAGE)"
    return Tesseract(program, language)


@lru_cache(maxsize=4)
def _languages(program: str) -> frozenset[str]:
    """The languages the program has data for (`tesseract --list-langs`; read once)."""
    try:
        done = subprocess.run([program, "--list-langs"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    return frozenset(ln.strip() for ln in lines if re.fullmatch(r"[A-Za-z_]+", ln.strip()))


@dataclass(frozen=True)
class RapidOcr:
    """PP-OCR through ONNX Runtime (`rapidocr-onnxruntime`), run in this process."""

    engine: Any  # rapidocr_onnxruntime.RapidOCR

    def read_image(self, image: bytes, timeout_s: float, dpi: int | None = None, scale: float = 1.0,
                   origin: tuple[float, float] = (0.0, 0.0), min_confidence: float = MIN_CONFIDENCE) -> list[OcrWord]:
        """The words of an encoded image, as `Tesseract.read_image` gives them (confidence 0-100).
        `dpi` is not needed (the detector works at pixel scale). `timeout_s` is not enforced: the run
        cannot be stopped in-process, and its work is bounded by the image, whose longer side the
        detector scales to at most 2000 px."""
        found, _ = self.engine(image)
        boxes = [
            TextBox(str(text), _bounds(corners), 100.0 * float(score))
            for corners, text, score in found or []
            if str(text).strip() and 100.0 * float(score) >= min_confidence
        ]
        return boxes_to_words(boxes, scale, origin)


@dataclass(frozen=True)
class TextBox:
    """A detected run of text in pixels (one table cell, one legend entry)."""

    text: str
    bbox: BBox
    confidence: float


def _bounds(corners: list[list[float]]) -> BBox:
    xs, ys = [float(c[0]) for c in corners], [float(c[1]) for c in corners]
    return (min(xs), min(ys), max(xs), max(ys))


def boxes_to_words(boxes: list[TextBox], scale: float = 1.0, origin: tuple[float, float] = (0.0, 0.0)) -> list[OcrWord]:
    """Words of text boxes, grouped into lines: a box joins the line whose vertical span holds its
    middle (a table row's cells, read left to right); lines top to bottom. A box's width is shared
    among its words by their length."""
    lines: list[list[TextBox]] = []
    for box in sorted(boxes, key=lambda b: ((b.bbox[1] + b.bbox[3]) / 2, b.bbox[0])):
        middle = (box.bbox[1] + box.bbox[3]) / 2
        if lines and lines[-1][0].bbox[1] <= middle <= lines[-1][0].bbox[3]:
            lines[-1].append(box)
        else:
            lines.append([box])
    x, y = origin
    words = []
    for number, line in enumerate(lines, 1):
        for box in sorted(line, key=lambda b: b.bbox[0]):
            parts = box.text.split()
            left, top, right, bottom = box.bbox
            per_char = (right - left) / max(sum(len(p) + 1 for p in parts) - 1, 1)
            for part in parts:
                end = left + per_char * len(part)
                words.append(OcrWord(part, (x + left * scale, y + top * scale, x + end * scale, y + bottom * scale),
                                     box.confidence, 1, 1, number))
                left = end + per_char
    return words


@lru_cache(maxsize=1)
def find_rapidocr() -> RapidOcr | str:
    """The RapidOCR engine (loaded once: its three models take a second), or why it cannot be used."""
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError as exc:
        return f"RapidOCR is not installed (pip package `rapidocr-onnxruntime`: {exc})"
    # One thread per model call: the app reads figures beside other work on few cores.
    return RapidOcr(RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1))


FigureEngine = Literal["tesseract", "rapidocr"]


def find_engine(name: FigureEngine, language: str) -> OcrEngine | str:
    """The OCR engine called `name` (Tesseract for `language`), or why it cannot be used."""
    return find_rapidocr() if name == "rapidocr" else find_tesseract(language)
