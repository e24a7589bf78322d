"""Follow-ups read right (issue 29): a rewrite keeps the previous question's subject and changes only
what the follow-up changes; a first question is flagged only when it cannot stand alone; "and on X?"
is answered by the item where X and the previous question's metric meet inside it (its table's
headings and row names), not by one whose caption merely names X."""

from __future__ import annotations

import pytest

from spiqa_demo.conversation import Conversation, ask_turn, read_question
from spiqa_demo.conversation.followup import cannot_stand_alone, needs_history
from spiqa_demo.conversation.kinds import same_kind_span
from spiqa_demo.conversation.meeting import left_scores, meeting_scores
from spiqa_demo.settings import QASettings
from spiqa_demo.types import Figure, Paper, Passage, TableStructure


@pytest.mark.parametrize(("previous", "followup", "read_as"), [
    ("What is the top-1 error of ResNet-50 on ImageNet?", "and with SE on CIFAR-10?",
     "What is the top-1 error of ResNet-50 with SE on CIFAR-10?"),
    ("What is the top-5 error of ResNet-152 on the ImageNet validation set?", "and with an ensemble on the test set?",
     "What is the top-5 error of ResNet-152 with an ensemble on the test set?"),
    ("What mAP@.5 does ResNet101 with CBAM reach on MS COCO?", "and with StairNet on VOC 2007?",
     "What mAP@.5 does ResNet101 with StairNet reach on VOC 2007?"),
    ("What mAP does MobileNetV2 with CA get on Pascal VOC 2007?", "and the mIoU on Cityscapes?",
     "What mIoU does MobileNetV2 with CA get on Cityscapes?"),
    ("What base learning rate is used for fine-tuning on ImageNet?", "and for pre-training ViT-L/16?",
     "What base learning rate is used for pre-training ViT-L/16 on ImageNet?"),
    ("Which method is best on Yelp2018 in ndcg@20?", "and on Last-FM?", "Which method is best on Last-FM in ndcg@20?"),
])
def test_a_rewrite_keeps_the_subject_and_changes_only_what_the_followup_changes(previous: str, followup: str, read_as: str) -> None:
    reading = read_question(followup, previous)
    assert reading.text == read_as
    assert reading.how == "phrase" and reading.focus


@pytest.mark.parametrize(("previous", "followup", "read_as"), [
    ("What does Fig. 3 show?", "and Fig. 4?", "What does Fig. 4 show?"),
    ("What does Figure 3 show?", "and Figure 4b?", "What does Figure 4b show?"),
    ("What does Fig. 3 show?", "what about Table 2?", "What does Table 2 show?"),
    ("How does ResNet-50 compare in Fig. 3?", "and Table II?", "How does ResNet-50 compare in Table II?"),
])
def test_a_followup_naming_another_item_asks_about_that_item(previous: str, followup: str, read_as: str) -> None:
    """The label is one name, number included: "and Fig. 4?" once kept the previous "Fig. 3"."""
    assert read_question(followup, previous).text == read_as


@pytest.mark.parametrize("question", [
    "What problem does this paper solve?",
    "What does this work propose?",
    "What does it propose?",
    "Is this method faster than the baseline?",
    "Which figure shows the training curves?",
])
def test_a_question_that_can_stand_alone_is_never_flagged_as_a_followup(question: str) -> None:
    assert not cannot_stand_alone(question)
    turn = ask_turn(PAPER, Conversation(PAPER.sha256), question, None, QASettings())
    assert turn.read_as == question
    assert not any("follow-up" in m for m in turn.messages)


@pytest.mark.parametrize("question", ["and on CIFAR-10?", "why?", "what about the larger one?", "Last-FM?", "and with SE?"])
def test_a_question_that_cannot_stand_alone_is_flagged_when_it_comes_first(question: str) -> None:
    assert cannot_stand_alone(question) and needs_history(question)


def test_this_paper_is_no_back_reference_in_a_later_question() -> None:
    previous = "What is the top-1 error of ResNet-50 on ImageNet?"
    assert not needs_history("What problem does this paper solve?")
    assert read_question("What problem does this paper solve?", previous).text == "What problem does this paper solve?"


