"""Classic metrics: pycocoevalcap wrappers, BERTScore on a tiny local BERT, retrieval accuracy.

Equality with pycocoevalcap run directly is in test_metrics_reproduction.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tiny_bert import tiny_bert

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.metrics.classic import COCO_KEYS, CocoMetrics, bert_score_f1, coco_metrics, ptb_tokenize
from spiqa_demo.evaluation.metrics.retrieval_accuracy import is_retrieval_hit, retrieval_accuracy

PREDICTIONS = [
    "The model improves accuracy by 3 points on the test set.",
    "Yes, it does.",
    "",
    "Figure 2 shows a ResNet block with a skip connection.",
    "It uses\r\ndropout\u2028of 0.5 | ||| ",
]
REFERENCES = [
    "Accuracy improves by three points on the test set.",
    "No",
    "The encoder has six layers.",
    "A residual block with an identity shortcut.",
    "Dropout of 0.5 is used.",
]


def test_ptb_tokenizer_lowercases_drops_punctuation_and_keeps_alignment() -> None:
    tokens = ptb_tokenize(["Hello, World!", "a\rb\u2028c", "", "Last one."])
    assert tokens == ["hello world", "a b c", "", "last one"]


def test_subsets_are_scored_as_sets_of_their_own() -> None:
    metrics = CocoMetrics(PREDICTIONS, REFERENCES)
    assert len(metrics) == 5
    whole, part = metrics.score(), metrics.score([0, 3])
    assert part == coco_metrics([PREDICTIONS[0], PREDICTIONS[3]], [REFERENCES[0], REFERENCES[3]])
    assert whole != part and set(whole) == set(COCO_KEYS)
    assert 0 < whole["METEOR"] < 1 and whole["CIDEr"] > 0
    assert metrics.score([]) == {}


def test_missing_java_is_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(PaperError, match="need Java"):
        ptb_tokenize(["a"])


# ---- BERTScore --------------------------------------------------------------------------------


def test_bertscore_f1_loads_a_local_model_and_scores_pairs(tiny_bert: Path) -> None:
    from bert_score import BERTScorer

    scores = bert_score_f1(PREDICTIONS, REFERENCES, model=str(tiny_bert), num_layers=2)
    assert len(scores) == 5 and scores[2] == 0.0  # empty prediction: 0, as bert-score defines it
    assert all(0.0 < s <= 1.0 for i, s in enumerate(scores) if i != 2)
    assert bert_score_f1(["same words"], ["same words"], model=str(tiny_bert), num_layers=2)[0] == pytest.approx(1.0)
    # One pair at a time (what SPIQA's script did) gives the same values as one batch.
    scorer = BERTScorer(model_type=str(tiny_bert), num_layers=2)
    for i in (0, 1, 3):
        single = scorer.score([PREDICTIONS[i]], [REFERENCES[i]])[2].item()
        assert scores[i] == pytest.approx(single, abs=1e-5)


def test_bertscore_reads_its_model_from_settings(tiny_bert: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from spiqa_demo.settings import get_settings

    monkeypatch.setenv("SPIQA_BERTSCORE_MODEL", str(tiny_bert))
    monkeypatch.setenv("SPIQA_BERTSCORE_LAYERS", "1")
    get_settings.cache_clear()
    assert len(bert_score_f1(["a"], ["b"], settings=get_settings().evaluation)) == 1


def test_bertscore_without_the_model_offline_is_a_clear_message(tmp_path: Path) -> None:
    with pytest.raises(PaperError, match="BERTScore needs the model"):
        bert_score_f1(["a"], ["b"], model=str(tmp_path / "missing-bert"), num_layers=9)
    with pytest.raises(PaperError, match="SPIQA_BERTSCORE_LAYERS"):
        bert_score_f1(["a"], ["b"], model=str(tmp_path / "some-model"))


# ---- retrieval accuracy ----------------------------------------------------------------------


def test_retrieval_accuracy_counts_parse_failures_as_misses() -> None:
    assert is_retrieval_hit("abc/4-Figure2-1.png", ["4-Figure2-1.png"])
    assert not is_retrieval_hit(None, ["4-Figure2-1.png"])
    chosen = ["4-Figure2-1.png", None, "3-Table1-1.png", "5-Figure3-1.png"]
    refs = [["4-Figure2-1.png"], ["1-Figure1-1.png"], ["3-Table1-1.png", "4-Figure2-1.png"], ["1-Figure1-1.png"]]
    assert retrieval_accuracy(chosen, refs) == 0.5
    assert retrieval_accuracy([], []) is None
