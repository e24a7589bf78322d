"""Figure/table extraction: synthetic papers with exact ground truth, bad inputs, cache, CLI, and
the real papers in ../shared (manifest numbers, and the CS-150 gold set with pdffigures2's rule).

Every PDF is extracted once per session (fixtures below); the tests only look at the results. Box
checks use `evalsuite.extraction_gold.score_document`, the scoring the benchmark prints, so a test
failure and a benchmark row describe the same thing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest
from PIL import Image
from shared_papers import hard_manifest, manifest, shared_papers

from evalsuite import pdf_factory
from evalsuite.extraction_gold import GoldDocument, ink_bbox, load_gold_set, score_against_gold, score_document
from evalsuite.paper_checks import check_manifest, crop_problem
from evalsuite.pdf_factory import Corpus, SyntheticPaper
from spiqa_demo.errors import PaperError
from spiqa_demo.extraction import extract_paper, extract_to_dir, load_paper
from spiqa_demo.extraction.geometry import iou
from spiqa_demo.settings import ExtractionSettings, get_settings
from spiqa_demo.types import Figure, Paper

REPO = Path(__file__).resolve().parents[1]
TEST_DPI = 100  # crops in these tests; lower than the app's 200 to keep the suite fast
PAPER_NAMES = list(pdf_factory.PAPERS)
GOLD_PRECISION = GOLD_RECALL = 0.90


def _norm(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------------------------------------
# Session fixtures: build and extract everything once
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return pdf_factory.build_corpus(tmp_path_factory.mktemp("synthetic"))


@pytest.fixture(scope="session")
def extracted(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Paper]:
    crops = tmp_path_factory.mktemp("synthetic-crops")
    return {name: extract_paper(p.path, image_dir=crops / name, dpi=TEST_DPI) for name, p in corpus.papers.items()}


@pytest.fixture(scope="session")
def long_pdf(tmp_path_factory: pytest.TempPathFactory) -> SyntheticPaper:
    return pdf_factory.long_paper(tmp_path_factory.mktemp("long") / "long.pdf", pages=300)


@pytest.fixture(scope="session")
def gold_set(shared: Path) -> list[GoldDocument]:
    return load_gold_set(shared / "extraction-gt" / "cs150-icml13")


@pytest.fixture(scope="session")
def gold_papers(gold_set: list[GoldDocument]) -> dict[str, Paper]:
    return {doc.doc_id: extract_paper(doc.pdf) for doc in gold_set}


def _found(paper: Paper, kind: str, number: str) -> list[Figure]:
    return [f for f in paper.items if f.kind == kind and f.number == number]


# ---------------------------------------------------------------------------------------------
# Synthetic papers: every item found, right label, page, boxes and caption text
# ---------------------------------------------------------------------------------------------


def test_factory_covers_the_cases_it_promises(corpus: Corpus) -> None:
    """Guards the test data itself: the hard cases are really in the PDFs."""
    items = [i for p in corpus.papers.values() for i in p.items]
    labels = {i.label.split()[0] for i in items if i.label}
    assert {"Figure", "Fig.", "FIGURE", "Table", "TABLE"} <= labels
    assert any(i.hyphenated for i in items), "no caption has a hyphenated line break"
    assert any(not i.number for i in items), "no uncaptioned figure"
    assert any(i.number == "A1" for i in items)
    refs = [r for p in corpus.papers.values() for r in p.references]
    assert sum(r.line_bbox is not None for r in refs) >= 4, "too few citations open a line"
    with pymupdf.open(corpus.papers["two_column"].path) as doc:
        assert sum(len(page.get_images()) for page in doc) >= 2
        assert sum(len(page.get_drawings()) for page in doc) > 100


# Known extractor bugs (reported to the extraction owner). Strict: a fix shows up as XPASS, then
# the entry goes.
KNOWN_BUGS: dict[tuple[str, str], str] = {}


def _papers(test: str) -> list:
    """PAPER_NAMES as parameters, with the known bugs of `test` marked xfail."""
    return [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[(test, n)])) if (test, n) in KNOWN_BUGS else n
        for n in PAPER_NAMES
    ]


@pytest.mark.parametrize("name", _papers("regions_and_captions"))
def test_items_found_with_regions_and_captions(name: str, corpus: Corpus, extracted: dict[str, Paper]) -> None:
    """pdffigures2's rule on synthetic truth: kind+number+page match, region and caption IoU >= 0.8."""
    truth, paper = corpus.papers[name], extracted[name]
    report = score_document(truth.gold(), paper.items, compare_caption_text=False)
    cases = {(i.kind, i.number): i.case for i in truth.items}
    problems = [f"{m.describe()}  [{cases.get((m.kind, m.number), 'not in the paper')}]" for m in report.failures]
    assert not problems, f"{name}: {report.score()}\n" + "\n".join(problems)


