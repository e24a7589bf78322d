"""M3SciQA stage 1: the loader, the metrics, the no-LLM ranker, the model path and bench-m3sciqa.

The ranker tests use hand-made candidates and figure text (no OCR, no embedder) so they are fast;
OCR runs on small drawn images; the model path runs against a scripted backend, a tiny random
local VLM (its replies are garbage: the ranking must fall back cleanly) and a loopback
OpenAI-compatible server.
"""

from __future__ import annotations

import json
import math
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from test_models_openai import Reply, scripted_server
from tiny_models import tiny_idefics3

from evalsuite.drawn_text import draw_lines
from spiqa_demo.cli import main
from spiqa_demo.crosspaper import ocr
from spiqa_demo.crosspaper.model_ranking import ModelCitationRanker, parse_ranking
from spiqa_demo.crosspaper.names import candidate_names
from spiqa_demo.crosspaper.ranking import CitationRanker
from spiqa_demo.crosspaper.types import AnchorFigure, CitationMark, CitedCandidate, seeded_order
from spiqa_demo.errors import InputError
from spiqa_demo.evaluation.m3sciqa.data import load_locality
from spiqa_demo.evaluation.m3sciqa.metrics import expected_random, ndcg_at, score_ranks
from spiqa_demo.models import load_backend
from spiqa_demo.models.base import Message

CANDIDATES = [
    CitedCandidate("a" * 40, "Tensor Fusion Network for Multimodal Sentiment Analysis", "We introduce a tensor fusion model."),
    CitedCandidate("b" * 40, "MISA: Modality-Invariant and -Specific Representations", "Representations for sentiment."),
    CitedCandidate("c" * 40, "Attention is All you Need", "The Transformer (Transformer) uses attention only.", key="[12]"),
    CitedCandidate("d" * 40, "Llama 2: Open Foundation and Fine-Tuned Chat Models", "We release LLaMA 2 models."),
    CitedCandidate("e" * 40, "StarCoder: may the source be with you!", "StarCoder is a code model."),
    CitedCandidate("f" * 40, "Visualizing Data using t-SNE", ""),
]


# --- loader -----------------------------------------------------------------------------------


def test_loader_reads_every_question_with_its_gold_in_a_seeded_order(shared: Path) -> None:
    data = load_locality(shared / "m3sciqa")
    assert len(data.questions) == 157 and len(data.clusters) == 35
    assert {q.modal for q in data.questions} == {"figure", "table"}
    assert {q.reasoning_type for q in data.questions} == {"Comparison", "Data Extraction", "Location", "Visual Understanding"}
    for q in data.questions:
        assert q.image.is_file()
        assert q.gold_id in {c.id for c in data.clusters[q.anchor_id]}
    # The stored order leaks the answer: the loaded order is not the stored one...
    assert any([c.id for c in data.clusters[a]] != data.file_order[a] for a in data.clusters)
    # ...and depends on the seed and ids only.
    anchor = data.questions[0].anchor_id
    cluster = data.clusters[anchor]
    assert seeded_order(list(reversed(cluster)), 0) == cluster
    assert [c.id for c in load_locality(shared / "m3sciqa", seed=1).clusters[anchor]] != [c.id for c in cluster]


def test_loader_says_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"paper_cluster_S2\.json"):
        load_locality(tmp_path)


# --- metrics ----------------------------------------------------------------------------------


def test_metrics_on_hand_made_ranks() -> None:
    s = score_ranks([1, 2, None, 4])
    assert s.questions == 4
    assert s.mrr == pytest.approx((1 + 0.5 + 0 + 0.25) / 4)
    assert s.recall == {1: 0.25, 3: 0.5, 5: 0.75}
    assert s.ndcg3 == pytest.approx((1 + 1 / math.log2(3)) / 4)
    assert ndcg_at(3, 3) == pytest.approx(0.5) and ndcg_at(4, 3) == 0.0


def test_random_baseline_is_the_exact_expectation() -> None:
    one = expected_random([1])
    assert one.mrr == 1.0 and one.recall[1] == 1.0
    two = expected_random([2])
    assert two.mrr == pytest.approx(0.75) and two.recall[1] == 0.5 and two.recall[3] == 1.0


