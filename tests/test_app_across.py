"""The "Across papers" flow driven through the app's API with `gradio_client` (retrieval only).

Load an anchor (Coordinate Attention, which cites CBAM, ResNet and the non-local block), see its
references, add cited PDFs (one that matches a reference, one that matches none, one that cannot be
read), ask a question naming the method and get the cited paper, its passage and the passage's page
boxed, and a follow-up about the same cited paper; before any cited paper is added the answer says
so and ranks the references; a second session sees none of the first's cited papers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_harness import _served_app, app_url, files, texts, visitor
from gradio_client import Client, handle_file

ANCHOR = "coordinate-attention-cvpr2021.pdf"
CITED = "cbam-eccv2018.pdf"
UNCITED = "bert-1810.04805.pdf"  # a computer-vision paper does not cite BERT
QUESTION = "In the paper that proposed CBAM, how is channel attention computed?"
MODEL = ("cot", "none", "", "", 8, 0, True, "")  # the settings panel's inputs: retrieval only


@pytest.fixture
def anchored(app_url: str, shared: Path) -> Client:
    """A session with the anchor paper loaded."""
    client = visitor(app_url)
    status, *_ = client.predict(handle_file(str(shared / "papers" / ANCHOR)), api_name="/load_pdf")
    assert "Coordinate Attention" in status, status
    return client


def test_no_paper_then_no_cited_paper_then_an_answer_from_the_cited_paper(anchored: Client, shared: Path,
                                                                          tmp_path: Path) -> None:
    status, references = anchored.predict(api_name="/cited_references")
    assert "Coordinate Attention" in status and "references" in status
    assert "0 of " in references and "convolutional block attention module" in references.lower(), references[:500]

    chat, box, _, passage, _ = anchored.predict(QUESTION, *MODEL, api_name="/ask_cited")
    answer = texts(chat)
    assert box == "" and "None of the papers this question leads to is in the library yet" in answer
    listed = answer.split("in the library yet")[1].split("> ⚠️")[0]
    assert "1. " in listed and "convolutional block attention module" in listed.lower(), answer  # which PDFs to add
    assert "retrieval-only mode" in answer

    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 40)
    uploads = [handle_file(str(p)) for p in (shared / "papers" / CITED, shared / "papers" / UNCITED, broken)]
    references, report, _ = anchored.predict(uploads, api_name="/add_cited")
    assert "Added: `cbam-eccv2018.pdf`" in report and "`bert-1810.04805.pdf`" in report, report
    assert "broken.pdf" in report and "⚠️" in report, report
    assert "1 of " in references and "✅ cbam-eccv2018.pdf" in references, references[:800]
    assert "matching no reference" in references and "bert-1810.04805.pdf" in references.split("matching no reference")[1]
    assert "/uploads/" not in report + references  # the server's folders are not shown

    chat, _, page, passage, _page_text = anchored.predict(QUESTION, *MODEL, api_name="/ask_cited")
    turn = texts(chat).split(QUESTION)[-1]
    assert "**Cited paper:**" in turn and "cbam" in turn.split("**Cited paper:**")[1].split("\n")[0].lower(), turn
    assert "Why this paper:" in turn and "Supporting passage" in turn and "page " in turn
    assert "In this paper:" in turn and len(files(chat)) == 2  # the anchor figure, once per answer
    assert turn.count("retrieval-only mode") == 0  # said once per session
    assert "channel" in turn.split("Supporting passage")[1].lower() and "page 5" in passage  # CBAM's Sec. 3
    shown = page.get("value", page)  # a visible update carries the image and its one box
    assert shown["image"] and len(shown["annotations"]) == 1, page

    # A follow-up is read in the context of the chat: it stays on the same cited paper.
    chat, *_ = anchored.predict("and what is its computational cost?", *MODEL, api_name="/ask_cited")
    turn = texts(chat).split("and what is its computational cost?")[-1]
    assert "Read as:" in turn and "CBAM" in turn.split("Read as:")[1].split("\n")[0], turn
    assert "cbam" in turn.split("**Cited paper:**")[1].split("\n")[0].lower(), turn


def test_bad_inputs_and_sessions(app_url: str, anchored: Client, shared: Path) -> None:
    nobody = visitor(app_url)
    chat, *_ = nobody.predict(QUESTION, *MODEL, api_name="/ask_cited")
    assert "Load a paper in the Paper tab first" in texts(chat)
    _, report, _ = nobody.predict([handle_file(str(shared / "papers" / CITED))], api_name="/add_cited")
    assert "Load a paper in the Paper tab first" in report

    _, report, _ = anchored.predict([handle_file(str(shared / "papers" / CITED))], api_name="/add_cited")
    assert "Added" in report
    references, report, _ = anchored.predict("1807.06521", api_name="/add_cited_arxiv")
    assert "arXiv" in report and "⚠️" in report and "1 of " in references, report  # offline: a clear message

    other = visitor(app_url)
    other.predict(handle_file(str(shared / "papers" / ANCHOR)), api_name="/load_pdf")
    _, references = other.predict(api_name="/cited_references")
    assert "0 of " in references and "cbam-eccv2018.pdf" not in references  # the first session's files stay its own

    before, *_ = anchored.predict("   ", *MODEL, api_name="/ask_cited")
    assert len(before) == 1 and "The question is empty" in texts(before)  # said, not silently ignored
    chat, *_ = anchored.predict(QUESTION, *MODEL, api_name="/ask_cited")
    assert "**Cited paper:**" in texts(chat)
    anchored.predict(handle_file(str(shared / "papers" / "resnet-1512.03385.pdf")), api_name="/load_pdf")
    _, references = anchored.predict(api_name="/cited_references")
    assert "0 of " in references  # a new anchor starts a new library
