"""Paper-text conventions: a label means one (kind, number) to every part that reads it.

The property tests print one item's label in many styles and check that extraction (caption lines
and the sentences citing an item), SPIQA figure-file matching, retrieval's label hits and the UI's
caption stripping all reach the same canonical key.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from retrieval_fixtures import embedder

from retrieval import Embedder, FigureIndex, FusionConfig
from retrieval.index import check_query, score_candidates
from spiqa_demo.errors import InputError, PaperError
from spiqa_demo.evaluation.spiqa.figure_names import parse_figure_file
from spiqa_demo.evaluation.spiqa.match import match_figure
from spiqa_demo.evaluation.spiqa.model import SpiqaFigure
from spiqa_demo.extraction.captions import match_caption_line
from spiqa_demo.extraction.layout import Line, Span
from spiqa_demo.extraction.passages import attach_mentions
from spiqa_demo.paper_text import (
    canonical_number,
    find_arxiv_id,
    find_label_refs,
    normalise_arxiv_id,
    one_line,
    parse_caption_label,
    part_qualified,
    roman_to_int,
    split_sentences,
    strip_caption_label,
)
from spiqa_demo.questions import check_question
from spiqa_demo.settings import QASettings
from spiqa_demo.types import Figure, Paper, Passage

BOX = (0.0, 0.0, 100.0, 100.0)
ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIV", "XIX", "XX", "XXXIX"]
# The caption words extraction accepts a roman number after (IEEE: "TABLE IV", "FIG. II").
ROMAN_WORDS = {"figure": ["FIGURE", "FIG."], "table": ["TABLE", "Table"]}
WORDS = {"figure": ["Figure", "FIGURE", "Fig.", "FIG.", "Fig", "FIG"], "table": ["Table", "TABLE", "Tab."]}


@dataclass(frozen=True)
class Printed:
    """One label as a paper prints it, and the key every reader must reach."""

    kind: str
    word: str
    number: str  # as printed: "IV", "A.1", "S2", "3"
    canonical: str

    @property
    def label(self) -> str:
        return f"{self.word} {self.number}"


@st.composite
def printed_labels(draw: st.DrawFn) -> Printed:
    kind = draw(st.sampled_from(["figure", "table"]))
    style = draw(st.sampled_from(["arabic", "decimal", "roman", "appendix", "supplementary"]))
    n = draw(st.integers(1, 60))
    if style == "roman":
        numeral = draw(st.sampled_from(ROMAN))
        return Printed(kind, draw(st.sampled_from(ROMAN_WORDS[kind])), numeral, str(roman_to_int(numeral)))
    word = draw(st.sampled_from(WORDS[kind]))
    if style == "arabic":
        return Printed(kind, word, str(n), str(n))
    if style == "decimal":
        return Printed(kind, word, f"{n}.{n % 9 + 1}", f"{n}.{n % 9 + 1}")
    letter = "S" if style == "supplementary" else draw(st.sampled_from("ABCDE"))
    joiner = draw(st.sampled_from(["", "."])) if style == "appendix" else ""
    return Printed(kind, word, f"{letter}{joiner}{n}", f"{letter}{n}")


def _line(text: str) -> Line:
    return Line(text=text, bbox=BOX, size=9.0, spans=[Span(text=text, bbox=BOX, size=9.0, font="Times", bold=False)],
                block=0, index=0)


def _item(kind: str, number: str, caption: str = "") -> Figure:
    return Figure(kind=kind, label=f"{kind.capitalize()} {number}", number=number, page=1, bbox=BOX, caption=caption)


def _labelled(question: str, items: list[Figure]) -> list[bool]:
    zeros = np.zeros(len(items))
    return score_candidates(question, items, zeros, zeros, FusionConfig()).labelled.tolist()


@given(printed_labels(), st.sampled_from([":", ".", " |", " \u2014"]))
def test_caption_line_gives_the_canonical_key(printed: Printed, delimiter: str) -> None:
    found = match_caption_line(_line(f"{printed.label}{delimiter} Accuracy of the model."))
    assert found is not None
    kind, label, number, _ = found
    assert (kind, number) == (printed.kind, printed.canonical) and label == printed.label


@given(printed_labels(), st.sampled_from(["", "b", "(b)", " (c)"]))
def test_citing_sentence_gives_the_canonical_key(printed: Printed, panel: str) -> None:
    panel = panel if printed.number[-1].isdigit() else ""
    items = [_item(printed.kind, printed.canonical), _item(printed.kind, printed.canonical + "0")]
    passages = [Passage(text=f"We train it longer. As {printed.label}{panel} shows, accuracy rises.", page=1, bbox=BOX)]
    attach_mentions(passages, items)
    assert [len(i.mentions) for i in items] == [1, 0]
    assert items[0].mentions[0].sentence == f"As {printed.label}{panel} shows, accuracy rises."


@given(printed_labels(), st.sampled_from(["", "b", "(b)", " (c)"]), st.sampled_from(["What does {} show?", "In {}, which"]))
def test_question_gets_a_label_hit(printed: Printed, panel: str, template: str) -> None:
    panel = panel if printed.number[-1].isdigit() else ""
    question = template.format(printed.label + panel)
    assert find_label_refs(question) == [(printed.kind, printed.canonical)]
    other = "table" if printed.kind == "figure" else "figure"
    items = [_item(other, printed.canonical), _item(printed.kind, printed.canonical), _item(printed.kind, printed.canonical + "9")]
    assert _labelled(question, items) == [False, True, False]


@given(printed_labels())
def test_spiqa_file_name_matches_the_extracted_item(printed: Printed) -> None:
    word = "Figure" if printed.kind == "figure" else "Table"
    name = parse_figure_file(f"4-{word}{printed.number}-1.png")
    assert name is not None and (name.kind, name.number) == (printed.kind, printed.canonical)
    extracted = match_caption_line(_line(f"{printed.label}: Accuracy of the model."))
    assert extracted is not None
    items = [_item(printed.kind, extracted[2], f"{printed.label}: Accuracy of the model."),
             _item(printed.kind, extracted[2] + "9", "Something else entirely.")]
    spiqa = SpiqaFigure(file=name.file, caption="Accuracy of the model.", kind=name.kind, number=name.number, page=4,
                        figure_type="plot")
    match = match_figure(spiqa, Paper(sha256="", source="x.pdf", title="", arxiv_id=None, page_sizes=[], passages=[],
                                      items=items))
    assert match.method == "number" and match.figure is items[0] and match.caption_similarity == 1.0


@given(printed_labels(), st.sampled_from([":", ".", " |", ""]))
def test_caption_prefix_is_stripped_to_the_same_key(printed: Printed, delimiter: str) -> None:
    caption = f"{printed.label}{delimiter} Accuracy of the model."
    found = parse_caption_label(caption)
    assert found is not None and (found.kind, found.number) == (printed.kind, printed.canonical)
    assert strip_caption_label(caption) == "Accuracy of the model."


def test_ui_gallery_shows_captions_without_their_label() -> None:
    pytest.importorskip("gradio")
    from spiqa_demo.ui.tabs.paper.paper_tab import gallery_items

    items = [Figure(kind="table", label=label, number=canonical_number(label.split()[1]), page=2, bbox=BOX,
                    caption=caption, image="crop.png")
             for label, caption in [("TABLE IV", "TABLE IV. Latency per batch."), ("Table A.1", "Table A.1: Appendix results."),
                                    ("Figure 3", "Figure 3 shows the loss.")]]
    paper = Paper(sha256="", source="x.pdf", title="", arxiv_id=None, page_sizes=[], passages=[], items=items)
    captions = [text.split(" — ", 1)[1] for _, text in gallery_items(paper)]
    assert captions == ["Latency per batch.", "Appendix results.", "Figure 3 shows the loss."]


def test_appendix_question_gets_a_label_hit(embedder: Embedder) -> None:
    """Regression: "Table A.1" was number A1 to extraction but no label at all to retrieval."""
    caption = "Table A.1: Hyper-parameters of every experiment."
    found = parse_caption_label(caption)
    assert found is not None
    appendix = Figure(kind="table", label=found.label, number=found.number, page=12, bbox=BOX, caption=caption)
    items = [_item("table", "1", "Table 1: Accuracy on ImageNet."), appendix, _item("figure", "1", "Figure 1: Overview.")]
    hits = FigureIndex.build(items, embedder).search("What does Table A.1 show?", k=3)
    assert hits[0].item is appendix and hits[0].scores.label and not hits[1].scores.label


@pytest.mark.parametrize(
    ("printed", "canonical"),
    [("IV", "4"), ("XIV", "14"), ("A.1", "A1"), ("A 1", "A1"), ("a1", "A1"), ("S2", "S2"), ("3b", "3"), ("3(b)", "3"),
     ("3 (b)", "3"), ("3.2", "3.2"), ("12", "12"), ("C", "C"), ("IIII", "IIII"), ("7.", "7")],
)
def test_canonical_number(printed: str, canonical: str) -> None:
    assert canonical_number(printed) == canonical


@pytest.mark.parametrize(
    ("text", "refs"),
    [
        ("Figs. 2 and 3(b) compare", [("figure", "2"), ("figure", "3")]),
        ("Tables II\u2013IV list", [("table", "2"), ("table", "3"), ("table", "4")]),
        ("Figures 1-3 and 5", [("figure", "1"), ("figure", "2"), ("figure", "3"), ("figure", "5")]),
        ("Figure Insets show", []),
        ("see table i for", []),
        ("configuration 3 of the tab", []),
        ("What does Table 3 in the supplement show?", [("table", "S3"), ("table", "3")]),
        ("supplementary Figs. 1 and 2", [("figure", "S1"), ("figure", "S2"), ("figure", "1"), ("figure", "2")]),
        ("Table A.1 in the appendix", [("table", "A1")]),
        ("Table 3 and the supplementary material of [4]" + " " * 40 + "Figure 2", [("table", "S3"), ("table", "3"), ("figure", "2")]),
    ],
)
def test_find_label_refs_in_running_text(text: str, refs: list[tuple[str, str]]) -> None:
    assert find_label_refs(text) == refs


def test_a_part_qualified_reference_names_only_the_parts_item_where_it_exists() -> None:
    refs = find_label_refs("What does Table 2 of the appendix show?")
    assert part_qualified(refs, {("table", "2"), ("table", "S2")}) == [("table", "S2")]
    assert part_qualified(refs, {("table", "2")}) == refs  # no numbering restarts: the paper's Table 2


def test_running_text_is_not_a_caption_label() -> None:
    assert strip_caption_label("Figure 3 shows the loss.") == "Figure 3 shows the loss."
    assert parse_caption_label("figure 3: lower case opens running text") is None
    assert strip_caption_label("TABLE II") == ""


def test_split_sentences_keeps_abbreviations() -> None:
    text = "As Fig. 3 shows, it works. See e.g. Table 2 and Secs. 4-5! The end (mostly).  "
    assert split_sentences(text) == ["As Fig. 3 shows, it works.", "See e.g. Table 2 and Secs. 4-5!", "The end (mostly)."]
    assert split_sentences("Figure 3: Overview; Details follow.") == ["Figure 3:", "Overview;", "Details follow."]
    assert split_sentences("  ") == []


@pytest.mark.parametrize(
    ("text", "stamped", "expected"),
    [
        ("arXiv:1706.03762v5 [cs.CL] 6 Dec 2017", True, "1706.03762v5"),
        ("https://arxiv.org/abs/1611.05742", False, "1611.05742"),
        ("1611.05742v3.pdf", False, "1611.05742v3"),
        ("arXiv:hep-th/9901001", True, "hep-th/9901001"),
        ("Results: 1234.5678 in Table 2", True, None),
        ("paper_32", False, None),
    ],
)
def test_arxiv_ids(text: str, stamped: bool, expected: str | None) -> None:
    found = find_arxiv_id(text, stamped=stamped)
    assert (str(found) if found else None) == expected
    if found is not None:
        assert normalise_arxiv_id(text) == found.id and not found.id.endswith(found.version or "-")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1512.03385", "1512.03385"), (" arXiv:1512.03385v2 ", "1512.03385v2"), ("hep-th/9901001", "hep-th/9901001"),
     ("https://arxiv.org/abs/1706.03762v2", "1706.03762v2"), ("missing-1512.03385.pdf", None), ("1512.03385 and more", None)],
)
def test_an_arxiv_id_typed_alone(text: str, expected: str | None) -> None:
    """What a person types to mean a paper: an id or a link, never a file name that holds one."""
    found = find_arxiv_id(text, whole=True)
    assert (str(found) if found else None) == expected


def test_one_question_validator_and_limit() -> None:
    settings = QASettings(max_question_chars=10)
    assert check_question("  what   does  it show? ", settings).text == "what does "
    assert check_question("  what   does  it show? ", settings).cut_to == 10
    assert check_question("short", settings).cut_to is None
    with pytest.raises(InputError, match="question is empty"):
        check_question(" \n ")
    with pytest.raises(InputError, match="k must be at least 1"):
        check_query("What does Table 2 show?", 0)


def test_one_line_collapses_whitespace_and_cuts_within_the_limit() -> None:
    assert one_line("  Results on\n the  AFEW\tdataset. ", 100) == "Results on the AFEW dataset."
    cut = one_line("word " * 50, 20)
    assert len(cut) <= 20 and cut.endswith("…") and not cut[:-1].endswith(" ")
    assert one_line(None, 5) == ""


def _spans_line(*spans: tuple[str, str, bool]) -> Line:
    """A line printed in spans of (text, font, bold)."""
    made = [Span(text=t, bbox=BOX, size=9.0, font=font, bold=bold) for t, font, bold in spans]
    return Line(text="".join(t for t, _, _ in spans).strip(), bbox=BOX, size=9.0, spans=made, block=0, index=0)


@pytest.mark.parametrize(
    ("spans", "key"),
    [
        # Label and title in one face, a span per word, then the legend in another face.
        ([("Fig.", "F1", False), (" 2", "F1", False), (" Activity", "F1", False), (" of receptors.", "F1", False),
          (" a A tree", "F2", False)], ("figure", "2")),
        ([("FIG", "Sans-B", True), (" 1", "Sans-B", True), (" Desiccation tolerance.", "Sans", False)], ("figure", "1")),
        ([("Fig. 1", "Sans-B", True)], ("figure", "1")),  # a bold label alone above its legend
        ([("Supplemental Figure 2 | Variants in the brain", "Sans", False)], ("figure", "S2")),
        ([("Extended Data Fig. 3 | Panels of the screen", "Sans", False)], ("figure", "E3")),
        ([("KEY RESOURCES TABLE", "Sans-H", True)], ("table", "")),
    ],
)
def test_caption_styles_of_every_house(spans: list[tuple[str, str, bool]], key: tuple[str, str]) -> None:
    found = match_caption_line(_spans_line(*spans))
    assert found is not None and (found[0], found[2]) == key


@pytest.mark.parametrize(
    "spans",
    [
        [("Fig.", "Serif", False), (" 2 B shows the activation of the charge state", "Serif", False)],
        [("Fig. 1", "Serif", False)],  # a plain label alone: a table cell or an axis title
        [("Lookup table", "Serif", False)],  # "table" closing a line that is no heading
    ],
)
def test_running_text_and_plain_labels_are_no_captions(spans: list[tuple[str, str, bool]]) -> None:
    assert match_caption_line(_spans_line(*spans)) is None


def test_extended_data_names_its_own_figure() -> None:
    assert find_label_refs("as Extended Data Fig. 3b shows, and Fig. 2") == [("figure", "E3"), ("figure", "2")]