# A dataset name that leaked into the other table's caption must not win: CIFAR-10 and the error
# meet in Table 2's headings, while Table 1's caption says CIFAR-10.
_IMAGENET = Figure(
    kind="table", label="Table 1", number="1", page=1, bbox=(50.0, 100.0, 300.0, 200.0),
    caption="Table 1. Top-1 error on ImageNet of plain and residual nets; the CIFAR-10 and CIFAR-100 results follow the same trend.",
    table=TableStructure(header=(("model", "ImageNet top-1 err.", "ImageNet top-5 err."),),
                         body=(("plain-34", "28.54", "10.02"), ("ResNet-34", "25.03", "7.76"))),
)
_CIFAR = Figure(
    kind="table", label="Table 2", number="2", page=2, bbox=(50.0, 100.0, 300.0, 200.0),
    caption="Table 2. Results on the smaller benchmark.",
    table=TableStructure(header=(("method", "# layers", "CIFAR-10 top-1 error (%)"),),
                         body=(("ResNet-34", "34", "7.51"), ("ResNet-110", "110", "6.43"))),
)
_CURVES = Figure(kind="figure", label="Figure 1", number="1", page=1, bbox=(50.0, 300.0, 300.0, 500.0),
                 caption="Figure 1. Training curves of plain and residual networks.", text="iter. (1e4) error (%) plain-20 plain-56")
PAPER = Paper(
    "1" * 64, "made.pdf", "Made", None, [(612.0, 792.0)] * 2,
    passages=[
        Passage(text="We evaluate plain and residual networks of 34 layers on ImageNet and report top-1 error.", page=1, bbox=(50.0, 600.0, 300.0, 700.0)),
        Passage(text="On CIFAR-10 we train networks of up to 110 layers with data augmentation.", page=2, bbox=(50.0, 600.0, 300.0, 700.0)),
    ],
    items=[_IMAGENET, _CURVES, _CIFAR],
)


def test_the_item_where_the_new_dataset_and_the_metric_meet_scores_highest() -> None:
    question = "What is the top-1 error of ResNet-34 on CIFAR-10?"
    scores = meeting_scores(PAPER.items, question, "CIFAR-10")
    assert scores[2] > 0 and scores[2] == max(scores)
    assert scores[0] == 0.0  # CIFAR-10 is only in its caption
    assert meeting_scores(PAPER.items, question, "") == [0.0, 0.0, 0.0]


def test_and_on_x_lands_on_the_table_whose_headings_hold_x_not_the_caption_that_names_it() -> None:
    """The previous answer's table (ImageNet in its headings, CIFAR-10 only in its caption) is lowered
    as much as the table where CIFAR-10 and the error meet is raised."""
    conversation = Conversation(PAPER.sha256)
    first = ask_turn(PAPER, conversation, "What is the top-1 error of ResNet-34 on ImageNet?", None, QASettings())
    assert next(e.label for e in first.evidence if e.figure is not None) == "Table 1"
    turn = ask_turn(PAPER, conversation, "and on CIFAR-10?", None, QASettings())
    assert turn.read_as == "What is the top-1 error of ResNet-34 on CIFAR-10?"
    assert next(e.label for e in turn.evidence if e.figure is not None) == "Table 2"


def test_a_subject_change_after_a_question_about_an_item_asks_about_that_item() -> None:
    """"and the daughter cells?" after "What does Figure 1 show?" was read as "What does the daughter
    cells show?": the item is kept, and named while it prints the new subject."""
    reading = read_question("and the residual networks?", "What does Figure 1 show?", PAPER)
    assert reading.text == "What does Figure 1 show about the residual networks?" and reading.keep_previous
    assert read_question("and the daughter cells?", "What does Figure 1 show?").text == "What does Figure 1 show about the daughter cells?"


def test_a_subject_the_item_does_not_print_is_asked_of_the_paper_with_the_item_kept() -> None:
    reading = read_question("and on CIFAR-10?", "What does Figure 1 show?", PAPER)
    assert reading.text == "What does the paper show on CIFAR-10?" and reading.keep_previous


