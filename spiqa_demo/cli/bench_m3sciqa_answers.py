"""`bench-m3sciqa-answers --data DIR --out results.jsonl [--backend ... --model ...] [--judge-model ... --judge-url ...]`.

M3SciQA stage 2 over the combined val questions of DIR (the layout of shared/m3sciqa): stage 1
ranks each question's cited papers, the model answers from the top-k (`--k`, default 3) papers'
titles and abstracts (the data has no full text), and an LLM judge on any OpenAI-compatible
server (or a local model) scores each answer 1 / 0.5 / 0. One results.jsonl line per question,
resumable like `evaluate`; the file opens in the app's error-analysis tab. Prints the score, the
"I don't know" rate and the rows by gold-in-context, reasoning type and modal; `--json` puts the
summary as one JSON object on the last line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from spiqa_demo.cli.evaluate import concurrency_for, print_warnings
from spiqa_demo.errors import PaperError
from spiqa_demo.settings import get_settings


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench-m3sciqa-answers",
                              help="M3SciQA stage 2: answer from the top-k cited papers and judge the answers")
    p.add_argument("--data", required=True, type=Path, help="folder with the layout of shared/m3sciqa")
    p.add_argument("--out", required=True, type=Path, help="results.jsonl to write (resumed when it exists)")
    p.add_argument("--backend", choices=("local", "openai"), help="answering model backend (default: SPIQA_BACKEND, or by --base-url)")
    p.add_argument("--model", help="a Hugging Face id or folder (local), or the API's model name")
    p.add_argument("--base-url", help="OpenAI-compatible server of the answering model")
    p.add_argument("--judge-model", help="judge model (the paper used gpt-4-0125-preview); default SPIQA_JUDGE_MODEL; none: answers only")
    p.add_argument("--judge-url", help="OpenAI-compatible server of the judge (without it the judge is a local model)")
    p.add_argument("--judge-backend", choices=("local", "openai"), help="judge backend (default: openai with --judge-url, else local)")
    p.add_argument("--k", type=int, default=None, help="cited papers in the context, best-ranked first (default SPIQA_CITED_K, 3)")
    p.add_argument("--context", choices=("ranked", "title-only", "gold"), default="ranked",
                   help="ranked: top-k of stage 1 (default); title-only: the gold paper's title alone (the "
                        "'I don't know' compliance setting); gold: the gold paper's title and abstract")
    p.add_argument("--limit", type=int, help="only the first N questions (in file order)")
    p.add_argument("--seed", type=int, default=0, help="seed of the candidate order stage 1 sees")
    p.add_argument("--embedder", help="stage-1 sentence-transformers model (default: SPIQA_EMBEDDER / MiniLM)")
    p.add_argument("--concurrency", type=int, help="questions in flight for API models (default SPIQA_EVAL_CONCURRENCY; local: 1)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object on the last line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from spiqa_demo.crosspaper.types import CandidateRanking
    from spiqa_demo.evaluation.m3sciqa import answer_report
    from spiqa_demo.evaluation.m3sciqa.answer_benchmark import DATA_NOTE, AnswerSettings, Ranker, run_answers
    from spiqa_demo.evaluation.m3sciqa.combined import CombinedQuestion, load_combined
    from spiqa_demo.evaluation.m3sciqa.judge import GradedJudge
    from spiqa_demo.evaluation.metrics.l3score import load_judge
    from spiqa_demo.models import load_backend

    if args.limit is not None and args.limit < 1:
        raise PaperError("--limit must be at least 1")
    configured = get_settings()
    settings = AnswerSettings(context=args.context, k=configured.qa.cited_k if args.k is None else args.k)
    data = load_combined(args.data, split="val", seed=args.seed)
    backend = load_backend(configured.models, backend=args.backend, model=args.model, base_url=args.base_url)
    if backend is None:
        raise PaperError("no model to answer with: give --model (and --backend/--base-url for an API)")
    scorer = None if args.judge_model == "none" else load_judge(configured, model=args.judge_model, backend=args.judge_backend,
                                                                base_url=args.judge_url)
    judge = GradedJudge(scorer.backend) if scorer is not None else None
    rank: Ranker | None = None
    if settings.context == "ranked":
        from spiqa_demo.evaluation.m3sciqa.benchmark import benchmark_ranker, figure_of

        ranker, warnings = benchmark_ranker(args.embedder, configured)
        print_warnings(warnings, "")

        def rank(q: CombinedQuestion) -> CandidateRanking:
            return ranker.rank(q.question_anchor, figure_of(q), data.clusters[q.anchor_id])
    try:
        report, records = run_answers(data, backend, args.out, rank=rank, judge=judge, settings=settings,
                                      limit=args.limit, concurrency=concurrency_for(args.concurrency, backend, configured.evaluation))
    except KeyboardInterrupt:
        print(f"interrupted: finished questions are in {args.out}; run the same command again to resume", file=sys.stderr)
        return 130
    print_warnings(report.messages(), "")
    print(f"{args.out}: {report.written} question(s) answered now, {report.already_done} already there, "
          f"{report.judged} judged now", file=sys.stderr)
    context = f"top-{settings.k} ranked cited papers" if settings.context == "ranked" else settings.context
    print(f"M3SciQA stage 2 on {args.data} (val): {len(records)} of {report.total} questions answered, "
          f"context: {context}, model {backend.name}, judge {judge.name if judge else 'none'}")
    print(f"note: {DATA_NOTE}")
    print(answer_report.table(records))
    errors = [r for r in records if r.error]
    for record in errors[:5]:
        print(f"note: {record.question_key}: {record.error}")
    if len(errors) > 5:
        print(f"note: ... {len(errors) - 5} more without a verdict; a re-run asks the judge again")
    if args.json:
        summary = answer_report.summary(records) | {
            "context": settings.context, "k": settings.k if settings.context == "ranked" else None,
            "model": backend.name, "judge": judge.name if judge else None, "source": str(args.out),
            "text": "titles and abstracts only",
        }
        print(json.dumps(summary, ensure_ascii=False))
    return 0
