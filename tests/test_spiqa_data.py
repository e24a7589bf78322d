"""SPIQA data: loaders for every shape, figure names and types, hub offline message, PDF matching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.spiqa import (
    FIGURE_TYPES,
    find_spiqa_paper,
    load_dataset,
    map_figures,
    normalise_figure_type,
    parse_figure_file,
    split_from_name,
)
from spiqa_demo.evaluation.spiqa.hub import fetch_split_json
from spiqa_demo.evaluation.spiqa.images import ImageFolder
from spiqa_demo.paper_text import normalise_arxiv_id
from spiqa_demo.types import Figure, Paper


@pytest.mark.parametrize(
    ("name", "kind", "number", "page"),
    [
        ("1611.05742v3-Figure1-1.png", "figure", "1", None),
        ("4-Figure2-1.png", "figure", "2", 4),
        ("3-TableII-1.png", "table", "2", 3),
        ("21117380118ddce47b3c515c5228372c513e61ba/13-TableVI-1.png", "table", "6", 13),
        ("1701.03077v10-Table10-1.png", "table", "10", None),
        ("12-FigureA1-1.png", "figure", "A1", 12),
        ("7-TableIX-2.png", "table", "9", 7),
    ],
)
def test_parse_figure_file(name: str, kind: str, number: str, page: int | None) -> None:
    parsed = parse_figure_file(name)
    assert parsed is not None
    assert (parsed.kind, parsed.number, parsed.page, parsed.file) == (kind, number, page, name)


def test_parse_figure_file_rejects_other_names() -> None:
    assert parse_figure_file("cover.png") is None
    assert parse_figure_file("Figure1.png") is None


@pytest.mark.parametrize(
    ("raw", "kind", "expected"),
    [
        ("N/A", "table", "table"),
        ("** Schematic.", "figure", "schematic"),
        ('"photograph(s)"', "figure", "visualization"),
        ("photograph(s) and plot", "figure", "visualization"),
        ("** \n\nPlot.", "figure", "plot"),
        ("Map.", "figure", "visualization"),
        ("table.", "figure", "table"),
        ("", "figure", "other"),
        (None, "figure", "other"),
        ("N/A", "figure", "other"),
    ],
)
def test_normalise_figure_type(raw: str | None, kind: str, expected: str) -> None:
    assert normalise_figure_type(raw, kind) == expected


def test_arxiv_ids() -> None:
    assert normalise_arxiv_id("arXiv:1611.05742v3") == "1611.05742"
    assert normalise_arxiv_id("https://arxiv.org/abs/1804.06655") == "1804.06655"
    assert normalise_arxiv_id("paper_32") is None


def test_load_test_a(shared: Path) -> None:
    data = load_dataset(shared / "spiqa" / "SPIQA_testA.json")
    assert (data.split, data.shape, len(data), data.question_count) == ("test-A", "test-A", 118, 666)
    paper = data.paper("1611.05742v3")
    assert paper is not None and paper.paper_id == "1611.05742" and paper.source_id == "1611.05742v3"
    assert all(paper.figure(ref) for _, q in data.questions() for ref in q.references if _.paper_id == paper.paper_id)
    types = {f.figure_type for p in data.papers for f in p.figures.values()}
    assert types == set(FIGURE_TYPES)
    assert not data.warnings


def test_load_test_b_sample(shared: Path) -> None:
    data = load_dataset(shared / "spiqa" / "SPIQA_testB_sample.json")
    assert (data.split, data.shape, len(data), data.question_count) == ("test-B", "test-B", 5, 32)
    paper = data.paper("1804.06655")
    assert paper is not None and paper.title == "Deep Face Recognition" and paper.passages
    question = paper.questions[3]
    assert len(question.references) == len(set(question.references))  # duplicates in the file removed
    assert question.answer and question.question_type
    tables = [f for f in paper.figures.values() if f.kind == "table"]
    assert tables and all(f.figure_type == "table" for f in tables)
    assert any(f.file.endswith("TableVI-1.png") and f.number == "6" for f in tables)


def test_load_test_b_with_python_literal_fields(shared: Path, tmp_path: Path) -> None:
    raw = json.loads((shared / "spiqa" / "SPIQA_testB_sample.json").read_text())
    for entry in raw.values():
        for key, value in entry.items():
            if isinstance(value, (list, dict)):
                entry[key] = repr(value)
    file = tmp_path / "SPIQA_testB.json"
    file.write_text(json.dumps(raw))
    assert load_dataset(file).question_count == 32


def _official_test_c() -> dict:
    return {
        "1603.01987": {
            "arxiv_id": "1603.01987",
            "title": "Medical article quality",
            "question": ["Is jargon a sign of quality?", "What features matter?", "Which table?"],
            "question_key": ["259", "260", "261"],
            "answer": [
                {"free_form_answer": "", "yes_no": False, "extractive_spans": []},
                {"answer": {"free_form_answer": "Length and headings", "yes_no": None}},
                {"free_form_answer": "", "yes_no": None, "extractive_spans": ["Table 4"]},
            ],
            "figures_and_tables": [
                {"file": "4-Figure2-1.png", "caption": "Figure 2: Information gain of features."},
                {"file": "12-Table4-1.png", "caption": "Table 4: Results."},
            ],
            "referred_figures_tables": [["4-Figure2-1.png", "4-Figure2-1.png"], ["12-Table4-1.png"], ["12-Table4-1.png"]],
            "full_text": [{"section_name": "Intro", "paragraphs": ["First paragraph.", " "]}],
        }
    }


def test_load_official_test_c_shape(tmp_path: Path) -> None:
    file = tmp_path / "SPIQA_testC.json"
    file.write_text(json.dumps(_official_test_c()))
    data = load_dataset(file)
    assert (data.split, data.shape) == ("test-C", "test-C")
    paper = data.papers[0]
    assert [q.answer for q in paper.questions] == ["No", "Length and headings", "Table 4"]
    assert paper.questions[0].references == ["4-Figure2-1.png"]
    assert paper.passages == ["First paragraph."]
    assert paper.figures["12-Table4-1.png"].figure_type == "table"


def test_load_test_c_derived(shared: Path) -> None:
    data = load_dataset(shared / "spiqa" / "testC_qa_derived_from_official_responses.json")
    assert (data.split, data.shape, len(data), data.question_count) == ("test-C", "test-C-derived", 314, 493)
    assert all(p.figure(r) for p, q in data.questions() for r in q.references)


def test_split_override_and_train_name(shared: Path, tmp_path: Path) -> None:
    file = tmp_path / "SPIQA_train.json"
    file.write_text((shared / "spiqa" / "SPIQA_testA.json").read_text())
    assert load_dataset(file).split == "train"
    assert load_dataset(file, split="mine").papers[0].split == "mine"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ("{}", "expected a JSON object"),
        ('{"a": {"foo": 1}}', "not a SPIQA file"),
        ('{"a": {"all_figures": {}, "qa": 5}}', "no usable test-A"),
    ],
)
def test_malformed_files(tmp_path: Path, content: str, message: str) -> None:
    file = tmp_path / "bad.json"
    file.write_text(content)
    with pytest.raises(PaperError, match=message):
        load_dataset(file)


def test_partly_damaged_file_keeps_good_papers(shared: Path, tmp_path: Path) -> None:
    raw = json.loads((shared / "spiqa" / "SPIQA_testA.json").read_text())
    first = next(iter(raw))
    raw[first]["qa"] = "not a list of questions"
    file = tmp_path / "SPIQA_testA.json"
    file.write_text(json.dumps(raw))
    data = load_dataset(file)
    assert len(data) == 117 and first in data.warnings[0]
    with pytest.raises(PaperError, match=first):
        load_dataset(file, strict=True)


def test_missing_file_and_unknown_split(tmp_path: Path) -> None:
    with pytest.raises(PaperError, match="not found"):
        load_dataset(tmp_path / "nope.json")
    with pytest.raises(PaperError, match="folder"):
        load_dataset(tmp_path)


def test_hub_offline_message() -> None:
    with pytest.raises(PaperError, match="offline"):
        fetch_split_json("test-A")
    with pytest.raises(PaperError, match="unknown SPIQA split"):
        fetch_split_json("test-Z")


def _paper(items: list[Figure], arxiv_id: str | None = "1611.05742v2", title: str = "") -> Paper:
    return Paper(sha256="0" * 64, source="p.pdf", title=title, arxiv_id=arxiv_id, page_sizes=[(612, 792)] * 9, items=items)


def _item(kind: str, number: str, caption: str, page: int = 1) -> Figure:
    label = f"{'Fig.' if kind == 'figure' else 'TABLE'} {number}" if number else ""
    return Figure(kind=kind, label=label, number=number, page=page, bbox=(0, 0, 100, 100), caption=caption)


def test_find_and_map_figures(shared: Path) -> None:
    data = load_dataset(shared / "spiqa" / "SPIQA_testA.json")
    spiqa_paper = data.paper("1611.05742")
    assert spiqa_paper is not None
    items = []
    for figure in spiqa_paper.figures.values():
        items.append(_item(figure.kind, figure.number, figure.caption))
    # An unlabelled extracted copy of the first figure, and a decoy with the same number.
    first = next(iter(spiqa_paper.figures.values()))
    items.append(_item(first.kind, first.number, "Something else entirely, about cats."))
    paper = _paper(items)
    assert find_spiqa_paper(paper, [data]) is spiqa_paper
    matches = map_figures(spiqa_paper, paper)
    assert all(m.method == "number" and m.figure is not None for m in matches.values())
    assert matches[first.file].figure is items[0] and matches[first.file].caption_similarity > 0.9


def test_map_figures_by_caption_and_none(shared: Path) -> None:
    data = load_dataset(shared / "spiqa" / "SPIQA_testB_sample.json")
    spiqa_paper = data.paper("1507.06228")
    assert spiqa_paper is not None
    figure = next(f for f in spiqa_paper.figures.values() if f.kind == "figure" and len(f.caption) > 40)
    unlabelled = _item("figure", "", figure.caption.split(".", 1)[-1])
    paper = _paper([unlabelled], arxiv_id=None, title=spiqa_paper.title)
    assert find_spiqa_paper(paper, [data]) is spiqa_paper
    matches = map_figures(spiqa_paper, paper)
    assert matches[figure.file].method == "caption" and matches[figure.file].figure is unlabelled
    assert sum(m.figure is None for m in matches.values()) == len(matches) - 1


def test_a_title_printed_with_ligatures_finds_its_spiqa_paper(shared: Path) -> None:
    """PDF text keeps typographic ligatures ("ﬃ", "ﬁ") that SPIQA's titles spell out."""
    data = load_dataset(shared / "spiqa" / "SPIQA_testB_sample.json")
    spiqa_paper = data.paper("1603.05959")
    assert spiqa_paper is not None
    printed = "E\ufb03cient Multi-Scale 3D CNN with Fully Connected CRF for Accurate Brain Lesion Segmentation"
    assert find_spiqa_paper(_paper([], arxiv_id=None, title=printed), [data]) is spiqa_paper


