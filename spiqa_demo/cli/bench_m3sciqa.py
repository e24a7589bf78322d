"""`bench-m3sciqa --data DIR [--backend ... --model ...] [--limit N] [--ablation] [--json]`: M3SciQA stage 1.

Ranks the whole cluster of cited papers for every locality question in DIR (the layout of
shared/m3sciqa), candidates in a seeded order, and prints MRR, R@1/3/5 and nDCG@3 overall, per
modal and per reasoning type, beside the file-order and random baselines. `--json` prints one JSON
object on the last line. With a model configured, its ranking is fused with the no-LLM one.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench-m3sciqa", help="measure stage-1 cited-paper ranking on M3SciQA (locality questions)")
    p.add_argument("--data", required=True, type=Path, help="folder with the layout of shared/m3sciqa")
    p.add_argument("--backend", choices=("local", "openai", "none"), default="none",
                   help="model that also ranks the candidates (default none: no LLM)")
    p.add_argument("--model", help="a Hugging Face id or folder (local), or the API's model name")
    p.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--limit", type=int, default=None, help="only the first N questions (in file order)")
    p.add_argument("--seed", type=int, default=0, help="seed of the candidate order")
    p.add_argument("--ablation", action="store_true", help="also print each signal alone, the fusion without each, and cross-validated weights")
    p.add_argument("--embedder", help="sentence-transformers model name or folder (default: SPIQA_EMBEDDER / MiniLM)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object on the last line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from spiqa_demo.cli.evaluate import print_warnings
    from spiqa_demo.crosspaper.model_ranking import ModelCitationRanker
    from spiqa_demo.errors import InputError
    from spiqa_demo.evaluation.m3sciqa import benchmark
    from spiqa_demo.evaluation.m3sciqa.data import load_locality
    from spiqa_demo.evaluation.m3sciqa.metrics import score_ranks
    from spiqa_demo.models import load_backend
    from spiqa_demo.settings import get_settings

    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1")
    data = load_locality(args.data, seed=args.seed)
    questions = data.questions[: args.limit] if args.limit else data.questions
    settings = get_settings()
    ranker, warnings = benchmark.benchmark_ranker(args.embedder, settings)
    print_warnings(warnings, "")
    backend = None if args.backend == "none" else load_backend(settings.models, backend=args.backend, model=args.model, base_url=args.base_url)
    rank = (ModelCitationRanker(ranker, backend, seed=args.seed) if backend else ranker).rank
    report = benchmark.run_benchmark(data, lambda q: rank(q.question, benchmark.figure_of(q), data.clusters[q.anchor_id]), questions)
    if args.ablation:
        items = benchmark.collect(data, ranker, questions)
        print(benchmark.ablation_table(benchmark.ablation(items, ranker.weights)))
        grid = benchmark.grid_weights()
        best = benchmark.best_weights(items, grid)
        cv_ranks, _ = benchmark.cross_validated(items, grid)
        print(f"grid best in-sample MRR {benchmark.mrr_of(items, best):.3f} ({best}); "
              f"anchor-level 5-fold cross-validated MRR {score_ranks(cv_ranks).mrr:.3f}")
        print()
    summary = report.summary()
    summary["model"] = backend.name if backend else None
    summary["notes"] = len(report.notes)
    print(f"M3SciQA stage 1 on {args.data}: {len(questions)} locality questions, "
          f"{summary['mean_cluster_size']} candidates per cluster on average, ranker: {'no LLM' if backend is None else backend.name}")
    print(report.table())
    print_warnings(report.notes, "", limit=10)
    print(f"{report.seconds:.1f} s ({summary['seconds_per_question']} s per question)")
    if args.json:
        print(json.dumps(summary))
    return 0
