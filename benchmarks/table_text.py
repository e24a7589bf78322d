"""Table text benchmark: the hand-built grid against PyMuPDF's and pdfplumber's table finders.

    python -m benchmarks.table_text [--skip-retrieval]

For every table that extraction finds in `SPIQA_SHARED/papers/*.pdf`, the cells inside the table's
region are read five ways: the extractor's own grid (`spiqa_demo.extraction.tables.table_grid`,
rows by baseline, columns by the gaps through every row), PyMuPDF `Page.find_tables(clip=...)`
and pdfplumber `Page.crop(...).extract_tables(...)`, each with ruling lines ("lines") and with
text alignment ("text") as the strategy. Printed per method:
(a) tables with a grid (at least one row of two or more cells), mean cells per table, and time
    per table (the page parse each method needs included, shared by the tables of one page);
(b) exact match against `benchmarks/table_cells_gold.json` (rows read by eye from renders of 11
    tables in 11 papers): a gold row matches when some row of the method's grid has the same
    non-empty cells in the same order; cells are also counted one by one against the best row;
(c) retrieval: test-B's items come from the SPIQA JSON (no PDF, so no table text at all) and the
    shared papers have no questions, so instead each gold row becomes a lookup question ("Which
    table reports <first cell> <last cell>?") over its paper's extracted items, whose table
    structure (and its Markdown as the text) is each method's grid; top-1/top-3 of the table and
    search time per question (questions embedded beforehand), with no table text as the
    baseline and the hand grid with the table-structure signal off.
The last line is JSON with the headline numbers. Data: `SPIQA_SHARED` (default ../shared).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pdfplumber

from evalsuite.paths import REPO, SHARED
from spiqa_demo.extraction import extract_paper
from spiqa_demo.extraction.pdf import pymupdf
from spiqa_demo.extraction.tables import Word, grid_structure, page_words, region_words, table_grid
from spiqa_demo.types import Figure, Paper, TableStructure

# find_tables prints an advert for the layout package (which `spiqa_demo.extraction.pdf` keeps out) on stdout.
os.environ.setdefault("PYMUPDF_SUGGEST_LAYOUT_ANALYZER", "0")
GOLD = REPO / "benchmarks" / "table_cells_gold.json"
Grid = list[list[str]]
_FOLD = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2212"} | {"\u2217": "*"})


@dataclass
class Source:
    """One paper opened by every method (PyMuPDF document, pdfplumber document, words per page)."""

    doc: pymupdf.Document
    plumber: pdfplumber.PDF
    words: dict[int, list[Word]] = field(default_factory=dict)


def hand(src: Source, table: Figure) -> Grid:
    if table.page not in src.words:
        src.words[table.page] = page_words(src.doc[table.page - 1])
    return table_grid(region_words(src.words[table.page], table.bbox, table.caption_bbox))


def pymupdf_finder(strategy: str) -> Callable[[Source, Figure], Grid]:
    def run(src: Source, table: Figure) -> Grid:
        found = src.doc[table.page - 1].find_tables(clip=pymupdf.Rect(table.bbox), strategy=strategy, use_layout=False)
        return [[c or "" for c in row] for t in found.tables for row in t.extract()]

    return run


def pdfplumber_finder(strategy: str) -> Callable[[Source, Figure], Grid]:
    settings = {"vertical_strategy": strategy, "horizontal_strategy": strategy}

    def run(src: Source, table: Figure) -> Grid:
        page = src.plumber.pages[table.page - 1].crop(table.bbox, strict=False)
        return [[c or "" for c in row] for t in page.extract_tables(settings) for row in t]

    return run


METHODS: dict[str, Callable[[Source, Figure], Grid]] = {
    "hand grid (current)": hand,
    "pymupdf find_tables lines": pymupdf_finder("lines"),
    "pymupdf find_tables text": pymupdf_finder("text"),
    "pdfplumber lines": pdfplumber_finder("lines"),
    "pdfplumber text": pdfplumber_finder("text"),
}


def norm(cell: str) -> str:
    return "".join(unicodedata.normalize("NFKC", cell).translate(_FOLD).casefold().split())


def row_cells(row: list[str]) -> list[str]:
    return [n for c in row if (n := norm(c))]


def has_grid(grid: Grid) -> bool:
    return any(len(row_cells(r)) >= 2 for r in grid)


@dataclass
class Tally:
    tables: int = 0
    grids: int = 0
    cells: int = 0
    seconds: float = 0.0
    gold_rows: int = 0
    rows_matched: int = 0
    gold_cells: int = 0
    cells_matched: int = 0

    def row(self) -> dict[str, float]:
        return {
            "tables": self.tables,
            "with_grid": self.grids,
            "mean_cells": round(self.cells / max(self.tables, 1), 1),
            "ms_per_table": round(1000 * self.seconds / max(self.tables, 1), 2),
            "gold_row_exact": round(self.rows_matched / max(self.gold_rows, 1), 3),
            "gold_cell_exact": round(self.cells_matched / max(self.gold_cells, 1), 3),
        }


def score_rows(grid: Grid, gold_rows: list[list[str]], tally: Tally) -> None:
    found = [row_cells(r) for r in grid]
    for gold in (row_cells(r) for r in gold_rows):
        tally.gold_rows += 1
        tally.gold_cells += len(gold)
        tally.rows_matched += gold in found
        best = max((sum(1 for a, b in zip(gold, f) if a == b) for f in found), default=0)
        tally.cells_matched += best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-retrieval", action="store_true")
    args = parser.parse_args()
    gold = {(t["paper"], t["label"]): t["rows"] for t in json.loads(GOLD.read_text(encoding="utf-8"))["tables"]}
    tallies = {name: Tally() for name in METHODS}
    papers: dict[str, Paper] = {}
    texts: dict[str, dict[tuple[str, str], TableStructure]] = {name: {} for name in METHODS}
    for pdf in sorted((SHARED / "papers").glob("*.pdf")):
        paper = papers[pdf.name] = extract_paper(pdf)
        tables = [t for t in paper.items if t.kind == "table"]
        for name, method in METHODS.items():
            tally = tallies[name]
            with pymupdf.open(pdf) as doc, pdfplumber.open(pdf) as plumber:
                src = Source(doc, plumber)
                for table in tables:
                    started = time.perf_counter()
                    grid = method(src, table)
                    tally.seconds += time.perf_counter() - started
                    tally.tables += 1
                    tally.grids += has_grid(grid)
                    tally.cells += sum(len(row_cells(r)) for r in grid)
                    texts[name][(pdf.name, table.label)] = grid_structure(grid)
                    if (pdf.name, table.label) in gold:
                        score_rows(grid, gold[(pdf.name, table.label)], tally)
        print(f"{pdf.name}: {len(tables)} tables", flush=True)
    missing = [key for key in gold if key not in texts["hand grid (current)"]]
    if missing:
        print(f"gold tables not found by extraction: {missing}")
    print(f"\n{'method':28s} {'tables':>6s} {'grid':>5s} {'cells':>6s} {'ms/table':>9s} {'gold rows':>9s} {'gold cells':>10s}")
    rows = {name: t.row() for name, t in tallies.items()}
    for name, r in rows.items():
        print(
            f"{name:28s} {r['tables']:>6d} {r['with_grid']:>5d} {r['mean_cells']:>6.1f} {r['ms_per_table']:>9.2f} "
            f"{r['gold_row_exact']:>9.3f} {r['gold_cell_exact']:>10.3f}"
        )
    gold_rows = next(iter(tallies.values())).gold_rows
    print(f"(gold: {len(gold)} tables, {gold_rows} rows; exact match after NFKC, dash/case folding, spaces removed)")
    result: dict[str, object] = {"methods": rows}
    if not args.skip_retrieval:
        result["lookup"] = lookup_retrieval(papers, texts, gold)
    print(json.dumps(result))
    return 0


def lookup_retrieval(
    papers: dict[str, Paper], texts: dict[str, dict[tuple[str, str], TableStructure]], gold: dict[tuple[str, str], list[list[str]]]
) -> dict[str, dict[str, float]]:
    """Top-1/3 of the gold table for a question naming one of its rows, per method's table structure
    (its Markdown as the table's text), and for the hand grid with the table-structure signal off."""
    from retrieval import FigureIndex, FusionConfig, get_embedder
    from retrieval.embedder import MemoEmbedder

    embedder = MemoEmbedder(get_embedder())  # the methods' indexes embed the same captions
    embedder.encode([_lookup_question(row) for rows in gold.values() for row in rows])  # searches alone are timed
    print("\nretrieval: test-B items have no PDF-derived table text (SPIQA JSON only) and the shared papers")
    print("have no questions; lookup questions from the gold rows instead (each paper's extracted items)")
    print(f"{'table text':36s} {'questions':>9s} {'top-1':>6s} {'top-3':>6s} {'ms/question':>11s}")
    hand = next(iter(texts))
    runs = [("no table text", None, FusionConfig()), (f"{hand}, structure signal off", hand, FusionConfig(table_structure=0.0))]
    runs += [(name, name, FusionConfig()) for name in texts]
    out = {}
    for row_name, method, config in runs:
        ranks = []
        seconds = 0.0
        for (file, label), gold_rows in gold.items():
            items = [
                (replace(i, text="", table=None) if method is None else _with_structure(i, texts[method][(file, i.label)]))
                if i.kind == "table"
                else i
                for i in papers[file].items
            ]
            index = FigureIndex.build(replace(papers[file], items=items), embedder, config)
            target = next(n for n, i in enumerate(items) if i.kind == "table" and i.label == label)
            for row in gold_rows:
                started = time.perf_counter()
                order = list(index.signals(_lookup_question(row)).order())
                seconds += time.perf_counter() - started
                ranks.append(order.index(target))
        top1 = round(statistics.mean(r < 1 for r in ranks), 3)
        top3 = round(statistics.mean(r < 3 for r in ranks), 3)
        ms = round(1000 * seconds / max(len(ranks), 1), 2)
        print(f"{row_name:36s} {len(ranks):>9d} {top1:>6.3f} {top3:>6.3f} {ms:>11.2f}")
        out[row_name] = {"questions": len(ranks), "top1": top1, "top3": top3, "search_ms_per_question": ms}
    return out


def _lookup_question(row: list[str]) -> str:
    cells = [c for c in row if c]
    return f"Which table reports {cells[0]} {cells[-1]}?"


def _with_structure(item: Figure, structure: TableStructure) -> Figure:
    return replace(item, text=structure.to_markdown(), table=structure)


if __name__ == "__main__":
    sys.exit(main())
