"""Reproduction bar: our metrics equal pycocoevalcap run directly, and SPIQA's GPT-4o CoT numbers come back.

The official GPT-4o CoT test-C responses: retrieval accuracy recomputed from the replies is 0.704
(the paper: 70.38), and BLEU/METEOR/ROUGE-L/CIDEr equal pycocoevalcap run directly on the same
predictions and references.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from spiqa_demo.evaluation import read_results, score_records
from spiqa_demo.evaluation.metrics.classic import COCO_KEYS, coco_metrics

GPT4O_COT = "spiqa/test-C-responses/test-C_GPT4_QA__gpt4o_cot_image+caption_size_full.json"

HAND_PREDICTIONS = ["The model improves accuracy by 3 points.", "Yes, it does.", "", "A ResNet block, with a skip!"]
HAND_REFERENCES = ["Accuracy improves by three points.", "No", "The encoder has six layers.", "A residual block."]


@pytest.fixture(scope="module")
def direct_meteor():
    """pycocoevalcap's `Meteor` wrapper object, on the Java process our metrics already started.

    Starting METEOR costs 10-20 s (it loads its paraphrase tables) and the program keeps no state
    between EVAL requests, so both sides share one process; everything else runs separately.
    """
    from spiqa_demo.evaluation.metrics import classic

    coco_metrics(["warm up"], ["warm up"])
    return classic._meteor_process


def pycocoevalcap_directly(predictions: list[str], references: list[str], meteor) -> dict[str, float]:
    """What SPIQA's COCOEvalCap.evaluate does: PTB-tokenize both sides, then each scorer on the whole set."""
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    gts = PTBTokenizer().tokenize({i: [{"caption": r}] for i, r in enumerate(references)})
    res = PTBTokenizer().tokenize({i: [{"caption": p}] for i, p in enumerate(predictions)})
    bleu, _ = Bleu(4).compute_score(gts, res, verbose=0)
    values = [*bleu, meteor.compute_score(gts, res)[0], Rouge().compute_score(gts, res)[0]]
    values.append(Cider().compute_score(gts, res)[0])
    return dict(zip(COCO_KEYS, values))


def test_coco_metrics_equal_pycocoevalcap_on_hand_cases(direct_meteor) -> None:
    ours = coco_metrics(HAND_PREDICTIONS, HAND_REFERENCES)
    direct = pycocoevalcap_directly(HAND_PREDICTIONS, HAND_REFERENCES, direct_meteor)
    assert list(ours) == list(COCO_KEYS)
    for key in COCO_KEYS:
        assert ours[key] == pytest.approx(direct[key], abs=1e-12), key


def test_official_gpt4o_cot_responses_reproduce(shared: Path, direct_meteor) -> None:
    results = read_results(shared / GPT4O_COT)
    assert len(results) == 493 and results.kind == "spiqa-cot" and not results.warnings
    summary = score_records(results.records, bertscore=False)
    overall = summary.overall.values
    assert round(overall["retrieval_accuracy"], 3) == 0.704  # paper: 70.38
    assert overall["retrieval_accuracy"] == pytest.approx(347 / 493)
    direct = pycocoevalcap_directly([r.answer for r in results.records], [r.ground_truth for r in results.records],
                                    direct_meteor)
    for key in COCO_KEYS:
        assert round(overall[key], 3) == round(direct[key], 3), key
        assert overall[key] == pytest.approx(direct[key], abs=1e-9), key
    assert list(summary.by_split) == ["test-C"] and summary.by_split["test-C"].values == overall
    assert {k: g.n for k, g in summary.by_category.items()} == {"table": 368, "other": 125}
