"""`evaluate --dataset FILE --task cot|direct|full|caption-only|image-only --backend ... --model ... [--judge ...] --out results.jsonl`.

Answers every question of a SPIQA split with the QA flow, writing one results.jsonl line per
question as soon as it is done (a re-run resumes), then prints the SPIQA tables (per split, per
metric, per figure category); with `--json`, the summary as one JSON object on the last line.
API keys come from the environment (SPIQA_API_KEY / OPENAI_API_KEY, SPIQA_JUDGE_API_KEY), never flags.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spiqa_demo.errors import PaperError
from spiqa_demo.qa.answer import TASKS
from spiqa_demo.settings import EvaluationSettings, Settings, get_settings

if TYPE_CHECKING:
    from spiqa_demo.evaluation.metrics.l3score import L3Judge
    from spiqa_demo.models.base import ModelBackend


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("evaluate", help="answer a SPIQA split with a model and score it")
    p.add_argument("--dataset", required=True, help="SPIQA JSON file, or a split name (test-A, test-B, test-C) to download")
    p.add_argument("--task", choices=TASKS, default="cot",
                   help="SPIQA task (default: cot); caption-only and image-only are its direct-QA ablations")
    p.add_argument("--backend", choices=("local", "openai"), help="model backend (default: SPIQA_BACKEND, or by --base-url)")
    p.add_argument("--model", help="model: a Hugging Face id or folder (local), or the API's model name")
    p.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--images", help="folder with the split's unpacked SPIQA images, or 'hub' to download them")
    p.add_argument("--out", type=Path, required=True, help="results.jsonl to write (resumed when it exists)")
    p.add_argument("--candidates", choices=("spiqa", "retrieval"), default="spiqa",
                   help="CoT candidates: SPIQA's protocol (ground truth + others, <= 8) or the app's retrieval")
    p.add_argument("--limit", type=int, help="only the first N questions (a quick check)")
    p.add_argument("--batch-size", type=int,
                   help="local models: questions answered in one batched generate call (default SPIQA_EVAL_BATCH_SIZE)")
    p.add_argument("--max-new-tokens", type=int,
                   help="longest reply (default SPIQA_EVAL_MAX_NEW_TOKENS: 128, as SPIQA's scripts)")
    p.add_argument("--no-bertscore", action="store_true", help="skip BERTScore in the summary")
    add_judge_arguments(p)
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object on the last line")
    p.set_defaults(func=run)


def add_judge_arguments(p: argparse.ArgumentParser) -> None:
    """The L3Score judge flags, shared by `score` and `evaluate`."""
    p.add_argument("--judge", help="L3Score judge model (the paper used gpt-4o); default SPIQA_JUDGE_MODEL; none: no L3Score")
    p.add_argument("--judge-backend", choices=("local", "openai"), help="judge backend (default: openai with --judge-base-url, else local)")
    p.add_argument("--judge-base-url", help="OpenAI-compatible server of the judge (https://api.openai.com/v1 for OpenAI)")
    p.add_argument("--judge-fallback", help="a local model that judges when the judge's server returns no log-probs")
    p.add_argument("--concurrency", type=int, help="requests in flight for API models (default SPIQA_EVAL_CONCURRENCY; local: 1)")


def judge_from_args(args: argparse.Namespace, settings: Settings) -> L3Judge | None:
    """The `L3Judge` the flags (or SPIQA_JUDGE_* settings) ask for, or None."""
    from spiqa_demo.evaluation.metrics.l3score import load_judge

    if args.judge == "none":
        return None
    return load_judge(settings, model=args.judge, backend=args.judge_backend, base_url=args.judge_base_url,
                      fallback=args.judge_fallback)


def concurrency_for(requested: int | None, backend: ModelBackend, settings: EvaluationSettings) -> int:
    """`--concurrency`, else SPIQA_EVAL_CONCURRENCY for API models and 1 for a local model (it holds a lock)."""
    from spiqa_demo.models.openai_api import OpenAIBackend

    return requested or (settings.eval_concurrency if isinstance(backend, OpenAIBackend) else 1)


def print_warnings(warnings: Sequence[str], where: str, limit: int = 5) -> None:
    """Warnings on stderr, at most `limit` of them plus a count."""
    prefix = f"warning: {where}: " if where else "warning: "
    for warning in warnings[:limit]:
        print(prefix + warning, file=sys.stderr)
    if len(warnings) > limit:
        print(f"{prefix}... and {len(warnings) - limit} more", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from spiqa_demo.evaluation import align_with_dataset, read_results, score_records
    from spiqa_demo.evaluation.harness import run_evaluation
    from spiqa_demo.evaluation.inputs import HUB_IMAGES_HINT
    from spiqa_demo.evaluation.report import format_summary
    from spiqa_demo.evaluation.spiqa import fetch_split_images, load_dataset
    from spiqa_demo.evaluation.spiqa.images import ImageFolder
    from spiqa_demo.models import load_backend

    settings = get_settings()
    if args.limit is not None and args.limit < 1:
        raise PaperError("--limit must be at least 1")
    if args.batch_size is not None and args.batch_size < 1:
        raise PaperError("--batch-size must be at least 1")
    if args.max_new_tokens is not None and args.max_new_tokens < 1:
        raise PaperError("--max-new-tokens must be at least 1")
    dataset = load_dataset(args.dataset, settings=settings.evaluation)
    print_warnings(dataset.warnings, Path(dataset.source).name)
    backend = load_backend(settings.models, backend=args.backend, model=args.model, base_url=args.base_url)
    if backend is None:
        raise PaperError("no model to evaluate: give --model (and --backend/--base-url for an API)")
    images = None
    if args.images == "hub":
        images = ImageFolder(fetch_split_images(dataset.split, settings.evaluation))
    elif args.images:
        if not Path(args.images).is_dir():
            raise PaperError(f"--images {args.images} is not a folder; {HUB_IMAGES_HINT}")
        images = ImageFolder(Path(args.images))
    judge = judge_from_args(args, settings)
    concurrency = concurrency_for(args.concurrency, backend, settings.evaluation)
    batch_size = args.batch_size or settings.evaluation.eval_batch_size
    try:
        report = run_evaluation(dataset, backend, args.out, task=args.task, images=images, judge=judge,
                                concurrency=concurrency, batch_size=batch_size, candidates=args.candidates,
                                limit=args.limit,
                                max_new_tokens=args.max_new_tokens or settings.evaluation.eval_max_new_tokens)
    except KeyboardInterrupt:
        print(f"interrupted: finished questions are in {args.out}; run the same command again to resume",
              file=sys.stderr)
        return 130
    print_warnings(report.messages(), "")
    print(f"{args.out}: {report.written} question(s) answered now, {report.already_done} already there"
          + (f", {report.judged} earlier answer(s) judged" if report.judged else ""), file=sys.stderr)
    if not args.out.exists() or args.out.stat().st_size == 0:
        raise PaperError(f"no question was answered, nothing to score in {args.out}")
    results = read_results(args.out)
    align_with_dataset(results, dataset)
    summary = score_records(results.records, bertscore=not args.no_bertscore, settings=settings.evaluation)
    summary.source = str(args.out)
    print(format_summary(summary))
    if args.json:
        print(json.dumps(summary.to_dict(), ensure_ascii=False))
    return 0