def test_a_replaced_name_does_not_double_the_words_around_it() -> None:
    previous = "How much viability does the ABUW_2433 mutant lose at day 6?"
    assert read_question("and the katE mutant?", previous).text == "How much viability does the katE mutant lose at day 6?"


def test_a_measure_the_tables_print_as_a_heading_replaces_the_measure_asked() -> None:
    previous = "What accuracy does ResNet-34 reach on ImageNet?"
    assert read_question("and the error on CIFAR-10?", previous, PAPER).text == "What error does ResNet-34 reach on CIFAR-10?"


@pytest.mark.parametrize(("previous", "followup"), [
    ("How do the class-token and average-pooling classifiers compare?", "how are they trained?"),
    ("Which attention heads seem to resolve anaphora?", "which layer are they in?"),
])
def test_they_that_something_is_done_to_points_back(previous: str, followup: str) -> None:
    """"they" who do something are the authors ("What optimizer do they use?"); "they" that are
    trained, or are somewhere, are the previous question's subject."""
    assert needs_history(followup)
    assert read_question(followup, previous).keep_previous
    assert not needs_history("What optimizer do they use?")


@pytest.mark.parametrize("question", [
    "So what is the main result?", "Also, what is the learning rate?", "Summarize.",
    "How does the larger model compare with the smaller one?",
])
def test_a_first_question_that_opens_like_a_followup_but_asks_a_whole_question_is_not_flagged(question: str) -> None:
    assert not cannot_stand_alone(question)


def test_a_continuation_asking_a_whole_question_is_still_read_with_the_previous_one() -> None:
    assert needs_history("and does the size of the model matter?")
    assert cannot_stand_alone("How does the former differ from the latter?")


def test_the_item_where_the_replaced_words_meet_without_the_new_ones_is_left() -> None:
    reading = read_question("and on CIFAR-10?", "What is the top-1 error of ResNet-34 on ImageNet?", PAPER)
    assert reading.replaced == "ImageNet" and reading.meet
    left = left_scores(PAPER.items, reading.text, reading.focus, reading.replaced)
    assert left[0] > 0 and left[2] == 0.0  # Table 1 answered the previous question; Table 2 prints CIFAR-10


@pytest.mark.parametrize(("previous", "followup", "read_as"), [
    ("What does Figure 1 show?", "and the top-5 error on CIFAR-10?", "What does the paper show about the top-5 error on CIFAR-10?"),
    ("What does Figure 1 show about plain networks?", "and the residual networks?", "What does Figure 1 show about the residual networks?"),
    ("What does Figure 1 show?", "and the deeper one?", "What does Figure 1 show? And the deeper one?"),
])
def test_a_followup_to_a_question_about_an_item_keeps_asking_about_it(previous: str, followup: str, read_as: str) -> None:
    """A name never takes a label's place, a second subject replaces the first, and a pointer back
    ("the deeper one") keeps the item named."""
    assert read_question(followup, previous, PAPER).text == read_as


@pytest.mark.parametrize(("previous", "followup", "read_as"), [
    ("How well does metapath2vec++ classify venue nodes in AMiner?", "how sensitive is it to its parameters?",
     "How sensitive is metapath2vec++ to metapath2vec++'s parameters?"),
    ("What does the baseline ResNet-50 C2D model for video look like?", "and the non-local block added to it?",
     "What does the non-local block added to ResNet-50 C2D look like?"),
])
def test_it_is_the_previous_questions_subject(previous: str, followup: str, read_as: str) -> None:
    assert read_question(followup, previous).text == read_as


def test_a_measure_is_no_subject_for_it() -> None:
    previous = "How does BLEU change with encoder depth for the pre-norm DLCL?"
    assert read_question("and how fast is it at generation?", previous).how == "joined"


