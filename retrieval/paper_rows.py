"""The rows of a many-paper index grouped by paper: the per-paper filter of its searches.

Rows are added paper by paper, so each paper owns one contiguous span; a paper without rows (no
figures, or no passages) still has an empty span and is a known paper, not an unknown key.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from spiqa_demo.errors import PaperError


class PaperRows:
    """Which rows belong to which paper key (`papers`: every key, in the order added)."""

    def __init__(self, papers: Sequence[str], row_keys: Sequence[str]) -> None:
        self.papers = list(dict.fromkeys(papers))
        self._spans: dict[str, tuple[int, int]] = {key: (0, 0) for key in self.papers}
        for row, key in enumerate(row_keys):
            if key not in self._spans:
                raise ValueError(f"row {row} belongs to {key!r}, which is not among the papers")
            start, end = self._spans[key]
            self._spans[key] = (row, row + 1) if start == end else (start, row + 1)

    def rows(self, papers: Iterable[str]) -> np.ndarray:
        """The rows of `papers`; PaperError names keys that are not in the index."""
        wanted = list(dict.fromkeys(str(p) for p in papers))
        unknown = [p for p in wanted if p not in self._spans]
        if unknown:
            raise PaperError(f"not in this corpus: {', '.join(unknown[:5])}")
        spans = [np.arange(*self._spans[p], dtype=np.int64) for p in wanted]
        return np.concatenate(spans) if spans else np.zeros(0, np.int64)
