"""The Paper tab's page viewer: any page of the loaded PDF, opened from a gallery item, from an
answer or from a cited passage in the chat, with the evidence boxed on its page; previous/next
page, zoom out/in (the page scrolls in its frame when larger), and the image's fullscreen button.

The viewer is a column beside the chat; opened from the chat or the gallery it is scrolled into
view (`REVEAL`), and on a phone it opens over the chat with a way back (`BACK_TO_CHAT`). Its frame is
scrolled to the evidence's box (`page_focus`), so a zoomed page shows the box, not its corner.

The viewer remembers what it shows (`Session.viewing`): stepping to another page shows that page
plainly and says where the evidence is; stepping back to the evidence's page boxes it again. The zoom
(`Session.zoom`) is kept across pages. Gradio fits an image to its frame, so each zoom is a CSS class
on the image (`zoom_css`) giving the page's height; pages viewed large are rendered finer. Pages are
drawn in worker processes (`page_renders`): the handlers are `steps`, waiting for a page without
holding a thread, and a page that cannot be drawn within its limits leaves its text and a sentence
saying why.

The page's text is selectable: its printed lines are laid over the image as transparent text
(`text_layer`), scaled with the zoom.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import gradio as gr

from spiqa_demo.conversation import Evidence
from spiqa_demo.conversation.types import Cell
from spiqa_demo.types import Figure, Paper
from spiqa_demo.ui.serving.files import storage
from spiqa_demo.ui.serving.messages import figure_name
from spiqa_demo.ui.serving.untrusted import inert
from spiqa_demo.ui.serving.work.page_renders import PageRender, rendered
from spiqa_demo.ui.serving.work.page_view import PAGE_DPI, AnnotatedPage, Annotation, box_on_page, figure_on_page, page_text
from spiqa_demo.ui.serving.work.steps import Wait
from spiqa_demo.ui.shared.text_layer import SHOWN_IMAGE, TEXT_LAYER
from spiqa_demo.ui.state.session import DEFAULT_ZOOM, PageShown, Session
from spiqa_demo.ui.tabs.paper.reader_chat import passage_quote

MAX_MENTIONS = 8
PAGE_HEIGHT = 560  # the viewer's frame, in pixels
FIT_HEIGHT = PAGE_HEIGHT - 40  # the page's height at 100 %: the frame less the boxes' legend under it
ZOOMS = (50, 75, 100, 125, 150, 200, 250, 300)  # percent of FIT_HEIGHT
SHARP_ZOOM = 200  # above it, the page is rendered finer than PAGE_DPI, so its text stays crisp
PASSAGE_LABEL = "cited passage"
PASSAGE_CHARS = 900
NOTHING_SHOWN = "Select a figure or table, or a cited passage in the chat, to open its page."
NOT_SELECTABLE = "That message has no page to open: select a cited figure, table or passage, or the answer above them."


class ViewerOutputs(NamedTuple):
    """The viewer's page, the text beside it and its controls, in the order of `components`."""

    page: Any
    detail: Any
    viewer_controls: Any
    page_number: Any
    zoom_controls: Any
    zoom_out: Any
    zoom_level: Any
    zoom_in: Any
    page_focus: Any = gr.skip()  # `_focus`: the page image's name and the evidence's box on it
    page_text: Any = gr.skip()  # the page's text layer (`page_view.page_text`), "" for none


