"""The app as a visitor meets it: headless Debian Chromium (Playwright) on the in-process app.

Upload a real 10-page paper from the shared papers, wait for the gallery, open a figure on its
page, configure a tiny local VLM in the settings panel, ask, and check that the answer and the
chosen figure appear in the chat; then a SPIQA paper's check panel and the error-analysis tab.
Screenshots go to test-artifacts/ (looked at by people when the UI changes).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from app_harness import _served_app, allow_endpoint, app_url, grnet_pdf
from tiny_models import tiny_cot_vlm, tiny_llama

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PAPER = "non-local-nn-cvpr2018-1711.07971.pdf"  # 10 pages, 4 figures, 6 tables
TIMEOUT_MS = 90_000
UPLOAD_URL = re.compile(r"/upload\?")  # a file on its way to the app
UNQUEUED_URL = re.compile(r"/run/")  # an event that is not queued (the upload watch's marks)

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed (.ci/run installs it)")


@pytest.fixture(scope="module")
def browser() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, app_url: str) -> Iterator:
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    tab.goto(app_url)
    tab.wait_for_selector("#upload")
    yield tab
    context.close()


def wait_for_text(page, selector: str, text: str, timeout_ms: float = TIMEOUT_MS) -> None:
    """Wait until the element shows `text`; an element not mounted yet counts as empty (Gradio renders late).
    On a timeout, what it shows instead is the failure's message (and a screenshot is kept)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            "([selector, text]) => (document.querySelector(selector)?.innerText ?? '').includes(text)",
            arg=[selector, text], timeout=timeout_ms,
        )
    except PlaywrightTimeout:
        shot(page, "timed-out")
        shown = page.evaluate("(selector) => document.querySelector(selector)?.innerText ?? '(not mounted)'", selector)
        raise AssertionError(f"{selector} never showed {text!r}; it shows:\n{shown[-3000:]}") from None


def fill_setting(page, field: str, value: str) -> None:
    """Type into a field of a settings accordion just opened; type again if Gradio mounted the field
    anew while the accordion opened (the typed value was once lost that way before a question)."""
    selector = f"{field} textarea, {field} input"
    for _ in range(3):
        page.fill(selector, value)
        page.wait_for_timeout(300)
        if page.input_value(selector) == value:
            return
    raise AssertionError(f"{field} does not keep {value!r}")


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"app-{name}.png"), full_page=True)


def test_upload_browse_and_ask_with_a_tiny_vlm(page, shared: Path, tiny_cot_vlm: Path) -> None:
    page.set_input_files("#upload input[type=file]", str(shared / "papers" / PAPER))
    page.wait_for_selector("#gallery img")
    page.wait_for_function("document.querySelectorAll('#gallery img').length >= 10")
    wait_for_text(page, "#chat", "Ask a question")  # indexed
    assert "10 pages, 4 figures, 6 tables" in page.inner_text("#paper-status")
    shot(page, "1-loaded")

    page.locator("#gallery img").nth(1).click()
    page.wait_for_selector("#page-view img")
    assert "Mentioned in the text" in page.inner_text("#figure-detail")
    shot(page, "2-figure-on-page")

    page.click("#settings")
    page.get_by_label("CoT: pick the most helpful figure, then answer").check()  # SPIQA's task (the reader's is the default)
    page.get_by_label("Local model (transformers)").check()
    fill_setting(page, "#model", str(tiny_cot_vlm))
    page.fill("#question textarea", "Which model is best on Kinetics?")
    page.keyboard.press("Enter")
    page.wait_for_selector("#chat img")
    wait_for_text(page, "#chat", "chosen by the model")
    chat = page.inner_text("#chat")
    assert "Which model is best on Kinetics?" in chat
    assert "Yes" in chat and "Image 1 shows the results" in chat, chat
    assert "Shortlist: 8 candidates" in chat
    assert page.locator("#chat img").count() == 1
    shot(page, "3-answer")


def test_spiqa_check_in_the_browser(page, grnet_pdf: Path, tiny_llama: Path) -> None:
    page.set_input_files("#upload input[type=file]", str(grnet_pdf))
    page.wait_for_selector("#spiqa-check", state="visible")
    wait_for_text(page, "#chat", "Ask a question")
    assert "SPIQA test-A" in page.inner_text("#spiqa-header")
    page.click("text=L3Score judge")
    fill_setting(page, "#judge-model", str(tiny_llama))
    page.locator("#spiqa-questions button, #spiqa-questions tr, #spiqa-questions td").filter(has_text="PaSC").first.click()
    wait_for_text(page, "#spiqa-result", "L3Score judge")
    result = page.inner_text("#spiqa-result")
    assert "SPDNet" in result and "ROUGE-L" in result and str(tiny_llama) in result, result
    page.wait_for_selector("#spiqa-reference img")  # the same update as the result; the image mounts a moment later
    assert page.locator("#spiqa-reference img").count() == 1
    shot(page, "4-spiqa-check")


