"""The "Across papers" flow as a visitor meets it, in headless Debian Chromium.

Load Coordinate Attention in the Paper tab, open Across papers, add the CBAM PDF it cites, ask a
question naming the method, and see the answer (retrieval only): the anchor figure, the cited paper
and why, and the supporting passage boxed on its page, its text selectable as in the viewer. Then with a model (a loopback listener that
sends each piece of its reply only when the test releases it): ask again, press Stop while the reply
is being written, and the listener sees the request closed with nothing sent after the Stop. The
screenshots go to test-artifacts/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from app_harness import _served_app, app_url
from test_app_across import ANCHOR, CITED, QUESTION
from test_app_browser import browser, page, pytestmark, shot, wait_for_text
from test_app_reader_chat_browser import use_model
from test_app_viewer_browser import page_words, select_text

from evalsuite.openai_listener import openai_listener


def test_answer_from_a_cited_paper_with_its_passage_on_the_page(page, shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page.set_input_files("#upload input[type=file]", str(shared / "papers" / ANCHOR))
    wait_for_text(page, "#chat", "Ask a question")  # indexed
    page.click("button[role=tab]:has-text('Across papers')")
    wait_for_text(page, "#cited-references", "references are in the library")
    assert "Coordinate Attention" in page.inner_text("#across-status")

    page.set_input_files("#cited-upload input[type=file]", str(shared / "papers" / CITED))
    wait_for_text(page, "#cited-references", CITED)
    assert "1 of " in page.inner_text("#cited-references")

    page.fill("#across-question textarea", QUESTION)
    page.keyboard.press("Enter")
    wait_for_text(page, "#across-chat", "Supporting passage")
    page.wait_for_selector("#cited-page img")
    chat = page.inner_text("#across-chat")
    assert "Cited paper:" in chat and "Why this paper:" in chat and "In this paper:" in chat, chat
    assert "channel" in chat.split("Supporting passage")[1].lower() and "page" in page.inner_text("#cited-passage")
    page.wait_for_function("(document.querySelector('#across-question button')?.innerText ?? '').trim() === 'Ask'")  # Stop is gone
    assert page.locator("#cited-page img").count() >= 1  # the page, with the passage's box drawn over it
    page.locator("#cited-page").scroll_into_view_if_needed()
    shown = int(re.search(r"page (\d+)", page.inner_text("#cited-passage")).group(1))
    select_text(page, "#cited-page", page_words(shared / "papers" / CITED, shown))  # selectable, as in the viewer
    page.wait_for_timeout(500)  # the progress overlay fades out
    shot(page, "8-across-papers")
    boxes = {s: page.locator(s).bounding_box() for s in ("#across-chat", "#cited-page")}
    assert "under the chat" in chat and boxes["#cited-page"]["y"] >= boxes["#across-chat"]["y"] + boxes["#across-chat"]["height"], boxes
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the cited page comes under the answer, before the question box
    cited, asked = (page.locator(s).bounding_box() for s in ("#cited-page", "#across-question"))
    chat_box = page.locator("#across-chat").bounding_box()
    assert chat_box["y"] + chat_box["height"] <= cited["y"] < asked["y"], (chat_box, cited, asked)
    assert page.locator("#cited-references").bounding_box()["height"] <= 844 / 2, "the references fill the phone's screens"
    page.locator("#cited-page").scroll_into_view_if_needed()
    shot(page, "8-across-papers-phone")
    page.set_viewport_size({"width": 1440, "height": 1000})

    with openai_listener(paced=True, chunks=40) as model:  # the reply's first piece, then one per release
        page.get_by_role("tab", name="Paper", exact=True).click()
        use_model(page, model, monkeypatch)
        page.click("button[role=tab]:has-text('Across papers')")
        page.fill("#across-question textarea", QUESTION)
        page.keyboard.press("Enter")
        model.release(1)
        wait_for_text(page, "#across-chat", "The answer is")  # the second piece, on screen
        model.mark_stop()
        page.locator("#across-question button", has_text="Stop").click()
        assert model.disconnected.wait(30), "the model request stayed open after Stop"
        assert model.sent_after_stop == 0  # nothing was released after the Stop, and nothing was sent
        wait_for_text(page, "#across-chat", "Stopped before the answer was complete")
        page.locator("#across-question button", has_text="Ask").wait_for()
        assert len(model.requests) == 1
    shot(page, "8-across-papers-stopped")
