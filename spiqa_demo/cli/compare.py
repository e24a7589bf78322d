"""`compare A B [--judge MODEL] [--json]`: who is right, and why not, for two result files.

Every answer gets a verdict (L3Score when a judge is given or the file stores its verdicts, else the
deterministic rules of `evaluation.verdicts`, each naming its rule); each file's answers fall in the
cells of SPIQA's error taxonomy (right/wrong figure x right/wrong answer); the shared questions are
counted as right in both, right in A only, right in B only, wrong in both (questions in one file only
are counted apart). With `--json`, the last line is that as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from spiqa_demo.cli.evaluate import add_judge_arguments, concurrency_for, judge_from_args, print_warnings
from spiqa_demo.settings import get_settings


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("compare", help="verdicts, error taxonomy and who is right, for two result files")
    p.add_argument("a", type=Path, help="result file A (results.jsonl, an official SPIQA response JSON, or a folder of them)")
    p.add_argument("b", type=Path, help="result file B")
    add_judge_arguments(p)
    p.add_argument("--json", action="store_true", help="print the counts as one JSON object on the last line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from spiqa_demo.evaluation import judge_records, read_results
    from spiqa_demo.evaluation.comparison import OUTCOME_NAMES, OUTCOMES, compare_files, judge_file
    from spiqa_demo.evaluation.export import markdown_table, taxonomy_chart
    from spiqa_demo.evaluation.taxonomy import CELL_NAMES, CELLS

    settings = get_settings()
    judge = judge_from_args(args, settings)
    if judge is not None:
        print("note: L3Score verdicts are not saved; `score --out` keeps them for a re-run", file=sys.stderr)
    files = []
    for path in (args.a, args.b):
        results = read_results(path)
        print_warnings(results.warnings, path.name)
        if judge is not None:
            judge_records(results.records, judge, progress=True,
                          concurrency=concurrency_for(args.concurrency, judge.backend, settings.evaluation))
        files.append(judge_file(path.name, results.records))
    comparison = compare_files(*files)
    for letter, file in zip("AB", files):
        accuracy = "—" if file.retrieval_accuracy is None else f"{file.retrieval_accuracy:.3f}"
        rules = ", ".join(f"{rule} {n}" for rule, n in file.verdict_rules.items())
        print(f"{letter}: {file.name} · {len(file.records)} questions · {file.right} right · "
              f"retrieval accuracy {accuracy} · verdicts by rule: {rules}")
    print("\nSPIQA error taxonomy\n")
    print(markdown_table(["cell", "A", "B"], [[CELL_NAMES[c], *(f.taxonomy.counts[c] for f in files)] for c in CELLS]))
    print("\n" + taxonomy_chart(files).removeprefix("```text\n").removesuffix("\n```"))
    counts = comparison.counts
    print(f"\n{len(comparison.pairs)} shared questions (only in A: {len(comparison.only_a)}, only in B: {len(comparison.only_b)}):")
    for name in OUTCOMES:
        print(f"  {OUTCOME_NAMES[name]:<24} {counts[name]}")
    if args.json:
        print(json.dumps(comparison.to_dict(), ensure_ascii=False))
    return 0
