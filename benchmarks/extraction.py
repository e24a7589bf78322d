"""Extraction benchmark: quality, speed and memory of PDF -> `Paper`, printed (never asserted).

    python -m benchmarks.extraction [--repeat N] [--skip-memory] [--skip-ocr]     (from the repository root)

(a) the CS-150 gold set (`extraction-gt/cs150-icml13`) scored with pdffigures2's rule (page, kind
    and number match; region and caption IoU >= 0.8; `evalsuite.extraction_gold`): precision and
    recall overall, per kind and per paper, then every failure (missing / extra / wrong box + IoUs);
(b) the real papers (`papers/`): numbers found vs `manifest.json` (`evalsuite.paper_checks`):
    misses, finds the manifest does not list (with whether their printed label is in the PDF's
    text), duplicates, unlabelled items and unusable crops per paper; (b') the same for the papers
    of `manifest-hard.json`, where any unlabelled item is a miss (the manifest lists every one);
(c) speed on the same papers, in one run: the "floor" (PyMuPDF's own `get_text("dict")` +
    `cluster_drawings()` + `get_image_info()` on every page) vs the full extraction (`extract_paper`
    with crops at the default DPI), ms/page and their ratio (bar <= 4x); and a 10-page paper from
    file to `Paper` (bar: well under 1 s);
(d) peak memory extracting the 300-page synthetic paper, against a 30-page one (bounded memory
    means about the same peak), each in a fresh process;
(e) OCR: a short shared paper rebuilt as page images only (a 200-dpi scan) extracted with OCR at
    two resolutions: ms/page and the share of the original's figure/table labels it gets back
    (bar >= 0.90);
(f) real layouts (issue 31): the 62 real papers (`papers/` and `papers/litqa/`) against the captions
    each prints (`benchmarks/data/real_layout_captions.json`, read by a person;
    `evalsuite.layout_checks`), per journal family: printed captions found (bar >= 0.98), labelled
    items whose box holds more than their caption (bar >= 0.98), unlabelled items that are no
    recorded uncaptioned graphic (bar <= 1 per paper), labels the paper prints no caption for,
    extraction errors (bar: none), and ms/page with its ratio to the PyMuPDF floor.
    `--real-only` runs this section alone.
The last line is JSON with the headline numbers. Data: `SPIQA_SHARED` (default ../shared).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pymupdf

from evalsuite import pdf_factory
from evalsuite.extraction_gold import Report, load_gold_set, score_against_gold
from evalsuite.label_agreement import label_agreement, labels
from evalsuite.layout_checks import LayoutCheck, by_family, check_layout, load_reference
from evalsuite.paper_checks import check_manifest, crop_problem
from evalsuite.paths import REPO, SHARED
from spiqa_demo.extraction import extract_paper
from spiqa_demo.settings import get_settings
from spiqa_demo.types import Paper

SPEED_BAR, TEN_PAGE_BAR_S, QUALITY_BAR = 4.0, 1.0, 0.90
OCR_PAPER, SCAN_DPI, OCR_DPIS, OCR_BAR = "ecapa-tdnn-interspeech2020-2005.07143.pdf", 200, (200, 300), 0.90
REAL_LAYOUTS = REPO / "benchmarks" / "data" / "real_layout_captions.json"
CAPTIONS_BAR, CONTENT_BAR, JUNK_BAR = 0.98, 0.98, 1.0


def floor_seconds(pdf: Path) -> float:
    """PyMuPDF's own per-page parsing of `pdf`: the cost no extractor built on it can go below."""
    started = time.perf_counter()
    with pymupdf.open(pdf) as doc:
        for page in doc:
            page.get_text("dict")
            page.cluster_drawings()
            page.get_image_info()
    return time.perf_counter() - started


def extract_seconds(pdf: Path, image_dir: Path | None) -> tuple[float, Paper]:
    started = time.perf_counter()
    paper = extract_paper(pdf, image_dir=image_dir)
    return time.perf_counter() - started, paper


def section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 90 - len(title)))