# --- the no-LLM ranker ------------------------------------------------------------------------


def test_names_a_title_and_abstract_define() -> None:
    assert "tfn" in candidate_names(CANDIDATES[0])
    assert "misa" in candidate_names(CANDIDATES[1])
    assert "starcoder" in candidate_names(CANDIDATES[4])


def test_the_names_a_figure_prints_rank_their_papers_first() -> None:
    ranker = CitationRanker()
    table = AnchorFigure(text="Method Acc-7 F1\nTFN* 34.9 80.7\nLLaMA-30B 35.1 81.2")
    ranking = ranker.rank("Which method scores 34.9 in Acc-7?", table, CANDIDATES)
    assert len(ranking.ranked) == len(CANDIDATES)
    assert {r.candidate.id for r in ranking.ranked[:2]} == {"a" * 40, "d" * 40}
    assert ranking.ranked[0].signals.figure_names > 0
    assert "no embedder" in " ".join(ranking.notes)


def test_names_the_question_spells_out_count_against_them() -> None:
    figure = AnchorFigure(text="StarCoder LLaMA-30B MISA")
    ranking = CitationRanker().rank("Which model is better than StarCoder but worse than LLaMA-30B?", figure, CANDIDATES)
    assert ranking.ranked[0].candidate.title.startswith("MISA")


def test_citation_markers_point_at_their_reference() -> None:
    ranking = CitationRanker().rank("Which method is cited?", AnchorFigure(citations=(CitationMark("[12]"),)), CANDIDATES)
    assert ranking.ranked[0].candidate.key == "[12]" and ranking.ranked[0].signals.citation == 1.0


def test_input_order_changes_nothing() -> None:
    ranker = CitationRanker()
    figure = AnchorFigure(text="TFN MISA StarCoder", caption="Results on MOSI.")
    first = ranker.rank("Which model is best?", figure, CANDIDATES)
    second = CitationRanker().rank("Which model is best?", figure, list(reversed(CANDIDATES)))
    assert first.ids == second.ids
    assert [r.score for r in first.ranked] == [r.score for r in second.ranked]
    assert [r.signals for r in first.ranked] == [r.signals for r in second.ranked]


def test_duplicate_ids_are_refused() -> None:
    with pytest.raises(InputError, match="unique"):
        CitationRanker().rank("q", AnchorFigure(), [CANDIDATES[0], CANDIDATES[0]])


# --- OCR --------------------------------------------------------------------------------------


def _drawn(path: Path, lines: list[str]) -> Path:
    return draw_lines(path, lines, width=900, line_px=70, font_px=44, left=30, top=20)


def test_ocr_reads_the_names_and_caches_by_image_content(tmp_path: Path) -> None:
    image = _drawn(tmp_path / "table.png", ["Method Score", "StarCoder 41.2", "MISA 38.0"])
    cache = tmp_path / "ocr"
    reading = ocr.FigureReading(cache_dir=cache)
    ranking = CitationRanker(reading=reading).rank("Which model scores 41.2?", AnchorFigure(image=image), CANDIDATES)
    assert "StarCoder" in ranking.figure_text
    assert ranking.ranked[0].candidate.title.startswith(("StarCoder", "MISA"))
    assert len(list(cache.glob("*.json"))) == 1
    copy = tmp_path / "same.png"
    copy.write_bytes(image.read_bytes())
    assert ocr.ocr_text(copy, reading) == ranking.figure_text  # served from the cache: same bytes, same key


def test_without_tesseract_a_clear_note_and_the_other_signals_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no `tesseract` program to be found
    image = _drawn(tmp_path / "fig.png", ["TFN"])
    reading = ocr.FigureReading("tesseract", cache_dir=tmp_path / "ocr")
    ranking = CitationRanker(reading=reading).rank("Which Tensor Fusion Network?", AnchorFigure(image=image), CANDIDATES)
    assert any("Tesseract OCR is not installed" in n and "apt-get install tesseract-ocr" in n for n in ranking.notes)
    assert ranking.ranked[0].candidate.id == "a" * 40  # the question's own words still rank


