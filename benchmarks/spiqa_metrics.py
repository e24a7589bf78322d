"""SPIQA metric reproduction: every official test-C response file scored by `spiqa_demo score`'s library.

    python -m benchmarks.spiqa_metrics [--bertscore] [--files PATTERN]     (from the repository root)

For each file in `spiqa/test-C-responses/` (data: `SPIQA_SHARED`, default ../shared): the reply
format detected, questions, scored pairs, top-1 retrieval accuracy (CoT files), BLEU-1/4, METEOR,
ROUGE-L, CIDEr (x100, like the paper) and, with `--bertscore`, BERTScore F1 (needs
bert-base-uncased cached or `SPIQA_BERTSCORE_MODEL`), then the seconds it took. This is the table
of docs/benchmarks.md's "SPIQA test-C, reproduced". The last line is JSON with every value.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from evalsuite.paths import SHARED
from spiqa_demo.evaluation import read_results, score_records

COLUMNS = ("retrieval_accuracy", "BLEU-1", "BLEU-4", "METEOR", "ROUGE-L", "CIDEr", "BERTScore-F1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bertscore", action="store_true", help="also BERTScore F1 (bert-base-uncased)")
    parser.add_argument("--files", default="*.json", help="glob of response files (default: all)")
    args = parser.parse_args()
    folder = SHARED / "spiqa" / "test-C-responses"
    files = sorted(folder.glob(args.files))
    if not files:
        sys.exit(f"no response files under {folder}")
    header = f"{'run':<45} {'format':<10} {'Q':>4} {'pairs':>5} " + " ".join(f"{c[:9]:>9}" for c in COLUMNS) + "     s"
    print(header)
    print("-" * len(header))
    rows = {}
    for file in files:
        started = time.perf_counter()
        results = read_results(file)
        summary = score_records(results.records, bertscore=args.bertscore)
        seconds = time.perf_counter() - started
        values = summary.overall.values
        pairs = sum(len(r.predictions) for r in results.records)
        cells = " ".join("        -" if values.get(c) is None else f"{100 * values[c]:9.2f}" for c in COLUMNS)
        name = results.models[0] if results.models else file.stem
        print(f"{name:<45} {results.kind.removeprefix('spiqa-'):<10} {len(results):>4} {pairs:>5} {cells} {seconds:5.1f}")
        rows[name] = {"format": results.kind, "questions": len(results), "pairs": pairs, "seconds": round(seconds, 2),
                      **{k: v for k, v in values.items() if k != "L3Score"}}
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
