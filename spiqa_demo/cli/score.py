"""`score --responses FILE [--dataset D] [--judge MODEL] [--out F] [--json]`: the SPIQA metrics of a result file.

Reads our results.jsonl or an official SPIQA response file, computes retrieval accuracy, BLEU-1..4,
METEOR, ROUGE-L, CIDEr and BERTScore F1 without calling any model, and L3Score only when a judge
is given. Prints the tables of the SPIQA paper; with `--json`, the summary as one JSON object on
the last line. With `--out`, the records (and L3Score verdicts, as they arrive) are written as
results.jsonl; a re-run reuses the verdicts already there.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from spiqa_demo.cli.evaluate import add_judge_arguments, concurrency_for, judge_from_args, print_warnings
from spiqa_demo.settings import get_settings


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("score", help="score a result file (ours or SPIQA's official responses)")
    p.add_argument("--responses", type=Path, required=True,
                   help="results.jsonl, an official SPIQA response JSON, or a folder of per-paper response files")
    p.add_argument("--dataset", help="SPIQA file or split name: adds figure categories, checks question keys")
    p.add_argument("--out", type=Path, help="write the scored records (with L3Score verdicts) as results.jsonl")
    p.add_argument("--no-bertscore", action="store_true", help="skip BERTScore (it needs bert-base-uncased)")
    add_judge_arguments(p)
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object on the last line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from spiqa_demo.evaluation import align_with_dataset, judge_records, read_results, score_records
    from spiqa_demo.evaluation.report import format_summary
    from spiqa_demo.evaluation.resume import ResultWriter

    settings = get_settings()
    results = read_results(args.responses)
    print_warnings(results.warnings, f"{args.responses.name}")
    if args.dataset:
        from spiqa_demo.evaluation.spiqa import load_dataset

        dataset = load_dataset(args.dataset, settings=settings.evaluation)
        print_warnings(dataset.warnings, Path(dataset.source).name)
        print_warnings(align_with_dataset(results, dataset).messages(Path(dataset.source).name), "")
    judge = judge_from_args(args, settings)
    writer = ResultWriter(args.out) if args.out else None
    if writer is not None:
        print_warnings(writer.reuse_verdicts(results.records), args.out.name)
    elif judge is not None:
        print("note: L3Score verdicts are not saved; give --out to keep them for a re-run", file=sys.stderr)
    try:
        if judge is not None:
            judge_records(results.records, judge, concurrency=concurrency_for(args.concurrency, judge.backend, settings.evaluation),
                          on_done=writer.write if writer else None, progress=True)
    finally:
        if writer is not None:
            writer.write_missing(results.records)
            writer.close()
    summary = score_records(results.records, bertscore=not args.no_bertscore, settings=settings.evaluation)
    summary.source = str(args.responses)
    print(format_summary(summary))
    if args.json:
        print(json.dumps(summary.to_dict(), ensure_ascii=False))
    return 0