def test_the_item_a_subject_change_leaves_stays_in_the_shortlist() -> None:
    """"and on CIFAR-10?" after "What does Figure 1 show?" asks where CIFAR-10 is shown; Figure 1,
    which prints no CIFAR-10 and scores last for it, keeps a place among the items."""
    settings = QASettings(reader_items=2)
    conversation = Conversation(PAPER.sha256)
    ask_turn(PAPER, conversation, "What does Figure 1 show?", None, settings)
    turn = ask_turn(PAPER, conversation, "and on CIFAR-10?", None, settings)
    assert turn.read_as == "What does the paper show on CIFAR-10?"
    items = [e.label for e in turn.evidence if e.figure is not None]
    assert len(items) == 2 and "Figure 1" in items


# Terms the paper prints side by side: drugs in a sentence's list, embeddings in another, models as a
# table's row names, datasets in a list of tasks whose items are two words long.
_KINDS = Paper(
    "2" * 64, "kinds.pdf", "Kinds", None, [(612.0, 792.0)] * 2,
    passages=[
        Passage(text="Biosensors responded to DAMGO and morphine within minutes. We use word2vec [30] and GloVe [35] vectors.",
                page=1, bbox=(50.0, 600.0, 300.0, 700.0)),
        Passage(text="We also report ImageNet detection, ImageNet localization, COCO detection, and COCO segmentation. "
                     "Results on PASCAL VOC and COCO follow.", page=2, bbox=(50.0, 600.0, 300.0, 700.0)),
    ],
    items=[Figure(kind="table", label="Table 1", number="1", page=2, bbox=(50.0, 100.0, 300.0, 200.0), caption="Table 1. GLUE results.",
                  table=TableStructure(header=(("System", "MNLI", "QQP"),), body=(("BERTBASE", "84.6", "71.2"), ("BERTLARGE", "86.7", "72.1"))))],
)


@pytest.mark.parametrize(("previous", "followup", "read_as"), [
    ("What is the EC50 of DAMGO for the cholesterol-producing biosensor?", "and for morphine?",
     "What is the EC50 of morphine for the cholesterol-producing biosensor?"),
    ("How do the missense mutations affect the response to DAMGO?", "and for morphine?",
     "How do the missense mutations affect the response to morphine?"),
    ("What mAP does the method reach with ResNet and word2vec embeddings?", "and with GloVe?",
     "What mAP does the method reach with ResNet and GloVe embeddings?"),
    ("What accuracy does BERT-Large reach on MNLI?", "and for BERT-Base?", "What accuracy does BERT-Base reach on MNLI?"),
])
def test_a_followup_term_replaces_the_term_of_its_kind_whatever_its_preposition(previous: str, followup: str, read_as: str) -> None:
    """"and for morphine?" once replaced "for the cholesterol-producing biosensor": the paper prints
    morphine beside DAMGO (a sentence's list, a table's row names), so DAMGO is what changes."""
    reading = read_question(followup, previous, _KINDS)
    assert reading.text == read_as and reading.meet and reading.replaced


def test_the_phrase_with_the_preposition_is_replaced_whole_when_it_holds_the_term_of_the_kind() -> None:
    """"on PASCAL VOC" holds COCO's kind: "and on COCO?" replaces the phrase, as before; and the items of a
    list of two-word items are two words long: "detection" is not of COCO's kind."""
    previous = "What is the object detection mAP on PASCAL VOC with ResNet-101?"
    assert read_question("and on COCO?", previous, _KINDS).text == "What is the object detection mAP on COCO with ResNet-101?"
    assert same_kind_span("COCO", "Which detection method is best?", _KINDS) is None


@pytest.mark.parametrize(("previous", "followup"), [
    ("What does Fig. 2 show?", "Does it work in human cells?"),
    ("What does Figure 1 show about plain networks?", "Can it detect the antagonist?"),
])
def test_it_that_does_something_after_a_question_about_an_item_is_the_papers_subject(previous: str, followup: str) -> None:
    """An item does not work in human cells: "it" is what the paper studies, as in a first question,
    and the item is neither named nor kept."""
    reading = read_question(followup, previous, PAPER)
    assert reading.text == followup and reading.how == "itself" and not reading.keep_previous