def test_unknown_paper_is_not_matched(shared: Path) -> None:
    data = load_dataset(shared / "spiqa" / "SPIQA_testB_sample.json")
    assert find_spiqa_paper(_paper([], arxiv_id="2401.00001", title="Intro"), [data]) is None


@pytest.mark.parametrize(("name", "split"), [
    ("SPIQA_testA.json", "test-A"), ("test-B_sample.json", "test-B"), ("test-C_GPT4_QA__gpt4o_cot.json", "test-C"),
    ("SPIQA_train_val.json", "train"), ("SPIQA_val.json", "val"),
    ("latest-c-run.json", None), ("interval_results.json", None), ("contest_b.json", None),
])
def test_a_file_name_names_a_split_only_as_a_whole_word(name: str, split: str | None) -> None:
    assert split_from_name(name) == split


def test_image_folder_finds_a_figure_by_its_papers_folder_and_trusts_a_bare_name_only_once(tmp_path: Path) -> None:
    """Test-C figure names repeat across papers: the paper's folder (with or without the arXiv
    version) decides; a name found once anywhere is that file; a repeated one without its paper is none."""
    for folder in ("SPIQA_testC_Images/1611.05742v3", "SPIQA_testC_Images/1804.06655"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "4-Figure2-1.png").write_bytes(b"png")
    (tmp_path / "1702.00001v1-Table1-1.png").write_bytes(b"png")
    images = ImageFolder(tmp_path)
    assert len(images) == 3
    assert images.find("4-Figure2-1.png", ["1611.05742"]) == tmp_path / "SPIQA_testC_Images/1611.05742v3/4-Figure2-1.png"
    assert images.find("4-Figure2-1.png", ["1804.06655v2"]) == tmp_path / "SPIQA_testC_Images/1804.06655/4-Figure2-1.png"
    assert images.find("4-Figure2-1.png") is None
    assert images.find("1702.00001v1-Table1-1.png", ["1702.00001"]) == tmp_path / "1702.00001v1-Table1-1.png"
    assert images.find("missing.png", ["1611.05742"]) is None
