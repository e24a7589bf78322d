"""What retrieval reads about each figure/table: one lexical document and a few dense views.

- `lexical`: label + caption + words inside the item (`text`, table cells) + the sentences that
  cite it (`mentions`), for BM25.
- `main`: label + caption, the item's summary for the embedder.
- `views`: shorter passages embedded separately (each caption sentence, each citing sentence,
  the start of the item's own text) so that a question matching one of them is not diluted by
  the rest; the dense score combines the `main` match with the best view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spiqa_demo.types import Figure

# Caps keep index building fast on long papers (MiniLM embeds ~240 short texts/s on 2 cores).
MAX_MENTIONS = 6
MAX_TEXT_CHARS = 600
_SENTENCE = re.compile(r"(?<=[.;:!?])\s+(?=[A-Z(\[])")
_ABBREVIATION = re.compile(r"(?:Figs?|Tabs?|Eqs?|Sec|e\.g|i\.e|et al|cf|vs|resp|No)\.$", re.IGNORECASE)


@dataclass(frozen=True)
class ItemDocument:
    """The texts indexed for one item (see module docstring)."""

    lexical: str
    main: str
    views: tuple[str, ...]


def split_sentences(text: str) -> list[str]:
    """Sentences of a caption or passage (not split after "Fig." or "e.g.")."""
    sentences: list[str] = []
    for part in _SENTENCE.split(text.strip()):
        if sentences and _ABBREVIATION.search(sentences[-1]):
            sentences[-1] = f"{sentences[-1]} {part}"
        elif part:
            sentences.append(part)
    return sentences


def _label(item: Figure) -> str:
    if item.label:
        return item.label
    return f"{item.kind.capitalize()} {item.number}" if item.number else ""


def item_document(item: Figure) -> ItemDocument:
    """The lexical document, main text and dense views of one item."""
    label = _label(item)
    caption = " ".join(item.caption.split())
    # Captions usually start with their label already ("Table 3: ..."); do not repeat it.
    main = caption if label and caption.lower().startswith(label.lower()) else f"{label}: {caption}".strip(": ")
    mentions = list(dict.fromkeys(" ".join(m.sentence.split()) for m in item.mentions))
    text = " ".join(item.text.split())
    views: list[str] = []
    sentences = split_sentences(caption)
    if len(sentences) > 1:
        views += sentences
    views += mentions[:MAX_MENTIONS]
    if text:
        views.append(f"{label}: {text[:MAX_TEXT_CHARS]}".strip(": "))
    if not main and not views:
        main = label or item.kind
    lexical = " ".join(part for part in (label, caption, text, *mentions) if part)
    views_unique = tuple(v for v in dict.fromkeys(views) if v and v != main)
    return ItemDocument(lexical=lexical, main=main, views=views_unique)
