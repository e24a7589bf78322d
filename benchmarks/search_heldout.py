"""`search` on papers nobody tuned retrieval on: figure/table questions that do not name the item.

    python -m benchmarks.search_heldout [--misses]          (from the repository root)

Questions: benchmarks/data/search_heldout_questions.json (10 ICML 2013 papers of the CS-150
extraction set and 6 litqa articles, written before `search` ran on them; see its "about"). Each
paper is opened as the CLI's `search` opens it (`open_paper`: extraction cache, saved index) and
each question searched with its figure/table index. Printed, never asserted: top-1 and top-3 of the
gold item (the label the paper prints, compared as `paper_text` reads labels), overall, per corpus
and per gold kind, beside issue 29's bars (top-1 >= 0.70, top-3 >= 0.88). A gold item extraction
missed counts as a miss, as it does for a reader. `--misses` lists the questions whose gold item is
not first. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from evalsuite.paths import SHARED
from spiqa_demo.library import open_paper
from spiqa_demo.paper_text import LabelKey, find_label_refs
from spiqa_demo.settings import get_settings

DATA = Path(__file__).parent / "data" / "search_heldout_questions.json"
TOP = 3
BARS = {"top1": 0.70, "top3": 0.88}


@dataclass(frozen=True)
class Outcome:
    """Where one question's gold item ranked (None: not in the top `TOP`)."""

    paper: str
    question: str
    gold: str
    kind: str
    rank: int | None
    ranked: tuple[str, ...]

    @property
    def corpus(self) -> str:
        return "litqa" if "/litqa/" in self.paper else "icml13"


def gold_key(label: str) -> LabelKey:
    """The (kind, canonical number) of a printed label ("FIG 3", "Table IV")."""
    keys = find_label_refs(label)
    if len(keys) != 1:
        raise ValueError(f"not one figure/table label: {label!r}")
    return keys[0]


def run(rows: list[dict[str, str]]) -> list[Outcome]:
    settings = get_settings()
    outcomes: list[Outcome] = []
    for paper_path in sorted({row["paper"] for row in rows}):
        index = open_paper(SHARED / paper_path, settings).index
        for row in (r for r in rows if r["paper"] == paper_path):
            key = gold_key(row["gold"])
            hits = index.search(row["question"], TOP)
            keys = [(h.item.kind, h.item.number) for h in hits]
            rank = keys.index(key) + 1 if key in keys else None
            outcomes.append(Outcome(paper_path, row["question"], row["gold"], key[0], rank, tuple(h.item.title for h in hits)))
    return outcomes


def rates(outcomes: list[Outcome]) -> dict[str, float]:
    n = len(outcomes)
    top1 = sum(o.rank == 1 for o in outcomes)
    top3 = sum(o.rank is not None for o in outcomes)
    return {"questions": n, "top1": round(top1 / n, 3), "top3": round(top3 / n, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the questions whose gold item is not first")
    args = parser.parse_args()
    rows = json.loads(DATA.read_text(encoding="utf-8"))["questions"]
    outcomes = run(rows)
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[o.corpus].append(o)
        groups[o.kind].append(o)
    result = {"all": rates(outcomes), **{name: rates(group) for name, group in sorted(groups.items())}}
    for name, r in result.items():
        print(f"{name:8s} {r['questions']:3d} questions  top-1 {r['top1']:.3f}  top-{TOP} {r['top3']:.3f}")
    for metric, bar in BARS.items():
        print(f"bar {metric} >= {bar}: {'met' if result['all'][metric] >= bar else 'NOT met'}")
    if args.misses:
        for o in outcomes:
            if o.rank != 1:
                print(f"  {'top-3' if o.rank else 'MISS '} {Path(o.paper).stem[:22]:22s} gold {o.gold:8s} got {', '.join(o.ranked)}  | {o.question}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
