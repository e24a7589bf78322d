"""The extractive answer's "not found" threshold, and its latency, across the shared papers.

    python -m benchmarks.extractive_calibration          (from the repository root)

Answerable: reader_questions.json's text questions (the gold sentence's words); unanswerable:
reader_unanswerable.json (written before any score was looked at). Printed per question: the best
quote's `support` and whether it quotes the gold sentence; then, for thresholds around today's
`MIN_SUPPORT`, how many answerable questions would say "not found" and how many unanswerable ones
would not; then the answer's latency per question (`ask_turn` without a model, the paper loaded),
median and 95th percentile. Never asserted. The last line is JSON.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from benchmarks.reader_conversation import normalised
from evalsuite.paths import SHARED
from spiqa_demo.conversation import Conversation, ask_turn
from spiqa_demo.conversation.extractive import MIN_SUPPORT, support
from spiqa_demo.library import open_paper
from spiqa_demo.settings import get_settings
from spiqa_demo.types import Paper

DATA = Path(__file__).parent / "data"
THRESHOLDS = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)


def main() -> int:
    settings = get_settings()
    answerable = json.loads((DATA / "reader_questions.json").read_text(encoding="utf-8"))["text"]
    unanswerable = json.loads((DATA / "reader_unanswerable.json").read_text(encoding="utf-8"))["questions"]
    papers: dict[str, Paper] = {}
    rows: list[tuple[bool, float, bool, bool]] = []  # (answerable, support, quoted, said not found)
    seconds: list[float] = []
    for row, answers in [(r, True) for r in answerable] + [(r, False) for r in unanswerable]:
        if row["paper"] not in papers:
            papers[row["paper"]] = open_paper(SHARED / "papers" / row["paper"], settings).paper
        paper = papers[row["paper"]]
        start = time.perf_counter()
        turn = ask_turn(paper, Conversation(paper.sha256), row["question"], None, settings.qa, retrieval=settings.retrieval)
        seconds.append(time.perf_counter() - start)
        quoted = [e for e in turn.evidence if e.passage is not None and e.quotes]
        score = support(turn.read_as, quoted[0].passage, paper) if quoted and quoted[0].passage is not None else 0.0
        says = answers and normalised(row["quote"]) in normalised(turn.answer)
        rows.append((answers, score, says, turn.not_found))
        print(f"{'answerable  ' if answers else 'UNANSWERABLE'} {'quoted' if says else '      '} {'not found' if turn.not_found else '         '} "
              f"support {score:.2f} {row['paper'][:18]:18s} {row['question'][:70]}")
    n_yes = sum(r[0] for r in rows)
    n_no = len(rows) - n_yes
    for threshold in THRESHOLDS:
        lost = sum(1 for a, s, q, _ in rows if a and s < threshold)
        lost_quoted = sum(1 for a, s, q, _ in rows if a and q and s < threshold)
        caught = sum(1 for a, s, _, _ in rows if not a and s < threshold)
        print(f"threshold {threshold:.2f}: answerable said not found {lost}/{n_yes} ({lost_quoted} of them quoted the gold), "
              f"unanswerable said not found {caught}/{n_no}{'   <- MIN_SUPPORT' if abs(threshold - MIN_SUPPORT) < 1e-9 else ''}")
    median, p95 = np.percentile(seconds, [50, 95])
    quoted_share = sum(r[2] for r in rows) / n_yes
    print(f"answer latency per question: median {median:.3f} s, p95 {p95:.3f} s over {len(seconds)} questions")
    print(f"text questions quoting the gold sentence: {quoted_share:.3f}")
    result = {"quoted": round(quoted_share, 3), "answerable_not_found": sum(1 for r in rows if r[0] and r[3]),
              "unanswerable_not_found": sum(1 for r in rows if not r[0] and r[3]), "answerable": n_yes, "unanswerable": n_no,
              "latency_median_s": round(float(median), 3), "latency_p95_s": round(float(p95), 3)}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