def test_error_analysis_tab(page, shared: Path) -> None:
    from spiqa_demo.evaluation import read_results
    from spiqa_demo.evaluation.comparison import compare_files, judge_file

    files = [f"test-C_{name}_cot_image+caption_size_full.json" for name in ("GPT4_QA__gpt4o", "Gemini_QA__gemini_1-5")]
    judged = [judge_file(name, read_results(shared / "spiqa" / "test-C-responses" / name).records) for name in files]
    a_only = compare_files(*judged).counts["a_only_right"]
    page.click("button[role=tab]:has-text('Error analysis')")
    page.click("#results-file")
    page.click("li:has-text('test-C_GPT4_QA__gpt4o_cot_image+caption_size_full.json')")
    wait_for_text(page, "#results-summary", "493 questions")
    assert "answers right" in page.inner_text("#results-summary")
    page.click("#results-table [data-testid='cell-2-4']")
    wait_for_text(page, "#results-detail", "Raw response")
    detail = page.inner_text("#results-detail")
    assert "Ground truth" in detail and "retrieval" in detail and "Verdict:" in detail
    shot(page, "5-error-analysis")

    # Side by side with Gemini 1.5: filter the questions GPT-4o gets right and Gemini wrong, open one, export them.
    page.click("text=Compare with a second result file")
    page.click("#results-file-b")
    page.click("li:has-text('test-C_Gemini_QA__gemini_1-5_cot_image+caption_size_full.json')")
    wait_for_text(page, "#compare-verdict", "493 shared questions")
    wait_for_text(page, "#compare-count", "493 of 493")
    page.wait_for_selector("#compare-outcome input[value='(all)']:checked")  # the comparison's reset of the filter is in
    page.click("#compare-outcome label:has-text('right in A, wrong in B')")
    wait_for_text(page, "#compare-count", f"{a_only} of 493")
    checked = "#compare-outcome input:checked"
    assert page.locator(checked).get_attribute("value") == "right in A, wrong in B", page.locator(checked).get_attribute("value")
    page.wait_for_selector("#compare-table [data-testid='cell-0-4']")
    assert page.locator("#compare-table").inner_text().count("right in A, wrong in B") >= 1
    page.click("#compare-table [data-testid='cell-0-4']")
    wait_for_text(page, "#compare-detail", "Rationale")
    detail = page.inner_text("#compare-detail")
    assert "A: test-C_GPT4_QA" in detail and "B: test-C_Gemini_QA" in detail and "Ground truth" in detail, detail
    assert "right (" in detail and "wrong (" in detail
    wait_for_text(page, "#compare-figure-truth", "Ground truth")
    assert "No image or caption" in page.inner_text("#compare-figure-truth")  # ../shared has no SPIQA images: says where
    page.click("#export-csv")
    link = page.locator("#export-file a").first
    link.wait_for()
    with page.expect_download() as download:
        link.click()
    csv = Path(download.value.path()).read_text(encoding="utf-8")
    assert csv.count("right in A, wrong in B") == a_only and csv.startswith("paper,key,category,question,ground truth")
    page.wait_for_timeout(500)  # the progress overlay fades out
    assert page.locator(checked).get_attribute("value") == "right in A, wrong in B", page.locator(checked).get_attribute("value")
    page.locator("#compare-verdict").scroll_into_view_if_needed()
    shot(page, "6-compare")