def bar(ok: bool) -> str:
    return "meets the bar" if ok else "BELOW THE BAR"


# (a) ------------------------------------------------------------------------------------------


def gold_quality() -> Report:
    root = SHARED / "extraction-gt" / "cs150-icml13"
    gold = load_gold_set(root)
    papers = {doc.doc_id: extract_paper(doc.pdf) for doc in gold}
    report = score_against_gold(gold, papers)
    section(f"(a) CS-150 gold set, pdffigures2 rule ({len(gold)} papers)")
    total = report.score()
    print(f"overall  {total}   [{bar(total.precision >= QUALITY_BAR and total.recall >= QUALITY_BAR)}: P, R >= {QUALITY_BAR}]")
    for kind in ("figure", "table"):
        print(f"{kind + 's':8} {report.score(kind=kind)}")
    print("per paper:")
    for doc_id in report.doc_ids:
        print(f"  {doc_id:10} {report.score(doc_id=doc_id)}")
    print(f"failures ({len(report.failures)}):")
    for match in report.failures:
        print("  " + match.describe())
    if report.unlabelled:
        print(f"unlabelled items, not scored ({len(report.unlabelled)}):")
        for match in report.unlabelled:
            print(f"  {match.doc_id} p{match.page} {match.kind} {[round(v) for v in match.found.bbox]}")
    return report


# (b) + (c) ------------------------------------------------------------------------------------


def shared_papers(repeat: int) -> dict:
    manifest = json.loads((SHARED / "papers" / "manifest.json").read_text())
    rows, checks, crop_issues = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        extract_seconds(SHARED / "papers" / manifest[0]["file"], None)  # warm imports and caches
        for entry in manifest:
            pdf = SHARED / "papers" / entry["file"]
            floors, fulls = [], []
            for run in range(repeat):  # interleaved, best of `repeat`: both see the same machine state
                floors.append(floor_seconds(pdf))
                seconds, paper = extract_seconds(pdf, Path(tmp) / f"{pdf.stem}-{run}")
                fulls.append(seconds)
            pages = paper.page_count
            rows.append((entry["file"], pages, min(floors), min(fulls)))
            checks.append(check_manifest(entry, paper, pdf))
            crop_issues += [f"{entry['file']} {f.title}: {p}" for f in paper.items if (p := crop_problem(f.image))]

    section(f"(b) shared papers vs manifest ({len(manifest)} papers)")
    for check in checks:
        print("  " + check.describe_all())
    exact = sum(c.ok for c in checks)
    complete = sum(c.all_listed_found for c in checks)
    duplicates = sum(len(c.duplicates) for c in checks)
    unlisted = [u for c in checks for u in c.unlisted]
    printed = sum(u.printed for u in unlisted)
    print(f"numbers equal to the manifest: {exact}/{len(checks)}; every listed number found once: {complete}/{len(checks)}; "
          f"found but not listed: {len(unlisted)} ({printed} with the label printed on their page); "
          f"duplicates: {duplicates}; unusable crops: {len(crop_issues)}")
    for issue in crop_issues:
        print("  " + issue)
    print(f"unlabelled items: {sum(len(c.unlabelled) for c in checks)}")

    section("(c) speed: PyMuPDF floor vs full extraction (crops at the default DPI), best of " + str(repeat))
    print(f"  {'paper':48} {'pages':>5} {'floor ms/p':>10} {'full ms/p':>10} {'ratio':>6}")
    for name, pages, floor, full in rows:
        print(f"  {name[:48]:48} {pages:5d} {1000 * floor / pages:10.1f} {1000 * full / pages:10.1f} {full / floor:6.2f}")
    pages = sum(r[1] for r in rows)
    floor_ms, full_ms = 1000 * sum(r[2] for r in rows) / pages, 1000 * sum(r[3] for r in rows) / pages
    ratio = full_ms / floor_ms
    print(f"  {'all':48} {pages:5d} {floor_ms:10.1f} {full_ms:10.1f} {ratio:6.2f}   [{bar(ratio <= SPEED_BAR)}: <= {SPEED_BAR}x]")

    ten = next(e["file"] for e in manifest if e["pages"] == 10)
    pdf = SHARED / "papers" / ten
    bare = statistics.median(extract_seconds(pdf, None)[0] for _ in range(3))
    with tempfile.TemporaryDirectory() as tmp:
        cropped = statistics.median(extract_seconds(pdf, Path(tmp) / str(i))[0] for i in range(3))
    print(f"  10-page paper ({ten}) file -> Paper: {bare:.2f} s without crops, {cropped:.2f} s with crops   "
          f"[{bar(cropped < TEN_PAGE_BAR_S)}: < {TEN_PAGE_BAR_S:.0f} s]")
    return {
        "papers_matching_manifest": f"{exact}/{len(checks)}",
        "unlabelled_items": sum(len(c.unlabelled) for c in checks),
        "papers_with_every_listed_number": f"{complete}/{len(checks)}",
        "found_not_listed": len(unlisted),
        "found_not_listed_printed": printed,
        "duplicates": duplicates,
        "unusable_crops": len(crop_issues),
        "floor_ms_per_page": round(floor_ms, 1),
        "extract_ms_per_page": round(full_ms, 1),
        "speed_ratio": round(ratio, 2),
        "ten_page_s": round(bare, 3),
        "ten_page_with_crops_s": round(cropped, 3),
    }


