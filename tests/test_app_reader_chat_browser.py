"""The reader's chat in headless Chromium on the in-process app, with and without a model (a loopback
OpenAI-compatible listener), one page through one story: an empty question is told in a bubble of its
own; a follow-up's answer is shown once, under "Read as"; maths renders and an injected image stays
text; the paper's "not found" is said as such with its best evidence; a stopped answer is exported
marked "(stopped)" with every other turn, in one click, and a later export is a fresh file; with the
model server down a standalone question says nothing of a rewrite; a rejected file's message ends its
sentence; a second paper starts clean (no gallery selection, no zoom controls) and offers the previous
chat's export. Then a phone's viewport. With a model chosen before a paper is loaded, the start
gains the model's three-sentence summary citing pages, written into the chat; Stop while it is
written closes the model's request (a loopback listener that sends each piece only when the test
releases it sees the hang-up and sends nothing more), and so does a question asked meanwhile (one asked
before the summary began is answered instead of it); Stop
while a model server still holds its reply's headers hangs up as well. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import re
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from app_harness import _served_app, grnet_pdf, reconfigure
from test_app_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS, fill_setting, pytestmark, shot, wait_for_text

from evalsuite.openai_listener import Listener, openai_listener

__all__ = ["_served_app", "grnet_pdf", "pytestmark"]  # fixtures and the Chromium skip, used by pytest

FIRST = "Which method performs best on PaSC2?"
FOLLOW_UP = "and on AFEW?"
READ_AS = "Which method performs best on AFEW?"
ANSWER = "GrNet-2Blocks ties SPDNet on AFEW at 34.23 [Table 1]"
MATHS = r"with accuracy $\alpha < 0.5$ and \[ \sum_{i=1}^{n} x_i \]"
PIXEL = "/pixel.png"  # an image a reply asks for: nothing may fetch it
HELD = "Which variant converges fastest?"
NOT_SAID = "How many GPUs were used?"
HDM05 = "Which method is best on HDM05?"
SUMMARY = ("GrNet learns on Grassmann manifolds [p. 1]. It stacks projection and pooling blocks [p. 1]. "
           "It matches SPDNet on AFEW [p. 2].")

# The chat's bubbles as a reader sees them (Gradio groups a role's consecutive messages in one).
BUBBLES = "() => [...document.querySelectorAll('#chat .message-row')].map(e => e.innerText)"


def reply(request: dict[str, Any]) -> str:
    """The loopback model: a rewrite request gets the standalone question, an answer request the
    cited answer with maths and an injected image."""
    text = json.dumps(request)
    if "Standalone question:" in text:
        return READ_AS
    return f"{ANSWER} {MATHS} ![x]({{url}}{PIXEL})"


@pytest.fixture(scope="module")
def app(_served_app: tuple[str, dict[str, str]]) -> Iterator[str]:
    url, environment = _served_app
    with pytest.MonkeyPatch.context() as patch:
        reconfigure(patch, **environment)
        yield url


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_app(chromium: Any, url: str, width: int, height: int) -> Any:
    context = chromium.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    tab.goto(url)
    tab.wait_for_selector("#upload")
    return tab


def ask(page: Any, question: str, answered: str) -> None:
    page.fill("#question textarea", question)
    page.keyboard.press("Enter")
    wait_for_text(page, "#chat", answered)
    page.locator("#question button", has_text="Ask").wait_for()


def export(page: Any, folder: Path, name: str) -> str:
    """One click on Export downloads the chat's zip; its chat.md."""
    with page.expect_download() as exported:
        page.click("#export-chat")
    exported.value.save_as(folder / name)
    with zipfile.ZipFile(folder / name) as archive:
        return archive.read("chat.md").decode("utf-8")


def upload(page: Any, pdf: Path) -> None:
    """Upload `pdf` as a reader does once a file is shown: clear the box, then drop the file in."""
    clear = page.locator("#upload button[aria-label='Clear']")
    if clear.count():
        clear.click()
    page.set_input_files("#upload input[type=file]", str(pdf))


def use_model(page: Any, listener: Listener, patch: pytest.MonkeyPatch) -> None:
    reconfigure(patch, SPIQA_UI_VISITOR_ENDPOINTS=f"any, {listener.url}")
    if not page.locator("#base-url").is_visible():
        page.click("#settings")
    page.get_by_label("OpenAI-compatible API").check()
    fill_setting(page, "#model", "m")
    fill_setting(page, "#base-url", listener.url)


