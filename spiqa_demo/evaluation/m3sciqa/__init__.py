"""M3SciQA (multi-document QA) measured on the cross-paper reader: its data, both stages' benchmarks, the judge.

- `data.load_locality(DIR)`: the locality questions and each anchor's cluster of cited papers;
  `combined`: the val/test questions whose answers need the cited paper's text.
- `benchmark`: stage 1, ranking the cited papers (`crosspaper.ranking`) scored by `metrics`
  (MRR, Recall@k, nDCG@3) against file-order and random baselines.
- `answering`: stage 2's chunk-and-merge answer from the top-ranked papers' texts;
  `answer_benchmark` runs it over the questions, `judge` grades each answer 1 / 0.5 / 0 and
  `answer_report` summarises the run.
"""
