"""What retrieval reads about each figure/table: one lexical document and a few dense views.

- `lexical`: label + caption + words inside the item (`text`, table cells) + the paragraphs that
  cite it (the `mentions`' passages; their sentences alone when the passages are not given), for BM25.
- `own`: what the item itself prints, its caption and the words inside it (axis labels, legends,
  cells), without the citing paragraphs: neighbouring figures of one experiment are cited by the
  same paragraphs and told apart by what each prints (`fusion`'s own-words share).
- `main`: label + caption, the item's summary for the embedder.
- `views`: short texts embedded separately (the first caption sentences, the first citing
  sentences) so that a question matching one of them is not diluted by the rest; the dense
  score combines the `main` match with the best view.
Citing paragraphs matter where questions come from the paper's text (SPIQA test-B), so BM25
reads them whole. They are not embedded, nor is the item's inner text (table cells): embedding
time grows with tokens, and BM25 already matches their words and numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spiqa_demo.paper_text import split_sentences
from spiqa_demo.types import Figure, Passage

# Caps keep index building fast: at most 1 + 3 + 4 texts per item, since embedding time grows with
# tokens. The citing-sentence views cost a little build time and are worth it on test-B (see the
# retrieval benchmark's ablation).
MAX_CAPTION_SENTENCES = 3
MAX_MENTIONS = 4
MAX_TEXT_CHARS = 300


@dataclass(frozen=True)
class ItemDocument:
    """The texts indexed for one item (see module docstring)."""

    lexical: str
    main: str
    views: tuple[str, ...]
    own: str = ""


def _label(item: Figure) -> str:
    if item.label:
        return item.label
    return f"{item.kind.capitalize()} {item.number}" if item.number else ""


def item_document(item: Figure, passages: Sequence[Passage] = ()) -> ItemDocument:
    """The lexical document, main text and dense views of one item (`passages`: the paper's)."""
    label = _label(item)
    caption = " ".join(item.caption.split())
    # Captions usually start with their label already ("Table 3: ..."); do not repeat it.
    main = caption if label and caption.lower().startswith(label.lower()) else f"{label}: {caption}".strip(": ")
    mentions = list(dict.fromkeys(" ".join(m.sentence.split()) for m in item.mentions))
    cited = list(
        dict.fromkeys(" ".join(passages[m.passage].text.split()) for m in item.mentions if 0 <= m.passage < len(passages))
    )
    text = " ".join(item.text.split())
    views: list[str] = []
    sentences = split_sentences(caption)
    if len(sentences) > 1:
        views += sentences[:MAX_CAPTION_SENTENCES]
    views += mentions[:MAX_MENTIONS]
    if not caption and text:  # an uncaptioned item is described by its own words
        main = f"{label}: {text[:MAX_TEXT_CHARS]}".strip(": ")
    if not main and not views:
        main = label or item.kind
    lexical = " ".join(part for part in (label, caption, text, *(cited or mentions)) if part)
    views_unique = tuple(v for v in dict.fromkeys(views) if v and v != main)
    own = " ".join(part for part in (caption, text) if part)
    return ItemDocument(lexical=lexical, main=main, views=views_unique, own=own)
