"""`bench-retrieval --dataset FILE [--captions-only] [--ablation]`: retrieval accuracy on a SPIQA file.

Prints a table (overall and per figure category) and, as JSON on the last line: questions,
top-1/3/5 accuracy, mean candidates per paper, the random-choice baseline, per-figure-type rows
and speed. `--ablation` first prints what each retrieval signal adds.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench-retrieval", help="measure figure retrieval on a SPIQA file (test-A/B/C shape)")
    p.add_argument("--dataset", required=True, help="SPIQA JSON file, or a split name (test-A, test-B, test-C) to download")
    p.add_argument("--captions-only", action="store_true", help="ignore the file's passages (no mentions)")
    p.add_argument("--ablation", action="store_true", help="also print the ablation table (what each signal adds)")
    p.add_argument("--embedder", help="sentence-transformers model name or folder (default: SPIQA_EMBEDDER / MiniLM)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from retrieval.embedder import get_embedder
    from spiqa_demo.evaluation.retrieval_benchmark import ablation_table, run_ablation, run_retrieval_benchmark
    from spiqa_demo.evaluation.spiqa import load_dataset
    from spiqa_demo.settings import get_settings

    settings = get_settings()
    dataset = load_dataset(Path(args.dataset) if Path(args.dataset).exists() else args.dataset, settings=settings.evaluation)
    retrieval = settings.retrieval.with_overrides(embedder=args.embedder) if args.embedder else settings.retrieval
    embedder = get_embedder(retrieval)
    passages = False if args.captions_only else None
    if args.ablation:
        print(ablation_table(run_ablation(dataset, embedder, passages)))
        print()
    report = run_retrieval_benchmark(dataset, embedder, passages=passages)
    print(f"{report.split} ({report.documents}): {report.papers} papers, {report.candidates / max(report.papers, 1):.1f} candidates per paper")
    print(report.table())
    print(json.dumps(report.summary()))
    return 0
