"""The reader's conversation without a model: follow-ups read in context, citations read from
replies, extractive answers quoted with their page, on hand-made and shared papers."""

from __future__ import annotations

from pathlib import Path

import pytest

from spiqa_demo.conversation import Conversation, ask_turn, read_question
from spiqa_demo.conversation.citations import name_images, parse_citations
from spiqa_demo.conversation.followup import needs_history
from spiqa_demo.errors import InputError
from spiqa_demo.extraction import load_paper
from spiqa_demo.settings import QASettings, get_settings
from spiqa_demo.types import Figure, Paper, Passage

PREVIOUS = "Which method is best on Yelp2018 in ndcg@20?"


def _paper(*texts: str, items: tuple[Figure, ...] = ()) -> Paper:
    passages = [Passage(text=t, page=i + 1, bbox=(50.0, 100.0 + i, 300.0, 200.0)) for i, t in enumerate(texts)]
    return Paper("0" * 64, "made.pdf", "Made", None, [(612.0, 792.0)] * max(1, len(texts)), passages=passages, items=list(items))


@pytest.mark.parametrize(("followup", "read_as"), [
    ("and on Last-FM?", "Which method is best on Last-FM in ndcg@20?"),
    ("what about Amazon-Book?", "Which method is best on Amazon-Book in ndcg@20?"),
    ("and in recall@20?", "Which method is best on Yelp2018 in recall@20?"),
    ("Last-FM?", "Which method is best on Last-FM in ndcg@20?"),
])
def test_an_elliptical_followup_is_completed_from_the_previous_question(followup: str, read_as: str) -> None:
    assert read_question(followup, PREVIOUS).text == read_as


def test_a_new_entity_replaces_the_previous_one_printed_beside_it_in_the_paper() -> None:
    previous = "How does KGAT compare with NFM in recall@20 on Amazon-Book?"
    paper = _paper(
        "We compare KGAT with FM, NFM, CKE and CFKG on Amazon-Book, Last-FM and Yelp2018.",
        "CKE and NFM use the knowledge graph differently.",
    )
    reading = read_question("and CKE?", previous, paper)
    assert reading.text == "How does KGAT compare with CKE in recall@20 on Amazon-Book?"
    assert reading.how == "entity" and reading.focus == "CKE"
    assert read_question("and Yelp2018?", previous, paper).text == "How does KGAT compare with NFM in recall@20 on Yelp2018?"


def test_followups_without_a_new_entity_keep_the_previous_question_and_evidence() -> None:
    why = read_question("why?", PREVIOUS)
    assert why.text == f"{PREVIOUS} Why?" and why.keep_previous
    larger = read_question("what about the larger one?", PREVIOUS)
    assert larger.text.startswith(PREVIOUS) and larger.keep_previous
    cost = read_question("and what is its computational cost?", "How is KGAT trained?")
    assert cost.text == "What is KGAT's computational cost?" and cost.focus == "computational cost"
    several = read_question("and what is its computational cost?", "How does KGAT compare with NFM on Amazon-Book?")
    assert several.text == "How does KGAT compare with NFM on Amazon-Book? And what is its computational cost?"


@pytest.mark.parametrize(("followup", "focus"), [
    ("which figure shows its training curves?", "training curves"),
    ("how many of them are stacked in each stage?", "stacked stage"),
    ("is that better than humans?", "better humans"),
    ("how much of that comes from the SE blocks?", "comes SE blocks"),
    ("which figure shows that?", ""),
    ("why does that matter?", "matter"),
])
def test_a_longer_question_that_refers_back_is_read_with_the_previous_one(followup: str, focus: str) -> None:
    """Its own words are searched on their own too (`focus`); the previous evidence stays shortlisted."""
    previous = "What is the top-1 error of ResNet-110 with CBAM on the CIFAR-10 test set?"
    assert needs_history(followup)
    reading = read_question(followup, previous)
    assert reading.text.startswith(previous) and reading.keep_previous
    assert reading.focus == focus


def test_they_of_the_authors_and_a_relative_that_do_not_make_a_followup() -> None:
    assert not needs_history("What optimizer and learning rate do they use?")
    assert not needs_history("Which loss is used for the model that performs best on SQuAD 2.0?")


@pytest.mark.parametrize("question", [
    "What optimizer and learning rate do they use?",
    "Which dataset has the most users?",
    "How does the model compare with NFM on Amazon-Book in recall@20?",
])
def test_standalone_questions_are_left_as_they_are(question: str) -> None:
    assert not needs_history(question)
    assert read_question(question, PREVIOUS).text == question
    assert read_question("and on Last-FM?", None).text == "and on Last-FM?"  # nothing to complete it from


def test_citations_are_read_in_brackets_and_in_the_prose() -> None:
    cited = parse_citations("KGAT is best [Table 2; p. 6], as Fig. 3 shows (see pages 7-8) and [Figure 4b].")
    assert cited.labels == {("table", "2"), ("figure", "3"), ("figure", "4")}
    assert cited.pages == {6, 7, 8}
    assert not parse_citations("KGAT is best on every dataset.")
    assert parse_citations("Image 1 shows it.").images == {1}