def hard_papers() -> dict:
    """(b') the papers of `manifest-hard.json` (dense pages, captions beside their figures, a
    supplement numbering from 1 again), checked as (b) checks the others."""
    manifest = json.loads((SHARED / "papers" / "manifest-hard.json").read_text())
    section(f"(b') hard papers vs manifest-hard.json ({len(manifest)} papers)")
    checks, crop_issues = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for entry in manifest:
            pdf = SHARED / "papers" / entry["file"]
            paper = extract_paper(pdf, image_dir=Path(tmp) / pdf.stem)
            checks.append(check_manifest(entry, paper, pdf))
            crop_issues += [f"{entry['file']} {f.title}: {p}" for f in paper.items if (p := crop_problem(f.image))]
    for check in checks:
        print("  " + check.describe_all())
    clean = sum(c.clean for c in checks)
    print(f"every listed number found once, nothing else, no unlabelled item: {clean}/{len(checks)}; "
          f"unusable crops: {len(crop_issues)}")
    for issue in crop_issues:
        print("  " + issue)
    return {"hard_papers_clean": f"{clean}/{len(checks)}", "hard_unlabelled_items": sum(len(c.unlabelled) for c in checks)}


# (d) ------------------------------------------------------------------------------------------

# Run in a fresh process per PDF: RSS is sampled every 2 ms during one extraction (after a warm-up
# on a small paper, so one-time loads do not count) and the Python heap peak is traced in a second run.
_MEMORY_PROBE = """
import json, sys, tempfile, threading, time, tracemalloc
from pathlib import Path
from spiqa_demo.extraction import extract_paper
from spiqa_demo.settings import get_settings
def rss_mb():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) / 1024 for line in fh if line.startswith("VmRSS:"))
with tempfile.TemporaryDirectory() as tmp:
    extract_paper(sys.argv[2], image_dir=Path(tmp) / "warm-up")
    base, peak, done = rss_mb(), [0.0], threading.Event()
    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_mb())
            time.sleep(0.002)
    sampler = threading.Thread(target=sample)
    sampler.start()
    started = time.perf_counter()
    paper = extract_paper(sys.argv[1], image_dir=Path(tmp) / "crops")
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    tracemalloc.start()
    extract_paper(sys.argv[1], image_dir=Path(tmp) / "again")
    heap = tracemalloc.get_traced_memory()[1] / 2**20
print(json.dumps({"pages": paper.page_count, "items": len(paper.items), "seconds": seconds,
                  "rss_base_mb": base, "rss_peak_mb": max(peak[0], rss_mb()), "python_heap_peak_mb": heap}))
"""


