"""`search PAPER.pdf "question" [--k 5] [--json]`: the paper's figures/tables ranked for a question.

Opens the paper as every command does (`open_paper`): extracted once into the cache, its retrieval
index saved beside it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("search", help="rank a paper's figures and tables for a question (retrieval only)")
    p.add_argument("pdf", type=Path, help="the paper PDF")
    p.add_argument("question", help="the question, in quotes")
    p.add_argument("--k", type=int, default=5, help="how many items to show (default 5)")
    p.add_argument("--json", action="store_true", help="print the hits as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from retrieval.index import check_query
    from spiqa_demo.library import open_paper
    from spiqa_demo.paper_text import one_line
    from spiqa_demo.settings import get_settings

    check_query(args.question, args.k)  # fail before a long extraction
    opened = open_paper(args.pdf, get_settings())
    paper = opened.paper
    hits = opened.index.search(args.question, args.k)
    if args.json:
        rows = [
            {"rank": h.rank, "id": h.item.id, "label": h.item.title, "page": h.item.page, "score": round(h.score, 4),
             "dense": round(h.scores.dense, 4), "bm25": round(h.scores.bm25, 4), "label_match": h.scores.label,
             "prior": h.scores.prior, "table_match": h.scores.table,
             "caption": h.item.caption, "image": h.item.image}
            for h in hits
        ]
        print(json.dumps({"paper": paper.source, "question": args.question, "hits": rows}, ensure_ascii=False))
        return 0
    if not hits:
        print(f"{paper.source}: no figures or tables were found in this paper", file=sys.stderr)
        return 0
    print(f"{paper.source}: {paper.summary()}")
    for hit in hits:
        print(f"{hit.rank:>2}. {hit.explain()}  [page {hit.item.page}]")
        if hit.item.caption.strip():
            print(f"    {one_line(hit.item.caption, 160)}")
    return 0