def test_it_of_a_followup_about_what_an_item_shows_is_the_item() -> None:
    assert read_question("what does it show in panel d?", "What does Fig. 3 show?").text == "What does Fig. 3 show in panel d?"
    assert read_question("what do its colours mean?", "What does Figure 1 show?").text == "What do Figure 1's colours mean?"


def test_a_followup_that_stands_alone_once_it_is_read_does_not_pile_up_on_earlier_turns() -> None:
    """"Does it work on CIFAR-10?" after "why?" was read as the first question, "Why?" and itself."""
    conversation = Conversation(PAPER.sha256)
    for question in ("What does Figure 1 show?", "why?"):
        ask_turn(PAPER, conversation, question, None, QASettings())
    turn = ask_turn(PAPER, conversation, "Does it work on CIFAR-10?", None, QASettings())
    assert turn.read_as == "Does it work on CIFAR-10?"
    assert [e.label for e in turn.evidence if e.figure is not None][:2] == ["Table 1", "Table 2"]  # the two that print CIFAR-10


def test_it_that_a_copula_says_something_of_is_the_previous_answer() -> None:
    previous = "What is the speedup over standard PyTorch attention on T4?"
    assert read_question("is it the same for the forward pass alone?", previous).text.startswith(previous)


@pytest.mark.parametrize(("previous", "followup", "read_as"), [
    ("Which residue is phosphorylated after insulin stimulation?", "and after infection with an RNA virus?",
     "Which residue is phosphorylated after infection with an RNA virus?"),
    ("What is the eradication concentration of ciprofloxacin for A. lwoffii AL04?", "and for A. baumannii AB20?",
     "What is the eradication concentration of ciprofloxacin for A. baumannii AB20?"),
])
def test_a_replacing_phrase_keeps_its_whole_object(previous: str, followup: str, read_as: str) -> None:
    """"with an RNA virus" is part of "after infection ...", not a phrase added to the question; the
    "A." of a species is no sentence's end."""
    assert read_question(followup, previous).text == read_as


def test_a_continuation_asking_a_question_of_its_own_about_a_name_keeps_it_whole() -> None:
    """"and which other protein does DIP1 bind?" once put DIP1 in place of the previous question's DANA1."""
    previous = "Which histone deacetylase do DANA1 and DIP1 bring to the CYP707A loci?"
    reading = read_question("and which other protein does DIP1 bind?", previous)
    assert reading.text == f"{previous} And which other protein does DIP1 bind?" and reading.keep_previous


def test_the_measure_and_frame_patterns_split_a_run_of_spaces_one_way_only() -> None:
    """read_question collapses white space first; the patterns are safe without it (a lazy group and
    the `\\s+` after it once tried every split of a run of spaces)."""
    from spiqa_demo.conversation.followup import _FRAME, _QUANTITY

    spaced = "What is the top-1" + " " * 20_000 + "error?"
    assert _QUANTITY.match(spaced) is None and _FRAME.match("How does it" + " " * 20_000 + "x") is None
    assert _QUANTITY.match("What is the top-1   error of ResNet-50?")["a"] == "top-1   error"


def test_the_heading_of_the_row_names_is_not_of_the_kind_of_the_other_headings() -> None:
    """"and on HDM05?" once replaced "method": Table 1 prints "Method" beside "HDM05" in its header row."""
    table = TableStructure(header=(("Method", "HDM05", "PaSC1", "PaSC2"),), body=(("SPDNet", "61.45", "68.52", "63.92"),))
    paper = Paper("3" * 64, "t.pdf", "T", None, [(612.0, 792.0)], passages=[],
                  items=[Figure(kind="table", label="Table 1", number="1", page=1, bbox=(50.0, 100.0, 300.0, 200.0), caption="Table 1.", table=table)])
    previous = "Which method performs best on the PaSC dataset for the handheld scenario (PaSC2)?"
    assert read_question("And on HDM05?", previous, paper).text == "Which method performs best on HDM05 for the handheld scenario (PaSC2)?"