def test_the_prompts_image_numbers_never_reach_the_reader() -> None:
    assert name_images("As Image 0 and image 1 show, KGAT wins.", ["Table 2", "Figure 3"]) == "As Table 2 and Figure 3 show, KGAT wins."
    assert name_images("Image 7 is out of range.", ["Table 2"]) == "Image 7 is out of range."


def test_the_extractive_answer_quotes_the_sentence_with_its_page() -> None:
    paper = _paper(
        "We evaluate on three benchmark datasets. Table 1 summarises their statistics.",
        "KGAT outperforms all baselines. The gains are largest on sparse users.",
        "We implement our model in TensorFlow. We optimize all models with the Adam optimizer, and the learning "
        "rate is tuned in {0.05, 0.01, 0.005, 0.001}. The batch size is fixed at 1024.",
    )
    turn = ask_turn(paper, Conversation(), "What optimizer and learning rate do they use?", None, QASettings())
    assert "Adam optimizer, and the learning rate is tuned" in turn.answer and "[p. 3]" in turn.answer
    quoted = [e for e in turn.evidence if e.cited and e.passage is not None]
    assert [e.page for e in quoted] == [3] and "Adam" in quoted[0].quotes[0]
    assert any("no model is configured" in m for m in turn.messages)
    assert turn.to_dict()["evidence"][0]["kind"] == "passage" and "label" not in turn.to_dict()["evidence"][0]


def test_a_conversation_keeps_its_turns_until_cleared_and_rejects_an_empty_question() -> None:
    paper = _paper("We use the Adam optimizer with a learning rate of 0.001 on Yelp2018 and Last-FM.")
    conversation = Conversation(paper.sha256)
    first = ask_turn(paper, conversation, "Which learning rate is used on Yelp2018?", None)
    second = ask_turn(paper, conversation, "and on Last-FM?", None)
    assert conversation.turns == [first, second]
    assert second.read_as == "Which learning rate is used on Last-FM?" and second.followup
    with pytest.raises(InputError):
        ask_turn(paper, conversation, "   ", None)
    conversation.clear()
    assert conversation.turns == [] and conversation.paper_key == paper.sha256


def test_on_a_shared_paper_the_followup_finds_the_other_table_and_quotes_the_text(shared: Path) -> None:
    settings = get_settings()
    paper = load_paper(shared / "papers" / "resnet-1512.03385.pdf", settings.extraction)
    conversation = Conversation(paper.sha256)
    ask_turn(paper, conversation, "What is the top-1 error of the 34-layer ResNet on ImageNet validation?", None, settings.qa,
             retrieval=settings.retrieval)
    turn = ask_turn(paper, conversation, "and on CIFAR-10?", None, settings.qa, retrieval=settings.retrieval)
    assert turn.read_as == "What is the top-1 error of the 34-layer ResNet on CIFAR-10?"
    assert "Table 6" in [e.label for e in turn.evidence if e.figure is not None][:3]
    kinds = {e.kind for e in turn.evidence}
    assert {"table", "passage"} <= kinds
    optimizer = ask_turn(paper, Conversation(), "What weight decay and momentum do they use?", None, settings.qa,
                         retrieval=settings.retrieval)
    assert "weight decay of 0.0001" in optimizer.answer and "[p. " in optimizer.answer


def test_an_equal_copy_of_a_paper_gets_its_own_passages_quoted() -> None:
    """The store shares one passage index between equal copies (two visitors open the same paper)."""
    paper = _paper("We train with SGD and a weight decay of 0.0001 on four GPUs.", "Results are in Table 1.")
    ask_turn(paper, Conversation(), "What weight decay is used?", None)
    copy = Paper.from_dict(paper.to_dict())
    turn = ask_turn(copy, Conversation(), "What weight decay is used?", None)
    assert "weight decay of 0.0001" in turn.answer
    assert any(e.passage is copy.passages[0] and e.cited for e in turn.evidence)


def test_the_other_one_asks_for_other_evidence_than_the_previous_answers() -> None:
    reading = read_question("and on the other detection dataset?", "What mAP does Faster R-CNN reach on PASCAL VOC 2007?")
    assert reading.avoid_previous and not reading.keep_previous


def test_on_a_shared_paper_a_followup_that_points_back_finds_the_table_cross_referenced_by_the_figure(shared: Path) -> None:
    """"where are the detailed numbers behind it?" names nothing: the table whose caption says it
    corresponds to the previous answer's figure is the one shown."""
    settings = get_settings()
    paper = load_paper(shared / "papers" / "vit-2010.11929.pdf", settings.extraction)
    conversation = Conversation(paper.sha256)
    first = ask_turn(paper, conversation, "How does ViT compare with ResNets for the same pre-training compute?", None, settings.qa,
                     retrieval=settings.retrieval)
    assert "Figure 5" in [e.label for e in first.evidence if e.figure is not None][:3]
    turn = ask_turn(paper, conversation, "where are the detailed numbers behind it?", None, settings.qa, retrieval=settings.retrieval)
    assert turn.followup and turn.read_as.startswith(first.read_as)
    assert "Table 6" in [e.label for e in turn.evidence if e.figure is not None][:3]


