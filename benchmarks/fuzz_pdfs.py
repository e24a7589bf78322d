"""Fuzz run: mutated real papers through extraction and search, counts per outcome (printed, never asserted).

    python -m benchmarks.fuzz_pdfs [--cases N] [--seed S] [--timeout-s T]     (from the repository root)

Each shared paper gives a 2-page PDF (its first pages with a figure or table); `N` mutations of it
(`evalsuite.pdf_mutations`: truncations, byte flips, dropped objects, nested `q`, huge media
boxes, content and image bombs, nested arrays) go through `open_paper` and the retrieval search.
Printed: counts per mutation kind and outcome (a paper, the documented `InputError`, or a failure:
crash, hang past the extraction time limit, memory past the bound), the slowest case, the largest
peak-RSS growth, and every failure. The last line is JSON with the totals. Data: `SPIQA_SHARED`.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from evalsuite.paths import SHARED
from evalsuite.pdf_mutations import KINDS, OUTCOMES, CaseResult, mutations, run_case, small_pdf
from retrieval import get_embedder
from retrieval.embedder import MemoEmbedder
from spiqa_demo.settings import Settings, get_settings

QUESTION = "Which method has the lowest error in the results table?"
HANG_S = 30.0  # past the extraction time limit: one MuPDF call cannot be interrupted mid-page
MEMORY_MB = 1024.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=40, help="mutations per paper")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--timeout-s", type=float, default=60.0, help="the extraction time limit of each case")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    results: list[CaseResult] = []
    embedder = MemoEmbedder(get_embedder())
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
        folder = Path(tmp)
        settings = get_settings().extraction.with_overrides(cache_dir=folder / "cache", dpi=72, extraction_timeout_s=args.timeout_s)
        for pdf in sorted((SHARED / "papers").glob("*.pdf")):
            base = small_pdf(pdf, first_page=1)
            for n, (kind, data) in enumerate(mutations(base, rng, args.cases)):
                path = folder / f"{pdf.stem}-{n}-{kind}.pdf"
                path.write_bytes(data)
                # A cache per case: each commit walks its cache to evict, which would grow with the run.
                own = settings.with_overrides(cache_dir=folder / "cache" / path.stem)
                results.append(run_case(kind, path, Settings(extraction=own), embedder, QUESTION, HANG_S, MEMORY_MB))
                path.unlink()
                shutil.rmtree(own.cache_dir, ignore_errors=True)
    _report(results, time.monotonic() - started)


def _report(results: list[CaseResult], seconds: float) -> None:
    counts = Counter((r.kind, r.outcome) for r in results)
    print(f"{'kind':<15}" + "".join(f"{o:>13}" for o in OUTCOMES) + f"{'mean s':>9}")
    for kind in KINDS:
        times = [r.seconds for r in results if r.kind == kind]
        mean = sum(times) / len(times) if times else 0.0
        print(f"{kind:<15}" + "".join(f"{counts[(kind, o)]:>13}" for o in OUTCOMES) + f"{mean:>9.2f}")
    totals = Counter(r.outcome for r in results)
    print(f"{'all':<15}" + "".join(f"{totals[o]:>13}" for o in OUTCOMES))
    slowest = max(results, key=lambda r: r.seconds)
    largest = max(results, key=lambda r: r.rss_growth_mb)
    print(f"{len(results)} cases in {seconds:.0f} s; slowest {slowest.seconds:.1f} s ({slowest.kind}); "
          f"largest peak-RSS growth {largest.rss_growth_mb:.0f} MB ({largest.kind})")
    for r in results:
        if r.outcome not in ("paper", "input_error"):
            print(f"FAIL {r.kind} {r.outcome}: {r.detail[:300]}")
    print(json.dumps({"cases": len(results), "seconds": round(seconds, 1), **{o: totals[o] for o in OUTCOMES},
                      "slowest_s": round(slowest.seconds, 2), "max_rss_growth_mb": round(largest.rss_growth_mb)}))


if __name__ == "__main__":
    main()