# Run in the browser after the viewer shows a page (its inputs: `page_focus`, `page_text`). REVEAL (a page opened from
# the chat or the gallery): on a phone the viewer is laid over the chat (the `viewer-open` class on its
# column, whose own class Gradio sets once; Gradio prefixes the app's CSS, so `body` cannot carry it). Then, once the page's image is the one named in `page_focus` and has loaded (Gradio
# mounts and fetches it after the event ends), its text is laid over it (`TEXT_LAYER`); on a desktop its
# column is scrolled into view when the page is not all in view, and its frame is scrolled so the box is in
# its middle.
_REVEAL = """async (focus, pageText) => {
    const frameDone = () => new Promise(r => requestAnimationFrame(r));
    await frameDone();
    const pane = document.getElementById('viewer-pane');
    if (!pane) return;
    const reveal = %s, phone = window.matchMedia('(max-width: %dpx)').matches;
    if (reveal && phone) { pane.parentElement.closest('#paper-side')?.classList.add('viewer-open'); pane.scrollTop = 0; }
    let text = null;
    try { text = pageText ? JSON.parse(pageText) : null; } catch (error) { text = null; }
    const [name, ...box] = (focus || '').split(' ');
    const shown = text?.image || name;
    document.querySelector('#page-view .text-layer')?.remove();
    if (box.length !== 4 && !text) return;
    const found = await (%s)('page-view', shown);
    if (!found) return;
    const [view, img, frame] = found;
    if (text) (%s)(view, img, text);
    if (box.length !== 4) return;
    const [x0, y0, x1, y1] = box.map(Number);
    // Measured once the page is shown: before, the view may be hidden or still the previous page's size.
    if (reveal && !phone) { const r = view.getBoundingClientRect();
        if (r.top < 0 || r.bottom > window.innerHeight) pane.scrollIntoView({block: 'start'}); }
    const i = img.getBoundingClientRect(), f = frame.getBoundingClientRect(), s = i.height / img.naturalHeight;
    frame.scrollTop += i.top - f.top + s * (y0 + y1) / 2 - frame.clientHeight / 2;
    frame.scrollLeft += i.left - f.left + s * (x0 + x1) / 2 - frame.clientWidth / 2;
    view.dataset.revealed = focus;  // what the frame was scrolled to: a browser test waits on it
}"""
PHONE_WIDTH = 768  # at most this wide, the viewer opens over the chat
REVEAL = _REVEAL % ("true", PHONE_WIDTH, SHOWN_IMAGE, TEXT_LAYER)  # after a page opened from the chat or the gallery
REFOCUS = _REVEAL % ("false", PHONE_WIDTH, SHOWN_IMAGE, TEXT_LAYER)  # after the viewer's own controls: only the frame follows the box
BACK_TO_CHAT = """() => { document.getElementById('paper-side')?.classList.remove('viewer-open');
    document.getElementById('chat')?.scrollIntoView({block: 'nearest'}); }"""


def zoom_class(zoom: int) -> str:
    return f"zoom-{zoom}"


def zoom_css() -> str:
    """The page's height at each zoom, its width following; a page larger than the frame scrolls in it.
    The boxes' layer changes size with the page at once (Gradio animates it, which left the box lagging
    behind the page). Fullscreen (the image's own button, Gradio's `fullscreen` class) shows the page at
    the screen's width whatever the zoom; Gradio put the boxes' layer there under the page, not on it,
    and cut the page off at the screen's bottom: here it lies on the page, which scrolls."""
    rules = ["#page-view .image-container { overflow: auto; }",
             "#page-view img.mask { transition: opacity 0.2s ease-in-out; }",
             "#page-view.fullscreen img.mask { position: absolute; top: 0; left: 0; width: 100% !important; "
             "height: auto !important; }"]
    rules += [f"#page-view.{zoom_class(zoom)}:not(.fullscreen) img {{ height: {FIT_HEIGHT * zoom // 100}px !important; "
              "width: auto !important; max-width: none !important; }" for zoom in ZOOMS]
    return "\n".join(rules)


