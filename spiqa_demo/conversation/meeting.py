"""Where a follow-up's new words meet the rest of the question inside an item, not in its caption.

"and on CIFAR-10?" after "What is the top-1 error of ResNet-34 on ImageNet?" asks for the item that
prints CIFAR-10 *and* the error it was asked about: a table whose column headings or row names hold
both, or a plot whose axes and legend print both. A caption names datasets an item does not hold
("trained on ImageNet, unlike Table 6 on CIFAR-10"), so the caption is left out here: the item's
parsed table structure (headings and row names) when it has one, else the words printed inside it.
Each word weighs by how rare it is among the paper's items, and an item scores the share of the
follow-up's words it holds times the share of the other words of the question it holds: both must
meet in it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from retrieval.lexical import tokenize
from spiqa_demo.types import Figure


def _words(tokens: list[str]) -> frozenset[str]:
    return frozenset(t for t in tokens if " " not in t)  # BM25's word pairs left out


def _printed(item: Figure) -> str:
    """What an item prints inside it: its table's headings and row names, else its words."""
    if item.table is not None:
        return " ".join([*item.table.column_headings(), *item.table.row_names])
    return item.text


def meeting_scores(items: Sequence[Figure], question: str, focus: str) -> list[float]:
    """Per item, 0..1: how much of `focus` and of the rest of `question` it prints (module docstring)."""
    if not items or not focus.strip():
        return [0.0] * len(items)
    tokens = tokenize([_printed(i) for i in items] + [question, focus])
    printed = [_words(t) for t in tokens[: len(items)]]
    new = _words(tokens[-1])
    rest = _words(tokens[-2]) - new
    counts = Counter(w for words in printed for w in words)
    n = len(items)
    weight = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in counts.items()}

    def share(asked: frozenset[str], words: frozenset[str]) -> float:
        total = sum(weight.get(w, 0.0) for w in asked)
        return sum(weight.get(w, 0.0) for w in asked & words) / total if total > 0 else 0.0

    return [share(new, words) * share(rest, words) for words in printed]
