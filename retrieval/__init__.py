"""Retrieval: find the figure or table of a paper that answers a question (no LLM involved).

Signals: dense sentence embeddings in FAISS (`embedder`, `dense`), BM25 over stemmed words and
bigrams (`lexical`), labels the question names ("Table 3", `spiqa_demo.paper_text`), a small kind prior
and, for tables with a structure, the question's words in their headings and row names and its
numbers in their cells (`table_match`), and the share of the question's rare words an item prints
itself, in its caption or inside it (`lexical.WordShare`), fused by z-scored weighted sum (`fusion`). Documents are
built from each item's label, caption, inner text and citing sentences (`documents`).

- `FigureIndex.build(paper)` / `.search(question, k) -> list[Hit]` / `.save(folder)` /
  `FigureIndex.load_or_build(paper, folder)`: the figures and tables of one paper.
- `PassageIndex(papers, keys, passages)` / `.search(question, k, papers=[...])`: BM25 over the
  passages of many papers, searched whole or per paper.
- `IndexStore` / `get_store()`: where the product gets both, each built once (`store`): memory,
  then the folder its caller names, else built and saved.
- `Hit`: item, rank, fused score and the per-signal `RetrievalScores` (dense, bm25, label, prior, table);
  `PassageHit`: a passage, its paper key, rank and BM25 score.
- `Embedder` / `get_embedder()`: offline MiniLM by default, computed in numpy without torch
  (`numpy_bert`); other models through sentence-transformers.

Depends only on the leaf modules `spiqa_demo.types`, `spiqa_demo.errors`, `spiqa_demo.settings`,
`spiqa_demo.paper_text` and `spiqa_demo.questions`; never on extraction, the UI or model (LLM)
code. Bad input raises `spiqa_demo.errors.PaperError`.
"""

from retrieval.embedder import Embedder, get_embedder
from retrieval.fusion import FusionConfig
from retrieval.hits import Hit, PassageHit
from retrieval.index import FigureIndex
from retrieval.passage_index import PassageIndex
from retrieval.store import IndexStore, get_store
from spiqa_demo.paper_text import find_label_refs

__all__ = [
    "Embedder", "FigureIndex", "FusionConfig", "Hit", "IndexStore", "PassageHit", "PassageIndex", "find_label_refs",
    "get_embedder", "get_store",
]  # fmt: skip
