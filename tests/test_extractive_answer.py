"""The answer without a model, chosen for what was asked (hand-made papers): a named item's caption
and the sentences citing it, a table lookup stated from the cells read, the paragraph under the
heading the question names, and "not found" when the paper does not say."""

from __future__ import annotations

from pathlib import Path

import pytest

from spiqa_demo.conversation import Conversation, Evidence, Turn, ask_turn
from spiqa_demo.conversation.evidence import figure_evidence, passage_evidence, sentences_of
from spiqa_demo.conversation.extractive import (
    NOT_FOUND,
    _coverage,
    _unit_of,
    asks_quantity,
    best_quote,
    extractive_answer,
    is_no_answer,
    states_number,
    without_heading,
)
from spiqa_demo.conversation.table_lookup import best_lookup, cell_value, lookup, row_names, same_series
from spiqa_demo.extraction import load_paper
from spiqa_demo.settings import QASettings, get_settings
from spiqa_demo.types import Figure, Mention, Paper, Passage, TableStructure

ERRORS = TableStructure(
    header=(("Method", "top-1 err.", "top-5 err.", "Params (M)"),),
    body=(("VGG-16", "28.07", "9.33", "138"), ("ResNet-101", "19.87", "4.60", "44.5"), ("ResNet-152", "**19.38**", "4.49", "60.2")),
)
DATASETS = TableStructure(
    header=(("Dataset", "#Users", "#Items", "#Interactions"),),
    body=(("Gowalla", "29,858", "40,981", "1,027,370"), ("Yelp2018", "31,668", "38,048", "1,561,406"),
          ("Amazon-Book", "52,643", "91,599", "2,984,108")),
)
TEXT = (
    "Deep residual networks ease the training of very deep networks by learning residual functions with reference to the inputs.",
    "Figure 1 shows the training error of plain networks, which grows with depth on CIFAR-10 and on ImageNet.",
    "Table 1 lists the three datasets we use; they differ in their numbers of users and items.",
    "Parameter Settings",
    "We set the embedding size to 64 for all models. The learning rate is searched in {0.0001, 0.001, 0.01} and the batch size is 1024.",
    "Our model is trained end to end and evaluated with recall@20 and ndcg@20 on every dataset against strong baselines.",
    "Table 2 compares the error rates of the networks on the ImageNet validation set with single-model testing.",
)


