"""`cited PAPER.pdf "QUESTION" [--item table-3 | --image FIG.png] [--backend ... --model ...] [--top 10] [--json]`.

Stage 1 across papers: which of the paper's references does a question about one of its figures or
tables lead to? The figure is `--item` (an id as `search` prints it), an image file (`--image`,
read by OCR), or by default the item the single-paper retrieval ranks first for the question.
Prints the references best first with their per-signal scores; `--json` prints the whole ranking.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from spiqa_demo.errors import InputError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("cited", help="rank a paper's references for a question about one of its figures/tables")
    p.add_argument("pdf", type=Path, help="the anchor paper PDF")
    p.add_argument("question", help="the question, in quotes")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--item", help="the figure/table id, e.g. table-3 (default: the one retrieval ranks first)")
    where.add_argument("--image", type=Path, help="the figure as an image file instead (read by OCR)")
    p.add_argument("--backend", choices=("local", "openai", "none"), default="none",
                   help="model that also ranks the references (default none: no LLM)")
    p.add_argument("--model", help="a Hugging Face id or folder (local), or the API's model name")
    p.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--top", type=int, default=10, help="how many references to print (default 10; --json prints all)")
    p.add_argument("--json", action="store_true", help="print the whole ranking as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from retrieval.embedder import get_embedder
    from spiqa_demo.crosspaper.cited_answer import anchor_figure_for
    from spiqa_demo.crosspaper.model_ranking import ModelCitationRanker
    from spiqa_demo.crosspaper.ocr import FigureReading
    from spiqa_demo.crosspaper.paper_references import rank_references
    from spiqa_demo.crosspaper.ranking import CitationRanker
    from spiqa_demo.library import open_paper
    from spiqa_demo.models import load_backend
    from spiqa_demo.questions import check_question
    from spiqa_demo.settings import get_settings
    from spiqa_demo.types import Figure

    settings = get_settings()
    check_question(args.question, settings.qa)
    if args.top < 1:
        raise InputError("--top must be at least 1")
    opened = open_paper(args.pdf, settings)
    paper = opened.paper
    figure: Figure | Path
    if args.image is not None:
        figure = args.image
    elif args.item:
        found = paper.get(args.item)
        if found is None:
            raise InputError(f"{paper.source}: no item {args.item!r} (items: {', '.join(i.id for i in paper.items) or 'none'})")
        figure = found
    else:
        try:
            figure = anchor_figure_for(paper, opened.index, args.question)
        except InputError as exc:
            raise InputError(f"{exc}; give the figure with --image") from None
    base = CitationRanker(get_embedder(settings.retrieval), reading=FigureReading.from_settings(settings.extraction))
    backend = None if args.backend == "none" else load_backend(settings.models, backend=args.backend, model=args.model, base_url=args.base_url)
    ranking = rank_references(args.question, paper, figure, ModelCitationRanker(base, backend) if backend else base)
    if args.json:
        print(json.dumps(ranking.to_dict(), ensure_ascii=False, default=str))
        return 0
    print(f"{paper.source}: {len(paper.references)} references ranked for {ranking.figure}")
    for r in ranking.ranked[: args.top]:
        s = r.signals
        called = f" ({', '.join(r.aliases)})" if r.aliases else ""
        print(f"{r.rank:>3}. {r.reference.key} {r.reference.title[:90]}{called}  score {r.score:.2f}")
        print(f"     citation {s.citation:.1f}  figure names {s.figure_names:.2f}  question names {s.question_names:.2f}  "
              f"figure dense {s.figure_dense:.2f}  question bm25 {s.question_bm25:.2f}" + ("" if s.model is None else f"  model {s.model:.2f}"))
    for note in ranking.notes:
        print(f"note: {note}")
    return 0
