"""OCR of scanned papers: a shared paper rebuilt as page images only gets its labels back by OCR;
without Tesseract (or with OCR off) a scan keeps the old behaviour with a warning that says why.

The scanned paper is OCR'd once per session (seconds per page, so one short paper).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from evalsuite import pdf_factory
from evalsuite.label_agreement import label_agreement, labels
from spiqa_demo.errors import InputError
from spiqa_demo.extraction import extract_paper, ocr
from spiqa_demo.extraction.layout import read_page
from spiqa_demo.extraction.ocr import OcrWord
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.extraction.scanned import ink_boxes, is_scanned, ocr_layout
from spiqa_demo.settings import ExtractionSettings, get_settings
from spiqa_demo.types import Paper

SHORT_PAPER = "ecapa-tdnn-interspeech2020-2005.07143.pdf"
SCAN_DPI = 200  # a common scanner resolution
LABEL_AGREEMENT = 0.90
needs_tesseract = pytest.mark.skipif(isinstance(ocr.find_tesseract("eng"), str), reason="Tesseract OCR is not installed")


@pytest.fixture(scope="session")
def scanned_pair(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Paper, Paper]:
    source = shared / "papers" / SHORT_PAPER
    with pymupdf.open(source) as doc:
        pages = doc.page_count
    scan = pdf_factory.scanned_pdf(tmp_path_factory.mktemp("scans") / "scan.pdf", source, pages=pages, dpi=SCAN_DPI)
    return extract_paper(source), extract_paper(scan)


@pytest.fixture(scope="session")
def small_scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("small-scan")
    source = pdf_factory.PAPERS["two_column"](root / "two_column.pdf").path
    return pdf_factory.scanned_pdf(root / "scan.pdf", source, pages=1, dpi=100)


@needs_tesseract
def test_scanned_paper_gets_the_originallabels(scanned_pair: tuple[Paper, Paper]) -> None:
    original, scanned = scanned_pair
    agreement = label_agreement(original, scanned)
    assert agreement >= LABEL_AGREEMENT, (agreement, labels(original), labels(scanned))
    assert any("OCR" in w for w in scanned.warnings), scanned.warnings
    assert not any("could not be read" in w for w in scanned.warnings), scanned.warnings


@needs_tesseract
def test_scanned_paper_gets_captions_passages_and_item_text(scanned_pair: tuple[Paper, Paper]) -> None:
    original, scanned = scanned_pair
    by_label = {f.label: f for f in scanned.items}
    for item in original.items:
        twin = by_label.get(item.label)
        if twin is None:
            continue
        assert twin.page == item.page
        # OCR misreads a few characters; most caption words must come back.
        words = set(item.caption.lower().split())
        assert len(words & set(twin.caption.lower().split())) >= 0.7 * len(words), (item.caption, twin.caption)
        assert twin.text.strip(), twin.label
    assert len(scanned.passages) >= 0.5 * len(original.passages)
    assert any("ECAPA-TDNN" in p.text for p in scanned.passages)
    assert scanned.title.startswith("ECAPA-TDNN")
    assert any(item.mentions for item in scanned.items), "citing sentences should be linked as on the original"


def test_missing_tesseract_keeps_page_images_and_names_the_package(small_scan: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    paper = extract_paper(small_scan)
    assert paper.items and all(not f.number for f in paper.items)
    assert any("tesseract-ocr" in w for w in paper.warnings), paper.warnings
    assert any("caption" in w.lower() for w in paper.warnings), paper.warnings


def test_ocr_on_without_tesseract_is_an_input_error(small_scan: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    with pytest.raises(InputError, match="tesseract-ocr"):
        extract_paper(small_scan, settings=get_settings().extraction.with_overrides(ocr="on"))


def test_ocr_off_keeps_the_old_behaviour(small_scan: Path) -> None:
    paper = extract_paper(small_scan, settings=get_settings().extraction.with_overrides(ocr="off"))
    assert paper.items and all(not f.number for f in paper.items)
    assert any("SPIQA_OCR=off" in w for w in paper.warnings), paper.warnings


@needs_tesseract
def test_a_scan_read_with_ocr_off_is_not_served_when_ocr_is_on(small_scan: Path, tmp_path: Path) -> None:
    """The OCR settings are part of the extraction cache's key, as the crop settings are."""
    from spiqa_demo.extraction import load_paper

    cached = get_settings().extraction.with_overrides(cache_dir=tmp_path / "cache")
    without = load_paper(small_scan, settings=cached.with_overrides(ocr="off"))
    assert all(not f.number for f in without.items)
    with_ocr = load_paper(small_scan, settings=cached)
    assert any(f.number for f in with_ocr.items) and not any("SPIQA_OCR=off" in w for w in with_ocr.warnings)
    assert load_paper(small_scan, settings=cached.with_overrides(ocr="on")) == with_ocr  # "on" reads as "auto"


def test_missing_language_data_names_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ocr.shutil, "which", lambda name: "/usr/bin/tesseract")
    monkeypatch.setattr(ocr, "_languages", lambda program: frozenset({"eng"}))
    assert isinstance(ocr.find_tesseract("eng"), ocr.Tesseract)
    reason = ocr.find_tesseract("eng+chi_sim")
    assert isinstance(reason, str) and "tesseract-ocr-chi-sim" in reason


def test_text_pages_are_not_scans(shared: Path) -> None:
    with pymupdf.open(shared / "papers" / SHORT_PAPER) as doc:
        assert not any(is_scanned(read_page(page)) for page in doc)