def _paper() -> Paper:
    passages = [Passage(text=t, page=1 + i // 2, bbox=(50.0, 100.0 + 40 * i, 300.0, 130.0 + 40 * i)) for i, t in enumerate(TEXT)]
    figure = Figure(kind="figure", label="Figure 1", number="1", page=1, bbox=(50, 400, 300, 600),
                    caption="Figure 1: Training error of 20-layer and 56-layer plain networks on CIFAR-10.",
                    mentions=[Mention(passage=1, sentence=TEXT[1])])
    datasets = Figure(kind="table", label="Table 1", number="1", page=2, bbox=(50, 400, 300, 500),
                      caption="Table 1: Statistics of the datasets.", text=DATASETS.to_markdown(), table=DATASETS,
                      mentions=[Mention(passage=2, sentence=TEXT[2])])
    errors = Figure(kind="table", label="Table 2", number="2", page=4, bbox=(50, 400, 300, 500),
                    caption="Table 2: Error rates (%) of single-model results on the ImageNet validation set.",
                    text=ERRORS.to_markdown(), table=ERRORS, mentions=[Mention(passage=6, sentence=TEXT[6])])
    return Paper("1" * 64, "made.pdf", "Made", None, [(612.0, 792.0)] * 4, passages=passages, items=[figure, datasets, errors])


def _ask(question: str) -> Turn:
    return ask_turn(_paper(), Conversation(), question, None, QASettings())


def test_a_question_naming_a_figure_is_answered_by_its_caption_then_the_sentences_citing_it() -> None:
    turn = _ask("What does Figure 1 show?")
    assert turn.answer.startswith("Figure 1: Training error of 20-layer and 56-layer plain networks on CIFAR-10. [p. 1]")
    assert TEXT[1] in turn.answer and not turn.not_found
    assert [e.label for e in turn.cited] == ["Figure 1"]


def test_a_lookup_states_the_cell_read_from_the_table_and_marks_it_for_the_app() -> None:
    turn = _ask("What is the top-1 error of ResNet-101?")
    assert "In Table 2, ResNet-101 has a top-1 err. of 19.87 (row “ResNet-101”, column “top-1 err.”)." in turn.answer
    table = next(e for e in turn.cited if e.label == "Table 2")
    assert [(c.row, c.column, c.value) for c in table.cells] == [(1, 1, "19.87")]
    assert turn.to_dict()["evidence"][[e.label for e in turn.evidence].index("Table 2")]["cells"] == [
        {"row": "ResNet-101", "column": "top-1 err.", "value": "19.87"}]


@pytest.mark.parametrize(("question", "row", "value"), [
    ("Which dataset has the most users?", "Amazon-Book", "52,643"),
    ("Which dataset has the fewest interactions?", "Gowalla", "1,027,370"),
    ("Which network has the best top-1 error?", "ResNet-152", "**19.38**"),  # an error: best is lowest
    ("Which network has the worst top-5 error?", "VGG-16", "9.33"),
    ("Which network has the most parameters (M)?", "VGG-16", "138"),  # numbers compared as values, not as text
])
def test_a_superlative_picks_the_row_by_the_columns_numbers(question: str, row: str, value: str) -> None:
    table = DATASETS if "dataset" in question else ERRORS
    found = lookup(question, table)
    assert found is not None and [(c.row_name, c.value) for c in found.cells] == [(row, value)]


def test_cells_are_compared_as_printed_numbers() -> None:
    assert [cell_value(c) for c in ("19.87", "1,234", "85.3%", "**91.2**", "12.3 ± 0.4", "\u22120.5", "1.2M", "392k", "-")] == [
        19.87, 1234.0, 85.3, 91.2, 12.3, -0.5, 1.2e6, 392e3, None]


def test_the_words_naming_the_column_name_no_row_and_ligatures_read_as_letters() -> None:
    ensembles = TableStructure(header=(("Model", "Top-1 (val)", "Top-5 (val)"),),
                               body=(("1 CNN", "40.7%", "18.2%"), ("5 CNNs", "38.1%", "16.4%"), ("7 CNNs*", "36.7%", "15.4%")))
    found = lookup("What top-5 validation error do the 7 CNNs reach?", ensembles)  # the "5" is top-5's, not "5 CNNs"
    assert found is not None and [(c.row_name, c.value) for c in found.cells] == [("7 CNNs*", "15.4%")]
    tools = TableStructure(header=(("", "Precision", "F1"),), body=(("Ours", "0.9", "0.8"), ("pd\ufb01mages", "0.1", "0.146")))
    found = lookup("What F1 does PDFimages get?", tools)
    assert found is not None and [c.value for c in found.cells] == ["0.146"]


def test_a_row_is_named_by_the_columns_of_words_left_of_the_asked_one() -> None:
    side_by_side = TableStructure(header=(("Algorithm", "Loss", "Algorithm", "WRC(%)"),),
                                  body=(("KDE - Cortes", "0.92", "M3Ns", "87.0"), ("KDE - Cond. Covariance", "0.63", "KDE - Cortes", "88.5")))
    found = lookup("What WRC does KDE - Cortes reach?", side_by_side)  # the right-hand table's own row names
    assert found is not None and [(c.row_name, c.value) for c in found.cells] == [("KDE - Cortes", "88.5")]
    grouped = TableStructure(header=(("Eval", "Method", "S1", "S2"),),
                             body=(("SDR", "Oracle", "13.2", "13.4"), ("", "Baseline", "-0.8", "0.2"), ("", "Proposed", "9.2", "11.1"),
                                   ("SIR", "Oracle", "17.8", "18.0"), ("", "Baseline", "0.5", "1.6"), ("", "Proposed", "17.4", "20.1")))
    found = lookup("What SDR does the proposed method reach on song S2?", grouped)  # a group carried down, a name in prose
    assert found is not None and [(c.row_name, c.value) for c in found.cells] == [("SDR Proposed", "11.1")]


def test_a_name_written_whole_beats_one_inside_it_and_a_matrix_pairs_row_and_column() -> None:
    methods = TableStructure(header=(("Method", "5%"),), body=(("metapath2vec", "0.3033"), ("metapath2vec++", "0.3090")))
    found = lookup("What does metapath2vec++ reach with 5% training data?", methods)
    assert found is not None and [c.value for c in found.cells] == ["0.3090"]
    solvers = TableStructure(header=(("", "Loopy-BP", "Ours"),), body=(("Synthetic Grid", "200", "0.30"), ("Protein Design", "88.9", "0.00061")))
    found = lookup("How long does the proposed solver take on Protein Design?", solvers)  # "Ours" is the proposed one
    assert found is not None and [c.value for c in found.cells] == ["0.00061"]
    identity = TableStructure(header=(("", "mCTRP1", "mCTRP6"),), body=(("mCTRP1", "100", ""), ("mCTRP6", "64", "100")))
    found = lookup("What identity do mCTRP6 and mCTRP1 share?", identity)
    assert found is not None and [(c.row_name, c.heading, c.value) for c in found.cells] == [("mCTRP6", "mCTRP1", "64")]


def test_the_column_is_the_heading_whose_own_words_the_question_holds_most_exactly() -> None:
    kinetics = TableStructure(header=(("Enzyme", "Km (µM)", "kcat (s−1)", "kcat/Km (M−1 s−1)"),),
                              body=(("WT", "12.5", "3.1", "2.5 × 10^5"), ("D45A", "40.2", "0.8", "2.0 × 10^4")))
    cells = {q: lookup(q, kinetics) for q in ("What is the Km of D45A?", "What is the kcat/Km of D45A?")}
    assert [[(c.row_name, c.value) for c in found.cells] if found else None for found in cells.values()] == [
        [("D45A", "40.2")], [("D45A", "2.0 × 10^4")]]  # "Km" is all of the first heading, half of "kcat/Km"


def test_a_subscript_printed_apart_is_one_word_with_its_symbol_and_a_possessive_s_is_none() -> None:
    """PDFs extract "Km" as "K m" and "kcat" as "k cat"; the "s" of "pol η's" met the "s" of "s−1"."""
    kinetics = TableStructure(header=(("Template:dNTP", "K m ( μM)", "k cat (10 −3 s −1 )"),),
                              body=(("dA:dUTP", "8.3", "84.7"), ("dG:dUTP", "105.9", "26.7")))
    for question, value in (("What is pol η's Km for dUTP opposite dG?", "105.9"), ("What kcat does dA:dUTP reach?", "84.7")):
        found = lookup(question, kinetics)
        assert found is not None and [c.value for c in found.cells] == [value], question


def test_which_row_has_the_highest_is_picked_by_the_values_not_by_a_name_in_the_column_words() -> None:
    abundance = TableStructure(header=(("Gene", "Gene name", "Loss of viability", "Protein abundance, ratio WT/DcsrAb"),),  # Δ read as "D", a footnote "b"
                               body=(("ABUW_2436", "katE", "7.5", "3.2"), ("ABUW_2437", "", "150", "10.5"), ("ABUW_2750", "csrA", "480", "8.5")))
    found = lookup("Which gene has the highest protein abundance ratio of WT to the csrA mutant?", abundance)
    assert found is not None and [(c.row_name, c.value) for c in found.cells] == [("ABUW_2437", "10.5")]
    found = lookup("Is the protein abundance ratio of katE the highest?", abundance)  # a row named, not asked which
    assert found is not None and [c.value for c in found.cells] == ["3.2"]


def test_of_the_shortlisted_tables_the_one_where_the_row_and_the_columns_words_meet_answers() -> None:
    others = TableStructure(header=(("Strain", "Gentamicin MIC", "Colistin MIC"),), body=(("PAO1", "2", "1"), ("PA14", "4", "0.5")))
    biofilm = TableStructure(header=(("Strain", "Ciprofloxacin", "", "Tobramycin", ""), ("", "MIC (µg/ml)", "MBEC (µg/ml)", "MIC (µg/ml)", "MBEC (µg/ml)")),
                             body=(("PAO1", "0.5", "64", "1", "256"), ("PA14", "0.25", "32", "2", "512")))
    best = best_lookup("What is the ciprofloxacin MIC of PA14?", [others, biofilm])  # the first shares "MIC" and the row only
    assert best is not None and best[0] == 1 and [(c.heading, c.value) for c in best[1].cells] == [("Ciprofloxacin MIC (µg/ml)", "0.25")]
    best = best_lookup("What is the colistin MIC of PA14?", [others, biofilm])
    assert best is not None and best[0] == 0 and [c.value for c in best[1].cells] == ["0.5"]


def test_a_column_of_numbers_and_dashes_names_no_row_and_a_name_printed_twice_gives_both_cells() -> None:
    runtimes = TableStructure(header=(("Attention Method", "16384", "32768"),),
                              body=(("PyTorch Attention", "-", "-"), ("Linformer", "7.90", "15.70"), ("Reformer", "192.40", "-")))
    found = lookup("What is the runtime of Linformer at sequence length 32768?", runtimes)
    assert found is not None and [(c.row_name, c.value) for c in found.cells] == [("Linformer", "15.70")]
    strides = TableStructure(header=(("Backbone", "Stride", "mIoU (%)"),),
                             body=(("MobileNetV2 + SE", "16", "71.69"), ("MobileNetV2 + CA", "16", "73.32"), ("MobileNetV2 + SE", "8", "72.52")))
    found = lookup("What mIoU does MobileNetV2 + SE reach?", strides)  # one row per output stride: both are its
    assert found is not None and [c.value for c in found.cells] == ["71.69", "72.52"]


def test_a_change_column_answers_only_a_question_about_a_change() -> None:
    blocks = TableStructure(header=(("Model", "Clip @1", "∆Clip@1"),), body=(("ResNet-26", "50.4 %", "–"), ("ResNet-26 + A2", "51.9 %", "+1.5 %")))
    values = {q: lookup(q, blocks) for q in ("What Clip@1 does ResNet-26 + A2 reach?", "What Clip@1 gain does ResNet-26 + A2 get?")}
    assert [[c.value for c in found.cells] if found else None for found in values.values()] == [["51.9 %"], ["+1.5 %"]]
    strains = TableStructure(header=(("Antibiotic", "WT", "ΔpelA"),), body=(("Tobramycin", "1", "0.5"),))
    found = lookup("What is the tobramycin MIC of the pelA mutant?", strains)  # a strain's Δ, no other "pelA" heading
    assert found is not None and [c.value for c in found.cells] == ["0.5"]


def test_a_group_name_printed_mid_group_names_the_rows_around_it() -> None:
    blocks = TableStructure(header=(("Model", "+ 1 Block", "FLOPs"),),
                            body=(("ResNet-26", "None", "8.3 G"), ("ResNet-29", "None", "9.2 G"),
                                  ("", "@ Conv2", "49.0 G"), ("ResNet-26 + NL", "@ Conv3", "13.7 G"), ("", "@ Conv4", "9.3 G"),
                                  ("", "@ Conv2", "8.7 G"), ("ResNet-26 + A2", "@ Conv3", "8.9 G"), ("", "@ Conv4", "8.8 G")))
    assert row_names(blocks, 2)[2:6] == ["ResNet-26 + NL @ Conv2", "ResNet-26 + NL @ Conv3", "ResNet-26 + NL @ Conv4", "ResNet-26 + A2 @ Conv2"]
    found = lookup("How many FLOPs does ResNet-26 + NL need at Conv2?", blocks)
    assert found is not None and [c.value for c in found.cells] == ["49.0 G"]
    found = lookup("How many FLOPs does ResNet-26 + A2 need at Conv2?", blocks)  # the group's name, printed a row below, is written whole
    assert found is not None and [c.value for c in found.cells] == ["8.7 G"]
    found = lookup("How many FLOPs does ResNet-29 need with one block?", blocks)  # "+ 1 Block" names rows, FLOPs is asked
    assert found is not None and [(c.heading, c.value) for c in found.cells] == [("FLOPs", "9.2 G")]


def test_rows_read_as_readers_name_them() -> None:
    widths = TableStructure(header=(("Settings", "Stride", "Top-1 Acc (%)", "APmask"),),
                            body=(("MobileNetV2-1.0", "16", "72.3", "30.1"), ("+ SE", "16", "73.5+1.2", "31.0"), ("+ Coord. Attention", "16", "74.3", "31.9"),
                                  ("MobileNetV2-0.5", "16", "65.4", "25.0"), ("+ SE", "16", "66.4+1.0", "26.2"), ("+ SE", "8", "67.9", "27.0")))
    asked = {
        "What top-1 accuracy does MobileNetV2-0.5 with SE reach at stride 16?": "66.4+1.0",  # "+ SE" under its model; a setting it prints
        "What mask AP does MobileNetV2-0.5 with SE reach at output stride 8?": "27.0",  # "APmask" is "AP mask"; the stride picks the row
        "What is the top-1 accuracy of the coordinate attention model?": "74.3",  # a row named in prose
    }
    for question, value in asked.items():
        found = lookup(question, widths)
        assert found is not None and [c.value for c in found.cells] == [value], question
    ablation = TableStructure(header=(("Tasks", "SST-2 (Acc)", "Avg"),), body=(("BERTBASE", "92.7", "84.1"), ("No NSP", "92.6", "83.0"), ("+1 NL", "91.0", "82.2")))
    for question, value in {"What is the SST-2 accuracy of BERT-base without NSP?": "92.6", "What is the average with one NL block?": "82.2"}.items():
        found = lookup(question, ablation)
        assert found is not None and [c.value for c in found.cells] == [value], question


def test_an_abbreviation_drops_vowels_a_word_that_keeps_them_is_its_own() -> None:
    """"mean" shares "me" and then "a", "n" in order with "mechanism": no abbreviation of it."""
    kinds = TableStructure(header=(("Protein", "Mechanism", "Kd (nM)"),), body=(("PARP1", "UFMylation", "12.5"), ("PARP2", "Ubiquitination", "30.1")))
    assert lookup("What is the mean of PARP1?", kinds) is None
    found = lookup("What is the Avg Kd of PARP2?", kinds)
    assert found is not None and [c.value for c in found.cells] == ["30.1"]


def test_headings_read_in_the_body_and_superlatives_in_other_words() -> None:
    squad = TableStructure(header=(("System", "Dev", "", "Test", ""),), body=(("", "EM", "F1", "EM", "F1"), ("BERT (Ens.)", "86.2", "92.2", "87.4", "93.2")))
    found = lookup("What test F1 does BERT (Ens.) get?", squad)  # the body's first row is the headings under Dev and Test
    assert found is not None and [(c.row, c.heading, c.value) for c in found.cells] == [(1, "Test F1", "93.2")]
    memory = TableStructure(body=(("Attention Method", "512", "1024"), ("Linformer", "114", "287"), ("FlashAttention", "104", "209")))
    found = lookup("How much memory does Linformer use at sequence length 1024?", memory)  # read without a header row
    assert found is not None and [(c.row, c.value) for c in found.cells] == [(1, "287")]
    cells = TableStructure(header=(("Cell", "Nuclei stiffness (Pa)", "Nuclei viscosity (Pa)", "Maximum Path Length"),),
                           body=(("IHA", "1398", "2527", "O(1)"), ("MCF-10A", "7966", "6868", "O(n)")))
    found = lookup("Which cell line has the stiffest nuclei?", cells)
    assert found is not None and [c.row_name for c in found.cells] == ["MCF-10A"]
    found = lookup("What is the maximum path length of IHA?", cells)  # the heading's own "maximum", no superlative
    assert found is not None and [c.value for c in found.cells] == ["O(1)"]
    distances = TableStructure(header=(("Position", "Distance to A2451 (Å)"),), body=(("2445", "12.3"), ("2501", "11.6")))
    found = lookup("Which position lies closest to A2451?", distances)
    assert found is not None and [c.value for c in found.cells] == ["11.6"]


def test_the_table_that_holds_what_is_asked_answers() -> None:
    glue = TableStructure(header=(("System", "CoLA 8.5k", "RTE 2.5k"),), body=(("OpenAI GPT", "45.4", "56.0"),))
    swag = TableStructure(header=(("System", "Dev", "Test"),), body=(("OpenAI GPT", "-", "78.0"),))
    best = best_lookup("What CoLA score does OpenAI GPT get on the GLUE test set?", [swag, glue], ["SWAG Dev and Test accuracies.", "GLUE Test results."])
    assert best is not None and best[0] == 1 and [c.value for c in best[1].cells] == ["45.4"]
    detection = TableStructure(header=(("pre-train", "R50-C4 AP"),), body=(("MoCo", "54.6"),))  # another quantity, named by "R50"
    assert best_lookup("What top-1 accuracy does MoCo get with R50?", [detection], ["Object detection on PASCAL VOC."]) is None
    matrix = TableStructure(header=(("", "Acrp30", "mCTRP1"),), body=(("mCTRP1", "30", "100"), ("mCTRP4", "30", "35")))  # identities said in a note
    best = best_lookup("What percent identity does mCTRP4 share with mCTRP1?", [matrix], ["Comparison of the globular domains."])
    assert best is not None and [c.value for c in best[1].cells] == ["35"]


def test_a_question_that_names_no_column_is_no_lookup() -> None:
    assert lookup("Why do residual networks train more easily?", ERRORS) is None
    assert lookup("What is the top-1 error?", ERRORS) is None  # neither a row nor a superlative


def test_a_settings_question_quotes_the_paragraph_under_the_parameter_settings_heading() -> None:
    turn = _ask("What are the hyperparameters?")  # either of its sentences states hyperparameters
    quoted = ("We set the embedding size to 64 for all models.", "The learning rate is searched in {0.0001, 0.001, 0.01}")
    assert any(s in turn.answer for s in quoted) and not turn.not_found


def test_a_question_the_paper_does_not_answer_says_so_and_still_shows_the_best_evidence() -> None:
    turn = _ask("How much electricity did training consume on the cluster?")
    assert turn.not_found and turn.answer.startswith(NOT_FOUND)
    assert turn.shown


@pytest.mark.parametrize("sentence", [
    "Task Description We now formulate the recommendation task to be addressed in this work:",
    "RQ1: How does KGAT perform compared with state-of-the-art methods? RQ2: How do different components affect KGAT?",
    "Table 3: Overall performance comparison on the three datasets.",
    "4.2 Experimental Settings",
    "How do the knowledge graph embeddings help?",
    "mCTRP2 Induces AMPK, ACC, and p4442 MAPK Phosphorylation in C2C12 Myotubes.",  # a title-case heading
    "[1] Jimmy Lei Ba, Jamie Ryan Kiros, and Geoffrey E Hinton.",  # a reference's authors
    "3 Department of Biomedical Engineering, Johns Hopkins University, Baltimore MD 21218, USA.",  # an affiliation
])
def test_headings_research_questions_and_captions_are_no_answer(sentence: str) -> None:
    assert is_no_answer(sentence)


def test_body_sentences_are_answers() -> None:
    assert not is_no_answer("We use a weight decay of 0.0001 and momentum of 0.9.")
    assert not is_no_answer("Figure 3 shows that the gains grow with depth.")
    assert not is_no_answer("We train on Gowalla, Yelp2018 and Amazon-Book with BERT and LightGCN.")  # names in a sentence
    assert not is_no_answer("The Transformer follows this overall architecture using stacked self-attention.")


def test_a_looked_up_cell_of_a_shared_papers_table_is_boxed_where_its_value_is_printed(shared: Path) -> None:
    """What the page viewer boxes for a lookup: the cell's words as the page prints them."""
    import pymupdf

    from spiqa_demo.extraction.tables import page_words, words_in
    from spiqa_demo.ui.serving.work.page_view import cell_places

    pdf = shared / "papers" / "resnet-1512.03385.pdf"
    paper = load_paper(pdf, get_settings().extraction)
    placed = 0
    for table in [t for t in paper.tables if t.table is not None and t.table.body]:
        assert table.table is not None
        headings = table.table.column_headings()
        names = [r[0] for r in table.table.body]
        row = next((r for r in table.table.body if len(r) > 1 and cell_value(r[1]) is not None and names.count(r[0]) == 1
                    and all(any(c.isupper() or c.isdigit() for c in w) for w in r[0].split())), None)  # a name, no prose
        if row is None or not headings[1]:
            continue
        found = lookup(f"What is the {headings[1]} of {row[0]}?", table.table)
        assert found is not None and (row[0], row[1]) in [(c.row_name, c.value) for c in found.cells], (table.label, row, found)
        with pymupdf.open(pdf) as doc:
            for cell, box in cell_places(table, found.cells):
                printed = " ".join(w.text for w in words_in(page_words(doc[table.page - 1]), box))
                assert set(cell.value.split()) <= set(printed.split()), (table.label, cell, printed)  # a stacked row's box may cross another line
                assert table.bbox[0] - 1 <= box[0] and box[2] <= table.bbox[2] + 1 and table.bbox[1] - 1 <= box[1] and box[3] <= table.bbox[3] + 1
                placed += 1
    assert placed >= 3


REASONS = (
    "The images are transformed in Python code on the CPU while the GPU is training on the previous batch of images. "
    "So these data augmentation schemes are, in effect, computationally free.",
    "Table 3 lists the running times of all solvers on the four tasks. In the fourth case the performances of the two cycle "
    "decompositions are comparable. This is because the variable cardinality in this case is much smaller than in the other tasks.",
    "We report results on every task with the same solver, and we keep all settings of the previous section unchanged.",
)


def _passages(texts: tuple[str, ...]) -> tuple[Paper, list[Evidence]]:
    passages = [Passage(text=t, page=1, bbox=(50.0, 100.0 + 40 * i, 300.0, 130.0 + 40 * i)) for i, t in enumerate(texts)]
    return Paper("2" * 64, "made.pdf", "Made", None, [(612.0, 792.0)], passages=passages), [passage_evidence(p, 1.0) for p in passages]


@pytest.mark.parametrize(("question", "reason"), [
    ("Why is the data augmentation computationally free?", "while the GPU is training on the previous batch"),  # the sentence before "So ..."
    ("Why are the two cycle decompositions comparable in the fourth case?", "This is because the variable cardinality"),  # the one after
])
def test_a_why_question_is_answered_with_the_sentence_that_gives_the_reason(question: str, reason: str) -> None:
    paper, evidence = _passages(REASONS)
    quote = best_quote(question, evidence, paper=paper)
    assert quote is not None and reason in quote.text


def test_coverage_counts_each_asked_word_once_weighted_by_its_rarity_in_the_paper() -> None:
    """A sentence saying one asked word three times holds less of the question than one holding
    every asked word once (BM25 rewards the repetition; the coverage does not)."""
    paper, _ = _passages(REASONS)
    repeated, every = _coverage("Which optimizer and schedule are used?", [
        "The optimizer matters: we compare each optimizer, and the optimizer of every baseline is kept.",
        "Training uses the SGD optimizer, and its step size follows a cosine schedule.",
    ], paper)
    assert every == pytest.approx(1.0) and 0 < repeated < every


@pytest.mark.parametrize(("text", "states"), [
    ("The resulting test set has 19,008 images.", True),
    ("We fine-tune with a learning rate of 2e-5.", True),
    ("Images come from the ImageNet validation set [18].", False),  # a citation
    ("This step is shown in Figure 1 and Sec. 3.4.", False),  # an item's and a section's number
    ("We train ResNet-50 on ImageNet-1K (Kingma & Ba, 2015).", False),  # names' digits, a year cited
    ("We obtain our best results3 with Gibbs sampling.", False),  # a footnote's mark
    ("These mutations alter the properties of the resulting materials16,17.", False),  # a journal's superscript citations
    ("Repeat lengths change the rheological properties18\u201320.", False),
    ("All statistical analyses were performed using GraphPad Prism Software version 9.1.0.", False),  # a software's version
    ("Reads were aligned with v2.3 of the aligner and counted in R 4.1.2.", False),
    ("RNA was converted to cDNA with the reverse transcription kit (cat. no. 43-688-14).", False),  # a catalogue number
    ("Female BALB/c mice (n = 115) were injected with tumour cells.", True),
    ("Each variant has 40, 60 or 80 repeats of the motif.", True),
    ("In humans, there are six GSDM genes.", True),  # a count in words
    ("One of the genes is expressed in skin.", False),  # "one" mostly counts nothing
])
def test_a_number_is_stated_only_where_it_is_a_quantity(text: str, states: bool) -> None:
    assert states_number(text) is states


@pytest.mark.parametrize(("question", "asks"), [
    ("How large is the zero-shot test set?", True),
    ("What fraction of the cell volume does the vacuole take up?", True),
    ("What learning rate is used on Charades?", True),
    ("Where is dropout applied in the model?", False),
    ("Why did the deep network need a warm-up learning rate?", False),
    ("Which hyper-parameters change for the smaller model?", True),  # settings are asked for their values
])
def test_a_question_asks_for_a_quantity_when_it_asks_how_much_not_where_or_why(question: str, asks: bool) -> None:
    assert asks_quantity(question) is asks


def test_a_quantity_is_quoted_from_the_sentence_that_states_it_not_from_a_pair_joining_another_number() -> None:
    """A pair holds the question's words in one sentence and another set's size in the other; the
    answer is the sentence that states the asked size, though it holds fewer of the question's words."""
    paper, evidence = _passages((
        "This results in a total of 315,731 training images with 449,469 annotated boxes. "
        "For testing, the traditional zero-shot recognition setting is used which considers only unseen classes. "
        "The resulting test set has 19,008 images and 19,931 bounding boxes.",
        "We report results on every task with the same solver, and we keep all settings unchanged.",
    ))
    quote = best_quote("How large is the zero-shot test set?", evidence, paper=paper)
    assert quote is not None and quote.text == "The resulting test set has 19,008 images and 19,931 bounding boxes."


def test_a_quantity_of_a_kind_is_quoted_from_the_sentence_that_prints_its_unit() -> None:
    """A temperature asked is answered by a number in degrees, not by another number beside more of
    the question's words ("a probability above 0.92")."""
    paper, evidence = _passages((
        "The reconstructed ancestral protein had a mean posterior probability above 0.92 across sites, "
        "which indicates a high confidence in the reconstruction of the ancestral protein.",
        "We expressed and purified it and measured its thermal stability and the dependence of its GDP binding on temperature, "
        "observing the optimum at 52.9 °C.",
        "We report results on every task with the same solver, and we keep all settings of the previous section unchanged.",
    ))
    quote = best_quote("At what temperature does the reconstructed ancestral protein bind GDP best?", evidence, paper=paper)
    assert quote is not None and quote.text.endswith("observing the optimum at 52.9 °C.")


@pytest.mark.parametrize(("question", "unit", "other"), [
    ("How long does training take?", "It takes 5 days on 8 GPUs.", "It uses 8 GPUs."),
    ("What dose of the drug was injected?", "Mice received 5 mg/kg of it.", "Mice (n = 45) received it."),
    ("How old was the patient?", "The patient was 54 years old.", "The patient had 3 visits."),
    ("How old was the patient?", "A 31-year-old woman was seen.", "A woman was seen 3 times."),
])
def test_the_unit_of_a_kind_of_quantity(question: str, unit: str, other: str) -> None:
    units = _unit_of(question)
    assert units is not None and units.search(unit) and not units.search(other)


def test_no_unit_is_asked_for_a_quantity_without_a_kind() -> None:
    assert _unit_of("How many layers does the network have?") is None


@pytest.mark.xfail(strict=True, reason="the MiniLM rerank of the best candidates (retrieval.sentence_index) prefers the "
                   "shorter look-alike sentence of the other paragraph: the paragraph's support decided by a margin of 0.003")
def test_a_sentence_whose_paragraph_holds_what_was_asked_about_answers_it() -> None:
    """Two paragraphs state a learning rate and a batch size in sentences alike; only one of them is
    about the task asked ("SWAG") and says so in another sentence: its sentence is the answer."""
    paper, evidence = _passages((
        "On the question answering benchmark, a span is predicted from the start and end vectors of the answering head. "
        "We fine-tune for 2 epochs with a learning rate of 5e-5 and a batch size of 48.",
        "The SWAG dataset contains 113k sentence-pair completion examples that evaluate grounded commonsense inference. "
        "We fine-tune the model for 3 epochs with a learning rate of 2e-5 and a batch size of 16.",
        "We report results on every task with the same solver, and we keep all settings of the previous section unchanged.",
    ))
    quote = best_quote("What learning rate and batch size were used to fine-tune on SWAG?", evidence, paper=paper)
    assert quote is not None and quote.text == "We fine-tune the model for 3 epochs with a learning rate of 2e-5 and a batch size of 16."


@pytest.mark.parametrize("question", [
    "How much does ResNet-101 improve the top-1 error over the plain network?",  # a difference between two things
    "How many networks have a lower top-1 error than VGG-16?",
    "Why does ResNet-101 have a lower top-1 error?",  # a reason
    "How does the top-1 error of ResNet-101 compare with the plain network's?",  # a comparison of two things
])
def test_a_reason_or_a_difference_is_not_answered_by_one_cell(question: str) -> None:
    """One cell ("ResNet-101 has a top-1 err. of 19.87") answers neither; the text is quoted instead."""
    turn = _ask(question)
    assert "(row “" not in turn.answer and all(not e.cells for e in turn.evidence)


def test_a_comparison_with_a_printed_number_is_still_answered_by_the_cell() -> None:
    assert "(row “ResNet-101”, column “top-1 err.”)" in _ask("Is the top-1 error of ResNet-101 lower than 20?").answer


def test_the_one_table_whose_row_and_column_the_question_names_answers_when_a_figure_took_its_place() -> None:
    stiffness = TableStructure(header=(("Cell", "Cell state", "Nuclei stiffness (Pa)"),),
                               body=(("IHA", "normal", "1398 ± 428"), ("U87", "cancer", "789 ± 197")))
    table = Figure(kind="table", label="Table 1", number="1", page=7, bbox=(50, 400, 300, 500), caption="Table 1: Properties of cells.",
                   text=stiffness.to_markdown(), table=stiffness)
    plot = Figure(kind="figure", label="Figure 3", number="3", page=4, bbox=(50, 400, 300, 600),
                  caption="Figure 3: Nuclear stiffness of U87 cells and IHAs under shear stress.")
    paper = Paper("2" * 64, "cells.pdf", "Cells", None, [(612.0, 792.0)] * 7, passages=[], items=[plot, table])
    answer = extractive_answer("What is the nuclear stiffness of U87 cells?", [figure_evidence(plot, 1.0)], paper=paper)
    assert "In Table 1, U87 cancer has a Nuclei stiffness (Pa) of 789 ± 197 (row" in answer.text  # "nuclear" is "nuclei"
    assert "Cell state" not in answer.text  # "cells" names the row, and one column matches it better
    assert [(e.label, e.cited) for e in answer.evidence][:1] == [("Table 1", True)]


def test_a_quantity_asked_where_no_sentence_states_one_is_not_found() -> None:
    """No shortlisted sentence states a number (a software's version is none): the answer says the
    paper does not seem to say, and shows the closest sentence."""
    paper, evidence = _passages((
        "All statistical analyses of the samples were performed using GraphPad Prism Software version 9.1.0.",
        "Samples were analysed by flow cytometry after staining with the antibodies listed in the supplement.",
    ))
    answer = extractive_answer("How many samples were analysed?", evidence, paper=paper)
    assert answer.not_found and answer.text.startswith(NOT_FOUND)


def test_the_passage_the_answer_quotes_is_shown_first_of_the_passages_and_the_items_keep_their_places() -> None:
    paper, _ = _passages((
        "The model is trained with a large corpus of text and images collected from the web for many weeks.",
        "We train the model on 8 GPUs for 5 days with a batch size of 256 and a learning rate of 0.1.",
    ))
    figure = Figure(kind="figure", label="Figure 1", number="1", page=1, bbox=(50, 400, 300, 600), caption="Figure 1: Training curves.")
    evidence = [figure_evidence(figure, 1.0), passage_evidence(paper.passages[0], 1.0), passage_evidence(paper.passages[1], 0.5)]
    answer = extractive_answer("What batch size is the model trained with?", evidence, paper=paper)
    assert not answer.not_found and "batch size of 256" in answer.text
    assert [e.figure is not None for e in answer.evidence] == [True, False, False]
    assert answer.evidence[1].item is paper.passages[1] and answer.evidence[1].cited


def test_a_result_only_a_figure_shows_is_answered_by_its_legend_not_by_not_found() -> None:
    """No sentence of the text holds the question, the first figure's legend does: the answer is
    that figure (its legend, cited), not "the paper does not seem to say"; a quantity asked still
    needs a number in the legend, and a legend about something else still leaves it not found."""
    paper, _ = _passages((
        "Mice were housed in groups of five with free access to food and water during the study.",
        "Tumour volumes were measured with calipers every second day by a blinded observer.",
    ))
    figure = Figure(
        kind="figure", label="Fig. 4", number="4", page=6, bbox=(50, 400, 300, 600),
        caption="Fig. 4. Engineered bacteria combined with checkpoint blockade slow melanoma growth.",
    )  # fmt: skip
    evidence = [figure_evidence(figure, 1.0), passage_evidence(paper.passages[0], 0.5), passage_evidence(paper.passages[1], 0.4)]
    answer = extractive_answer("Do the engineered bacteria slow melanoma growth with checkpoint blockade?", evidence, paper=paper)
    assert not answer.not_found and answer.text.startswith("Fig. 4")
    assert answer.evidence[0].cited and answer.evidence[0].figure is figure
    assert not any(e.cited or e.quotes for e in answer.evidence[1:])  # the answer quotes no passage
    assert extractive_answer("How many engineered bacteria slow melanoma growth?", evidence, paper=paper).not_found
    assert extractive_answer("Which kinase phosphorylates the receptor in neurons?", evidence, paper=paper).not_found


def test_a_title_line_or_a_heading_kept_as_a_passage_is_never_quoted() -> None:
    """The article's title line with its journal's kicker, set plain or letter-spaced, and a result
    heading hold the question's words best, but they are no answer: the sentence that answers is."""
    title = "Engineered skin bacteria induce antitumor T cell responses against melanoma"
    texts = (
        f"CANCER IMMUNOLOGY {title}",
        f"C AN C ER IM M U N O L O G Y AN D T H E R A P Y {title}",
        "Engineered skin bacteria induce antitumor responses with checkpoint blockade",
        "Colonization with the engineered skin bacteria combined with checkpoint blockade led to the rejection of 15 of 16 tumors.",
    )
    passages = [Passage(text=t, page=1, bbox=(50.0, 100.0 + 40 * i, 300.0, 130.0 + 40 * i)) for i, t in enumerate(texts)]
    paper = Paper("3" * 64, "made.pdf", title, None, [(612.0, 792.0)], passages=passages)
    answer = extractive_answer("Do engineered skin bacteria induce antitumor T cell responses with checkpoint blockade?",
                               [passage_evidence(p, 1.0) for p in passages], paper=paper)
    assert [q for e in answer.evidence for q in e.quotes] == [texts[3]]


@pytest.mark.parametrize(("text", "question", "quoted"), [
    # a sentence opening on what the one before it named comes with that one
    ("We aligned the sequences of all family members. Structure-based alignment reveals four highly conserved residues "
     "(Tyr-161, Gly-159, Phe-237, and Leu-242 in adiponectin). These residues are conserved in all CTRPs (Fig. 7).",
     "Which residues are conserved in all CTRPs?", (1, 3)),
    # an aim comes with the sentence that gives its finding
    ("We next determined the sites of PARP1 UFMylation using a series of truncations and lysine-to-arginine mutants. "
     "From here, we found that the K548R mutation eliminated its major signal. The cells were then treated with a drug for 4 h.",
     "Which lysine of PARP1 is UFMylated?", (0, 2)),
    # ... and with the further steps of its method up to it
    ("Next, we tested whether a combination of engineered bacteria and checkpoint inhibition could treat established tumors. "
     "We waited 5 or 14 days after tumor inoculation to colonize the mice. "
     "The reduction in tumor burden was almost as pronounced as in the prophylaxis model. Other mice were left untreated for 30 days.",
     "Do the engineered bacteria treat established tumors?", (0, 3)),
])
def test_an_answer_is_quoted_with_the_adjacent_sentences_it_needs(text: str, question: str, quoted: tuple[int, int]) -> None:
    paper, evidence = _passages((text, "We report results on every task with the same solver, and we keep all settings unchanged."))
    answer = extractive_answer(question, evidence, paper=paper)
    sentences = sentences_of(paper.passages[0])
    assert [q for e in answer.evidence for q in e.quotes] == sentences[quoted[0]:quoted[1]]


def test_a_paragraph_is_read_under_its_heading_and_the_paragraph_before_it() -> None:
    """The paragraph stating the asked settings leaves what it is about to the paragraph before it
    ("SWAG") and to its section's heading ("CIFAR-10 and Analysis"): its sentence answers, not the
    alike sentence of another task's paragraph."""
    paper, evidence = _passages((
        "4.3 Question Answering",
        "On the question answering benchmark, a span is predicted from the start and end vectors of the head.",
        "We fine-tune the model for 2 epochs with a learning rate of 5e-5 and a batch size of 48. No extra data was added for this model.",
        "4.4 Commonsense Inference",
        "When fine-tuning on the SWAG dataset, we construct four input sequences, each with a possible continuation.",
        "We fine-tune the model for 3 epochs with a learning rate of 2e-5 and a batch size of 16.",
    ))
    quote = best_quote("What learning rate and batch size were used to fine-tune on SWAG?", evidence, paper=paper)
    assert quote is not None and quote.text == "We fine-tune the model for 3 epochs with a learning rate of 2e-5 and a batch size of 16."


def test_a_sentence_cut_at_its_paragraphs_end_is_read_on_from_the_next_paragraph_past_a_running_foot() -> None:
    """A page's end cut the answering sentence ("..., indicating that"); the rest opens the next
    paragraph after the page's running foot: the answer says the whole sentence."""
    paper, evidence = _passages((
        "We next mapped the sites of PARP1 UFMylation with a series of truncations and lysine-to-arginine mutants. "
        "We found that the K548R mutation eliminated the major UFMylation signal of PARP1, indicating that",
        "e2 Molecular Journal 34, 1469-1478, April 8, 2024",
        "K548 is a prominent UFMylation site of PARP1 in cells.",
    ))
    answer = extractive_answer("Which mutation eliminated the UFMylation signal of PARP1?", evidence[:1], paper=paper)
    assert "indicating that K548 is a prominent UFMylation site of PARP1 in cells.”" in answer.text


@pytest.mark.parametrize(("sentence", "said"), [
    ("Results Construction of the library used in the screen was done in two steps.", "Construction of the library used in the screen was done in two steps."),
    ("CWC15 promotes the degradation of SE proteins To understand how CWC15 affects DCL1, we examined its transcripts.",
     "To understand how CWC15 affects DCL1, we examined its transcripts."),
    ("Abstract Accurate chromosome segregation requires at least one crossover.", "Accurate chromosome segregation requires at least one crossover."),
    # no heading: a comma, a bracket or a sentence's end before the capitalised word, or none glued
    ("Expression rose in mutants (Fig. 1) The effect was strong.", "Expression rose in mutants (Fig. 1) The effect was strong."),
    ("In mice, vitamin A deficiency The model failed.", "In mice, vitamin A deficiency The model failed."),
    ("We trained the network for five days.", "We trained the network for five days."),
])
def test_a_heading_glued_to_a_sentence_is_cut_off(sentence: str, said: str) -> None:
    assert without_heading(sentence) == said


def test_a_sentence_split_by_a_pages_end_is_read_whole_and_the_one_after_it_shown_on_its_page() -> None:
    """A page's end cut a paragraph mid-sentence; the next page's first paragraph holds the rest and
    the sentence giving the reason: the cut sentence is said whole with the reason after it, and a
    sentence printed on the next page only is shown on that page."""
    passages = [
        Passage(text="The construct carries a tag for detection. Next, we encoded an elastin-like polypeptide domain: a synthetic "
                     "biopolymer derived", page=3, bbox=(50.0, 700.0, 300.0, 740.0)),
        Passage(text="from tropoelastin which self-assembles into a flexible polymer. We chose this biopolymer because it is "
                     "well-studied and can be expressed easily. The domain is followed by a short peptide tag.",
                page=4, bbox=(50.0, 60.0, 300.0, 120.0)),
        Passage(text="We report results on every task with the same solver, and we keep all settings unchanged.", page=4,
                bbox=(50.0, 140.0, 300.0, 180.0)),
    ]
    paper = Paper("4" * 64, "made.pdf", "Made", None, [(612.0, 792.0)] * 4, passages=passages)
    answer = extractive_answer("Why was the elastin-like polypeptide chosen?", [passage_evidence(passages[0], 1.0)], paper=paper)
    assert "biopolymer derived from tropoelastin which self-assembles into a flexible polymer. We chose this biopolymer because" in answer.text
    answer = extractive_answer("Which peptide follows the domain?", [passage_evidence(passages[0], 1.0)], paper=paper)
    assert answer.text.startswith("“The domain is followed by a short peptide tag.” [p. 4]")


def test_a_lead_in_ending_in_a_colon_is_quoted_with_what_it_introduces_and_a_count_in_words_is_a_number() -> None:
    """"In humans, there are six GSDM genes:" alone is no answer, and "six" states the count asked."""
    paper, evidence = _passages((
        "The role of GSDMs in disease has been studied since then. In humans, there are six GSDM genes: GSDMA, GSDMB, GSDMC, "
        "GSDMD, GSDME, and PJVK [5, 6].",
        "We report results on every task with the same solver, and we keep all settings unchanged.",
    ))
    answer = extractive_answer("How many GSDM genes do humans have?", evidence, paper=paper)
    assert answer.text.startswith("“In humans, there are six GSDM genes: GSDMA, GSDMB, GSDMC, GSDMD, GSDME, and PJVK [5, 6].”")
    assert not answer.not_found


def test_a_row_is_named_without_its_unit_or_its_citation() -> None:
    antibiotics = TableStructure(header=(("", "AB20", ""), ("", "MBEC", "MIC")),
                                 body=(("Cefotaxime (μg/mL)", "8192", "16"), ("Chlorhexidine (%)", "<1", "0.0035")))
    found = lookup("What concentration of cefotaxime eradicates an AB20 biofilm?", antibiotics)
    assert found is not None and {c.value for c in found.cells} == {"8192", "16"}  # the unit is not asked for
    accuracy = TableStructure(header=(("Top1 Accuracy", "w2v", "glo"),), body=(("Akata'16 [1]", "33.90", "-"), ("LATEM'16 [46]", "31.80", "32.50")))
    found = lookup("What top-1 accuracy does LATEM get with GloVe embeddings?", accuracy)  # "[1]" is no "top-1"
    assert found is not None and [(c.row_name, c.value) for c in found.cells] == [("LATEM'16 [46]", "32.50")]


def test_a_row_named_in_a_narrow_table_whose_columns_the_question_does_not_name_is_answered_whole() -> None:
    ablation = TableStructure(header=(("Pos. Emb.", "Default/Stem", "Every Layer"),), body=(("No Pos. Emb.", "0.61382", "N/A"), ("1-D Pos. Emb.", "0.64206", "0.63964")))
    caption = ["Ablation of positional embeddings evaluated on ImageNet 5-shot linear accuracy."]
    best = best_lookup("What 5-shot accuracy does the model get without any positional embedding?", [ablation], caption)
    assert best is not None and [c.value for c in best[1].cells] == ["0.61382", "N/A"]
    assert best_lookup("What latency does the model have without any positional embedding?", [ablation], caption) is None  # not what it holds
    assert best_lookup("Which positional embedding is the best?", [ablation], caption) is None  # a superlative needs its column
    wide = TableStructure(header=(("Model", "A", "B", "C", "D"),), body=(("ResNet-101", "1", "2", "3", "4"),))
    assert best_lookup("What accuracy does ResNet-101 get?", [wide], ["Accuracy per split."]) is None  # wider than one answer


def test_the_heading_over_the_row_names_tells_the_tables_apart() -> None:
    pre_norm = TableStructure(header=(("Model (pre-norm)", "Param.", "BLEU"),), body=(("Transformer (Big)", "257M", "51.7"),))
    mixed = TableStructure(header=(("Model", "Param.", "BLEU"),), body=(("post-norm Transformer (Big)", "210M", "50.1"), ("Transformer (Big)", "257M", "51.7")))
    best = best_lookup("How many parameters does the pre-norm Transformer (Big) have?", [mixed, pre_norm], ["Results on WMT.", "Results on NIST."])
    assert best is not None and best[0] == 1


def test_of_a_series_of_tables_the_caption_that_says_least_the_question_does_not_ask_answers() -> None:
    runtimes = TableStructure(header=(("Method", "512", "1024"),), body=(("FlashAttention", "0.35", "0.68"), ("Reformer", "1.2", "2.4")))
    captions = ["Forward pass runtime (ms) by sequence length, with dropout and masking.", "Forward pass runtime (ms) by sequence length, with masking.",
                "Forward pass runtime (ms) by sequence length, with dropout.", "Forward pass runtime (ms) by sequence length."]
    tables = [runtimes] * 4
    best = best_lookup("What is the forward pass runtime of FlashAttention at sequence length 1024 without dropout or masking?", tables, captions)
    assert best is not None and best[0] == 3
    best = best_lookup("What is the forward pass runtime of FlashAttention at sequence length 1024 with masking only?", tables, captions)
    assert best is not None and best[0] == 1
    assert same_series(captions[0], captions[3]) and not same_series(captions[0], "Statistics of the datasets.")