# --- the model path ---------------------------------------------------------------------------


class ScriptedBackend:
    """A backend whose replies are given; counts tokens as characters / 4 (+100 per image)."""

    name = "scripted"
    supports_images = True
    max_images = None

    def __init__(self, reply: str, context_tokens: int = 100_000) -> None:
        self.reply = reply
        self.context_tokens = context_tokens
        self.prompts: list[list[Message]] = []

    def generate(self, messages: list[Message], max_new_tokens: int = 512, usage: object = None) -> str:
        self.prompts.append(messages)
        return self.reply

    def count_tokens(self, messages: list[Message]) -> int:
        return sum(len(m.text) // 4 + 100 * len(m.images) for m in messages)


def _shown(backend: ScriptedBackend) -> list[str]:
    """The candidate titles in the prompt, in the numbered order."""
    text = backend.prompts[-1][0].text
    return [line.split("Title: ", 1)[1] for line in text.splitlines() if "] Title: " in line]


FIGURE = AnchorFigure(text="TFN MISA StarCoder")
QUESTION = "Which model is best?"


def test_parse_official_format_numbers_and_ids() -> None:
    shown = CANDIDATES[:3]
    assert parse_ranking('Sure. {"ranking": [3, 1]} done', shown).positions == [2, 0]
    assert parse_ranking('{"ranking": ["' + "b" * 40 + '"]}', shown).positions == [1]
    lenient = parse_ranking("ranking: [2, 2, 9, 'x', 1", shown)
    assert lenient.positions == [1, 0] and "skipped" in lenient.note
    assert parse_ranking("I cannot tell.", shown).positions == []


def test_the_models_ranking_is_fused_and_moves_its_pick_up() -> None:
    base = CitationRanker()
    no_llm = base.rank(QUESTION, FIGURE, CANDIDATES)
    backend = ScriptedBackend("")
    ModelCitationRanker(base, backend).rank(QUESTION, FIGURE, CANDIDATES)
    shown = _shown(backend)
    assert len(shown) == len(CANDIDATES)  # the whole cluster, no cut
    last = no_llm.ranked[-1].candidate
    backend.reply = json.dumps({"ranking": [shown.index(last.title) + 1]})
    fused = ModelCitationRanker(base, backend).rank(QUESTION, FIGURE, CANDIDATES)
    assert fused.rank_of(last.id) < no_llm.rank_of(last.id)
    assert next(r for r in fused.ranked if r.candidate.id == last.id).signals.model == 1.0
    assert backend.prompts[-1][0].images == []  # the figure was given as text only


@pytest.mark.parametrize("reply", ["no idea", '{"ranking": [0, 99]}', '{"ranking": "first"}', "{ranking: [", ""])
def test_unusable_replies_keep_the_no_llm_ranking_with_a_note(reply: str) -> None:
    base = CitationRanker()
    no_llm = base.rank(QUESTION, FIGURE, CANDIDATES)
    ranking = ModelCitationRanker(base, ScriptedBackend(reply)).rank(QUESTION, FIGURE, CANDIDATES)
    assert ranking.ids == no_llm.ids
    assert any("no-LLM ranking is kept" in n for n in ranking.notes)


def test_a_small_context_shows_fewer_candidates_and_says_so() -> None:
    base = CitationRanker()
    backend = ScriptedBackend('{"ranking": [1]}', context_tokens=400 + 175)
    ranking = ModelCitationRanker(base, backend).rank(QUESTION, FIGURE, CANDIDATES)
    assert len(ranking.ranked) == len(CANDIDATES)
    shown = _shown(backend)
    assert 0 < len(shown) < len(CANDIDATES)
    assert any(f"saw {len(shown)} of {len(CANDIDATES)}" in n for n in ranking.notes)


def test_a_tiny_random_local_vlm_falls_back_cleanly(tiny_idefics3: Path, tmp_path: Path) -> None:
    backend = load_backend(backend="local", model=str(tiny_idefics3))
    assert backend is not None and backend.supports_images
    image = _drawn(tmp_path / "fig.png", ["TFN"])
    figure = AnchorFigure(image=image, text="TFN MISA StarCoder")
    base = CitationRanker()
    ranking = ModelCitationRanker(base, backend).rank(QUESTION, figure, CANDIDATES)
    assert sorted(ranking.ids) == sorted(c.id for c in CANDIDATES)
    if not any(r.signals.model for r in ranking.ranked):
        assert ranking.ids == base.rank(QUESTION, figure, CANDIDATES).ids
        assert any("no-LLM ranking is kept" in n for n in ranking.notes)


def test_an_openai_compatible_server_ranks_through_the_same_path() -> None:
    seen: list[dict] = []

    def respond(handler: BaseHTTPRequestHandler, body: bytes) -> Reply:
        request = json.loads(body)
        seen.append(request)
        reply = {
            "id": "x", "object": "chat.completion", "created": 0, "model": request["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": '```json\n{"ranking": [2]}\n```'}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
        return 200, {}, json.dumps(reply).encode()

    with scripted_server(respond) as url:
        backend = load_backend(backend="openai", base_url=url, model="ranker", api_key="sk-local")
        ranking = ModelCitationRanker(CitationRanker(), backend).rank(QUESTION, FIGURE, CANDIDATES)
    content = seen[0]["messages"][0]["content"]
    assert "Cited papers:" in (content if isinstance(content, str) else json.dumps(content))
    assert sum(1 for r in ranking.ranked if r.signals.model) == 1
    assert not any("kept" in n for n in ranking.notes)


# --- bench-m3sciqa ----------------------------------------------------------------------------


def _kit(root: Path) -> Path:
    """A two-anchor folder with the layout of shared/m3sciqa (drawn images, hand-made clusters)."""
    data = root / "m3sciqa" / "data"
    (data / "locality" / "2401.00001").mkdir(parents=True)
    (root / "derived").mkdir()
    _drawn(data / "locality" / "2401.00001" / "table.png", ["Method Acc", "TFN 34.9", "StarCoder 41.0"])
    rows, gold = [], {}
    clusters = {"2401.00001": CANDIDATES, "2401.00002": CANDIDATES[2:]}
    for anchor, ref, gold_id, question in [
        ("2401.00001", "1707.07250", "a" * 40, "Which method scores 34.9?"),
        ("2401.00001", "2305.06161", "e" * 40, "Which model scores 41.0?"),
        ("2401.00002", "2305.06161", "e" * 40, "Which model is shown?"),
    ]:
        rows.append({"question_anchor": question, "answer_anchor": "x", "evidence_anchor": "locality/2401.00001/table.png",
                     "anchor_id": anchor, "reference_id": ref, "modal": "table", "anchor_reasoning_type": "2"})
        gold[f"{anchor}|{ref}"] = {"reference_s2_id": gold_id, "in_first_20": True, "suspect_label": None}
    (data / "locality.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "derived" / "gold_reference_s2.json").write_text(json.dumps(gold))
    (root / "m3sciqa" / "paper_cluster_S2.json").write_text(json.dumps({a: [c.id for c in cs] for a, cs in clusters.items()}))
    (root / "m3sciqa" / "paper_cluster_S2_content.json").write_text(
        json.dumps({a: [{"title": c.title, "abstract": c.abstract or None} for c in cs] for a, cs in clusters.items()})
    )
    return root


def test_bench_m3sciqa_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-m3sciqa", "--data", str(_kit(tmp_path / "kit")), "--limit", "2", "--json"]) == 0
    out = capsys.readouterr().out
    summary = json.loads(out.strip().splitlines()[-1])
    assert {"questions", "mrr", "recall@1", "recall@3", "ndcg@3", "recall@5", "file_order_mrr", "random_mrr"} <= set(summary)
    assert summary["questions"] == 2
    assert summary["mrr"] >= 0.5 > summary["random_mrr"]  # both golds are printed in the drawn table
    assert "modal=table" in out and "reasoning type=Data Extraction" in out


def test_bench_m3sciqa_refuses_a_folder_of_another_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-m3sciqa", "--data", str(tmp_path), "--json"]) == 2
    assert "layout of shared/m3sciqa" in capsys.readouterr().err
