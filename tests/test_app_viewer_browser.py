"""The paper beside the chat, in headless Chromium (Playwright) on the in-process app, at a desktop's
1440x900 and a phone's 390x844: a citation clicked in the chat puts its page, and the box on it, in
the viewport (the page's frame scrolled to the box, also when zoomed in); on the phone the viewer opens
over the chat and "Back to chat" returns to it. Each check waits for the mark the viewer leaves once it
has scrolled to a box (`data-revealed` on the page view), then measures where the box is on screen.
The page's text is selectable on both: a reader drags over a line, then over three, and the browser's
selection holds the PDF's words of that page, spaced as printed, the boxes still drawn under it.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from app_harness import _served_app, reconfigure
from test_app_browser import ARTIFACTS, PAPER, TIMEOUT_MS, browser, pytestmark, wait_for_text

__all__ = ["_served_app", "browser", "pytestmark"]  # fixtures and the Chromium skip, used by pytest

# The text layer's lines of the page view `selector` that are wholly in view (inside the page's frame and the
# viewport), with their place on screen and their text; null until the layer is laid over the image shown.
LINES_IN_VIEW = """(selector) => {
    const view = document.querySelector(selector), img = view?.querySelector('img.base-image');
    const layer = view?.querySelector('.text-layer'), frame = view?.querySelector('.image-container');
    if (!img || !layer || !img.src.includes(layer.dataset.image)) return null;
    const f = frame.getBoundingClientRect(), i = img.getBoundingClientRect();
    const seen = [Math.max(0, f.left), Math.max(0, f.top), Math.min(innerWidth, f.right), Math.min(innerHeight, f.bottom)];
    // The printed place, in the image's pixels, on screen: the page drawn in the image's box, fitted (object-fit: contain).
    const s = Math.min(i.width / img.naturalWidth, i.height / img.naturalHeight), left = i.left + (i.width - s * img.naturalWidth) / 2;
    const lines = [...layer.querySelectorAll('span')].map((line, index) => {
        const r = line.getBoundingClientRect(), x0 = Number(line.style.left.match(/([\\d.]+)px/)[1]);
        return {index, text: line.textContent, rect: [r.left, r.top, r.right, r.bottom], color: getComputedStyle(line).color,
                printed: [left + s * x0, left + s * (x0 + Number(line.dataset.width))]};
    }).filter(l => l.rect[0] >= seen[0] && l.rect[1] >= seen[1] && l.rect[2] <= seen[2] && l.rect[3] <= seen[3]);
    return {lines, image: [i.left, i.top, i.right, i.bottom], natural: [img.naturalWidth, img.naturalHeight],
            boxes: view.querySelectorAll('img.mask').length}; }"""

# Where the page view's box is on screen, and what of it is in view: the viewport and the page's frame
# both clip it. Null until the viewer has scrolled its frame to the box it was told about (`focus`).
BOX_ON_SCREEN = """() => {
    const view = document.querySelector('#page-view'), img = view?.querySelector('img.base-image');
    const frame = view?.querySelector('.image-container'), focus = document.querySelector('#page-focus textarea')?.value;
    if (!img || !frame || !focus || view.dataset.revealed !== focus) return null;
    const [x0, y0, x1, y1] = focus.split(' ').slice(1).map(Number), i = img.getBoundingClientRect(), f = frame.getBoundingClientRect();
    const s = i.height / img.naturalHeight, box = [i.left + s * x0, i.top + s * y0, i.left + s * x1, i.top + s * y1];
    const seen = [Math.max(0, f.left), Math.max(0, f.top), Math.min(innerWidth, f.right), Math.min(innerHeight, f.bottom)];
    const [cx, cy] = [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2], top = document.elementFromPoint(cx, cy);
    return {box, seen, frame: [f.left, f.top, f.right, f.bottom], viewport: [innerWidth, innerHeight],
            on_top: !!top && !!top.closest('#page-view')}; }"""


@pytest.fixture(scope="module")
def app(_served_app: tuple[str, dict[str, str]]) -> Iterator[str]:
    """The app's URL, its settings those it was started with while this module's tests run."""
    url, environment = _served_app
    with pytest.MonkeyPatch.context() as monkeypatch:
        reconfigure(monkeypatch, **environment)
        yield url


def _reader(browser, url: str, shared: Path, width: int, height: int):
    """A reader's tab at `width` x `height` with the paper loaded and one question answered with citations."""
    context = browser.new_context(viewport={"width": width, "height": height})
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    tab.goto(url)
    tab.set_input_files("#upload input[type=file]", str(shared / "papers" / PAPER))
    wait_for_text(tab, "#chat", "follow-up questions are read in the context of the chat", timeout_ms=4 * 90_000)
    tab.fill("#question textarea", "Which model is best on Kinetics?")
    tab.keyboard.press("Enter")
    wait_for_text(tab, "#chat", "Evidence:")
    tab.locator("#question button", has_text="Ask").wait_for()
    # The cited passage every test here clicks: a wait that, if it times out, says what the chat shows instead
    # (a clean-clone run once found no such message after the answer; cause not found).
    wait_for_text(tab, "#chat", "select to open its page")
    return context, tab