@pytest.mark.parametrize("name", _papers("labels_and_captions"))
def test_labels_pages_and_caption_text(name: str, corpus: Corpus, extracted: dict[str, Paper]) -> None:
    """The printed label is kept ("Fig. 3", "TABLE IV"), the number normalised, the caption text whole
    (all lines, de-hyphenated), with or without its label."""
    problems = []
    for want in (i for i in corpus.papers[name].items if i.number):
        found = _found(extracted[name], want.kind, want.number)
        if len(found) != 1:
            problems.append(f"{want.kind} {want.number}: found {len(found)} items [{want.case}]")
            continue
        got = found[0]
        if (got.label, got.page) != (want.label, want.page):
            problems.append(f"{want.kind} {want.number}: label/page {got.label!r}/{got.page}, want {want.label!r}/{want.page}")
        body = want.caption[len(want.label) :].lstrip(":. ")
        if _norm(got.caption) not in (_norm(want.caption), _norm(body)):
            problems.append(f"{want.kind} {want.number}: caption {got.caption!r}, want {want.caption!r} [{want.case}]")
    assert not problems, "\n".join(problems)


def test_uncaptioned_figure_is_kept_unlabelled(corpus: Corpus, extracted: dict[str, Paper]) -> None:
    truth = corpus.papers["two_column"]
    want = next(i for i in truth.items if not i.number)
    candidates = [f for f in extracted["two_column"].items if not f.number and f.page == want.page]
    with pymupdf.open(truth.path) as doc:
        ious = [iou(ink_bbox(doc[want.page - 1], f.bbox) or f.bbox, want.bbox) for f in candidates]
    assert ious and max(ious) >= 0.8, f"uncaptioned figure at {want.bbox} on page {want.page}: IoUs {ious}"
    assert all(f.label == "" and f.caption == "" for f in candidates)


@pytest.mark.parametrize("name", PAPER_NAMES)
def test_no_unexpected_unlabelled_items(name: str, corpus: Corpus, extracted: dict[str, Paper]) -> None:
    """Every unlabelled item is a real uncaptioned figure: no panel, legend or table split off."""
    truth = corpus.papers[name]
    expected = [i for i in truth.items if not i.number]
    extra = [
        f
        for f in extracted[name].items
        if not f.number and not any(e.page == f.page and iou(e.bbox, f.bbox) > 0.5 for e in expected)
    ]
    assert not extra, "\n".join(f"unlabelled {f.kind} p{f.page} {f.bbox}" for f in extra)


@pytest.mark.parametrize("name", [*PAPER_NAMES, "no_figures"])
def test_running_text_citations_are_not_captions(name: str, corpus: Corpus, extracted: dict[str, Paper]) -> None:
    """A line opening with "Figure 3 shows ..." / "Table II compares ..." is body text."""
    if name == "no_figures":
        paper, truth = extract_paper(corpus.no_figures.path), corpus.no_figures
    else:
        paper, truth = extracted[name], corpus.papers[name]
    opening = [r for r in truth.references if r.line_bbox is not None]
    bad = [
        f"{r.printed!r} line on p{r.page} taken as caption of {f.kind} {f.number or '(unlabelled)'}: {f.caption[:60]!r}"
        for r in opening
        for f in paper.items
        if f.page == r.page and f.caption_bbox is not None and _overlap_share(r.line_bbox, f.caption_bbox) > 0.3
    ]
    bad += [
        f"caption {f.caption[:60]!r} is the citing sentence {r.sentence!r}"
        for f in paper.items
        for r in truth.references
        if f.caption and _norm(r.sentence).startswith(_norm(f.caption)[:30])
    ]
    assert not bad, "\n".join(bad)


def _overlap_share(line: tuple[float, ...] | None, box: tuple[float, ...]) -> float:
    """The share of `line`'s area inside `box`."""
    if line is None:
        return 0.0
    ix = max(0.0, min(line[2], box[2]) - max(line[0], box[0]))
    iy = max(0.0, min(line[3], box[3]) - max(line[1], box[1]))
    return ix * iy / max((line[2] - line[0]) * (line[3] - line[1]), 1e-6)


