"""Loading a paper (upload, arXiv id, example) and browsing its figures and tables.

A progress bar follows extraction, cropping and indexing with counts. The gallery shows every
crop with its label and caption; selecting one shows its page with the region and caption boxed,
and the sentences of the paper that mention it. A file that cannot be read leaves the previous
paper loaded and says why.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from html import escape
from pathlib import Path
from typing import Any

import gradio as gr

from spiqa_demo.paper_text import one_line, strip_caption_label
from spiqa_demo.types import Figure, Paper
from spiqa_demo.ui import examples, storage
from spiqa_demo.ui.loading import PaperLoad
from spiqa_demo.ui.messages import as_sentence
from spiqa_demo.ui.session import Session

log = logging.getLogger(__name__)

CAPTION_CHARS = 90
MAX_MENTIONS = 8
POLL_S = 0.2  # how often a load's progress is reported
DETAIL_HINT = "Select a figure or table above to see it on its page, with the passages that mention it."


def gallery_items(paper: Paper) -> list[tuple[str, str]]:
    """(crop, "Figure 3 · p. 5 — caption…") for every item that has a crop, in page order."""
    items = []
    for figure in shown_items(paper):
        caption = one_line(strip_caption_label(figure.caption) if figure.label else figure.caption, CAPTION_CHARS)
        name = f"{figure.title} · p. {figure.page}" if figure.label else figure.title  # the title has the page then
        items.append((figure.image, name + (f" — {caption}" if caption else "")))
    return items


def shown_items(paper: Paper) -> list[Figure]:
    return [f for f in paper.items if f.image]


def status_markdown(paper: Paper) -> str:
    """The loaded paper in two lines, plus the extraction's warnings."""
    title = escape(paper.title or paper.source)
    lines = [f"### {title}", f"{paper.summary()} · `{escape(paper.source)}`" + (f" · arXiv {paper.arxiv_id}" if paper.arxiv_id else "")]
    lines += [f"> ⚠️ {escape(w)}" for w in paper.warnings]
    return "\n\n".join(lines)


def error_markdown(message: str) -> str:
    return f"> ⚠️ **Could not load the paper.** {escape(as_sentence(message))}"


def figure_detail(paper: Paper, pdf: Path | None, figure: Figure, annotations: bool = False) -> tuple[Any, str]:
    """(AnnotatedImage value, markdown) for one item: its page with boxes (and the reader's
    annotations when asked), caption and mentions."""
    from spiqa_demo.ui.page_view import figure_on_page

    page = None
    try:
        page = figure_on_page(pdf, figure, annotations) if pdf is not None and pdf.is_file() else None
    except Exception:  # a page that cannot be rendered still leaves the caption and mentions
        log.exception("rendering page %s failed", figure.page)
    title = f"#### {escape(figure.title)} · page {figure.page}" + ("" if page else " *(the page image is not available)*")
    blocks = [title, escape(figure.caption)] if figure.caption else [title]
    if figure.mentions:
        where = [paper.passages[m.passage].page if 0 <= m.passage < len(paper.passages) else "?" for m in figure.mentions]
        bullets = [f"- p. {page_number}: “{escape(m.sentence.strip())}”"
                   for m, page_number in zip(figure.mentions[:MAX_MENTIONS], where)]
        blocks.append(f"**Mentioned in the text** ({len(figure.mentions)}):\n" + "\n".join(bullets))
    else:
        blocks.append("*No sentence of the text mentions it.*")
    return page, "\n\n".join(blocks)


def _load(fetch: Callable[[], Path], session: Session | None, progress: gr.Progress) -> Iterator[tuple]:
    """Shared body of the three loaders: yields (session, status, gallery, page, detail, chat).

    The load itself runs in the background (`PaperLoad`): this only reports on it, so a request
    that is cancelled or closed leaves a session that still finishes loading. The gallery is shown
    as soon as extraction is done; questions wait for the index.
    """
    session = session or Session()
    keep = (gr.skip(),) * 4
    job = PaperLoad(fetch, session)
    yield (session, "Loading…", *keep)
    shown = False
    while not job.wait(POLL_S):
        progress(job.fraction, desc=job.message)
        if job.paper is not None and not shown:
            shown = True
            yield (session, status_markdown(job.paper) + "\n\n*Indexing for questions…*", gallery_items(job.paper),
                   gr.update(value=None, visible=False), DETAIL_HINT, _chat(session))
    if job.error or job.paper is None:
        gr.Warning(job.error)
        yield (session, error_markdown(job.error), *keep)
        return
    progress(1.0, desc=job.message)
    if session.load_job is not job:  # a newer load of this session took over
        yield (session, *(gr.skip(),) * 5)
        return
    yield (session, status_markdown(job.paper), gallery_items(job.paper), gr.update(value=None, visible=False),
           DETAIL_HINT, _chat(session))


