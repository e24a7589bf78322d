"""Stage 1 on a real anchor paper: its references ranked for a question about one of its figures.

Real papers from shared/papers (extraction links the markers in their tables to the bibliography);
synthetic papers for aliases, order independence and bad input. No embedder, no network.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_m3sciqa import ScriptedBackend

from spiqa_demo.crosspaper import ocr
from spiqa_demo.crosspaper.model_ranking import ModelCitationRanker
from spiqa_demo.crosspaper.paper_references import rank_references, reference_aliases
from spiqa_demo.crosspaper.ranking import CitationRanker
from spiqa_demo.crosspaper.types import AnchorFigure, CitationMark, CitedCandidate
from spiqa_demo.errors import InputError
from spiqa_demo.extraction import load_paper
from spiqa_demo.extraction.citations import link_citations
from spiqa_demo.settings import get_settings
from spiqa_demo.types import Figure, Mention, Paper, Passage, Reference

RESNET_BASELINES = {"[41]", "[44]", "[13]"}  # VGG-16 [41], GoogLeNet [44], PReLU-net [13] in Table 3


@pytest.fixture(scope="module")
def papers(shared: Path) -> dict[str, Paper]:
    names = ("resnet-1512.03385.pdf", "coordinate-attention-cvpr2021.pdf")
    return {name.split("-")[0]: load_paper(shared / "papers" / name, get_settings().extraction) for name in names}


def _item(paper: Paper, item_id: str) -> Figure:
    item = paper.get(item_id)
    assert item is not None
    return item


# --- real papers --------------------------------------------------------------------------------


def test_the_reference_cited_inside_the_table_ranks_first(papers: dict[str, Paper]) -> None:
    paper = papers["coordinate"]
    table = _item(paper, "table-3")  # "MobileNeXt [49]" is the only reference this table cites
    ranking = rank_references("Which network is the baseline in this comparison?", paper, table)
    first = ranking.ranked[0]
    assert first.reference.key == "[49]" and first.signals.citation == 1.0
    assert "MobileNeXt" in first.aliases
    assert len(ranking.ranked) == len(paper.references)
    assert ranking.figure == "table-3"


def test_the_baselines_a_results_table_cites_come_first(papers: dict[str, Paper]) -> None:
    paper = papers["resnet"]
    ranking = rank_references("Which baseline from another paper has the lowest top-1 error?", paper, _item(paper, "table-3"))
    assert {r.reference.key for r in ranking.ranked[:3]} == RESNET_BASELINES
    assert all(r.signals.citation == 1.0 and r.signals.figure_names > 0 for r in ranking.ranked[:3])
    assert json.loads(json.dumps(ranking.to_dict(), default=str))["ranked"][0]["index"] == ranking.ranked[0].index


@pytest.mark.skipif(isinstance(ocr.find_engine(), str), reason="the figure OCR engine is not installed here")
def test_a_table_given_as_an_image_is_read_by_ocr(papers: dict[str, Paper], tmp_path: Path) -> None:
    paper = papers["resnet"]
    ranking = rank_references("Which baseline has the lowest top-5 error?", paper, Path(_item(paper, "table-3").image),
                              CitationRanker(reading=ocr.FigureReading(cache_dir=tmp_path)))
    assert "GoogLeNet" in ranking.figure_text
    assert {r.reference.key for r in ranking.ranked[:3]} == RESNET_BASELINES


def test_without_tesseract_a_clear_note_and_the_ranking_still_works(
    papers: dict[str, Paper], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no `tesseract` program to be found
    paper = papers["resnet"]
    ranking = rank_references("Which rectifier model surpasses human-level performance?", paper, Path(_item(paper, "table-3").image),
                              CitationRanker(reading=ocr.FigureReading("tesseract", cache_dir=tmp_path)))
    assert any("Tesseract OCR is not installed" in n for n in ranking.notes)
    assert len(ranking.ranked) == len(paper.references)
    assert ranking.ranked[0].reference.key == "[13]"  # "Delving deep into rectifiers: Surpassing human-level ..."


def test_the_model_sees_how_references_are_cited_and_its_pick_is_fused(papers: dict[str, Paper]) -> None:
    paper = papers["resnet"]
    table = _item(paper, "table-3")
    question = "Which baseline has the lowest top-1 error?"
    base = CitationRanker()
    no_llm = rank_references(question, paper, table, base)
    backend = ScriptedBackend("")
    rank_references(question, paper, table, ModelCitationRanker(base, backend))
    prompt = backend.prompts[-1][0].text
    lines = prompt.splitlines()
    shown = [line.split("] Title: ", 1)[1] for line in lines if "] Title: " in line]
    assert len(shown) == len(paper.references)  # the whole bibliography, no cut
    assert "Note: cited as [13]; called PReLU-net" in prompt
    pick = no_llm.ranked[2].reference
    backend.reply = json.dumps({"ranking": [shown.index(pick.title) + 1]})
    fused = rank_references(question, paper, table, ModelCitationRanker(base, backend))
    assert fused.ranked[0].reference == pick and fused.ranked[0].signals.model == 1.0
    backend.reply = "I am not sure which one."
    kept = rank_references(question, paper, table, ModelCitationRanker(base, backend))
    assert [r.reference for r in kept.ranked] == [r.reference for r in no_llm.ranked]
    assert any("no-LLM ranking is kept" in n for n in kept.notes)


# --- synthetic papers ---------------------------------------------------------------------------

REFERENCES = [
    Reference("[1]", "J. Devlin et al. BERT: Pre-training of deep bidirectional transformers. NAACL 2019.",
              title="BERT: Pre-training of deep bidirectional transformers for language understanding"),
    Reference("[2]", "M. Peters et al. Deep contextualized word representations. NAACL 2018.",
              title="Deep contextualized word representations"),
    Reference("[3]", "A. Vaswani et al. Attention is all you need. NeurIPS 2017.", title="Attention is all you need"),
    Reference("[4]", "K. He et al. Deep residual learning for image recognition. CVPR 2016.",
              title="Deep residual learning for image recognition"),
]


def _paper(references: list[Reference]) -> Paper:
    passages = [
        Passage("We compare with ELMo [2] and a Transformer [3]; both [1, 2] pre-train.", 1, (0, 0, 1, 1)),
        Passage("Table 1 shows that our model beats ELMo [2] on SQuAD.", 1, (0, 2, 1, 3)),
    ]
    table = Figure("table", "Table 1", "1", 1, (0, 4, 1, 5), caption="Table 1: Results on SQuAD.",
                   text="| model | F1 |\n|---|---|\n| ELMo | 85.8 |\n| ours | 88.5 |",
                   mentions=[Mention(1, "Table 1 shows that our model beats ELMo [2] on SQuAD.")])
    bare = Paper("0" * 64, "synthetic.pdf", "Synthetic", None, [(612.0, 792.0)], passages=passages, items=[table],
                 references=references)
    bare.passages, bare.items = link_citations(bare.passages, bare.items, references)
    return bare


def test_aliases_are_the_names_printed_before_a_single_citation() -> None:
    aliases = reference_aliases(_paper(REFERENCES))
    assert aliases[1] == ("ELMo",)  # "Transformer" is an ordinary capitalised word; "[1, 2]" names neither
    assert aliases[0] == aliases[2] == aliases[3] == ()


def test_a_mentioned_reference_outranks_the_rest_and_order_is_no_signal() -> None:
    question = "Which pre-trained model does ours beat?"
    forward = _paper(REFERENCES)
    ranking = rank_references(question, forward, forward.items[0])
    assert ranking.ranked[0].reference.key == "[2]"
    assert ranking.ranked[0].signals.citation == pytest.approx(0.6)  # cited in the sentence citing the table
    backward = _paper(list(reversed(REFERENCES)))
    again = rank_references(question, backward, backward.items[0])
    assert [r.reference for r in again.ranked] == [r.reference for r in ranking.ranked]
    assert [r.score for r in again.ranked] == [r.score for r in ranking.ranked]


def test_citation_places_are_graded() -> None:
    candidates = [CitedCandidate(k * 40, f"Paper {k}", key=f"[{n}]") for n, k in enumerate("abcd", 1)]
    marks = (CitationMark("[1]", "passage"), CitationMark("[2]", "mention"), CitationMark("[3]", "figure"),
             CitationMark("[2]", "passage"))
    ranking = CitationRanker().rank("Which one?", AnchorFigure(citations=marks), candidates)
    assert [r.candidate.key for r in ranking.ranked] == ["[3]", "[2]", "[1]", "[4]"]
    assert [r.signals.citation for r in ranking.ranked] == [1.0, 0.6, 0.3, 0.0]


def test_a_paper_without_a_bibliography_says_so() -> None:
    paper = _paper([])
    with pytest.raises(InputError, match="no bibliography was found"):
        rank_references("Which cited paper?", paper, paper.items[0])


def test_a_figure_of_another_paper_or_a_missing_image_is_refused(tmp_path: Path) -> None:
    paper = _paper(REFERENCES)
    stranger = Figure("figure", "Figure 9", "9", 3, (0, 0, 1, 1))
    with pytest.raises(InputError, match="figure-9 is not a figure or table"):
        rank_references("Which?", paper, stranger)
    with pytest.raises(InputError, match="figure image not found"):
        rank_references("Which?", paper, tmp_path / "missing.png")


def test_cli_cited_prints_the_ranking_and_refuses_an_unknown_item(shared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from spiqa_demo.cli import main

    pdf = str(shared / "papers" / "coordinate-attention-cvpr2021.pdf")
    assert main(["cited", pdf, "Which network is the baseline in this comparison?", "--item", "table-3", "--json"]) == 0
    ranking = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert ranking["figure"] == "table-3" and ranking["ranked"][0]["reference"]["key"] == "[49]"
    assert main(["cited", pdf, "Which network?", "--item", "table-99"]) == 2
    assert "no item 'table-99'" in capsys.readouterr().err
