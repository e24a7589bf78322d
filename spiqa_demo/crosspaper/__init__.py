"""Across papers: which cited paper a question about a figure leads to, and answers from its passages.

- `types`: `CitedCandidate` (any source of cited papers), `AnchorFigure`, `CandidateRanking`.
- `ranking.CitationRanker`: the no-LLM ranking (figure names by OCR, BM25, dense, question names).
- `model_ranking.ModelCitationRanker`: a multimodal model's `{"ranking": [...]}` fused with it.
- `paper_references.rank_references(question, paper, figure)`: the same ranking for a real anchor
  `Paper`, its references as candidates (citation markers in and around the figure, printed names).
- `cited_answer`: the app's answer from the passages of the top-ranked cited papers provided.
- `prompts` (versioned) and `replies` (reading a short answer, "I don't know").

This is the product; its measurement on M3SciQA is `spiqa_demo.evaluation.m3sciqa`.
"""