@pytest.mark.parametrize(("name", "number", "panels"), [("two_column", "3", 2), ("one_column", "4", 4)])
def test_multi_panel_figure_is_one_item(name: str, number: str, panels: int, corpus: Corpus, extracted: dict[str, Paper]) -> None:
    want = corpus.papers[name].item("figure", number)
    found = _found(extracted[name], "figure", number)
    assert len(found) == 1, f"{len(found)} items for figure {number}"
    inside = [f for f in extracted[name].items if f is not found[0] and f.page == want.page and iou(f.bbox, want.bbox) > 0]
    assert not inside, f"{len(inside)} other items overlap the {panels}-panel figure: {[f.title for f in inside]}"
    for sub in [w for w in want.words if re.match(r"\([a-d]\)", w)]:
        assert _norm(sub) in _norm(found[0].text), f"sub-caption {sub!r} not in the figure's text {found[0].text!r}"


def test_stacked_tables_keep_their_rows_and_headers(corpus: Corpus, extracted: dict[str, Paper]) -> None:
    """Three tables stacked in one column over a figure (KDD-like): each caption takes the rows
    between it and the next caption or figure, a header row stays with its table, and no caption
    reads a table's header as its own last line."""
    truth, paper = corpus.papers["stacked"], extracted["stacked"]
    for want in truth.items:
        found = _found(paper, want.kind, want.number)
        assert len(found) == 1, f"{want.kind} {want.number}: {len(found)} items"
        assert iou(found[0].bbox, want.bbox) >= 0.8, f"{want.kind} {want.number}: {found[0].bbox} for {want.bbox}"
        assert _norm(found[0].caption) == _norm(want.caption), f"{want.kind} {want.number} caption {found[0].caption!r}"
        if want.kind == "table":
            assert found[0].table is not None and tuple(want.cells[0]) in found[0].table.header
    assert not [f for f in paper.items if not f.number], "an unlabelled item on the stacked page"


@pytest.mark.parametrize(("name", "pair"), [("one_column", ("2", "3")), ("two_column", ("4", "5"))])
def test_side_by_side_figures_are_kept_apart(name: str, pair: tuple[str, str], extracted: dict[str, Paper], corpus: Corpus) -> None:
    a, b = (_found(extracted[name], "figure", n) for n in pair)
    assert len(a) == 1 and len(b) == 1
    assert iou(a[0].bbox, b[0].bbox) == 0, f"figures {pair} overlap: {a[0].bbox} / {b[0].bbox}"
    assert a[0].caption_bbox and b[0].caption_bbox and iou(a[0].caption_bbox, b[0].caption_bbox) == 0
    for fig in (a[0], b[0]):
        other = b[0] if fig is a[0] else a[0]
        assert other.label not in fig.caption, f"{fig.label}'s caption swallowed {other.label}'s: {fig.caption!r}"


@pytest.mark.parametrize("name", _papers("markdown"))
def test_table_text_is_a_markdown_table_of_its_cells(name: str, corpus: Corpus, extracted: dict[str, Paper]) -> None:
    problems = []
    for want in (i for i in corpus.papers[name].items if i.kind == "table"):
        found = _found(extracted[name], "table", want.number)
        if not found:
            continue  # reported by the detection tests
        lines = [ln.strip() for ln in found[0].text.splitlines() if ln.strip()]
        rows = [ln for ln in lines if ln.startswith("|") and ln.endswith("|")]
        if not any(re.fullmatch(r"\|(\s*:?-{3,}:?\s*\|)+", ln) for ln in rows):
            problems.append(f"table {want.number}: no header separator row in {found[0].text!r}")
        missing = [
            cells
            for cells in want.cells
            if not any(re.search(r"\|\s*" + r"\s*\|\s*".join(map(re.escape, cells)) + r"\s*\|", _norm(ln)) for ln in rows)
        ]
        if missing:
            problems.append(f"table {want.number}: rows {missing} missing from\n{found[0].text}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", PAPER_NAMES)
def test_figure_text_holds_the_words_drawn_inside(name: str, corpus: Corpus, extracted: dict[str, Paper]) -> None:
    problems = []
    for want in (i for i in corpus.papers[name].items if i.kind == "figure" and i.number):
        found = _found(extracted[name], "figure", want.number)
        if found:
            missing = [w for w in want.words if _norm(w) not in _norm(found[0].text)]
            if missing:
                problems.append(f"figure {want.number}: {missing} not in {found[0].text!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", PAPER_NAMES)
def test_crops_are_non_empty_pngs_at_the_requested_dpi(name: str, extracted: dict[str, Paper]) -> None:
    scale = TEST_DPI / 72
    problems = []
    for item in extracted[name].items:
        problem = crop_problem(item.image)
        if problem:
            problems.append(f"{item.title}: {problem}")
            continue
        with Image.open(item.image) as img:
            width, height = img.size
        want_w, want_h = (item.bbox[2] - item.bbox[0]) * scale, (item.bbox[3] - item.bbox[1]) * scale
        # A little padding around the region is fine; another resolution or region is not.
        if not (want_w - 2 <= width <= want_w * 1.05 + 12 * scale and want_h - 2 <= height <= want_h * 1.05 + 12 * scale):
            problems.append(f"{item.title}: crop {width}x{height} px, region at {TEST_DPI} dpi is {want_w:.0f}x{want_h:.0f}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", _papers("crops_show_no_caption"))
