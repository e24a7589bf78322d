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

from collections.abc import Sequence

from retrieval.lexical import WordShare, single_words, tokenize
from spiqa_demo.types import Figure


def printed_words(item: Figure) -> str:
    """What an item prints inside it: its table's headings and row names, else its words."""
    if item.table is not None:
        return " ".join([*item.table.column_headings(), *item.table.row_names])
    return item.text


def meeting_scores(items: Sequence[Figure], question: str, focus: str) -> list[float]:
    """Per item, 0..1: how much of `focus` and of the rest of `question` it prints (module docstring)."""
    if not items or not focus.strip():
        return [0.0] * len(items)
    printed = WordShare([printed_words(i) for i in items])
    question_tokens, focus_tokens = tokenize([question, focus])
    new = single_words(focus_tokens)
    rest = single_words(question_tokens) - new
    return (printed.shares(new) * printed.shares(rest)).tolist()


def left_scores(items: Sequence[Figure], question: str, focus: str, replaced: str) -> list[float]:
    """Per item, 0..1: how much it prints the words the follow-up `replaced` ("ImageNet" of "and on
    CIFAR-10?") with the rest of `question`, and not `focus`: the previous answer's item, which a
    caption naming the new words ("the CIFAR-10 results follow the same trend") would keep on top."""
    if not items or not focus.strip() or not replaced.strip():
        return [0.0] * len(items)
    printed = WordShare([printed_words(i) for i in items])
    question_tokens, focus_tokens, replaced_tokens = tokenize([question, focus, replaced])
    new, old = single_words(focus_tokens), single_words(replaced_tokens)
    rest = single_words(question_tokens) - new - old
    return (printed.shares(old - new) * printed.shares(rest) * (1.0 - printed.shares(new))).tolist()
