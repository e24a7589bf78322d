"""`extract PAPER.pdf --out DIR [--json] [--debug DIR]`: PDF -> `DIR/paper.json` + crops, one summary
line; `--debug` also draws every extraction stage's boxes on each page, one PNG per page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("extract", help="extract figures, tables and passages from a paper PDF")
    p.add_argument("pdf", type=Path, help="the paper PDF")
    p.add_argument("--out", type=Path, help="output folder for paper.json and the crops (default: PDF name)")
    p.add_argument("--dpi", type=int, default=None, help="crop resolution (default: SPIQA_DPI or 200)")
    p.add_argument("--json", action="store_true", help="print the Paper JSON to stdout instead of a summary")
    p.add_argument(
        "--debug", type=Path, metavar="DIR",
        help="also write DIR/page-NNN.png: each page with the boxes every stage found (text blocks, graphics, "
        "captions, candidate and chosen regions, passages), to see why a figure or table came out as it did",
    )  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from spiqa_demo.extraction import extract_to_dir
    from spiqa_demo.settings import get_settings

    out = args.out or Path(args.pdf.stem)
    paper = extract_to_dir(args.pdf, out, dpi=args.dpi, settings=get_settings().extraction, debug_dir=args.debug)
    if args.json:
        sys.stdout.write(paper.to_json() + "\n")
    else:
        print(f"{paper.source}: {paper.summary()}, {len(paper.passages)} passages -> {out / 'paper.json'}")
    if args.debug is not None:
        print(f"debug view: {paper.page_count} page images in {args.debug}", file=sys.stderr)
    for warning in paper.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0