@pytest.mark.parametrize(
    ("env", "value", "expected"),
    [
        ("SPIQA_OCR", "yes", "on"),
        ("SPIQA_OCR", "0", "off"),
        ("SPIQA_OCR", "AUTO", "auto"),
        ("SPIQA_OCR_LANGUAGE", "eng+deu", "eng+deu"),
    ],
)
def test_ocr_settings(env: str, value: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(env, value)
    get_settings.cache_clear()
    field = env.removeprefix("SPIQA_").lower()
    assert getattr(get_settings().extraction, field) == expected


@pytest.mark.parametrize(
    ("env", "value"), [("SPIQA_OCR", "sometimes"), ("SPIQA_OCR_LANGUAGE", "eng; rm"), ("SPIQA_OCR_DPI", "20")]
)
def test_bad_ocr_settings_name_the_variable(env: str, value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(env, value)
    get_settings.cache_clear()
    with pytest.raises(InputError, match=env):
        get_settings()


def test_tsv_words_are_filtered_and_scaled() -> None:
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    rows = [
        "4\t1\t1\t1\t1\t0\t100\t200\t300\t40\t-1\t\n",
        "5\t1\t1\t1\t1\t1\t100\t200\t120\t40\t96.5\tFigure\n",
        "5\t1\t1\t1\t1\t2\t230\t200\t20\t40\t12.0\t~\n",
        '5\t1\t1\t1\t1\t3\t260\t200\t40\t40\t91.0\t"1:\n',
    ]
    words = ocr.parse_tsv(header + "".join(rows), 72 / 144, (0.0, 10.0))
    assert [w.text for w in words] == ["Figure", '"1:']
    assert words[0].bbox == (50.0, 110.0, 110.0, 130.0)
    every = ocr.parse_tsv(header + "".join(rows) + "5\t1\t1\t1\t2\t1\t100\t250\t50\t40\t88.0\tplot\n", 1.0, (0.0, 0.0), 0.0)
    assert ocr.words_text(every) == 'Figure ~ "1:\nplot'  # one line per Tesseract line, nothing dropped


def test_layout_from_words_and_ink_outside_them() -> None:
    words = [
        OcrWord("Figure", (50, 300, 80, 307), 95, 1, 1, 1),
        OcrWord("1:", (82, 300, 90, 307), 95, 1, 1, 1),
        OcrWord("plot", (50, 309, 66, 316), 95, 1, 1, 2),
        OcrWord("arXiv:2001.00001v1", (10, 200, 20, 400), 95, 2, 1, 1),  # vertical margin stamp
    ]
    layout = ocr_layout(1, 612, 792, words, [])
    assert [line.text for line in layout.lines] == ["Figure 1:", "plot"]
    assert all(7 <= line.size <= 11 for line in layout.lines)
    gray = np.full((792, 612), 255, dtype=np.uint8)
    gray[100:200, 100:300] = 0  # a photo
    gray[300:307, 50:90] = 0  # the caption's ink, covered by its words
    boxes = ink_boxes(gray, 1.0, words)
    assert len(boxes) == 1
    x0, y0, x1, y1 = boxes[0]
    assert abs(x0 - 100) <= 3 and abs(y0 - 100) <= 3 and abs(x1 - 300) <= 3 and abs(y1 - 200) <= 3


@needs_tesseract
def test_huge_scanned_page_is_ocrd_within_the_pixel_bound(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=14000, height=14000)
    page.insert_image(page.rect, pixmap=pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 50, 50), False))
    doc.save(tmp_path / "huge.pdf")
    settings = get_settings().extraction.with_overrides(max_crop_pixels=4_000_000)
    paper = extract_paper(tmp_path / "huge.pdf", settings=settings)
    assert any("OCR" in w for w in paper.warnings), paper.warnings


def _raster_plot_pdf(path: Path) -> Path:
    """A page whose Figure 1 is a bitmap with its axis label drawn in, plus a caption and body text."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (900, 500), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=48)
    draw.text((120, 420), "Perplexity", font=font, fill=0)
    draw.line([(100, 380), (850, 380)], fill=0, width=4)
    draw.line([(100, 40), (100, 380)], fill=0, width=4)
    draw.line([(100, 350), (400, 200), (800, 80)], fill=0, width=6)
    png = io.BytesIO()
    image.save(png, format="PNG")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 90), "A study of training curves", fontsize=16)
    for n, y in enumerate(range(130, 300, 14)):
        page.insert_text((72, y), f"Body text line {n} of the paper describes the experiments in words.", fontsize=10)
    page.insert_image(pymupdf.Rect(106, 320, 506, 542), stream=png.getvalue())
    page.insert_text((106, 562), "Figure 1: Training curves of the three models on the validation set, per epoch.", fontsize=10)
    doc.save(path)
    return path


@needs_tesseract
def test_text_inside_a_raster_figure_is_read_when_asked(tmp_path: Path) -> None:
    pdf = _raster_plot_pdf(tmp_path / "raster.pdf")
    plain = extract_paper(pdf)
    [figure] = plain.items
    assert figure.label == "Figure 1" and "perplexity" not in figure.text.lower()
    read = extract_paper(pdf, settings=get_settings().extraction.with_overrides(ocr_figures=True))
    assert "perplexity" in read.items[0].text.lower(), read.items[0].text
    assert any("raster figures was read by OCR" in w for w in read.warnings), read.warnings


def test_figure_ocr_without_tesseract_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    paper = extract_paper(_raster_plot_pdf(tmp_path / "raster.pdf"), settings=get_settings().extraction.with_overrides(ocr_figures=True))
    assert paper.items[0].label == "Figure 1"
    assert any("SPIQA_OCR_FIGURES" in w and "tesseract-ocr" in w for w in paper.warnings), paper.warnings