@pytest.fixture(scope="module")
def second_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second, one-page paper with one figure."""
    from evalsuite.pdf_factory import Caption, LinePlot, PaperWriter, Prose

    w, prose = PaperWriter(columns=1), Prose(11)
    w.title("Convergence of Small Networks", "A. Reader")
    w.heading("1. Results")
    w.paragraph(prose.sentences(6) + ["Figure 1 shows the training loss."])
    w.figure(LinePlot(seed=2, series=("small", "large")), Caption("figure", "1", "Training loss of both networks.", "Figure {n}:"),
             case="loss curves")
    return w.save(tmp_path_factory.mktemp("second") / "second.pdf").path


def test_a_readers_chat_with_and_without_a_model(app: str, chromium: Any, grnet_pdf: Path, second_pdf: Path,
                                                 tmp_path: Path) -> None:
    page = open_app(chromium, app, 1440, 900)
    page.set_input_files("#upload input[type=file]", str(grnet_pdf))
    wait_for_text(page, "#chat", "follow-up questions are read in the context", timeout_ms=4 * TIMEOUT_MS)

    ask(page, FIRST, "Evidence:")
    page.fill("#question textarea", " ")
    page.keyboard.press("Enter")
    wait_for_text(page, "#chat", "The question is empty")
    bubbles = page.evaluate(BUBBLES)
    assert "The question is empty" in bubbles[-1] and "SPDNet" not in bubbles[-1], bubbles  # a bubble of its own
    ask(page, "What batch size was used?", "batch size of 64")
    assert page.inner_text("#chat").count("batch size of 64") == 1, page.inner_text("#chat")  # the quote is said once
    ask(page, NOT_SAID, "does not seem to say")
    shot(page, "reader-chat-1-not-found")

    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url) if PIXEL in request.url else None)
    patch = pytest.MonkeyPatch()  # the loopback endpoint stays allowed, after it closes too
    with openai_listener(reply=lambda r: reply(r).replace("{url}", model.url), answer_first=2) as model:
        use_model(page, model, patch)
        ask(page, FOLLOW_UP, "Read as")  # the rewrite and the answer: the first two requests
        chat = page.inner_text("#chat")
        assert chat.count("ties SPDNet on AFEW") == 1, chat  # shown once, under "Read as"
        assert chat.index("Read as") < chat.index("ties SPDNet on AFEW"), chat
        assert page.locator("#chat .katex").count() >= 2 and "&#91;" not in chat, chat  # inline and display maths
        shot(page, "reader-chat-2-follow-up-with-maths")

        page.fill("#question textarea", HELD)  # held by the listener until Stop
        page.keyboard.press("Enter")
        assert model.held.wait(TIMEOUT_MS / 1000)
        page.wait_for_function("() => document.querySelector('#chat').innerText.split('ties SPDNet on AFEW').length > 2")
        page.locator("#question button", has_text="Stop").click()
        wait_for_text(page, "#chat", "(stopped)")
        page.locator("#question button", has_text="Ask").wait_for()
    assert not fetched, fetched  # the reply's image stayed text

    markdown = export(page, tmp_path, "first.zip")
    assert markdown.count("\n## ") == 5 and f"## 5. {HELD} (stopped)" in markdown, markdown
    assert "## 4. and on AFEW?" in markdown and f"*Read as:* {READ_AS}" in markdown, markdown

    ask(page, "Which method is best on HDM05?", "could not answer")  # the model server is down now
    turn = page.inner_text("#chat").split("best on HDM05?")[-1]
    assert "rewrite" not in turn and "could not answer" in turn, turn
    markdown = export(page, tmp_path, "second.zip")
    assert "## 6. Which method is best on HDM05?" in markdown, markdown  # a fresh file, never the first
    shot(page, "reader-chat-3-exported")

    not_pdf = tmp_path / "notes.pdf"
    not_pdf.write_text("just some notes, not a PDF")
    upload(page, not_pdf)
    wait_for_text(page, "#paper-status", "still answered")
    assert re.search(r"not a PDF file\. Questions are still answered", page.inner_text("#paper-status"))

    page.locator("#gallery img").nth(1).click()
    page.wait_for_selector("#page-view img")
    page.wait_for_selector("#zoom-controls", state="visible")
    upload(page, second_pdf)
    wait_for_text(page, "#paper-status", "Convergence of Small Networks")
    wait_for_text(page, "#chat", "follow-up questions are read in the context")
    page.wait_for_selector("#zoom-controls", state="hidden")
    assert page.locator("#gallery .thumbnail-item.selected").count() == 0
    assert "Your chat about “Building Deep Networks" in page.inner_text("#export-file")
    shot(page, "reader-chat-4-second-paper")
    with page.expect_download() as previous:
        page.locator("#export-file a").first.click()
    previous.value.save_as(tmp_path / "previous.zip")
    with zipfile.ZipFile(tmp_path / "previous.zip") as archive:
        assert "## 6. Which method is best on HDM05?" in archive.read("chat.md").decode("utf-8")
    patch.undo()
    page.close()


def test_the_chat_on_a_phone(app: str, chromium: Any, grnet_pdf: Path) -> None:
    page = open_app(chromium, app, 390, 844)
    page.set_input_files("#upload input[type=file]", str(grnet_pdf))
    wait_for_text(page, "#chat", "follow-up questions are read in the context", timeout_ms=4 * TIMEOUT_MS)
    ask(page, NOT_SAID, "does not seem to say")
    page.fill("#question textarea", "")
    page.keyboard.press("Enter")
    wait_for_text(page, "#chat", "The question is empty")
    assert "The question is empty" in page.evaluate(BUBBLES)[-1]
    chat, question, overview = (page.locator(s).bounding_box() for s in ("#chat", "#question", "#paper-overview"))
    assert overview["y"] < chat["y"] and 0 <= question["y"] - (chat["y"] + chat["height"]) < 60, (overview, chat, question)
    page.locator("#chat").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "app-reader-chat-5-phone.png"))
    assert "The paper in three sentences" not in page.inner_text("#chat")  # no model: the overview alone
    page.close()


def test_a_summary_on_load_with_a_model_and_stopped(app: str, chromium: Any, grnet_pdf: Path, second_pdf: Path) -> None:
    page = open_app(chromium, app, 1440, 900)
    patch = pytest.MonkeyPatch()
    with openai_listener(reply=lambda request: SUMMARY) as model:
        use_model(page, model, patch)
        page.set_input_files("#upload input[type=file]", str(grnet_pdf))
        wait_for_text(page, "#chat", "[p. 2]", timeout_ms=4 * TIMEOUT_MS)
        page.locator("#question button", has_text="Ask").wait_for()
        assert len(model.requests) == 1 and model.saw("Summarise this scientific paper") and model.saw("Summary:")
    chat = page.inner_text("#chat")
    assert chat.count("matches SPDNet on AFEW [p. 2]") == 1 and "The paper in three sentences" in chat, chat
    assert page.locator("#paper-overview").is_visible()  # the overview and the suggestions stay under the chat
    shot(page, "reader-chat-6-summary")

    with openai_listener(paced=True, chunks=40) as model:  # the first piece, then one per release
        use_model(page, model, patch)
        upload(page, second_pdf)
        page.locator("#question button", has_text="Stop").wait_for()
        model.release(1)
        wait_for_text(page, "#chat", "The answer is")  # the second piece, on screen
        model.mark_stop()
        page.locator("#question button", has_text="Stop").click()
        assert model.disconnected.wait(30), "the summary's model request stayed open after Stop"
        assert model.sent_after_stop == 0
        wait_for_text(page, "#chat", "(stopped)")
        page.locator("#question button", has_text="Ask").wait_for()
    assert "Convergence of Small Networks" in page.inner_text("#paper-status")
    shot(page, "reader-chat-7-summary-stopped")

    with openai_listener(paced=True, chunks=40) as model:  # a question asked while the summary is written stops it
        use_model(page, model, patch)
        upload(page, grnet_pdf)
        wait_for_text(page, "#paper-status", "Grassmann")
        wait_for_text(page, "#chat", "Rationale")  # the summary's first piece, in the new paper's chat
        page.fill("#question textarea", FIRST)
        page.keyboard.press("Enter")
        assert model.disconnected.wait(30), "the summary's model request stayed open after a question"
        model.go.set()  # the question's answer is written whole
        assert model.finished.wait(60)
        page.locator("#question button", has_text="Ask").wait_for()
        wait_for_text(page, "#chat", "Evidence:")
        assert len(model.requests) == 2 and "(stopped)" in page.inner_text("#chat")
    patch.undo()
    page.close()


def test_stop_before_the_model_servers_headers(app: str, chromium: Any, grnet_pdf: Path) -> None:
    """A model server that sends not even its reply's headers (slow, or queued): Stop hangs up its
    request at once, and the next question, to a server that answers, is answered while the first
    server still holds its reply (a first-byte limit of 600 s would otherwise keep the session's
    one model call busy)."""
    page = open_app(chromium, app, 1440, 900)
    page.set_input_files("#upload input[type=file]", str(grnet_pdf))
    wait_for_text(page, "#chat", "follow-up questions are read in the context", timeout_ms=4 * TIMEOUT_MS)
    patch = pytest.MonkeyPatch()
    answer = "SPDNet is best on HDM05 [Table 1]"
    with openai_listener(answer_first=0, silent=True) as holding, \
            openai_listener(reply=lambda r: HDM05 if "Standalone question:" in json.dumps(r) else answer) as answering:
        reconfigure(patch, SPIQA_MODEL_FIRST_BYTE_TIMEOUT_S="600")
        use_model(page, holding, patch)
        page.fill("#question textarea", FIRST)
        page.keyboard.press("Enter")
        assert holding.held.wait(TIMEOUT_MS / 1000)  # the request is in, its headers held
        page.locator("#question button", has_text="Stop").click()
        assert holding.disconnected.wait(30), "the model request stayed open after Stop"
        wait_for_text(page, "#chat", "Stopped")  # nothing was written: the turn's status says it
        page.locator("#question button", has_text="Ask").wait_for()

        use_model(page, answering, patch)
        ask(page, HDM05, answer)
        assert not holding.go.is_set() and len(holding.requests) == 1  # asked once, never retried
        shot(page, "reader-chat-8-stopped-before-headers")
    patch.undo()
    page.close()


def test_a_question_asked_as_the_paper_becomes_ready_goes_before_the_summary(app: str, chromium: Any, grnet_pdf: Path) -> None:
    """The summary's handler is held (in this process, where the app runs) after it found no question
    being answered, while the reader asks: the question is answered, and the summary, starting after
    it, gives way instead of stopping it."""
    from spiqa_demo.ui.tabs.paper import start

    summary_checked, go_on = threading.Event(), threading.Event()
    resolve_backend = start.resolve_backend

    def held(*args: Any) -> Any:
        summary_checked.set()
        assert go_on.wait(TIMEOUT_MS / 1000), "the test never let the summary go on"
        return resolve_backend(*args)

    page = open_app(chromium, app, 1440, 900)
    patch = pytest.MonkeyPatch()
    patch.setattr(start, "resolve_backend", held)
    with openai_listener(answer_first=0) as model:  # the answer's first piece, then dots until go
        use_model(page, model, patch)
        page.set_input_files("#upload input[type=file]", str(grnet_pdf))
        assert summary_checked.wait(4 * TIMEOUT_MS / 1000)
        page.fill("#question textarea", FIRST)
        page.keyboard.press("Enter")
        assert model.held.wait(TIMEOUT_MS / 1000)  # the question's answer is being written
        go_on.set()
        wait_for_text(page, "#chat", "Rationale")
        model.go.set()
        assert model.finished.wait(TIMEOUT_MS / 1000)
        page.locator("#question button", has_text="Ask").wait_for()
        wait_for_text(page, "#chat", "Evidence:")
    chat = page.inner_text("#chat")
    assert "Stopped" not in chat and "The paper in three sentences" not in chat and len(model.requests) == 1, chat
    shot(page, "reader-chat-9-question-before-summary")
    patch.undo()
    page.close()


# The reader's pass: where things are on screen once a paper is loaded and a question answered.
# The newest answer's first line (the first message after the newest question that is no collapsed thought) lies
# in the chat's visible part and in the window; and whether the chat is scrolled to its end.
ANSWER_START = """() => { const wrap = document.querySelector('#chat .bubble-wrap'); if (!wrap) return null;
    const rows = [...wrap.querySelectorAll('.message-row')], asked = rows.map(r => r.classList.contains('user-row')).lastIndexOf(true);
    const answer = rows.slice(asked + 1).flatMap(r => [...r.querySelectorAll('.message.panel-full-width')])
        .find(m => !m.querySelector('.thought-group'));
    if (asked < 0 || !answer) return null;
    const w = wrap.getBoundingClientRect(), a = answer.getBoundingClientRect(), line = 20;
    return {shown: a.top >= w.top && a.top + line <= w.bottom && a.top >= 0 && a.top + line <= innerHeight,
            at_end: wrap.scrollHeight - wrap.scrollTop - wrap.clientHeight < 2}; }"""
# Per block, whether its label's bottom lies above its content's top (null: not on the page).
LABELS_CLEAR = """(pairs) => Object.fromEntries(pairs.map(([block, content]) => {
    const label = document.querySelector(block + ' label[data-testid=block-label]'), under = document.querySelector(block + ' ' + content);
    return [block, label && under ? label.getBoundingClientRect().bottom <= under.getBoundingClientRect().top + 0.5 : null]; }))"""
SHOWN = f"() => {{ const r = ({ANSWER_START})(); return r?.shown ? r : null; }}"  # waited for: the chat places it
IN_WINDOW = """(selector) => { const r = document.querySelector(selector)?.getBoundingClientRect();
    return !!r && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; }"""
BLOCKS = [["#chat", ".bubble-wrap"], ["#gallery", ".grid-wrap"], ["#page-view", ".image-container"]]


def suggestions_shown(page: Any) -> list[list[str]]:
    """The suggested questions' rows as the reader sees them: (what is asked, what it is about)."""
    return page.eval_on_selector_all("#suggested-questions tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))")


