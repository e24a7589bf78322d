"""The Paper tab as a reader meets it, through the app's API (`gradio_client`) on the real app: a failed
fetch or a rejected file leaves the paper on screen answering questions, clearing the chat keeps the
paper, an empty question is told why, an unlabelled item's page is said once, and no Share button is
offered where sharing cannot work."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_harness import GRNET_TITLE, _served_app, allow_endpoint, app_url, files, grnet_pdf, reconfigure, texts, visitor
from gradio_client import Client, handle_file
from test_app_client import ask_args


@pytest.fixture
def client(app_url: str) -> Client:
    return visitor(app_url)


def test_a_failed_fetch_or_rejected_file_leaves_the_paper_on_screen_answering(client: Client, grnet_pdf: Path,
                                                                              tmp_path: Path) -> None:
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    status, *_ = client.predict("1706.03762", api_name="/load_arxiv")  # arXiv points at a closed port in tests
    assert "not reachable" in status and GRNET_TITLE in status and "still answered about this one" in status, status
    chat, _ = client.predict(*ask_args("Which method performs best on PaSC2?"), api_name="/ask")
    turn = texts(chat).split("PaSC2?")[-1]
    assert "could not be loaded" not in turn and "Table 1" in turn, turn

    not_pdf = tmp_path / "notes.pdf"
    not_pdf.write_text("just some notes, not a PDF")
    status, gallery, _, _, _, upload, *_ = client.predict(handle_file(str(not_pdf)), api_name="/load_pdf")
    assert "not a PDF" in status and GRNET_TITLE in status and gallery, status
    assert upload is None  # the rejected file leaves the upload box


def test_clearing_keeps_the_paper_and_an_empty_question_is_told_why(client: Client, grnet_pdf: Path) -> None:
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    client.predict(*ask_args("Which method performs best on PaSC2?"), api_name="/ask")
    chat = client.predict(api_name="/clear_chat")
    assert len(chat) == 1 and f"Loaded **{GRNET_TITLE}**" in texts(chat), chat  # not "Load a paper"
    chat, _ = client.predict(*ask_args(" "), api_name="/ask")
    assert "The question is empty: type a question" in texts(chat)
    chat, _ = client.predict(*ask_args("Which method performs best on AFEW?"), api_name="/ask")
    assert "Table 1" in texts(chat).split("AFEW?")[-1] and "Load a paper first" not in texts(chat)


def test_the_readers_follow_up_reaches_the_model_with_the_earlier_turn(client: Client, grnet_pdf: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The Paper tab's default task with a loopback model: the follow-up's request carries the first
    question, and a reply in no citation format still gives an answer and the evidence beside it."""
    from evalsuite.openai_listener import openai_listener

    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    with openai_listener() as model:
        allow_endpoint(monkeypatch, model.url)
        reader = ("reader", "openai", "m", model.url)
        chat, _ = client.predict(*ask_args("Which method performs best on PaSC2?")[:1], *reader, 8, 0, True, "", api_name="/ask")
        chat, _ = client.predict("and on AFEW?", *reader, 8, 0, True, "", api_name="/ask")
    assert len(model.requests) >= 3 and "Which method performs best on PaSC2?" in model.requests[-1]  # the earlier turn
    turn = texts(chat).split("and on AFEW?")[-1]
    assert "SPDNet" in turn and "(page 2) · page 2" not in turn, turn
    assert "best match (the answer cites none)" in turn and len(files(chat)) >= 2  # a figure shown per answer


def test_an_unlabelled_items_page_is_said_once() -> None:
    from spiqa_demo.types import Figure
    from spiqa_demo.ui.serving.messages import figure_name

    unlabelled = Figure(kind="table", label="", number="", page=8, bbox=(0, 0, 1, 1))
    labelled = Figure(kind="table", label="Table 3", number="3", page=7, bbox=(0, 0, 1, 1))
    assert figure_name(unlabelled) == "Unlabelled table (page 8)"
    assert figure_name(labelled) == "Table 3 · page 7" and figure_name(labelled, " · p. ") == "Table 3 · p. 7"


def test_share_buttons_are_hidden_off_spaces(app_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from spiqa_demo.ui.app.layout import NO_SHARING_CSS, launch_options

    assert NO_SHARING_CSS in launch_options()["css"]
    reconfigure(monkeypatch, SPACE_ID="someone/spiqa")
    assert NO_SHARING_CSS not in launch_options()["css"]


@pytest.mark.parametrize(("reply", "supported"), [("I don't know.", False), ("Pooling along both axes [1].", True), ("", True)])
def test_an_i_dont_know_shows_no_supporting_passage(reply: str, supported: bool) -> None:
    """Across papers: a model that says it does not know gets no passage shown as its support (without
    a model, "" here, the retrieved passage is the result and is shown)."""
    from spiqa_demo.crosspaper.cited_answer import CitedAnswer, CitedPassage
    from spiqa_demo.ui.tabs.across.across_chat import answer_messages, passage_view

    passage = CitedPassage("cbam.pdf", "CBAM", 5, "Channel attention pools along both axes.", None)
    answer = CitedAnswer("how?", None, [], [passage], reply)
    shown = "\n".join(str(m["content"]) for m in answer_messages(answer, []))
    assert ("Supporting passage" in shown) is supported and ("Channel attention pools" in shown) is supported, shown
    assert ("The supporting passage (quoted in the chat)" in passage_view(answer, None)[1]) is supported


def test_a_table_lookup_states_the_cell_and_says_it_is_boxed(client: Client, grnet_pdf: Path) -> None:
    """Without a model, "which method is highest on PaSC2?" is read from Table 1's cells: the answer
    names the row, the column and the value, and the table's message says the cell is boxed on its
    page (where selecting it opens it: `page_view.cell_places`)."""
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    chat, _ = client.predict(*ask_args("Which method has the highest accuracy on PaSC2?", task="reader"), api_name="/ask")
    turn = texts(chat).split("PaSC2?")[-1]
    assert "In Table 1, SPDNet has the highest PaSC2: 72.83 (row “SPDNet”, column “PaSC2”)." in turn, turn
    assert "Cell: row “SPDNet”, column “PaSC2”: **72.83** (boxed on its page)" in turn, turn


def test_a_ready_paper_offers_an_overview_and_questions_from_it_that_are_answered(client: Client, grnet_pdf: Path) -> None:
    *_, overview, suggestions = client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    assert "At a glance:** 2 pages, 3 figures, 1 table." in str(overview), overview
    questions = [sample[0] for sample in suggestions["samples"]]
    assert 3 <= len(questions) <= 4 and "What does Table 1 report?" in questions, questions
    picked = client.predict(1, api_name="/pick_suggestion")
    assert picked == questions[1]
    chat, _ = client.predict(*ask_args(picked, task="reader"), api_name="/ask")
    assert files(chat) and "Table 1" in texts(chat).split(picked)[-1], texts(chat)