def memory() -> dict:
    section("(d) memory: the 300-page synthetic paper vs a 30-page one (fresh process each)")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for pages in (30, 300):
            pdf = pdf_factory.long_paper(Path(tmp) / f"long-{pages}.pdf", pages=pages).path
            warm_up = pdf_factory.journal_paper(Path(tmp) / "warm-up.pdf").path
            out = subprocess.run(
                [sys.executable, "-c", _MEMORY_PROBE, str(pdf), str(warm_up)],
                capture_output=True, text=True, cwd=REPO, check=False,
            )
            if out.returncode != 0:
                print(f"  {pages} pages: probe failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            results[pages] = r
            print(f"  {pages:3d} pages: {r['seconds']:.1f} s ({1000 * r['seconds'] / pages:.0f} ms/page), "
                  f"{r['items']} items, RSS {r['rss_base_mb']:.0f} MB before -> peak {r['rss_peak_mb']:.0f} MB "
                  f"(+{r['rss_peak_mb'] - r['rss_base_mb']:.0f}), Python heap peak {r['python_heap_peak_mb']:.1f} MB")
    if len(results) == 2:
        grow = (results[300]["rss_peak_mb"] - results[300]["rss_base_mb"]) / max(1.0, results[30]["rss_peak_mb"] - results[30]["rss_base_mb"])
        print(f"  RSS growth, 300 vs 30 pages: {grow:.1f}x (page by page would stay near 1x; all pages held: ~10x)")
    big = results.get(300, {})
    return {
        "peak_rss_mb_300_pages": round(big.get("rss_peak_mb", 0.0), 1),
        "rss_growth_mb_300_pages": round(big.get("rss_peak_mb", 0.0) - big.get("rss_base_mb", 0.0), 1),
        "python_heap_peak_mb_300_pages": round(big.get("python_heap_peak_mb", 0.0), 1),
        "seconds_300_pages": round(big.get("seconds", 0.0), 2),
    }


def ocr_cost() -> dict:
    """OCR of a scanned shared paper: time per page and labels recovered, at each OCR resolution."""
    section(f"(e) OCR of a {SCAN_DPI}-dpi scan of {OCR_PAPER}")
    source = SHARED / "papers" / OCR_PAPER
    original = extract_paper(source)
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp, pymupdf.open(source) as doc:
        scan = pdf_factory.scanned_pdf(Path(tmp) / "scan.pdf", source, pages=doc.page_count, dpi=SCAN_DPI)
        for dpi in OCR_DPIS:
            started, started_cpu = time.perf_counter(), _cpu_with_children()
            scanned = extract_paper(scan, settings=get_settings().extraction.with_overrides(ocr_dpi=dpi))
            ms = 1000 * (time.perf_counter() - started) / doc.page_count
            cpu_ms = 1000 * (_cpu_with_children() - started_cpu) / doc.page_count
            agreement = label_agreement(original, scanned)
            print(
                f"  OCR at {dpi} dpi: {ms:.0f} ms/page ({cpu_ms:.0f} CPU ms/page, Tesseract's included), "
                f"labels {agreement:.2f} of the original's   [{bar(agreement >= OCR_BAR)}: >= {OCR_BAR}]"
            )
            missing = sorted(set(labels(original)) - set(labels(scanned)))
            extra = sorted(set(labels(scanned)) - set(labels(original)))
            if missing or extra:
                print(f"    missing {missing}, extra {extra}")
            out[f"ocr_{dpi}dpi"] = {"ms_per_page": round(ms), "cpu_ms_per_page": round(cpu_ms), "label_agreement": round(agreement, 3)}
    return out


def _cpu_with_children() -> float:
    """CPU seconds of this process and its finished children (Tesseract runs as one): wall time
    on a shared machine counts other people's work too."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


# (f) ------------------------------------------------------------------------------------------


def real_layouts() -> dict:
    """(f) every real paper against the captions it prints, per journal family."""
    reference = load_reference(REAL_LAYOUTS)
    section(f"(f) real layouts: {len(reference.papers)} papers vs the captions they print, per family")
    checks, floor = [], 0.0
    for entry in reference.papers:
        pdf = SHARED / "papers" / entry.file
        floor += floor_seconds(pdf)
        try:
            seconds, paper = extract_seconds(pdf, None)
        except Exception as exc:  # an error on any paper is a result to print, not a stop
            checks.append(LayoutCheck(entry.file, entry.family, error=f"{type(exc).__name__}: {exc}"))
            continue
        checks.append(check_layout(entry, paper, seconds))
    for check in checks:
        if check.error or check.missed or check.extra or check.caption_only or check.junk:
            print("  " + check.describe())
    print(f"\n  {'family':22} {'papers':>6} {'captions found':>16} {'share':>6} {'has content':>12} "
          f"{'unlabelled':>10} {'/paper':>6} {'not printed':>11} {'errors':>6} {'ms/page':>8}")
    families = by_family(checks)
    for fam in families:
        print(f"  {fam.name:22} {fam.papers:6d} {f'{fam.found}/{fam.printed}':>16} {fam.found_share:6.3f} "
              f"{fam.content_share:12.3f} {fam.junk:10d} {fam.junk_per_paper:6.2f} {fam.extra:11d} {fam.errors:6d} "
              f"{1000 * fam.seconds / max(1, fam.pages):8.0f}")
    total = families[-1]
    ratio = total.seconds / floor if floor else 0.0
    print(f"  captions found {total.found_share:.3f} [{bar(total.found_share >= CAPTIONS_BAR)}: >= {CAPTIONS_BAR}]; "
          f"labelled items with content {total.content_share:.3f} [{bar(total.content_share >= CONTENT_BAR)}: >= {CONTENT_BAR}]; "
          f"unlabelled per paper {total.junk_per_paper:.2f} [{bar(total.junk_per_paper <= JUNK_BAR)}: <= {JUNK_BAR:.0f}]; "
          f"errors {total.errors} [{bar(total.errors == 0)}: none]")
    print(f"  {total.pages} pages in {total.seconds:.0f} s: {1000 * total.seconds / max(1, total.pages):.0f} ms/page, "
          f"{ratio:.2f}x the PyMuPDF floor (no crops)")
    return {
        "real_captions_found": round(total.found_share, 3),
        "real_items_with_content": round(total.content_share, 3),
        "real_unlabelled_per_paper": round(total.junk_per_paper, 2),
        "real_not_printed_labels": total.extra,
        "real_errors": total.errors,
        "real_speed_ratio": round(ratio, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2, help="timing runs per paper (best is kept)")
    parser.add_argument("--skip-memory", action="store_true", help="skip the 300-page memory probe")
    parser.add_argument("--skip-ocr", action="store_true", help="skip OCR of a scanned paper (seconds per page)")
    parser.add_argument("--skip-real", action="store_true", help="skip the real-layout check of the 62 real papers")
    parser.add_argument("--real-only", action="store_true", help="run only the real-layout check (f)")
    args = parser.parse_args()
    if not SHARED.is_dir():
        sys.exit(f"shared data not found at {SHARED}; set SPIQA_SHARED")
    if args.real_only:
        print()
        print(json.dumps(real_layouts()))
        return
    report = gold_quality()
    total = report.score()
    headline = {
        "gold_precision": round(total.precision, 3),
        "gold_recall": round(total.recall, 3),
        "gold_f1": round(total.f1, 3),
        "gold_figures": [round(report.score(kind="figure").precision, 3), round(report.score(kind="figure").recall, 3)],
        "gold_tables": [round(report.score(kind="table").precision, 3), round(report.score(kind="table").recall, 3)],
    }
    headline |= shared_papers(args.repeat)
    headline |= hard_papers()
    if not args.skip_memory:
        headline |= memory()
    if not args.skip_ocr:
        headline |= ocr_cost()
    if not args.skip_real:
        headline |= real_layouts()
    print()
    print(json.dumps(headline))


if __name__ == "__main__":
    main()
