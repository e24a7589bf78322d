"""Figure OCR benchmark: RapidOCR against Tesseract on the words printed inside figure images.

    python -m benchmarks.figure_ocr [--engines tesseract rapidocr]     (from the repository root)

Each figure of `benchmarks/figure_ocr_gold.json` (M3SciQA anchor images, and raster figures of the
shared papers cropped from their page at `SPIQA_OCR_DPI` as extraction's figure OCR renders them)
is read by each engine through the one figure reader (`spiqa_demo.crosspaper.ocr`, no cache).
Printed per figure and engine: the share of the gold words found (a reader's words, typed from
the image), the words read, and the CPU seconds (the process and the Tesseract program it runs);
then per engine the mean recall and seconds per figure, and the recall of the two engines' words
together. The last line is JSON with the headline numbers. Data: `SPIQA_SHARED` (default ../shared).
The effect on ranking cited papers is `python -m spiqa_demo bench-m3sciqa` with
`SPIQA_FIGURE_OCR_ENGINE` set to each engine.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

from evalsuite.paths import REPO, SHARED
from spiqa_demo.crosspaper.names import normalise, printed_forms
from spiqa_demo.crosspaper.ocr import FigureReading, find_engine, ocr_text
from spiqa_demo.errors import InputError
from spiqa_demo.extraction.ocr import FigureEngine
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.settings import ExtractionSettings

GOLD = REPO / "benchmarks" / "figure_ocr_gold.json"


@dataclass(frozen=True)
class GoldFigure:
    name: str
    image: Path
    words: tuple[str, ...]


def gold_figures(crops: Path, dpi: int) -> list[GoldFigure]:
    """The gold figures, paper crops rendered into `crops`."""
    figures = []
    for entry in json.loads(GOLD.read_text(encoding="utf-8"))["figures"]:
        words = tuple(entry["words"].split())
        if "m3sciqa" in entry:
            figures.append(GoldFigure(entry["m3sciqa"], SHARED / "m3sciqa" / "m3sciqa" / "data" / entry["m3sciqa"], words))
            continue
        name = f"{entry['paper']} p{entry['page']}"
        image = crops / f"{len(figures)}.png"
        with pymupdf.open(SHARED / "papers" / entry["paper"]) as doc:
            doc[entry["page"] - 1].get_pixmap(dpi=dpi, clip=pymupdf.Rect(entry["bbox"]), colorspace=pymupdf.csGRAY).save(image)
        figures.append(GoldFigure(name, image, words))
    return figures


def found(words: tuple[str, ...], text: str) -> float:
    """The share of `words` that `text` prints (normalised; a word or two adjacent words)."""
    forms = printed_forms(text)
    keys = [normalise(w) for w in words if normalise(w)]
    return sum(k in forms for k in keys) / max(len(keys), 1)


def cpu_seconds() -> float:
    """CPU seconds of this process and the programs it ran (Tesseract is one)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", nargs="+", choices=get_args(FigureEngine), default=list(get_args(FigureEngine)))
    args = parser.parse_args()
    settings = ExtractionSettings()
    with tempfile.TemporaryDirectory() as crops:
        figures = gold_figures(Path(crops), settings.ocr_dpi)
        texts: dict[str, list[str]] = {}
        seconds: dict[str, list[float]] = {}
        for engine in args.engines:
            reading = FigureReading(engine, settings.ocr_language)
            started = time.perf_counter()
            loaded = find_engine(reading)
            if isinstance(loaded, str):
                print(f"{engine}: {loaded}", file=sys.stderr)
                continue
            print(f"{engine}: loaded in {time.perf_counter() - started:.2f} s")
            texts[engine], seconds[engine] = [], []
            for figure in figures:
                before = cpu_seconds()
                try:
                    texts[engine].append(ocr_text(figure.image, reading))
                except InputError as exc:  # counted as nothing read
                    print(f"{engine}: {exc}", file=sys.stderr)
                    texts[engine].append("")
                seconds[engine].append(cpu_seconds() - before)
    engines = list(texts)
    print(f"\n{'figure':58s} " + " ".join(f"{e + ' recall':>16s} {'words':>6s} {'CPU s':>6s}" for e in engines))
    recall = {e: [found(f.words, t) for f, t in zip(figures, texts[e])] for e in engines}
    for n, figure in enumerate(figures):
        cells = " ".join(f"{recall[e][n]:16.2f} {len(texts[e][n].split()):6d} {seconds[e][n]:6.1f}" for e in engines)
        print(f"{figure.name[:58]:58s} {cells}")
    summary: dict[str, object] = {"figures": len(figures), "gold_words": sum(len(f.words) for f in figures)}
    for e in engines:
        summary[f"{e}_recall"] = round(statistics.mean(recall[e]), 3)
        summary[f"{e}_cpu_s_per_figure"] = round(statistics.mean(seconds[e]), 2)
        summary[f"{e}_wins"] = sum(recall[e][n] > max(recall[o][n] for o in engines if o != e) for n in range(len(figures))) if len(engines) > 1 else None
    if len(engines) > 1:
        summary["both_recall"] = round(statistics.mean(found(f.words, "\n".join(texts[e][n] for e in engines)) for n, f in enumerate(figures)), 3)
    print("\n" + "\n".join(f"{k}: {v}" for k, v in summary.items()))
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