def test_crops_show_no_caption(name: str, corpus: Corpus, extracted: dict[str, Paper]) -> None:
    """The crop (region plus its padding, read back from the PNG size) stays clear of every caption's ink.

    0.75 pt of tolerance: whole-pixel PNG sizes at 100 dpi leave up to 0.36 pt of slack per side."""
    truth, scale = corpus.papers[name], TEST_DPI / 72
    problems = []
    for item in extracted[name].items:
        with Image.open(item.image) as img:
            pad_x = max(0.0, (img.width / scale - (item.bbox[2] - item.bbox[0])) / 2)
            pad_y = max(0.0, (img.height / scale - (item.bbox[3] - item.bbox[1])) / 2)
        shown = (item.bbox[0] - pad_x, item.bbox[1] - pad_y, item.bbox[2] + pad_x, item.bbox[3] + pad_y)
        for want in truth.items:
            cap = want.caption_bbox
            if want.page != item.page or cap is None:
                continue
            depth = min(shown[3], cap[3]) - max(shown[1], cap[1])
            if depth > 0.75 and min(shown[2], cap[2]) > max(shown[0], cap[0]):
                problems.append(f"{item.title} crop {tuple(round(v, 1) for v in shown)} shows {depth:.1f} pt of {want.label}'s caption {cap}")
    assert not problems, "\n".join(problems)


def test_crop_resolution_follows_dpi(corpus: Corpus, tmp_path: Path) -> None:
    low = extract_paper(corpus.papers["journal"].path, image_dir=tmp_path / "low", dpi=50)
    high = extract_paper(corpus.papers["journal"].path, image_dir=tmp_path / "high", dpi=150)
    for a, b in zip(low.items, high.items):
        with Image.open(a.image) as small, Image.open(b.image) as big:
            assert big.width / small.width == pytest.approx(3.0, rel=0.06)


@pytest.mark.parametrize("name", PAPER_NAMES)
def test_citations_become_mentions(name: str, corpus: Corpus, extracted: dict[str, Paper]) -> None:
    """"Fig. 3", "Figure 3(b)", "Tables 2 and 3", "Table II": the citing sentence is a mention of each item."""
    paper = extracted[name]
    problems = []
    for ref in corpus.papers[name].references:
        for number in ref.numbers:
            found = _found(paper, ref.kind, number)
            if not found:
                continue
            sentences = [m.sentence for m in found[0].mentions]
            if not any(_norm(ref.printed) in _norm(s) for s in sentences):
                problems.append(f"{ref.kind} {number}: no mention with {ref.printed!r} (sentence {ref.sentence!r}); mentions: {sentences}")
            for m in found[0].mentions:
                if not (0 <= m.passage < len(paper.passages)):
                    problems.append(f"{ref.kind} {number}: mention points to passage {m.passage} of {len(paper.passages)}")
    assert not problems, "\n".join(problems)


def test_paper_metadata(corpus: Corpus, extracted: dict[str, Paper]) -> None:
    truth, paper = corpus.papers["two_column"], extracted["two_column"]
    assert paper.page_count == truth.page_count
    assert paper.page_sizes[0] == pytest.approx(pdf_factory.LETTER)
    assert _norm(paper.title) == truth.title
    assert paper.arxiv_id and paper.arxiv_id.startswith("2101.00001")
    assert paper.passages and all(1 <= p.page <= paper.page_count for p in paper.passages)
    assert len(paper.sha256) == 64


def test_json_round_trip(extracted: dict[str, Paper]) -> None:
    for paper in extracted.values():
        assert Paper.from_json(paper.to_json()) == paper


def test_extract_to_dir_writes_json_with_relative_crops(corpus: Corpus, tmp_path: Path) -> None:
    out = tmp_path / "out"
    paper = extract_to_dir(corpus.papers["journal"].path, out, dpi=72)
    saved = Paper.from_json((out / "paper.json").read_text())
    assert saved == paper and len(saved.items) == 3
    for item in saved.items:
        assert not Path(item.image).is_absolute()
        assert crop_problem(out / item.image) is None
    assert all(crop_problem(i.image) is None for i in saved.with_image_root(out).items)


def test_progress_is_reported_from_0_to_1(corpus: Corpus) -> None:
    seen: list[tuple[float, str]] = []
    extract_paper(corpus.papers["ieee"].path, progress=lambda f, msg: seen.append((f, msg)))
    fractions = [f for f, _ in seen]
    assert fractions and fractions[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in fractions) and fractions == sorted(fractions)
    assert all(isinstance(msg, str) and msg for _, msg in seen)