def _box_in_view(tab) -> dict:
    """Where the box is, once the viewer has scrolled to it; asserts all of it is in view (a box taller than
    what is seen may be cut, but then it fills the view) and that nothing lies over it."""
    where = tab.wait_for_function(BOX_ON_SCREEN, timeout=30_000).json_value()
    box, seen = where["box"], where["seen"]
    tall, wide = box[3] - box[1] > seen[3] - seen[1], box[2] - box[0] > seen[2] - seen[0]
    assert (wide or (box[0] >= seen[0] - 1 and box[2] <= seen[2] + 1)) and (tall or (box[1] >= seen[1] - 1 and box[3] <= seen[3] + 1)), where
    assert where["frame"][1] >= -1 and where["frame"][3] <= where["viewport"][1] + 1, where  # the whole frame in view
    assert where["on_top"], where
    return where


def shot(tab, name: str) -> None:
    """What the reader sees: the viewport, not the whole page (the phone's viewer is laid over it)."""
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"app-{name}.png"))


def page_words(pdf: Path, page: int) -> set[str]:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        return {word[4] for word in doc[page - 1].get_text("words")}


def _drag(tab, start: list[float], end: list[float]) -> str:
    """Press at `start`, drag to `end` and let go, as a reader selects; what the browser holds selected."""
    tab.evaluate("() => window.getSelection().removeAllRanges()")
    tab.mouse.move(*start)
    tab.mouse.down()
    tab.mouse.move(*end, steps=8)
    tab.mouse.up()
    return tab.evaluate("() => window.getSelection().toString()")


def _select_text(tab, shared: Path) -> None:
    """`select_text` in the viewer, on the page of the paper it shows."""
    page = int(tab.locator("#page-number").inner_text().split()[1])
    select_text(tab, "#page-view", page_words(shared / "papers" / PAPER, page))


