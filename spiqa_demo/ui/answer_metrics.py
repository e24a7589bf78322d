"""Per-answer ROUGE-L and BLEU with SPIQA's tokenization, for the live check and the error tables.

`spiqa_demo.metrics.CocoMetrics` scores whole sets (the benchmark numbers); the app also needs the
value of each single answer, which pycocoevalcap computes on the way. ROUGE-L's set score is the
mean of these; BLEU's is not (it is a corpus statistic), so per-answer BLEU is only for reading.
"""

from __future__ import annotations

from collections.abc import Sequence

TEXT_METRICS = ("ROUGE-L", "BLEU-1", "BLEU-4")


def text_scores(predictions: Sequence[str], references: Sequence[str]) -> list[dict[str, float]]:
    """ROUGE-L, BLEU-1 and BLEU-4 of each (prediction, reference) pair; `PaperError` without Java."""
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.rouge.rouge import Rouge

    from spiqa_demo.metrics import ptb_tokenize

    if len(predictions) != len(references):
        raise ValueError("predictions and references differ in length")
    if not predictions:
        return []
    tokens = ptb_tokenize([*predictions, *references])
    n = len(predictions)
    # pycocoevalcap rejects empty token lists; an empty answer scores 0 whatever the placeholder.
    res = {i: [tokens[i] or "<empty>"] for i in range(n)}
    gts = {i: [tokens[n + i] or "<empty>"] for i in range(n)}
    _, rouge = Rouge().compute_score(gts, res)
    _, bleu = Bleu(4).compute_score(gts, res, verbose=0)
    return [
        {"ROUGE-L": 0.0 if not tokens[i] else float(rouge[i]),
         "BLEU-1": 0.0 if not tokens[i] else float(bleu[0][i]),
         "BLEU-4": 0.0 if not tokens[i] else float(bleu[3][i])}
        for i in range(n)
    ]
