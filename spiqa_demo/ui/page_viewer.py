"""The Paper tab's page viewer: any page of the loaded PDF, opened from a gallery item, from an
answer or from a cited passage in the chat, with the evidence boxed on its page; previous/next
page, zoom out/in (the page scrolls in its frame when larger), and the image's fullscreen button.

The viewer remembers what it shows (`Session.viewing`): stepping to another page shows that page
plainly and says where the evidence is; stepping back to the evidence's page boxes it again. The zoom
(`Session.zoom`) is kept across pages. Gradio fits an image to its frame, so each zoom is a CSS class
on the image (`zoom_css`) giving the page's height; pages viewed large are rendered finer.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any, NamedTuple

import gradio as gr

from spiqa_demo.conversation import Evidence
from spiqa_demo.conversation.types import Cell
from spiqa_demo.types import Figure, Paper
from spiqa_demo.ui import storage
from spiqa_demo.ui.messages import figure_name
from spiqa_demo.ui.page_view import PAGE_DPI, box_on_page, figure_on_page, render_page
from spiqa_demo.ui.reader_chat import passage_quote
from spiqa_demo.ui.session import PageShown, Session

log = logging.getLogger(__name__)

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


def _outputs(page: Any, detail: str, number: str, zoom: int | None) -> ViewerOutputs:
    """The viewer at `zoom`; `zoom` None hides its controls."""
    if zoom is None:
        return ViewerOutputs(page=page, detail=detail, viewer_controls=gr.update(visible=False), page_number=number,
                             zoom_controls=gr.update(visible=False), zoom_out=gr.skip(), zoom_level=gr.skip(), zoom_in=gr.skip())
    return ViewerOutputs(page=page, detail=detail, viewer_controls=gr.update(visible=True), page_number=number,
                         zoom_controls=gr.update(visible=True), zoom_out=gr.update(interactive=zoom > ZOOMS[0]),
                         zoom_level=f"Zoom **{zoom} %**", zoom_in=gr.update(interactive=zoom < ZOOMS[-1]))


def text_only(detail: str, page: Any = None) -> ViewerOutputs:
    """The text beside the page, and `page` (None: no image); the controls are left as they are."""
    return ViewerOutputs(page=page, detail=detail, viewer_controls=gr.skip(), page_number=gr.skip(),
                         zoom_controls=gr.skip(), zoom_out=gr.skip(), zoom_level=gr.skip(), zoom_in=gr.skip())


def _hidden(detail: str) -> ViewerOutputs:
    return _outputs(gr.update(value=None, visible=False), detail, "", None)


def figure_detail(paper: Paper, pdf: Path | None, figure: Figure, annotations: bool = False,
                  zoom: int = 100, cells: Sequence[Cell] = ()) -> tuple[Any, str]:
    """(AnnotatedImage value, markdown) for one item: its page with boxes (and the reader's
    annotations when asked), rendered for `zoom`, caption and mentions; the table `cells` an answer
    states are boxed too and named above the caption."""
    page = None
    try:
        page = figure_on_page(pdf, figure, annotations, _dpi(zoom), cells) if pdf is not None and pdf.is_file() else None
    except Exception:  # a page that cannot be rendered still leaves the caption and mentions
        log.exception("rendering page %s failed", figure.page)
    title = f"#### {escape(figure_name(figure))}" + ("" if page else " *(the page image is not available)*")
    blocks = [title, escape(figure.caption)] if figure.caption else [title]
    if cells:
        blocks.insert(1, "**The answer's cells:** " + "; ".join(
            f"row “{escape(c.row_name)}”, column “{escape(c.heading)}”: **{escape(c.value)}**" for c in cells))
    if figure.mentions:
        where = [paper.passages[m.passage].page if 0 <= m.passage < len(paper.passages) else "?" for m in figure.mentions]
        bullets = [f"- p. {page_number}: “{escape(m.sentence.strip())}”"
                   for m, page_number in zip(figure.mentions[:MAX_MENTIONS], where)]
        blocks.append(f"**Mentioned in the text** ({len(figure.mentions)}):\n" + "\n".join(bullets))
    else:
        blocks.append("*No sentence of the text mentions it.*")
    return page, "\n\n".join(blocks)


def _boxed(session: Session, paper: Paper, shown: PageShown) -> tuple[Any, str]:
    """The page image with the evidence boxed when it is on this page, and the text beside it."""
    assert session.pdf is not None
    evidence = shown.evidence
    figure = evidence.figure if isinstance(evidence, Evidence) else evidence
    if figure is not None and figure.page == shown.page:
        cells = evidence.cells if isinstance(evidence, Evidence) else ()
        return figure_detail(paper, session.pdf, figure, session.annotations, session.zoom, cells)
    if isinstance(evidence, Evidence) and evidence.page == shown.page:
        return (box_on_page(session.pdf, shown.page, evidence.box, PASSAGE_LABEL, _dpi(session.zoom)),
                f"#### Passage · page {shown.page}\n\n> {escape(passage_quote(evidence, PASSAGE_CHARS))}")
    image, _ = render_page(session.pdf, shown.page, session.annotations, _dpi(session.zoom))
    text = f"#### Page {shown.page} of {paper.page_count}"
    if figure is not None:
        text += f"\n\n*{escape(figure_name(figure))} is boxed on its page.*"
    elif isinstance(evidence, Evidence):
        text += f"\n\n*The cited passage is boxed on page {evidence.page}.*"
    return (str(image), []), text


def show(session: Session, shown: PageShown) -> ViewerOutputs:
    """Show `shown` in the viewer and remember it."""
    paper = session.paper
    if paper is None or session.pdf is None or not session.pdf.is_file():
        return _hidden("The page images are not available.")
    shown = PageShown(min(max(shown.page, 1), paper.page_count), shown.evidence)
    session.viewing = shown
    try:
        image, text = _boxed(session, paper, shown)
    except Exception:  # a page that cannot be rendered leaves the text and the app working
        log.exception("rendering page %s failed", shown.page)
        return _outputs(gr.update(value=None, visible=False), "*The page image is not available.*",
                        _number(shown.page, paper), session.zoom)
    return _outputs(gr.update(value=image, visible=image is not None, elem_classes=[zoom_class(session.zoom)]), text,
                    _number(shown.page, paper), session.zoom)


def _number(page: int, paper: Paper) -> str:
    return f"Page **{page}** of {paper.page_count}"


def show_figure(session: Session, figure: Figure) -> ViewerOutputs:
    """A gallery item on its page, with its caption and mentions."""
    return show(session, PageShown(figure.page, figure))


def open_from_chat(session: Session | None, evt: gr.SelectData) -> ViewerOutputs:
    """The evidence a selected chat message shows (an answer: its first cited evidence), boxed on its page."""
    if session is None or session.paper is None:
        return _hidden(NOT_SELECTABLE)
    storage.in_use(session)
    index = evt.index if isinstance(evt.index, int) else evt.index[0]
    message = session.history[index] if 0 <= index < len(session.history) else None
    kept = session.evidence_of.get(id(message)) if message is not None else None
    if kept is None or kept[0] is not message:
        return text_only(NOT_SELECTABLE, gr.skip())
    evidence = kept[1]
    return show(session, PageShown(evidence.page, evidence))


def step(session: Session | None, delta: int) -> ViewerOutputs:
    """The previous (`delta` -1) or next (+1) page of the one shown."""
    if session is None or session.paper is None or session.viewing is None:
        return _hidden(NOTHING_SHOWN)
    storage.in_use(session)
    return show(session, PageShown(session.viewing.page + delta, session.viewing.evidence))


def previous_page(session: Session | None) -> ViewerOutputs:
    return step(session, -1)


def next_page(session: Session | None) -> ViewerOutputs:
    return step(session, +1)


def zoom(session: Session | None, steps: int) -> ViewerOutputs:
    """The page shown, `steps` zooms out (-1) or in (+1), within `ZOOMS`."""
    if session is None or session.paper is None or session.viewing is None:
        return _hidden(NOTHING_SHOWN)
    storage.in_use(session)
    at = ZOOMS.index(session.zoom) if session.zoom in ZOOMS else ZOOMS.index(100)
    session.zoom = ZOOMS[min(max(at + steps, 0), len(ZOOMS) - 1)]
    return show(session, session.viewing)


def zoom_out(session: Session | None) -> ViewerOutputs:
    return zoom(session, -1)


def zoom_in(session: Session | None) -> ViewerOutputs:
    return zoom(session, +1)
