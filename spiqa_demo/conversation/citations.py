"""Reading what a model's answer cites: "[Figure 3]", "[Table 2]", "[p. 6]", and the slips models make.

Models cite in many ways: the asked-for brackets, several in one ("[Table 2; p. 6]"), parentheses,
bare labels in the prose ("as Table 2 shows"), "page 6", or the prompt's internal numbering
("Image 0"). Every one of them counts; "Image i" is rewritten to the item's label so the reader
never sees the prompt's numbering. An answer that cites nothing still stands: the caller shows
the best retrieved evidence beside it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from spiqa_demo.paper_text import LabelKey, find_label_refs

_PAGE = re.compile(r"\b(?:pp?\.|pages?)\s*(\d{1,4})(?:\s*(?:-|–|and|,)\s*(\d{1,4}))?", re.IGNORECASE)
_IMAGE = re.compile(r"\b(?:image|img)\s*#?\s*(\d{1,3})\b", re.IGNORECASE)


@dataclass(frozen=True)
class Citations:
    """What an answer cites: figure/table labels as (kind, number), pages (1-based), shown-image indices."""

    labels: frozenset[LabelKey]
    pages: frozenset[int]
    images: frozenset[int]

    def __bool__(self) -> bool:
        return bool(self.labels or self.pages or self.images)


def parse_citations(answer: str) -> Citations:
    """Every citation in `answer`, in brackets or not (see the module docstring)."""
    pages: set[int] = set()
    for m in _PAGE.finditer(answer):
        first = int(m[1])
        last = int(m[2]) if m[2] else first
        if 0 < first <= last and last - first <= 5:
            pages.update(range(first, last + 1))
        else:
            pages.add(first)
    return Citations(
        labels=frozenset(find_label_refs(answer)),
        pages=frozenset(p for p in pages if p > 0),
        images=frozenset(int(m[1]) for m in _IMAGE.finditer(answer)),
    )


def name_images(answer: str, labels: Sequence[str]) -> str:
    """`answer` with "Image i" replaced by the label of the i-th shown item (`labels[i]`)."""

    def label(m: re.Match[str]) -> str:
        i = int(m[1])
        return labels[i] if 0 <= i < len(labels) else m[0]

    return _IMAGE.sub(label, answer)