def test_a_readers_pass_at_a_desktop_and_a_phone(app: str, chromium: Any, grnet_pdf: Path, second_pdf: Path) -> None:
    """Once a paper is ready the question box is in the window; no block label lies over its block's content;
    the suggestions are whole and of more than one kind; after an answer citing a figure, the chat shows that
    answer from its first line; a new paper's page opens at the default zoom. Then the same on a phone."""
    page = open_app(chromium, app, 1366, 800)
    page.set_input_files("#upload input[type=file]", str(grnet_pdf))
    wait_for_text(page, "#chat", "follow-up questions are read in the context", timeout_ms=4 * TIMEOUT_MS)
    page.wait_for_function(IN_WINDOW, arg="#question")  # scrolled there once the paper is ready
    rows = suggestions_shown(page)
    asked = [row[0] for row in rows]
    assert len(set(asked)) == len(asked) >= 3 and all(q.endswith("?") for q in asked), rows
    assert any("Table" in q for q in asked) and any("Figure" in q for q in asked), rows  # a table's and a figure's
    assert all(len(cell) <= 60 and not cell.endswith(("...", "…")) for row in rows for cell in row), rows  # whole
    ask(page, "What does Figure 1 show?", "Evidence:")
    page.wait_for_function(SHOWN)
    page.locator("#gallery img").first.click()
    page.wait_for_selector("#page-view img")
    clear = page.evaluate(LABELS_CLEAR, BLOCKS)
    assert all(clear.values()), clear
    shot(page, "reader-chat-10-desktop-pass")
    page.click("#zoom-in")
    wait_for_text(page, "#zoom-level", "Zoom 125 %")
    upload(page, second_pdf)
    wait_for_text(page, "#chat", "Convergence of Small Networks")
    page.locator("#gallery img").first.click()
    wait_for_text(page, "#zoom-level", "Zoom 100 %")  # the new paper's page at the default zoom
    assert page.locator("#page-view.zoom-100").count() == 1
    page.close()

    page = open_app(chromium, app, 390, 844)
    page.set_input_files("#upload input[type=file]", str(grnet_pdf))
    wait_for_text(page, "#chat", "follow-up questions are read in the context", timeout_ms=4 * TIMEOUT_MS)
    page.locator("#gallery").scroll_into_view_if_needed()
    clear = page.evaluate(LABELS_CLEAR, BLOCKS[:2])
    assert all(clear.values()), clear
    ask(page, "What does Figure 1 show?", "Evidence:")
    placed = page.wait_for_function(SHOWN).json_value()
    assert not placed["at_end"], placed  # the answer's start, not the bottom of its figure
    chat, question = (page.locator(s).bounding_box() for s in ("#chat", "#question"))
    assert 0 <= question["y"] - (chat["y"] + chat["height"]) < 60, (chat, question)  # the box right under the chat
    shot(page, "reader-chat-11-phone-pass")
    page.close()