def _dpi(zoom: int) -> int:
    return max(PAGE_DPI, PAGE_DPI * zoom // SHARP_ZOOM)


def _outputs(page: Any, detail: str, number: str, zoom: int | None, focus: str = "", text: str = "") -> ViewerOutputs:
    """The viewer at `zoom`, its frame to scroll to `focus`, the page's `text` laid over it; `zoom` None hides its
    controls."""
    if zoom is None:
        return ViewerOutputs(page=page, detail=detail, viewer_controls=gr.update(visible=False), page_number=number,
                             zoom_controls=gr.update(visible=False), zoom_out=gr.skip(), zoom_level=gr.skip(), zoom_in=gr.skip())
    return ViewerOutputs(page=page, detail=detail, viewer_controls=gr.update(visible=True), page_number=number,
                         zoom_controls=gr.update(visible=True), zoom_out=gr.update(interactive=zoom > ZOOMS[0]),
                         zoom_level=f"Zoom **{zoom} %**", zoom_in=gr.update(interactive=zoom < ZOOMS[-1]), page_focus=focus,
                         page_text=text)


UNCHANGED = ViewerOutputs(*(gr.skip() for _ in ViewerOutputs._fields))


def text_only(detail: str, page: dict[str, Any] | None = None) -> ViewerOutputs:
    """The text beside the page, and `page` (None: no image; `gr.skip()`: the image as it is); the controls are
    left as they are."""
    return ViewerOutputs(page=page, detail=detail, viewer_controls=gr.skip(), page_number=gr.skip(),
                         zoom_controls=gr.skip(), zoom_out=gr.skip(), zoom_level=gr.skip(), zoom_in=gr.skip())


def _hidden(detail: str) -> ViewerOutputs:
    return _outputs(gr.update(value=None, visible=False), detail, "", None)


def figure_detail(paper: Paper, figure: Figure, page: AnnotatedPage | None, problem: str = "",
                  cells: Sequence[Cell] = ()) -> tuple[AnnotatedPage | None, str]:
    """(AnnotatedImage value, markdown) for one item: its drawn `page` (None when it could not be drawn,
    `problem` saying why), caption and mentions; the table `cells` an answer states are named above the
    caption (and boxed on the page)."""
    title = f"#### {inert(figure_name(figure))}" + ("" if page else " *(the page image is not available)*")
    blocks = [title, inert(figure.caption)] if figure.caption else [title]
    if cells:
        blocks.insert(1, "**The answer's cells:** " + "; ".join(
            f"row “{inert(c.row_name)}”, column “{inert(c.heading)}”: **{inert(c.value)}**" for c in cells))
    if problem:
        blocks.append(f"*{inert(problem)}*")
    if figure.mentions:
        where = [paper.passages[m.passage].page if 0 <= m.passage < len(paper.passages) else "?" for m in figure.mentions]
        bullets = [f"- p. {page_number}: “{inert(m.sentence.strip())}”"
                   for m, page_number in zip(figure.mentions[:MAX_MENTIONS], where)]
        blocks.append(f"**Mentioned in the text** ({len(figure.mentions)}):\n" + "\n".join(bullets))
    else:
        blocks.append("*No sentence of the text mentions it.*")
    return page, "\n\n".join(blocks)


def _figure_boxed(shown: PageShown) -> Figure | None:
    """The figure or table boxed on the page shown, if any."""
    evidence = shown.evidence
    figure = evidence.figure if isinstance(evidence, Evidence) else evidence
    return figure if figure is not None and figure.page == shown.page else None


def _render(session: Session, shown: PageShown) -> PageRender:
    """The page image `shown` needs: with the reader's annotations, unless it boxes a cited passage."""
    assert session.pdf is not None
    evidence = shown.evidence
    passage = _figure_boxed(shown) is None and isinstance(evidence, Evidence) and evidence.page == shown.page
    return rendered(session.pdf, shown.page, session.annotations and not passage, _dpi(session.zoom), id(session))


def _boxed(paper: Paper, shown: PageShown, render: PageRender) -> tuple[AnnotatedPage | None, str]:
    """The page image with the evidence boxed when it is on this page, and the text beside it."""
    evidence, image = shown.evidence, render.image
    figure = _figure_boxed(shown)
    if figure is not None:
        cells = evidence.cells if isinstance(evidence, Evidence) else ()
        return figure_detail(paper, figure, figure_on_page(image, figure, cells) if image else None, render.error, cells)
    missing = "" if image else f"\n\n*The page image is not available: {inert(render.error)}*"
    if isinstance(evidence, Evidence) and evidence.page == shown.page:
        return (box_on_page(image, evidence.box, PASSAGE_LABEL) if image else None,
                f"#### Passage · page {shown.page}\n\n> {inert(passage_quote(evidence, PASSAGE_CHARS))}{missing}")
    text = f"#### Page {shown.page} of {paper.page_count}{missing}"
    figure = evidence.figure if isinstance(evidence, Evidence) else evidence
    if figure is not None:
        text += f"\n\n*{inert(figure_name(figure))} is boxed on its page.*"
    elif isinstance(evidence, Evidence):
        text += f"\n\n*The cited passage is boxed on page {evidence.page}.*"
    return ((str(image.path), []) if image else None), text


def show(session: Session, shown: PageShown) -> Iterator[ViewerOutputs | Wait]:
    """Show `shown` in the viewer and remember it, once its page is drawn (waiting holds no thread)."""
    paper = session.paper
    if paper is None or session.pdf is None or not session.pdf.is_file():
        yield _hidden("The page images are not available.")
        return
    shown = PageShown(min(max(shown.page, 1), paper.page_count), shown.evidence)
    session.viewing = shown
    render = _render(session, shown)
    if not render.done:
        yield Wait(lambda: render.done)
    if render.replaced:  # a newer view of this session shows its own page
        yield UNCHANGED
        return
    image, text = _boxed(paper, shown, render)
    yield _outputs(gr.update(value=image, visible=image is not None, elem_classes=[zoom_class(session.zoom)]), text,
                   _number(shown.page, paper), session.zoom, _focus(image), page_text(render.image) if render.image else "")


def _focus(image: tuple[str, list[Annotation]] | None) -> str:
    """The page image's name and its first box ("p.png x0 y0 x1 y1"), for the browser to scroll to; "" for none."""
    if not image or not image[1]:
        return ""
    return " ".join([Path(image[0]).name, *map(str, image[1][0][0])])


def _number(page: int, paper: Paper) -> str:
    return f"Page **{page}** of {paper.page_count}"


def show_figure(session: Session, figure: Figure) -> Iterator[ViewerOutputs | Wait]:
    """A gallery item on its page, with its caption and mentions."""
    yield from show(session, PageShown(figure.page, figure))


def open_from_chat(session: Session | None, evt: gr.SelectData) -> Iterator[ViewerOutputs | Wait]:
    """The evidence a selected chat message shows (an answer: its first cited evidence), boxed on its page."""
    if session is None or session.paper is None:
        yield _hidden(NOT_SELECTABLE)
        return
    storage.in_use(session)
    index = evt.index if isinstance(evt.index, int) else evt.index[0]
    message = session.history[index] if 0 <= index < len(session.history) else None
    evidence = session.evidence_in(message) if message is not None else None
    if evidence is None:
        yield text_only(NOT_SELECTABLE, gr.skip())
        return
    yield from show(session, PageShown(evidence.page, evidence))


def step(session: Session | None, delta: int) -> Iterator[ViewerOutputs | Wait]:
    """The previous (`delta` -1) or next (+1) page of the one shown."""
    if session is None or session.paper is None or session.viewing is None:
        yield _hidden(NOTHING_SHOWN)
        return
    storage.in_use(session)
    yield from show(session, PageShown(session.viewing.page + delta, session.viewing.evidence))


def go_to(typed: str, session: Session | None) -> Iterator[ViewerOutputs | Wait]:
    """The page whose number is typed into the page box (kept within the paper), the evidence still remembered;
    anything but a number changes nothing."""
    if session is None or session.paper is None:
        yield _hidden(NOTHING_SHOWN)
        return
    number = (typed or "").strip()
    if not number.isdecimal() or len(number) > 6:
        yield UNCHANGED
        return
    storage.in_use(session)
    yield from show(session, PageShown(int(number), session.viewing.evidence if session.viewing else None))


def previous_page(session: Session | None) -> Iterator[ViewerOutputs | Wait]:
    yield from step(session, -1)


def next_page(session: Session | None) -> Iterator[ViewerOutputs | Wait]:
    yield from step(session, +1)


def zoom(session: Session | None, steps: int) -> Iterator[ViewerOutputs | Wait]:
    """The page shown, `steps` zooms out (-1) or in (+1), within `ZOOMS`."""
    if session is None or session.paper is None or session.viewing is None:
        yield _hidden(NOTHING_SHOWN)
        return
    storage.in_use(session)
    at = ZOOMS.index(session.zoom) if session.zoom in ZOOMS else ZOOMS.index(DEFAULT_ZOOM)
    session.zoom = ZOOMS[min(max(at + steps, 0), len(ZOOMS) - 1)]
    yield from show(session, session.viewing)


def zoom_out(session: Session | None) -> Iterator[ViewerOutputs | Wait]:
    yield from zoom(session, -1)


def zoom_in(session: Session | None) -> Iterator[ViewerOutputs | Wait]:
    yield from zoom(session, +1)
