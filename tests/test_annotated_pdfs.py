"""Reader-annotated papers: highlights, notes, boxes, lines, ink and sticky notes are not content.

Shared papers are annotated with PyMuPDF's annotation API on their caption lines and inside their
figures and tables; extraction must return what it returns for the file without them (same labels,
boxes within 2 pt), and crops show the annotations only when `SPIQA_CROP_ANNOTATIONS` asks.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from PIL import Image, ImageChops

from spiqa_demo.errors import InputError
from spiqa_demo.extraction import extract_paper, load_paper
from spiqa_demo.settings import get_settings
from spiqa_demo.types import Figure, Paper

# Short papers with figures and tables, none with annotations of its own.
PAPERS = ["ecapa-tdnn-interspeech2020-2005.07143.pdf", "looking-beyond-text-pdffigures-aaai2015ws.pdf",
          "non-local-nn-cvpr2018-1711.07971.pdf"]
TOLERANCE_PT = 2.0
ANNOTATION_KINDS = {"Highlight", "FreeText", "Square", "Line", "Ink", "Text"}


def _inner(box: tuple[float, float, float, float], share: float) -> pymupdf.Rect:
    """The middle `share` of `box`."""
    x0, y0, x1, y1 = box
    dx, dy = (x1 - x0) * (1 - share) / 2, (y1 - y0) * (1 - share) / 2
    return pymupdf.Rect(x0 + dx, y0 + dy, x1 - dx, y1 - dy)


def annotate(source: Path, items: list[Figure], target: Path) -> int:
    """Write `source` with every kind of reader annotation on each item's caption and inside its region."""
    count = 0
    with pymupdf.open(source) as doc:
        for item in items:
            page = doc[item.page - 1]
            region = _inner(item.bbox, 0.6)
            if item.caption_bbox is not None:
                page.add_highlight_annot(pymupdf.Rect(item.caption_bbox))
                page.add_text_annot(pymupdf.Point(item.caption_bbox[2] - 10, item.caption_bbox[1]), "check this caption")
                count += 2
            note = page.add_freetext_annot(_inner(item.bbox, 0.3), "Table 9: my own note, compare with Figure 9", fontsize=9)
            note.update()
            page.add_rect_annot(region)
            page.add_line_annot(region.tl, region.br)
            page.add_ink_annot([[tuple(p) for p in (region.tl, region.tr, region.br, region.bl)]])
            count += 4
        doc.save(target)
    return count


@pytest.fixture(scope="module")
def pairs(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, Paper, Paper, int]]:
    """(name, paper from the file, paper from its annotated copy, annotations added) per paper."""
    folder = tmp_path_factory.mktemp("annotated")
    out = []
    for name in PAPERS:
        source = shared / "papers" / name
        plain = extract_paper(source)
        annotated = folder / name
        added = annotate(source, plain.items, annotated)
        out.append((name, plain, extract_paper(annotated), added))
    return out


def test_the_annotations_are_really_there(pairs: list[tuple[str, Paper, Paper, int]], tmp_path_factory: pytest.TempPathFactory) -> None:
    """Guards the test data: every kind is on the pages, and MuPDF reads the notes as page text."""
    for name, plain, _, added in pairs:
        assert plain.items and added >= 4 * len(plain.items), name
    folder = tmp_path_factory.getbasetemp()
    path = next(folder.glob(f"annotated*/{PAPERS[0]}"))
    with pymupdf.open(path) as doc:
        kinds = {annot.type[1] for page in doc for annot in page.annots()}
        assert kinds >= ANNOTATION_KINDS, kinds
        assert "my own note" in "".join(page.get_text() for page in doc)


def test_annotations_change_nothing_extracted(pairs: list[tuple[str, Paper, Paper, int]]) -> None:
    bad = []
    for name, plain, annotated, _ in pairs:
        labels = sorted(f.title for f in plain.items)
        if sorted(f.title for f in annotated.items) != labels:
            bad.append(f"{name}: items {sorted(f.title for f in annotated.items)} != {labels}")
            continue
        by_title = {f.title: f for f in annotated.items}
        for item in plain.items:
            other = by_title[item.title]
            boxes = [(item.bbox, other.bbox), (item.caption_bbox, other.caption_bbox)]
            if any((a is None) != (b is None) or (a and b and max(abs(u - v) for u, v in zip(a, b)) > TOLERANCE_PT)
                   for a, b in boxes):
                bad.append(f"{name} {item.title}: {item.bbox} {item.caption_bbox} != {other.bbox} {other.caption_bbox}")
            if other.caption != item.caption or other.page != item.page:
                bad.append(f"{name} {item.title}: caption or page differ")
        if [p.text for p in annotated.passages] != [p.text for p in plain.passages]:
            bad.append(f"{name}: passages differ")
    assert not bad, "\n".join(bad)


def test_annotations_are_named_in_the_warnings(pairs: list[tuple[str, Paper, Paper, int]]) -> None:
    for name, _, annotated, added in pairs:
        assert any(f"has {added} reader annotations" in w for w in annotated.warnings), (name, annotated.warnings)


def _crop_differs(a: str, b: str) -> bool:
    with Image.open(a) as first, Image.open(b) as second:
        return first.size != second.size or ImageChops.difference(first.convert("RGB"), second.convert("RGB")).getbbox() is not None


def test_crops_leave_annotations_out_unless_asked(shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = shared / "papers" / PAPERS[0]
    plain = extract_paper(source, image_dir=tmp_path / "plain", dpi=50)
    annotated = tmp_path / "annotated.pdf"
    annotate(source, plain.items, annotated)
    clean = load_paper(annotated, get_settings().extraction)
    monkeypatch.setenv("SPIQA_CROP_ANNOTATIONS", "1")
    get_settings.cache_clear()
    kept = load_paper(annotated, get_settings().extraction)
    assert [f.id for f in kept.items] == [f.id for f in clean.items]
    assert all(Path(k.image).parent != Path(c.image).parent for k, c in zip(kept.items, clean.items)), "one cache entry"
    with_dpi = extract_paper(annotated, image_dir=tmp_path / "clean", dpi=50, settings=get_settings().extraction.with_overrides(crop_annotations=False))
    assert not any(_crop_differs(a.image, b.image) for a, b in zip(plain.items, with_dpi.items)), "annotations leaked into a crop"
    assert all(_crop_differs(c.image, k.image) for c, k in zip(clean.items, kept.items)), "kept annotations missing"


def test_the_setting_is_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPIQA_CROP_ANNOTATIONS", "sometimes")
    get_settings.cache_clear()
    with pytest.raises(InputError, match="SPIQA_CROP_ANNOTATIONS: expected a boolean"):
        get_settings()
