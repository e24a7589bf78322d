"""The reader's conversation in headless Chromium (Playwright) on the in-process app, as a reader uses
it: ask, ask a follow-up (answered in context, "Read as" shown), open a cited passage on its page
(boxed), zoom in (the page larger, scrolling in its frame, still boxed) and step to the next page at
that zoom, export the chat and open the zip, download the gallery with its
index. Ask comes back after each answer, the chat follows the newest answer with a shortlist
expanded, no Share button says it cannot share, and the Across papers tab opens the model settings. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path

from app_harness import _served_app, app_url
from test_app_browser import PAPER, browser, page, pytestmark, shot, wait_for_text
from test_app_reader_chat_browser import SHOWN, suggestions_shown

from spiqa_demo.ui.shared.page_viewer import FIT_HEIGHT

__all__ = ["_served_app", "app_url", "browser", "page", "pytestmark"]  # fixtures and the Chromium skip, used by pytest

# The page image's and the box's places on screen once both are loaded and the page is `height` pixels
# high (any, when null), and whether the frame scrolls.
ZOOMED_PAGE = """(height) => { const [base, box] = ['img.base-image', 'img.mask'].map(s => document.querySelector('#page-view ' + s));
    const frame = document.querySelector('#page-view .image-container');
    if (!base?.complete || !box?.complete || (height && Math.abs(base.getBoundingClientRect().height - height) > 1)) return null;
    const [b, m] = [base, box].map(e => e.getBoundingClientRect());
    return {base: [b.x, b.y, b.width, b.height], box: [m.x, m.y, m.width, m.height],
            scrolls: frame.scrollHeight > frame.clientHeight}; }"""


def ask(page, question: str, answered: str) -> None:
    """Ask `question`; wait for `answered` in the chat and for the box's button to be Ask again."""
    page.fill("#question textarea", question)
    page.keyboard.press("Enter")
    wait_for_text(page, "#chat", answered)
    page.locator("#question button", has_text="Ask").wait_for()
    assert page.locator("#question button", has_text="Stop").count() == 0


def exported_chat(page, folder: Path) -> tuple[str, list[str]]:
    """Export the chat as a reader does (one click downloads it): its chat.md and the names in the zip."""
    with page.expect_download() as exported:
        page.click("#export-chat")
    exported.value.save_as(folder / "chat.zip")
    with zipfile.ZipFile(folder / "chat.zip") as archive:
        return archive.read("chat.md").decode("utf-8"), archive.namelist()


def test_a_conversation_with_its_evidence_on_the_page_and_exported(page, shared: Path, tmp_path: Path) -> None:
    page.set_input_files("#upload input[type=file]", str(shared / "papers" / PAPER))
    wait_for_text(page, "#chat", "follow-up questions are read in the context of the chat", timeout_ms=4 * 90_000)
    ask(page, "Which model is best on Kinetics?", "Evidence:")
    page.locator("#chat").get_by_text("Evidence:").first.click()  # the shortlist expanded
    ask(page, "and on Charades?", "Read as")
    chat = page.inner_text("#chat")
    assert "Which model is best on Charades?" in chat and "Table 4 · page 8" in chat, chat
    page.wait_for_function(SHOWN)  # the newest answer is in view, from its first line
    assert page.locator("#chat button[title=Share]:visible").count() == 0  # Gradio draws it on every image
    shot(page, "reader-1-follow-up")

    cited = page.locator("#chat .message", has_text="select to open its page").last  # the cited passage
    where = int(re.search(r"(?:— page|Passage · page) (\d+)", cited.inner_text()).group(1))  # quoted here or in the answer
    cited.click()
    page.wait_for_selector("#page-view img")
    wait_for_text(page, "#figure-detail", f"Passage · page {where}")
    assert "Charades" in page.inner_text("#figure-detail")
    wait_for_text(page, "#page-view", "cited passage")  # the box's label on the page
    shot(page, "reader-2-passage-on-its-page")
    wait_for_text(page, "#zoom-level", "Zoom 100 %")
    for zoom in (125, 150):
        page.click("#zoom-in")
        wait_for_text(page, "#zoom-level", f"Zoom {zoom} %")
    zoomed = page.wait_for_function(ZOOMED_PAGE, arg=FIT_HEIGHT * 1.5).json_value()
    assert zoomed["box"] == zoomed["base"] and zoomed["scrolls"], zoomed  # the box's layer lies on the page
    wait_for_text(page, "#page-view", "cited passage")
    shot(page, "reader-3-passage-zoomed-in")
    page.click("#page-view button[title=Fullscreen]")
    page.wait_for_selector("#page-view.fullscreen")
    full = page.wait_for_function(ZOOMED_PAGE, arg=None).json_value()
    assert full["box"] == full["base"] and full["base"][2] > zoomed["base"][2], full  # wider, the box still on it
    page.click("#page-view button[title='Exit fullscreen mode']")
    page.wait_for_selector("#page-view.fullscreen", state="detached")
    page.click("#next-page")
    wait_for_text(page, "#page-number", f"Page {where + 1} of 10")
    wait_for_text(page, "#figure-detail", f"boxed on page {where}")
    assert page.locator("#page-view.zoom-150").count() == 1 and "Zoom 150 %" in page.inner_text("#zoom-level")

    markdown, names = exported_chat(page, tmp_path)
    assert "## 2. and on Charades?" in markdown and "*Read as:* Which model is best on Charades?" in markdown, markdown
    assert f"> — page {where}" in markdown and "![Table 4](figures/table-4.png)" in markdown and "figures/table-4.png" in names

    with page.expect_download() as gallery:
        page.click("#download-all")
    gallery.value.save_as(tmp_path / "gallery.zip")
    with zipfile.ZipFile(tmp_path / "gallery.zip") as archive:
        index = list(csv.DictReader(io.StringIO(archive.read("index.csv").decode("utf-8"))))
        assert {row["label"] for row in index} >= {"Figure 1", "Table 3"} and all(row["file"] in archive.namelist() for row in index)
    assert next(row for row in index if row["label"] == "Table 3")["page"] == "7"

    assert "At a glance:" in page.inner_text("#paper-overview")  # the start on the paper, and a suggestion asked by a click
    suggested = page.locator("#suggested-questions tbody tr").first
    asked, gist = suggestions_shown(page)[0]  # the question whole, with its item's caption gist; the question is what is asked
    assert asked.endswith("?") and gist and not gist.endswith(("...", "…")) and len(gist) <= 60, (asked, gist)
    suggested.click()
    page.wait_for_function("(q) => document.querySelector('#chat').innerText.split(q).length > 1 && "
                           "document.querySelector('#chat').innerText.split(q).pop().includes('Evidence:')", arg=asked)
    page.locator("#question button", has_text="Ask").wait_for()
    shot(page, "reader-4-suggested-question")

    page.click("button[role=tab]:has-text('Across papers')")  # its model settings are one click away
    page.click("#across-settings")
    page.wait_for_selector("#model textarea, #model input", state="visible")
