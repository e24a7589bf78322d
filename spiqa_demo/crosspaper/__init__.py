"""Across papers: which cited paper does a question about a figure lead to (M3SciQA stage 1)?

- `types`: `CitedCandidate` (any source of cited papers), `AnchorFigure`, `CandidateRanking`.
- `ranking.CitationRanker`: the no-LLM ranking (figure names by OCR, BM25, dense, question names).
- `model_ranking.ModelCitationRanker`: a multimodal model's `{"ranking": [...]}` fused with it.
- `paper_references.rank_references(question, paper, figure)`: the same ranking for a real anchor
  `Paper`, its references as candidates (citation markers in and around the figure, printed names).
- `m3sciqa.load_locality(DIR)`: the benchmark's questions and clusters; `benchmark`, `metrics`: scoring.
"""
