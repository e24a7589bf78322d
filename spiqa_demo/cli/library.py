"""`library ANCHOR.pdf [CITED_PDF | FOLDER | ARXIV_ID ...] [--json]`: the anchor's references and
which of them the provided papers hold, the provided papers that match none, and what went wrong.

A thin layer over `spiqa_demo.library.PaperLibrary`; papers are extracted in parallel through the
extraction cache. Notices (duplicates, unreadable files, failed downloads) go to stderr as one line
each; `--json` prints one JSON object with them.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("library", help="match provided cited papers (PDFs, folders, arXiv ids) to a paper's references")
    p.add_argument("anchor", type=Path, help="the paper whose references are matched")
    p.add_argument("cited", nargs="*", help="cited papers: PDF files, folders of PDFs, or arXiv ids")
    p.add_argument("--workers", type=int, default=None, help="extraction processes (default: one per core)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from spiqa_demo.library import PaperLibrary
    from spiqa_demo.settings import get_settings

    library = PaperLibrary.open(args.anchor, get_settings())
    library.add(args.cited, workers=args.workers)
    availability = library.availability()
    unmatched = library.unmatched()
    anchor = library.anchor
    if args.json:
        print(json.dumps({
            "anchor": {"source": str(args.anchor), "title": anchor.title, "sha256": anchor.sha256, "references": len(anchor.references)},
            "papers": [{"source": p.origin, "title": p.paper.title, "sha256": p.key, "pages": p.paper.page_count} for p in library.papers],
            "references": [asdict(a) for a in availability],
            "available": sum(a.source is not None for a in availability),
            "unmatched": [p.origin for p in unmatched],
            "notices": [asdict(n) for n in library.notices],
        }, ensure_ascii=False))  # fmt: skip
        return 0
    for notice in library.notices:
        print(f"note: {notice.message}", file=sys.stderr)
    available = [a for a in availability if a.source is not None]
    print(f"{args.anchor.name}: {anchor.title or '(no title found)'}")
    print(f"{len(availability)} references, {len(available)} available from {len(library.papers)} provided paper(s)")
    width = max((len(a.key) for a in availability), default=0)
    for a in availability:
        title = a.title or "(title not recognised)"
        found = f"  <- {a.source} ({a.matched_by} {a.similarity:g})" if a.source else ""
        print(f"  {'*' if a.source else ' '} {a.key:<{width}}  {title[:90]}{found}")
    if unmatched:
        print(f"{len(unmatched)} provided {'paper matches' if len(unmatched) == 1 else 'papers match'} no reference:")
        for p in unmatched:
            print(f"    {p.origin}: {p.paper.title or '(no title found)'}")
    return 0