def test_the_extractive_answer_quotes_no_heading_and_a_number_for_a_quantity_question() -> None:
    paper = _paper(
        "A.3 Fine-tuning Procedure",
        "Fine-tuning is fast and the procedure follows the pre-training procedure closely for all tasks.",
        "For fine-tuning, most model hyperparameters are the same as in pre-training, with a batch size of 32.",
    )
    turn = ask_turn(paper, Conversation(), "What batch size is used for the fine-tuning procedure?", None, QASettings())
    assert "batch size of 32" in turn.answer and "[p. 3]" in turn.answer
    heading = ask_turn(paper, Conversation(), "How does the fine-tuning procedure work?", None, QASettings())
    assert "A.3" not in heading.answer


def test_an_answer_citing_nothing_shows_the_best_item_and_the_best_passage() -> None:
    from spiqa_demo.conversation import Evidence, Turn

    table = Figure(kind="table", label="Table 1", number="1", page=2, bbox=(0, 0, 1, 1), caption="Results")
    passage = Passage(page=2, text="SPDNet is best on AFEW.", bbox=(0, 0, 1, 1))
    ranked = (
        Evidence(kind="passage", page=2, label="", text=passage.text, score=1.0, box=None, item=passage),
        Evidence(kind="passage", page=3, label="", text="Another passage.", score=0.5, box=None, item=passage),
        Evidence(kind="table", page=2, label="Table 1", text="Results", score=0.4, box=None, item=table),
    )
    turn = Turn(question="q", read_as="q", answer="SPDNet", evidence=ranked)
    assert turn.shown == (ranked[0], ranked[2])
    assert Turn(question="q", read_as="q", answer="I don't know", evidence=ranked, abstained=True).shown == ()


def test_a_followup_with_no_earlier_question_is_answered_as_asked_and_says_so() -> None:
    paper = _paper("We use the Adam optimizer with a learning rate of 0.001 on Yelp2018 and Last-FM.")
    turn = ask_turn(paper, Conversation(paper.sha256), "and on Last-FM?", None, QASettings())
    assert turn.read_as == "and on Last-FM?"
    assert any("no earlier question" in m for m in turn.messages)


def test_an_answer_from_a_named_items_caption_is_not_said_to_match_no_sentence() -> None:
    """"What does Figure 1 show?" is answered by its caption and the sentences citing it: the note that
    no sentence of the text matches is for an answer resting on no sentence at all (it was said here)."""
    figure = Figure(kind="figure", label="Figure 1", number="1", page=1, bbox=(50.0, 300.0, 300.0, 500.0),
                    caption="Figure 1: Training loss of the small and the large network.")
    paper = _paper("Figure 1 shows that the small network converges faster than the large one.", items=(figure,))
    turn = ask_turn(paper, Conversation(paper.sha256), "What does Figure 1 show?", None, QASettings())
    assert "Training loss" in turn.answer, turn.answer
    assert not any("no sentence" in m for m in turn.messages), turn.messages


def test_a_stopped_question_is_the_one_a_followup_is_read_against_and_quotes_nothing() -> None:
    """Stop ends the answer, not the question: "and on Last-FM?" is read against the stopped question's
    subject, and nothing of its unfinished answer is the follow-up's evidence or history."""
    from spiqa_demo.conversation import stopped_turn
    from spiqa_demo.conversation.flow import STOPPED_ANSWER, _history

    paper = _paper("We use the Adam optimizer with a learning rate of 0.001 on Yelp2018 and Last-FM.",
                   "KGAT is best on Last-FM in ndcg@20, ahead of NFM.")
    conversation = Conversation(paper.sha256)
    stopped = stopped_turn(paper, conversation, PREVIOUS, QASettings())
    assert conversation.turns == [stopped] and stopped.stopped and stopped.answer == "" and stopped.evidence == ()
    followup = ask_turn(paper, conversation, "and on Last-FM?", None, QASettings())
    assert followup.read_as == "Which method is best on Last-FM in ndcg@20?"
    assert not any("no earlier question" in m for m in followup.messages), followup.messages
    assert _history(conversation, QASettings())[0] == (PREVIOUS, STOPPED_ANSWER)  # what a model is told of it
    again = stopped_turn(paper, conversation, "and in recall@20?", QASettings())  # a stopped follow-up is read too
    assert again.read_as == "Which method is best on Last-FM in recall@20?"


def test_an_item_with_no_label_caption_or_printed_word_is_never_evidence() -> None:
    logo = Figure(kind="figure", label="", number="", page=1, bbox=(0, 0, 50, 50), caption="")
    growth = Figure(kind="figure", label="Figure 1", number="1", page=1, bbox=(0, 100, 300, 300), caption="Figure 1. Growth of the mutant strains.")
    paper = _paper("The mutant strains grow slowly at high temperature.", items=(logo, growth))
    turn = ask_turn(paper, Conversation(), "What does the journal's logo show?", None, QASettings())
    assert [e.item for e in turn.evidence if e.kind != "passage"] == [growth]