def select_text(tab, view: str, words: set[str]) -> None:
    """Select one printed line, then three, on the page shown in `view`: the selection is of the page's
    `words` (a word glued to the next line's, or text of another page, is not one of them); the layer's
    text is invisible."""
    shown = tab.wait_for_function(f"(view) => ({LINES_IN_VIEW})(view)?.lines.length > 3 && ({LINES_IN_VIEW})(view)",
                                  arg=view, timeout=30_000).json_value()
    lines = [line for line in shown["lines"] if len(line["text"].split()) >= 4]
    assert lines, shown
    assert all(line["color"] == "rgba(0, 0, 0, 0)" for line in shown["lines"]), shown["lines"][:3]  # nothing drawn twice
    assert shown["boxes"] >= 1  # the evidence is still boxed
    for line in shown["lines"]:  # each line lies where it is printed, at this zoom
        assert abs(line["rect"][0] - line["printed"][0]) <= 1.5 and abs(line["rect"][2] - line["printed"][1]) <= 1.5, line
    line = lines[len(lines) // 2]
    x0, y0, x1, y1 = line["rect"]
    selected = _drag(tab, [x0 + 1, (y0 + y1) / 2], [x1 - 1, (y0 + y1) / 2])
    assert selected.split() == line["text"].split(), (selected, line["text"])
    assert set(selected.split()) <= words, (selected, view)
    after = {other["index"]: other for other in shown["lines"]}
    middle = len(lines) // 2
    for line in sorted(lines, key=lambda line: abs(lines.index(line) - middle)):  # the middle's block, or the nearest
        following = [after.get(line["index"] + n) for n in (1, 2)]
        if not all(following):
            continue
        x0, y0, x1, y1 = line["rect"]
        last = following[-1]["rect"]
        end = [last[2] - 1, (last[1] + last[3]) / 2]
        if not _alone_at(end, shown["lines"], {line["index"], *(part["index"] for part in following)}):
            continue
        selected = _drag(tab, [x0 + 1, (y0 + y1) / 2], end)
        expected = " ".join(part["text"] for part in (line, *following)).split()
        assert selected.split() == expected, (selected, expected)
        assert set(selected.split()) <= words, (selected, view)
        break
    else:
        raise AssertionError(f"no three lines in view to select: {shown['lines']}")


def _alone_at(point: list[float], lines: list[dict], own: set[int]) -> bool:
    """Whether no line but those of `own` (indices) lies under `point`: a subscript printed as a line of its
    own may lie at the end of its line, and a drag ending there selects it too."""
    x, y = point
    return not any(other["index"] not in own and other["rect"][0] <= x <= other["rect"][2]
                   and other["rect"][1] <= y <= other["rect"][3] for other in lines)


def _open(tab, message) -> None:
    """Click a chat message after clearing the viewer's mark, so the next measure is of this click's page."""
    tab.evaluate("() => { const v = document.querySelector('#page-view'); if (v) delete v.dataset.revealed; }")
    message.click()


def test_a_citation_opens_its_page_beside_the_chat(browser, app: str, shared: Path) -> None:
    context, tab = _reader(browser, app, shared, 1440, 900)
    try:
        tab.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")  # the reader is at the question box
        passage = tab.locator("#chat .message", has_text="select to open its page").last
        _open(tab, passage)
        wait_for_text(tab, "#figure-detail", "Passage · page")
        _box_in_view(tab)
        chat = tab.locator("#chat").bounding_box()
        view = tab.locator("#page-view").bounding_box()
        assert view["x"] + view["width"] <= chat["x"] and view["y"] < chat["y"] + chat["height"], (view, chat)  # beside it
        shot(tab, "viewer-desktop-passage")
        _select_text(tab, shared)
        shot(tab, "viewer-desktop-selected")

        for zoom in (125, 150, 200):  # larger than the frame, the page scrolls to the box
            tab.evaluate("() => delete document.querySelector('#page-view').dataset.revealed")
            tab.click("#zoom-in")
            wait_for_text(tab, "#zoom-level", f"Zoom {zoom} %")
        _box_in_view(tab)
        _select_text(tab, shared)
        shot(tab, "viewer-desktop-passage-zoomed")

        table = tab.locator("#chat .message", has_text="Table 3 · page 7").first
        _open(tab, table)
        wait_for_text(tab, "#page-number", "Page 7 of 10")
        _box_in_view(tab)
        tab.fill("#page-jump :is(input, textarea)", "3")
        tab.press("#page-jump :is(input, textarea)", "Enter")
        wait_for_text(tab, "#page-number", "Page 3 of 10")
        wait_for_text(tab, "#figure-detail", "is boxed on its page")
    finally:
        context.close()


def test_on_a_phone_the_page_opens_over_the_chat_and_back(browser, app: str, shared: Path) -> None:
    context, tab = _reader(browser, app, shared, 390, 844)
    try:
        assert not tab.locator("#page-view").is_visible()
        passage = tab.locator("#chat .message", has_text="select to open its page").last
        _open(tab, passage)
        wait_for_text(tab, "#figure-detail", "Passage · page")
        _box_in_view(tab)
        back = tab.locator("#back-to-chat")
        assert back.is_visible() and back.bounding_box()["y"] >= 0
        tab.evaluate("() => { const c = document.querySelector('#chat .bubble-wrap'); if (c) c.scrollTop = 0; }")
        tab.wait_for_timeout(300)  # (Gradio shows the chat's scroll-down arrow once the chat is scrolled up)
        arrows = tab.evaluate("() => [...document.querySelectorAll('#chat .scroll-down-button-container')]"
                              ".map(e => e.checkVisibility())")
        assert arrows and not any(arrows), arrows  # the chat's arrow, on Gradio's top layer, is not drawn over the page
        shot(tab, "viewer-phone-passage")
        _select_text(tab, shared)
        shot(tab, "viewer-phone-selected")

        back.click()
        tab.locator("#viewer-pane").wait_for(state="hidden")
        chat = tab.locator("#chat").bounding_box()
        assert chat["y"] < 844 and chat["y"] + chat["height"] > 0, chat  # the chat is in view again
        assert passage.is_visible()
        shot(tab, "viewer-phone-back-to-chat")
    finally:
        context.close()

