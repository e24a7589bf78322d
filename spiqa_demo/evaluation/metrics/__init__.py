"""Answer metrics as the SPIQA paper computes them.

- `l3score`: L3Score, the log-probability judge metric (`L3Judge`, `score_top_logprobs`).
- `classic`: BLEU-1..4, METEOR, ROUGE-L, CIDEr (pycocoevalcap, PTB tokenizer, whole-set scoring)
  and BERTScore F1 (bert-base-uncased, no IDF, no rescaling); per-answer ROUGE-L / BLEU
  (`answer_scores`) for reading single answers.
- `retrieval_accuracy`: top-1 figure retrieval accuracy of the CoT flow.

Every value is in the libraries' own scale (0-1; CIDEr 0-10); the paper's tables print x100.
"""

from spiqa_demo.evaluation.metrics.classic import (
    ANSWER_KEYS,
    COCO_KEYS,
    CocoMetrics,
    answer_scores,
    bert_score_f1,
    coco_metrics,
    ptb_tokenize,
)
from spiqa_demo.evaluation.metrics.l3score import L3Judge, L3Result, l3_prompt, load_judge, score_top_logprobs
from spiqa_demo.evaluation.metrics.retrieval_accuracy import is_retrieval_hit, retrieval_accuracy

__all__ = [
    "ANSWER_KEYS",
    "COCO_KEYS",
    "CocoMetrics",
    "L3Judge",
    "L3Result",
    "answer_scores",
    "bert_score_f1",
    "coco_metrics",
    "is_retrieval_hit",
    "l3_prompt",
    "load_judge",
    "ptb_tokenize",
    "retrieval_accuracy",
    "score_top_logprobs",
]
