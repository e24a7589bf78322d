"""References benchmark: how much of each paper's bibliography is parsed, printed (never asserted).

    python -m benchmarks.references [--refextract]

(a) per paper of `papers/`: references printed (hand-counted, `references_gold.json`) against
    entries parsed, how many have a title, a year and authors, and how many in-text citations were
    linked (passages, figures/tables); the bar is >= 95% of the printed references parsed;
(b) title accuracy on the hand-checked sample of `references_gold.json`: a title is right when it
    matches the true one after case, accents, hyphens and punctuation are set aside (a line-end
    hyphen cannot be told from a split word, so "step-size" and "stepsize" are the same title);
(c) with `--refextract`, entries found (and papers whose count is within 5% of the printed one) and
    title accuracy for `refextract` (which runs poppler's `pdftotext` and its own segmentation; not a
    dependency of the project: install it beside the project to compare). It gives no title field for most entries, so its title is the first
    sentence of the entry's unparsed remainder ("misc").
The last line is JSON with the headline numbers. Data: `SPIQA_SHARED` (default ../shared).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from evalsuite.paths import SHARED
from spiqa_demo.extraction import extract_paper
from spiqa_demo.paper_text import normalise_title
from spiqa_demo.types import Paper

GOLD = Path(__file__).with_name("references_gold.json")
PARSED_BAR = 0.95


def title_right(found: str, truth: str) -> bool:
    """Titles the same once normalised (`normalise_title`), spaces too, as gold titles break words differently."""
    return bool(found) and normalise_title(found).replace(" ", "") == normalise_title(truth).replace(" ", "")


def section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 90 - len(title)))


def ours(papers: list[Path], gold: dict) -> dict:
    section("(a) references parsed per paper (ours: PyMuPDF text rows)")
    print(f"  {'paper':<48} {'printed':>7} {'parsed':>6} {'title':>5} {'year':>4} {'auth':>4} {'cited: passages':>15} {'items':>5}")
    totals = {"printed": 0, "parsed": 0, "title": 0, "year": 0, "authors": 0}
    right = checked = 0
    misses = []
    started = time.perf_counter()
    for pdf in papers:
        paper: Paper = extract_paper(pdf)
        refs = paper.references
        printed = gold["printed"].get(pdf.name, 0)
        row = {
            "printed": printed,
            "parsed": min(len(refs), printed) if printed else len(refs),
            "title": sum(bool(r.title) for r in refs),
            "year": sum(r.year is not None for r in refs),
            "authors": sum(bool(r.authors) for r in refs),
        }
        for key in totals:
            totals[key] += row[key]
        cited_passages = sum(bool(p.citations) for p in paper.passages)
        cited_items = sum(bool(i.citations) for i in paper.items)
        print(
            f"  {pdf.name:<48} {printed:>7} {len(refs):>6} {row['title']:>5} {row['year']:>4} {row['authors']:>4}"
            f" {cited_passages:>15} {cited_items:>5}"
        )
        by_key = {r.key: r for r in refs}
        for key, truth in gold["titles"].get(pdf.name, {}).items():
            checked += 1
            found = by_key[key].title if key in by_key else ""
            if title_right(found, truth):
                right += 1
            else:
                misses.append(f"{pdf.name} {key}: {found!r} (true: {truth!r})")
    share = totals["parsed"] / max(1, totals["printed"])
    print(
        f"  {'all':<48} {totals['printed']:>7} {totals['parsed']:>6} {totals['title']:>5} {totals['year']:>4}"
        f" {totals['authors']:>4}   parsed {share:.1%} of printed"
        f" [{'meets the bar' if share >= PARSED_BAR else 'BELOW THE BAR'}: >= {PARSED_BAR:.0%}]"
    )
    print(f"  extraction of all papers: {time.perf_counter() - started:.1f} s")
    section("(b) title accuracy on the hand-checked sample (ours)")
    print(f"  {right}/{checked} titles right")
    for miss in misses:
        print(f"  wrong: {miss}")
    return {"parsed_share": round(share, 4), "titles_right": right, "titles_checked": checked, **totals}


def with_refextract(papers: list[Path], gold: dict) -> dict | None:
    section("(c) refextract (pdftotext + its own parser)")
    try:
        from refextract import extract_references_from_file
    except ImportError:
        print("  refextract is not installed: skipped (pip install refextract beside the project to compare)")
        return None
    printed_total = entries_total = close = right = checked = 0
    started = time.perf_counter()
    for pdf in papers:
        refs = extract_references_from_file(str(pdf))
        printed = gold["printed"].get(pdf.name, 0)
        printed_total += printed
        entries_total += len(refs)
        close += abs(len(refs) - printed) <= 0.05 * printed
        years = sum(bool(r.get("year")) for r in refs)
        authors = sum(bool(r.get("author")) for r in refs)
        print(f"  {pdf.name:<48} printed {printed:>3}  entries {len(refs):>4}  year {years:>4}  authors {authors:>4}")
        for key, truth in gold["titles"].get(pdf.name, {}).items():
            checked += 1
            right += any(title_right(_refextract_title(r), truth) for r in _refextract_candidates(refs, key))
    print(f"  all: {entries_total} entries for {printed_total} printed; {close}/{len(papers)} papers within 5% of"
          f" the printed count; titles {right}/{checked}; {time.perf_counter() - started:.0f} s")
    return {"refextract_entries": entries_total, "refextract_papers_close": close, "refextract_titles_right": right}


def _refextract_candidates(refs: list[dict], key: str) -> list[dict]:
    number = key.strip("[].")
    if number.isdigit():
        return [r for r in refs if number in r.get("linemarker", [])]
    name, year = re.match(r"(\S+).*?(\d{4})", key).groups()
    return [r for r in refs if name in " ".join(r.get("raw_ref", [])) and year in " ".join(r.get("raw_ref", []))]


def _refextract_title(ref: dict) -> str:
    if ref.get("title"):
        return ref["title"][0]
    misc = " ".join(ref.get("misc", []))
    return re.split(r"\.\s", misc)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--refextract", action="store_true", help="also measure refextract (slow: tens of seconds a paper)")
    args = parser.parse_args()
    gold = json.loads(GOLD.read_text(encoding="utf-8"))
    papers = sorted((SHARED / "papers").glob("*.pdf"))
    summary = ours(papers, gold)
    if args.refextract:
        summary.update(with_refextract(papers, gold) or {})
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