# ---------------------------------------------------------------------------------------------
# Special and bad inputs
# ---------------------------------------------------------------------------------------------

BAD_INPUTS = {
    "not_a_pdf": r"not a PDF",
    "empty": r"empty|not a PDF",
    "truncated": r"damaged|truncated|corrupt|incomplete",
    "encrypted": r"password|encrypted",
    "zero_pages": r"no pages",
}


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_bad_input_raises_paper_error_with_a_clear_message(name: str, corpus: Corpus) -> None:
    path = corpus.bad[name]
    with pytest.raises(PaperError) as caught:
        extract_paper(path)
    message = str(caught.value)
    assert re.search(BAD_INPUTS[name], message, re.IGNORECASE), message
    assert path.name in message and "\n" not in message and len(message) < 300


def test_missing_file_raises_paper_error(tmp_path: Path) -> None:
    with pytest.raises(PaperError, match="not found"):
        extract_paper(tmp_path / "nowhere.pdf")
    with pytest.raises(PaperError, match="not found"):
        load_paper(tmp_path / "nowhere.pdf", get_settings().extraction)


def test_scanned_pdf_keeps_page_images_and_warns(corpus: Corpus, tmp_path: Path) -> None:
    """Without OCR (tests/test_ocr.py covers it) a scan's pages are kept as unlabelled figures."""
    paper = extract_paper(corpus.scanned, image_dir=tmp_path, dpi=72, settings=get_settings().extraction.with_overrides(ocr="off"))
    assert {f.page for f in paper.items} == {1, 2}, "each scanned page should give its image as a figure"
    assert all(not f.number and crop_problem(f.image) is None for f in paper.items)
    assert any("caption" in w.lower() for w in paper.warnings), paper.warnings


def test_paper_without_figures_gives_zero_items(corpus: Corpus) -> None:
    paper = extract_paper(corpus.no_figures.path)
    assert paper.items == []
    assert paper.passages


def test_page_limit_is_a_clear_error(long_pdf: SyntheticPaper) -> None:
    with pytest.raises(PaperError, match=r"300 pages.*100"):
        extract_paper(long_pdf.path, settings=ExtractionSettings(max_pages=100))


def test_300_page_paper_is_extracted(long_pdf: SyntheticPaper) -> None:
    paper = extract_paper(long_pdf.path)
    assert paper.page_count == 300
    report = score_document(long_pdf.gold(), paper.items)
    assert not report.failures, "\n".join(m.describe() for m in report.failures)


# ---------------------------------------------------------------------------------------------
# Cache
# ---------------------------------------------------------------------------------------------


def _count_calls(monkeypatch: pytest.MonkeyPatch, *names: str) -> dict[str, int]:
    """Count calls of PyMuPDF page methods that any extraction must make (parsing, rendering)."""
    counts = dict.fromkeys(names, 0)
    for name in names:
        original: Callable = getattr(pymupdf.Page, name)

        def spy(self, *args, _name=name, _original=original, **kwargs):
            counts[_name] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(pymupdf.Page, name, spy)
    return counts