def test_ask_while_loading_then_stop_a_slow_answer(page, grnet_pdf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_app_shared_use import PASC2

    from evalsuite.openai_listener import openai_listener
    from spiqa_demo.ui.serving.files import storage
    from spiqa_demo.ui.tabs.paper import chat

    # The load is held (in this process, where the app runs) until the question waits for it.
    reading, go_on = threading.Event(), threading.Event()
    accept_upload = storage.accept_upload

    def held(*args, **kwargs):
        reading.set()
        assert go_on.wait(TIMEOUT_MS / 1000), "the test never let the load go on"
        return accept_upload(*args, **kwargs)

    monkeypatch.setattr(storage, "accept_upload", held)
    # No grace for the upload's start: the question waits because the browser said the paper is
    # uploading (each mark is awaited below), however long the upload is held.
    monkeypatch.setattr(chat, "UPLOAD_GRACE_S", 0.0)
    uploads: list = []  # the browser's uploads, held: questions are asked while the file is on its way
    page.route(UPLOAD_URL, lambda route: uploads.append(route))

    def marked(response) -> bool:
        return "/run/" in response.url  # an upload mark's event (not queued), answered

    page.wait_for_selector("#upload[data-watched]", state="attached")  # the page's upload watch is on
    with page.expect_response(marked):  # "uploading"
        page.set_input_files("#upload input[type=file]", str(grnet_pdf))
    while not uploads:
        page.wait_for_timeout(50)  # (lets Playwright hand over the held request)
    with page.expect_response(marked):  # an upload that fails ends its mark
        uploads.pop().abort()
    page.fill("#question textarea", "Which method is best on HDM05?")
    page.keyboard.press("Enter")
    wait_for_text(page, "#chat", "Load a paper first")  # no upload in flight now: said at once
    page.locator("#question button", has_text="Ask").wait_for()

    with page.expect_response(marked):
        page.set_input_files("#upload input[type=file]", str(grnet_pdf))
    page.fill("#question textarea", "Which method is best on HDM05?")
    page.keyboard.press("Enter")
    wait_for_text(page, "#chat", chat.UPLOADING)  # the question waits for the held upload
    shot(page, "6b-asked-while-uploading")
    while not uploads:
        page.wait_for_timeout(50)
    uploads[0].continue_()
    page.unroute(UPLOAD_URL)
    assert reading.wait(TIMEOUT_MS / 1000), "the upload never started a load"
    wait_for_text(page, "#chat", "Waiting for the paper to be read")  # then for the held load
    go_on.set()
    # The app's first load also starts its reader processes, which takes long on a busy machine.
    wait_for_text(page, "#chat", "Evidence:", timeout_ms=4 * TIMEOUT_MS)  # the reader's answer, its evidence ranked
    assert "Load a paper first" not in page.inner_text("#chat")  # the first one's answer went with its paper's new chat
    page.locator("#question button", has_text="Ask").wait_for()  # its Stop came before its Ask, not after

    with openai_listener(answer_first=0) as slow:  # the reply never ends before the block does: Stop lands mid-stream
        allow_endpoint(monkeypatch, slow.url)
        page.click("#settings")
        page.get_by_label("CoT: pick the most helpful figure, then answer").check()
        page.get_by_label("OpenAI-compatible API").check()
        fill_setting(page, "#model", "m")
        fill_setting(page, "#base-url", slow.url)
        page.fill("#question textarea", PASC2)
        page.keyboard.press("Enter")
        wait_for_text(page, "#chat", "Rationale")
        page.locator("#question button", has_text="Stop").click()
        wait_for_text(page, "#chat", "(stopped)")
        page.locator("#question button", has_text="Ask").wait_for()
    chat = page.inner_text("#chat")
    assert "Rationale" in chat and "Waiting for the model" not in chat, chat
    shot(page, "7-stopped")


def test_an_uploads_start_mark_arriving_after_its_load_leaves_no_question_waiting(
        page, grnet_pdf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The upload watch's known risk, delivered in that order: the "uploading" mark (unqueued) is held
    until the upload's own load (queued) has made the paper ready; the next question is answered
    about the paper, where it once waited for an upload long over."""
    from spiqa_demo.ui.tabs.paper import chat

    monkeypatch.setattr(chat, "UPLOAD_GRACE_S", 0.0)
    marks: list = []  # the page's unqueued events while the start mark is held: that mark alone
    page.route(UNQUEUED_URL, lambda route: route.continue_() if marks else marks.append(route))
    page.wait_for_selector("#upload[data-watched]", state="attached")
    page.set_input_files("#upload input[type=file]", str(grnet_pdf))
    wait_for_text(page, "#chat", "Loaded")  # the upload's load began and ended while its start mark was held
    assert marks and marks[0].request.post_data_json["data"][1] == 1, "the page's first upload sent no start mark"
    with page.expect_response(lambda response: response.request == marks[0].request):
        marks[0].continue_()
    page.fill("#question textarea", "Which method is best on HDM05?")
    page.keyboard.press("Enter")
    wait_for_text(page, "#chat", "Evidence:")
    assert chat.UPLOADING not in page.inner_text("#chat")
    shot(page, "6c-late-upload-mark")


def test_a_question_with_no_paper_shows_at_once_what_it_waits_for(page, monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked before any paper, the question and "Looking for a paper…" show while it waits for word of an
    upload (held here by a long grace, ended by Stop), not a blank chat."""
    from spiqa_demo.ui.tabs.paper import chat

    monkeypatch.setattr(chat, "UPLOAD_GRACE_S", 600.0)
    page.fill("#question textarea", "What does Figure 1 show?")
    page.keyboard.press("Enter")
    wait_for_text(page, "#chat", chat.LOOKING)
    assert "What does Figure 1 show?" in page.inner_text("#chat") and "Waiting for a paper" in page.inner_text("#chat")
    shot(page, "6a-asked-with-no-paper")
    page.locator("#question button", has_text="Stop").click()
    page.locator("#question button", has_text="Ask").wait_for()