def _chat(session: Session) -> Any:
    """The chat for a load's update, or no change while a question asked during the load is answered:
    that question's own updates show the chat (the greeting too), and a copy taken here could
    reach the browser after its answer and hide it."""
    return gr.skip() if session.turn is not None else list(session.history)


def _unchanged(session: Session | None) -> Iterator[tuple]:
    yield (session or Session(), *(gr.skip(),) * 5)


def load_upload(file: str | None, session: Session | None, progress: gr.Progress = gr.Progress()) -> Iterator[tuple]:
    """Load an uploaded PDF (a cleared upload changes nothing)."""
    if not file:
        yield from _unchanged(session)
        return
    yield from _load(lambda: Path(file), session, progress)


def load_arxiv(text: str, session: Session | None, progress: gr.Progress = gr.Progress()) -> Iterator[tuple]:
    """Download an arXiv paper, then load it."""
    from spiqa_demo.arxiv import download_arxiv_pdf

    def fetch() -> Path:
        progress(0.0, desc="Downloading from arXiv")
        return download_arxiv_pdf(text, storage.ui_root() / "downloads")

    yield from _load(fetch, session, progress)


def load_example(name: str | None, session: Session | None, progress: gr.Progress = gr.Progress()) -> Iterator[tuple]:
    """Load one of the example papers (by its display name)."""
    if not name:
        yield from _unchanged(session)
        return
    yield from _load(lambda: examples.example_pdf(name), session, progress)


def show_figure(session: Session | None, evt: gr.SelectData) -> tuple[Any, str]:
    """The selected gallery item on its page, with caption and mentions."""
    if session is None or session.paper is None:
        return None, DETAIL_HINT
    items = shown_items(session.paper)
    index = evt.index if isinstance(evt.index, int) else evt.index[0]
    if not 0 <= index < len(items):
        return None, DETAIL_HINT
    page, text = figure_detail(session.paper, session.pdf, items[index], session.annotations)
    return gr.update(value=page, visible=page is not None), text


def show_annotations(value: bool, session: Session | None) -> Session:
    """Whether page images, and the crops of papers loaded from now on, show the reader's annotations."""
    session = session or Session()
    session.annotations = bool(value)
    return session


def build_loaders() -> dict[str, Any]:
    """The three ways to load a paper, and the status line under them."""
    from spiqa_demo.settings import get_settings

    settings = get_settings()
    c: dict[str, Any] = {}
    with gr.Row(equal_height=True):
        c["upload"] = gr.File(label=f"Upload a paper (PDF, up to {settings.max_file_mb} MB)", file_types=[".pdf"],
                              type="filepath", file_count="single", elem_id="upload", scale=3, height=110)
        c["arxiv"] = gr.Textbox(label="…or an arXiv id or link", placeholder="1706.03762", elem_id="arxiv",
                                max_lines=1, submit_btn="Fetch", scale=2)
        names = list(examples.example_papers())
        c["example"] = gr.Dropdown(names, value=None, label="…or an example paper", elem_id="example",
                                   visible=bool(names), interactive=True, scale=3)
    c["status"] = gr.Markdown("", elem_id="paper-status")
    return c


def build_browser() -> dict[str, Any]:
    """The gallery of figures and tables, and the selected one on its page."""
    c: dict[str, Any] = {}
    c["gallery"] = gr.Gallery(label="Figures and tables", columns=3, height=460, object_fit="contain",
                              allow_preview=False, elem_id="gallery")
    c["page"] = gr.AnnotatedImage(label="On the page", height=560, elem_id="page-view", visible=False,
                                  color_map={"caption": "#f59e0b"})
    c["detail"] = gr.Markdown(DETAIL_HINT, elem_id="figure-detail")
    from spiqa_demo.settings import get_settings

    c["annotations"] = gr.Checkbox(value=get_settings().crop_annotations, label="Show my highlights and notes",
                                   info="Annotations in the PDF are never read as the paper; ticked, page images and "
                                        "the figures of the next paper loaded show them.", elem_id="show-annotations")
    return c
