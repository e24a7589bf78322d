"""Top-1 retrieval accuracy: did the model pick a ground-truth figure? (SPIQA's CoT metric.)

A question counts as a hit when the chosen figure is one of its reference figures; questions whose
choice could not be parsed (None) count as misses, and the denominator is every question.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence


def _base(file: str) -> str:
    return file.rsplit("/", 1)[-1]


def is_retrieval_hit(chosen: str | None, references: Collection[str]) -> bool:
    """Whether `chosen` names one of `references` (file names compared without folders)."""
    return chosen is not None and _base(chosen) in {_base(r) for r in references}


def retrieval_accuracy(chosen: Sequence[str | None], references: Sequence[Collection[str]]) -> float | None:
    """Hits / all questions, in [0, 1]; None for no questions."""
    if len(chosen) != len(references):
        raise ValueError("chosen and references differ in length")
    if not chosen:
        return None
    return sum(is_retrieval_hit(c, r) for c, r in zip(chosen, references)) / len(chosen)