def test_second_load_is_a_cache_hit(corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first_copy, second_copy = tmp_path / "a.pdf", tmp_path / "renamed.pdf"
    shutil.copy(corpus.papers["two_column"].path, first_copy)
    shutil.copy(first_copy, second_copy)
    counts = _count_calls(monkeypatch, "get_text", "get_drawings", "get_pixmap")
    first = load_paper(first_copy, get_settings().extraction)
    assert counts["get_text"] > 0 and counts["get_pixmap"] > 0, "the spies saw no extraction"
    counts.update(dict.fromkeys(counts, 0))
    second = load_paper(second_copy, get_settings().extraction)  # same bytes, other name: the key is the content
    assert not any(counts.values()), f"cache hit re-parsed or re-rendered: {counts}"
    assert [f.id for f in second.items] == [f.id for f in first.items]
    assert all(crop_problem(f.image) is None for f in second.items)


def test_changed_file_is_extracted_again(corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = tmp_path / "paper.pdf"
    shutil.copy(corpus.papers["journal"].path, pdf)
    load_paper(pdf, get_settings().extraction)
    with pdf.open("ab") as fh:
        fh.write(b"\n% an incremental save changes the bytes\n")
    counts = _count_calls(monkeypatch, "get_text")
    load_paper(pdf, get_settings().extraction)
    assert counts["get_text"] > 0


# ---------------------------------------------------------------------------------------------
# CLI contract: real subprocesses for the main paths (started together: each pays ~2 s of imports),
# `cli.main` in-process for every other input (same code path below the interpreter)
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def cli_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli")


@pytest.fixture(scope="session")
def cli_runs(corpus: Corpus, cli_dir: Path) -> dict[str, subprocess.CompletedProcess]:
    """`python -m spiqa_demo extract` as a user runs it; {case: finished process}."""
    env = {**os.environ, "SPIQA_CACHE_DIR": str(cli_dir / "cache"), "PYTHONPATH": str(REPO)}
    journal = corpus.papers["journal"].path
    commands = {
        "summary": [str(journal), "--out", str(cli_dir / "summary"), "--dpi", "72"],
        "json": [str(journal), "--out", str(cli_dir / "json"), "--dpi", "72", "--json"],
        "not_a_pdf": [str(corpus.bad["not_a_pdf"]), "--out", str(cli_dir / "not_a_pdf")],
    }
    started = {
        case: subprocess.Popen(
            [sys.executable, "-m", "spiqa_demo", "extract", *args],
            cwd=REPO, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        for case, args in commands.items()
    }
    done = {}
    for case, proc in started.items():
        stdout, stderr = proc.communicate(timeout=120)
        done[case] = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    return done


def test_cli_prints_one_summary_line(cli_runs: dict, cli_dir: Path) -> None:
    run = cli_runs["summary"]
    assert run.returncode == 0, run.stderr
    assert len(run.stdout.strip().splitlines()) == 1 and "2 figures" in run.stdout and "1 table" in run.stdout
    paper = Paper.from_json((cli_dir / "summary" / "paper.json").read_text())
    assert len(paper.items) == 3


def test_cli_json_prints_the_paper(cli_runs: dict) -> None:
    run = cli_runs["json"]
    assert run.returncode == 0, run.stderr
    paper = Paper.from_json(run.stdout)
    assert [f.label for f in paper.items] and all(not Path(f.image).is_absolute() for f in paper.items)


def test_cli_bad_input_process_exits_non_zero_with_one_line(cli_runs: dict) -> None:
    run = cli_runs["not_a_pdf"]
    assert run.returncode != 0 and run.stdout == ""
    assert run.stderr.startswith("error:") and len(run.stderr.strip().splitlines()) == 1, run.stderr


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from spiqa_demo.cli import main

    code = main(["extract", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("case", ["missing", *BAD_INPUTS])
def test_cli_bad_input_exits_non_zero_with_one_line(case: str, corpus: Corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdf = tmp_path / "nowhere.pdf" if case == "missing" else corpus.bad[case]
    code, out, err = _cli([str(pdf), "--out", str(tmp_path / "out")], capsys)
    assert code != 0 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and pdf.name in lines[0], err


def test_cli_scanned_pdf_succeeds_with_a_warning(
    corpus: Corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPIQA_OCR", "off")
    get_settings.cache_clear()
    code, out, err = _cli([str(corpus.scanned), "--out", str(tmp_path / "out"), "--dpi", "72"], capsys)
    assert code == 0 and len(out.strip().splitlines()) == 1
    assert "caption" in err.lower()


def test_cli_debug_draws_the_stages_over_each_page(corpus: Corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`extract --debug DIR`: one PNG per page, the page as MuPDF renders it with the stages' boxes
    drawn over it (not the plain page) and a legend beside it; a page frames its kept figures and
    tables in their layer's colour, and a page without any has none of that colour."""
    import numpy as np

    from spiqa_demo.extraction.debug import Layer
    from spiqa_demo.extraction.debug_view import DPI, STYLES

    pdf, debug = corpus.papers["two_column"].path, tmp_path / "debug"  # page 2 has no figure or table
    code, out, err = _cli([str(pdf), "--out", str(tmp_path / "out"), "--dpi", "72", "--debug", str(debug)], capsys)
    assert code == 0 and len(out.strip().splitlines()) == 1 and f"in {debug}" in err
    paper = Paper.from_json((tmp_path / "out" / "paper.json").read_text())
    images = sorted(debug.iterdir())
    assert [p.name for p in images] == [f"page-{n:03d}.png" for n in range(1, paper.page_count + 1)]
    item_colour = np.array(STYLES[Layer.ITEMS].colour)
    with pymupdf.open(pdf) as doc:
        for number, path in enumerate(images, 1):
            pix = doc[number - 1].get_pixmap(dpi=DPI)
            plain = np.asarray(Image.frombytes("RGB", (pix.width, pix.height), pix.samples)).astype(int)
            drawn = np.asarray(Image.open(path).convert("RGB")).astype(int)
            assert drawn.shape[1] > plain.shape[1], "no legend beside the page"
            page = drawn[: plain.shape[0], : plain.shape[1]]
            assert (np.abs(page - plain).sum(axis=2) > 60).mean() > 0.05, f"page {number} is barely marked"
            framed = bool((page == item_colour).all(axis=2).any())
            assert framed == any(item.page == number for item in paper.items), f"page {number}"


def test_debugging_does_not_change_the_paper(corpus: Corpus, tmp_path: Path) -> None:
    pdf = corpus.papers["journal"].path
    debugged = extract_paper(pdf, debug_dir=tmp_path / "debug")
    assert debugged.to_dict() == extract_paper(pdf).to_dict()
    assert len(list((tmp_path / "debug").iterdir())) == debugged.page_count


# ---------------------------------------------------------------------------------------------
# Real papers (../shared)
# ---------------------------------------------------------------------------------------------


def test_an_abstract_set_narrower_than_its_column_is_a_passage(shared_papers: dict[str, Paper]) -> None:
    """NeurIPS indents the abstract on both sides; it is prose all the same (the library describes a
    cited paper by it)."""
    paper = shared_papers["attention-is-all-you-need-1706.03762.pdf"]
    first_page = [p.text for p in paper.passages if p.page == 1]
    assert first_page and first_page[0].startswith("The dominant sequence transduction models"), first_page[:1]
    assert any("the Transformer, based solely on attention" in text for text in first_page)


def test_shared_papers_have_the_manifest_numbers(
    shared: Path, manifest: list[dict], shared_papers: dict[str, Paper]
) -> None:
    """Every number the manifest lists is found, once; a number it does not list is printed in the PDF.

    The manifest is hand-made and can miss items (appendix figures, say), so a find it lacks is not
    an error when its label is in the text of its page; one that is not printed there is.
    """
    checks = [check_manifest(entry, shared_papers[entry["file"]], shared / "papers" / entry["file"]) for entry in manifest]
    bad = [c.describe() for c in checks if not c.all_listed_found or any(not u.printed for u in c.unlisted)]
    assert not bad, f"{len(bad)} of {len(checks)} papers differ:\n" + "\n".join(bad)


def test_hard_papers_have_every_number_and_no_unlabelled_item(
    shared: Path, hard_manifest: list[dict], shared_papers: dict[str, Paper]
) -> None:
    """The hard manifest lists every figure and table, so each is found once (a supplement's in the
    supplement too), nothing else is, and no item comes back without its caption."""
    checks = [check_manifest(e, shared_papers[e["file"]], shared / "papers" / e["file"]) for e in hard_manifest]
    bad = [c.describe() for c in checks if not c.clean]
    assert not bad, "\n".join(bad)


def test_a_supplement_numbering_from_1_again_gives_items_of_its_own(
    hard_manifest: list[dict], shared_papers: dict[str, Paper]
) -> None:
    """Its items keep their printed number, say which part they are in, and have ids of their own."""
    entry = next(e for e in hard_manifest if "numbering_restarts_at_page" in e)
    paper = shared_papers[entry["file"]]
    start = entry["numbering_restarts_at_page"]
    assert all(bool(f.part) == (f.page >= start) for f in paper.items if f.number)
    table = next(f for f in paper.items if f.kind == "table" and f.part and f.label.startswith("Table 3"))
    assert (table.number, table.label, table.part) == ("S3", "Table 3 (supplement)", "supplement")
    assert len({f.id for f in paper.items}) == len(paper.items)


def test_shared_papers_crops_are_non_empty(manifest: list[dict], shared_papers: dict[str, Paper]) -> None:
    bad = [
        f"{entry['file']} {item.title}: {problem}"
        for entry in manifest
        for item in shared_papers[entry["file"]].items
        if (problem := crop_problem(item.image))
    ]
    assert not bad, "\n".join(bad)
    assert all(shared_papers[e["file"]].page_count == e["pages"] for e in manifest)


def test_shared_papers_captions_have_text(manifest: list[dict], shared_papers: dict[str, Paper]) -> None:
    """A caption is more than its label ("TABLE 5" alone means its text was left in the region)."""
    bad = [
        f"{entry['file']} {item.title} p{item.page}: caption {item.caption!r}"
        for entry in manifest
        for item in shared_papers[entry["file"]].items
        if item.number and len(_norm(item.caption)) <= len(item.label) + 3
    ]
    assert not bad, "\n".join(bad)


def test_shared_papers_regions_do_not_overlap(manifest: list[dict], shared_papers: dict[str, Paper]) -> None:
    """No region covers another item's region or any caption (two figures merged, caption in the crop)."""
    bad = []
    for entry in manifest:
        items = shared_papers[entry["file"]].items
        for a in items:
            for b in items:
                if b is a or b.page != a.page:
                    continue
                if b.caption_bbox and _overlap_share(b.caption_bbox, a.bbox) > 0.3:
                    bad.append(f"{entry['file']} p{a.page}: {a.title} region {a.bbox} covers {b.title}'s caption {b.caption_bbox}")
                if id(a) < id(b) and _overlap_share(b.bbox, a.bbox) > 0.3 and _overlap_share(a.bbox, b.bbox) > 0.05:
                    bad.append(f"{entry['file']} p{a.page}: regions of {a.title} {a.bbox} and {b.title} {b.bbox} overlap")
    assert not bad, "\n".join(bad)


def test_gold_set_precision_and_recall(gold_set: list[GoldDocument], gold_papers: dict[str, Paper]) -> None:
    """CS-150 (ICML 2013) with pdffigures2's rule; pdffigures2 itself reported 0.94 / 0.90."""
    report = score_against_gold(gold_set, gold_papers)
    score = report.score()
    failures = "\n".join(m.describe() for m in report.failures)
    assert score.precision >= GOLD_PRECISION and score.recall >= GOLD_RECALL, f"{score}\n{failures}"


def test_a_pdf_holding_a_huge_image_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    """1.6 gigapixels in a 1.6 MB file: decoding it alone takes seconds of CPU, rendering any part of
    its page decodes it whole, so it is refused from the size the PDF declares."""
    from evalsuite.hostile_pdfs import huge_image_pdf

    pdf = huge_image_pdf(tmp_path / "bomb.pdf")
    settings = ExtractionSettings(cache_dir=tmp_path / "cache")
    with pytest.raises(PaperError, match=r"bomb\.pdf: page 1 holds an image of 40000 x 40000 pixels, over the "
                                         r"64-megapixel limit \(SPIQA_MAX_IMAGE_PIXELS\)"):
        extract_paper(pdf, image_dir=tmp_path / "crops", settings=settings)
    assert not (tmp_path / "crops").exists()  # refused while its pages were read, before any render
    allowed = settings.with_overrides(max_image_pixels=40_000 * 40_000)
    assert len(extract_paper(pdf, settings=allowed).items) == 1  # within a raised limit it is an ordinary figure


def test_render_scales_stay_within_their_pixel_bound() -> None:
    from spiqa_demo.extraction.pixels import fit_dpi, fit_scale

    assert fit_scale(2.0, 612, 792, 40_000_000) == 2.0  # an ordinary page keeps its scale
    scale = fit_scale(2.0, 14_400, 14_400, 4_000_000)
    assert (14_400 * scale) ** 2 == pytest.approx(4_000_000)
    assert (14_400 * fit_dpi(300, 14_400, 14_400, 4_000_000) / 72) ** 2 <= 4_000_000
    assert fit_dpi(300, 612, 792, 40_000_000) == 300
    assert fit_dpi(300, 1e9, 1e9, 1) == 1


def _manuscript_with_figures_at_the_end(path: Path) -> Path:
    """A preprint's last pages: a page of text, a page of figure legends (no graphic), then the
    figure alone on its page (bars and axis words, no caption)."""
    doc = pymupdf.open()
    text = "Results of the assay are reported for each condition and replicate in the sections below. " * 3
    page = doc.new_page()
    for i in range(20):
        page.insert_text((72, 80 + 14 * i), text[i % 7 : i % 7 + 80], fontsize=10)
    legends = doc.new_page()
    legends.insert_text((72, 80), "Figure Legends", fontsize=12, fontname="hebo")
    legends.insert_text((72, 110), "Figure 1. Binding of the protein to its partner across conditions.", fontsize=10)
    legends.insert_text((72, 124), "Bars show the mean of three replicates; error bars the standard deviation.", fontsize=10)
    figure = doc.new_page()
    for i, height in enumerate((120, 200, 160, 240)):
        figure.draw_rect(pymupdf.Rect(120 + 60 * i, 500 - height, 160 + 60 * i, 500), color=(0, 0, 0), fill=(0.3, 0.4, 0.8))
        figure.insert_text((120 + 60 * i, 515), f"C{i + 1}", fontsize=8)
    figure.draw_line((110, 500), (370, 500))
    figure.draw_line((110, 500), (110, 240))
    doc.save(path)
    return path


def test_a_legend_printed_before_its_figure_page_labels_that_figure(tmp_path: Path) -> None:
    paper = extract_paper(_manuscript_with_figures_at_the_end(tmp_path / "manuscript.pdf"))
    [item] = paper.items
    assert (item.kind, item.number, item.page) == ("figure", "1", 3)
    assert item.caption.startswith("Figure 1. Binding of the protein") and item.caption_bbox is None
    assert item.bbox[1] < 260 and item.bbox[3] >= 500
