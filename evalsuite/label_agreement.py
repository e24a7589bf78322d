"""How many figure/table labels two extractions of one paper share (a scan against its original)."""

from __future__ import annotations

from spiqa_demo.types import Paper


def labels(paper: Paper) -> list[str]:
    """The labels ("figure 3", "table 1", ...) of the paper's labelled items, sorted (repeats kept)."""
    return sorted(f"{f.kind} {f.number}" for f in paper.items if f.number)


def label_agreement(original: Paper, other: Paper) -> float:
    """Labels both have, over the larger label count (so missing and invented labels both cost)."""
    want, got = labels(original), labels(other)
    matched = sum(min(want.count(label), got.count(label)) for label in set(want))
    return matched / max(len(want), len(got), 1)
