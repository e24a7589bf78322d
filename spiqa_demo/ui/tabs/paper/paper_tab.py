"""The Paper tab: loading a paper (upload, arXiv id, example), browsing its figures and tables, and
the chat about it, with the SPIQA check and the model settings under the chat.

A progress bar follows extraction, cropping and indexing with counts. The gallery shows every
crop with its label and caption; selecting one shows its page with the region and caption boxed,
and the sentences of the paper that mention it. A file that cannot be read leaves the previous
paper loaded and says why. The chat's handlers are `chat`'s.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import gradio as gr

from spiqa_demo.paper_text import one_line, strip_caption_label
from spiqa_demo.types import Figure, Paper
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.files import storage
from spiqa_demo.ui.serving.guards.input_limits import capped, limit
from spiqa_demo.ui.serving.messages import figure_name, full_sentence
from spiqa_demo.ui.serving.untrusted import LATEX_DELIMITERS, code, inert
from spiqa_demo.ui.serving.work.loading import PaperLoad
from spiqa_demo.ui.serving.work.steps import POLL_S, Wait
from spiqa_demo.ui.shared import follow, model_settings, page_viewer, question_box
from spiqa_demo.ui.shared.events import Load, PaperEvents
from spiqa_demo.ui.shared.outputs import components
from spiqa_demo.ui.state.session import Session
from spiqa_demo.ui.tabs.paper import chat, examples, spiqa_check, start, upload_watch

if TYPE_CHECKING:

    from spiqa_demo.settings import Settings
    from spiqa_demo.ui.serving.work.queues import Queues

log = logging.getLogger(__name__)

CAPTION_CHARS = 90
ALIVE_S = 1.0  # how often a load's request answers when nothing changes (so a visitor who left is noticed)
# The browser downloads the file a File component was just given (nothing when it was given none).
DOWNLOAD_JS = """(file) => { const f = Array.isArray(file) ? file[0] : file; if (!f?.url) return;
    const a = Object.assign(document.createElement('a'), {href: f.url, download: f.orig_name || 'chat.zip'});
    document.body.append(a); a.click(); a.remove(); }"""
# Once a paper is ready, on a desktop whose window shows the question box only further down: the paper beside its
# chat scrolled to the window's top (the chat's height fits the window from there, `assets/app.css`), so the reader
# can ask at once. Twice a frame later: Gradio draws the load's last update after the event ends.
_IN_VIEW = """() => { requestAnimationFrame(() => requestAnimationFrame(() => {
    const box = document.getElementById('question'), row = document.getElementById('paper-and-chat');
    if (!box || !row || !document.getElementById('paper-overview')?.offsetParent
        || window.matchMedia('(max-width: %dpx)').matches) return;
    if (box.getBoundingClientRect().bottom > innerHeight) window.scrollBy(0, row.getBoundingClientRect().top - 8);
})); }"""
IN_VIEW = _IN_VIEW % page_viewer.PHONE_WIDTH
DETAIL_HINT = ("Select a figure or table above to see it on its page, with the passages that mention it; "
               "select a cited passage or figure in the chat to see it boxed on its page.")


def gallery_items(paper: Paper) -> list[tuple[str, str]]:
    """(crop, "Figure 3 · p. 5 — caption…") for every item that has a crop, in page order."""
    items = []
    for figure in shown_items(paper):
        caption = one_line(strip_caption_label(figure.caption) if figure.label else figure.caption, CAPTION_CHARS)
        name = figure_name(figure, " · p. ")
        items.append((figure.image, name + (f" — {caption}" if caption else "")))
    return items


def shown_items(paper: Paper) -> list[Figure]:
    return [f for f in paper.items if f.image]


def status_markdown(paper: Paper) -> str:
    """The loaded paper in two lines, plus the extraction's warnings."""
    title = inert(paper.title or paper.source)
    lines = [f"### {title}", f"{paper.summary()} · {code(paper.source)}" + (f" · arXiv {paper.arxiv_id}" if paper.arxiv_id else "")]
    lines += [f"> ⚠️ {inert(w)}" for w in paper.warnings]
    return "\n\n".join(lines)


def error_markdown(message: str) -> str:
    return f"> ⚠️ **Could not load the paper.** {inert(full_sentence(message))}"


class LoadOutputs(NamedTuple):
    """What a load shows (outputs left out stay as they are), in the order of `components`."""

    session: Session
    status: Any = gr.skip()
    gallery: Any = gr.skip()
    page: Any = gr.skip()
    detail: Any = gr.skip()
    chatbot: Any = gr.skip()
    upload: Any = gr.skip()
    download_all: Any = gr.skip()
    viewer_controls: Any = gr.skip()
    zoom_controls: Any = gr.skip()
    export_file: Any = gr.skip()
    overview: Any = gr.skip()
    suggestions: Any = gr.skip()



def _paper_shown(session: Session, paper: Paper, status: str, ready: bool = False) -> LoadOutputs:
    """The paper's status, its gallery (none selected: `_load` hid it first), no page shown (nor its controls), and
    the session's new chat, unless a question asked during the load is being answered: that question's
    own updates show the chat (the greeting too), and a copy taken here could reach the browser after
    its answer and hide it. The chat about the previous paper is not lost: its export is offered. Once
    it is `ready` to ask, its overview and suggested questions (`start`); none before."""
    chat = gr.skip() if session.turn is not None else list(session.history)
    from spiqa_demo.ui.tabs.paper.exports import chat_zip, gallery_zip

    zipped = gallery_zip(paper)
    overview, suggestions = start.shown(paper if ready else None)
    previous = session.previous_chat
    if previous is not None:
        asked = len(previous.asked)
        kept = (f"Your chat about “{one_line(previous.paper.title or previous.paper.source, 60)}” "
                f"({asked} question{'' if asked == 1 else 's'})")
        export_file = gr.update(value=str(chat_zip(previous.paper, previous.asked)), visible=True, label=kept)
    else:
        export_file = gr.update(value=None, visible=False)
    # Shown anew while it is indexed (`_load` hid it); the last update is the plain list API callers read.
    gallery = gallery_items(paper) if ready else _gallery_anew(paper)
    return LoadOutputs(session, status=status, gallery=gallery,
                       page=gr.update(value=None, visible=False), detail=DETAIL_HINT, chatbot=chat,
                       viewer_controls=gr.update(visible=False), zoom_controls=gr.update(visible=False),
                       download_all=gr.update(value=str(zipped) if zipped else None, visible=zipped is not None),
                       export_file=export_file, overview=overview, suggestions=suggestions)


def _gallery_anew(paper: Paper) -> Any:
    """The gallery shown again after `_load` hid it, so the browser forgets the previous paper's selected place."""
    return gr.update(value=gallery_items(paper), visible=True)


def _load(fetch: Callable[[], Path], session: Session | None, progress: gr.Progress,
          holds: Sequence[Path] = (), upload: int = 0) -> Iterator[LoadOutputs | Wait]:
    """Shared body of the three loaders (as `steps`: Gradio runs it `unthreaded`).

    The load itself runs in the background (`PaperLoad`): this only reports on it, so a request
    that is cancelled or closed leaves a session that still finishes a load already running (one
    still waiting is dropped). The gallery is shown as soon as extraction is done; questions wait
    for the index. While nothing else changes the request still answers now and then, so Gradio
    notices a visitor who left.
    """
    session = session or Session()
    storage.in_use(session)
    job = PaperLoad(fetch, session, holds)
    upload_watch.ended(session, upload)  # after the load is the session's: a question waiting for the upload waits for it now
    try:
        yield from _report(job, session, progress)
    finally:  # resumed after the last update was handed to Gradio, or closed with the request
        job.reported.set()


def _report(job: PaperLoad, session: Session, progress: gr.Progress) -> Iterator[LoadOutputs | Wait]:
    """What `_load` shows of `job`, from "Loading…" to the paper ready or the load's error."""
    yield LoadOutputs(session, status="Loading…")
    shown, last = False, time.monotonic()
    try:
        while not job.done:
            waiting = job.waiting
            progress(job.fraction, desc=job.waiting_message())
            if job.paper is not None and not shown:
                shown, last = True, time.monotonic()
                # Hidden, then shown anew: the browser's gallery forgets the selected place (given new
                # items it keeps it), so the new paper's gallery starts with none selected.
                yield LoadOutputs(session, gallery=gr.update(visible=False))
                yield _paper_shown(session, job.paper, status_markdown(job.paper) + "\n\n*Indexing for questions…*")
            elif time.monotonic() - last > ALIVE_S:
                last = time.monotonic()
                yield LoadOutputs(session)
            # Woken as soon as a reader takes it: "Waiting for a free reader" is never shown longer than true.
            yield Wait(lambda: job.done or (job.paper is not None and not shown) or (waiting and not job.waiting), POLL_S)  # noqa: B023 - used at once
    finally:
        if not job.done:
            job.cancel()
    if session.load_job is not job:  # a newer load of this session took over (or this one was dropped)
        yield LoadOutputs(session)
        return
    if job.error or job.paper is None:
        gr.Warning(full_sentence(job.error))
        # The previous paper stays loaded and on screen, and says so; the rejected file leaves the upload box.
        kept = f" Questions are still answered about this one:\n\n{status_markdown(session.paper)}" if session.paper is not None else ""
        yield LoadOutputs(session, status=error_markdown(job.error) + kept, upload=None)
        return
    progress(1.0, desc=job.message)
    if not shown:  # read at once (from the cache): hidden, then shown anew, as above
        yield LoadOutputs(session, gallery=gr.update(visible=False))
        yield LoadOutputs(session, gallery=_gallery_anew(job.paper))
    yield _paper_shown(session, job.paper, status_markdown(job.paper), ready=True)


def _unchanged(session: Session | None) -> Iterator[LoadOutputs]:
    yield LoadOutputs(session or Session())


def load_upload(file: str | None, upload: float | None, session: Session | None,
                progress: gr.Progress = gr.Progress()) -> Iterator[LoadOutputs | Wait]:
    """Load an uploaded PDF (a cleared upload changes nothing); `upload` is the page's number for it
    (`upload_watch`; 0 from an API client)."""
    if not file:
        upload_watch.ended(session, upload)
        yield from _unchanged(session)
        return
    yield from _load(lambda: Path(file), session, progress, holds=[Path(file)], upload=int(upload or 0))


def load_arxiv(text: str, session: Session | None, progress: gr.Progress = gr.Progress()) -> Iterator[LoadOutputs | Wait]:
    """Download an arXiv paper, then load it."""
    from spiqa_demo.arxiv import download_arxiv_pdf

    text = capped(text, "arxiv")

    def fetch() -> Path:
        progress(0.0, desc="Downloading from arXiv")
        return download_arxiv_pdf(text, storage.ui_root() / "downloads", app_settings().extraction)

    yield from _load(fetch, session, progress)


def load_example(name: str | None, session: Session | None,
                 progress: gr.Progress = gr.Progress()) -> Iterator[LoadOutputs | Wait]:
    """Load one of the example papers (by its display name)."""
    if not name:
        yield from _unchanged(session)
        return
    yield from _load(lambda: examples.example_pdf(name), session, progress)


def show_figure(session: Session | None, evt: gr.SelectData) -> Iterator[page_viewer.ViewerOutputs | Wait]:
    """The selected gallery item on its page, with caption and mentions."""
    if session is None or session.paper is None:
        yield page_viewer.text_only(DETAIL_HINT)
        return
    storage.in_use(session)
    items = shown_items(session.paper)
    index = evt.index if isinstance(evt.index, int) else evt.index[0]
    if not 0 <= index < len(items):
        yield page_viewer.text_only(DETAIL_HINT)
        return
    yield from page_viewer.show_figure(session, items[index])


def show_annotations(value: bool, session: Session | None) -> Session:
    """Whether page images, and the crops of papers loaded from now on, show the reader's annotations."""
    session = session or Session()
    session.annotations = bool(value)
    return session


@dataclass(frozen=True)
class PaperTab:
    """The tab's widgets; the SPIQA check and the model settings are placed under its chat."""

    upload: gr.File
    upload_marks: upload_watch.UploadMarks
    arxiv: gr.Textbox
    example: gr.Dropdown
    status: gr.Markdown
    gallery: gr.Gallery
    page: gr.AnnotatedImage
    detail: gr.Markdown
    annotations: gr.Checkbox
    chatbot: gr.Chatbot
    overview: gr.Markdown
    suggestions: gr.Dataset
    question: gr.Textbox
    download_all: gr.DownloadButton
    viewer_controls: gr.Row
    previous_page: gr.Button
    page_number: gr.Markdown
    page_jump: gr.Textbox
    next_page: gr.Button
    back_to_chat: gr.Button
    page_focus: gr.Textbox
    page_text: gr.Textbox
    zoom_controls: gr.Row
    zoom_out: gr.Button
    zoom_level: gr.Markdown
    zoom_in: gr.Button
    export: gr.Button
    export_file: gr.File
    check: spiqa_check.SpiqaCheck
    settings: gr.Accordion
    model: model_settings.ModelPanel


def build(settings: Settings) -> PaperTab:
    """The tab (inside the caller's `gr.Tabs`): the loaders and status on top; on the left the page viewer
    (the paper beside the chat, at the column's top so an opened page is in view) and the gallery under it;
    the chat, the SPIQA check and the settings on the right. On a phone the viewer opens over the chat
    (`assets/app.css`), with a button back to it."""
    with gr.Tab("Paper", id="paper"):
        with gr.Row(equal_height=True):
            upload = gr.File(label=f"Upload a paper (PDF, up to {settings.extraction.max_file_mb} MB)", file_types=[".pdf"],
                             type="filepath", file_count="single", elem_id="upload", scale=3, height=110)
            upload_marks = upload_watch.build()
            arxiv = gr.Textbox(label="…or an arXiv id or link", placeholder="1706.03762", elem_id="arxiv",
                               max_lines=1, submit_btn="Fetch", scale=2, max_length=limit("arxiv"))
            names = list(examples.example_papers())
            example = gr.Dropdown(names, value=None, label="…or an example paper", elem_id="example",
                                  visible=bool(names), interactive=True, scale=3)
        status = gr.Markdown("", elem_id="paper-status")
        with gr.Row(elem_id="paper-and-chat"):  # `IN_VIEW` scrolls it to the top
            with gr.Column(scale=5, elem_id="paper-side"):
                with gr.Column(elem_id="viewer-pane"):
                    back_to_chat = gr.Button("← Back to chat", size="sm", elem_id="back-to-chat")
                    with gr.Row(visible=False, elem_id="viewer-controls", equal_height=True) as viewer_controls:
                        previous_page = gr.Button("◀ Previous", size="sm", elem_id="previous-page", min_width=90)
                        page_number = gr.Markdown("", elem_id="page-number")
                        next_page = gr.Button("Next ▶", size="sm", elem_id="next-page", min_width=90)
                        page_jump = gr.Textbox(label="Go to page", show_label=False, placeholder="Go to page…", max_lines=1,
                                               elem_id="page-jump", min_width=100, container=False)
                    with gr.Row(visible=False, elem_id="zoom-controls", equal_height=True) as zoom_controls:
                        zoom_out = gr.Button("− Zoom out", size="sm", elem_id="zoom-out", min_width=90)
                        zoom_level = gr.Markdown("", elem_id="zoom-level")
                        zoom_in = gr.Button("Zoom in +", size="sm", elem_id="zoom-in", min_width=90)
                    page = gr.AnnotatedImage(label="On the page", height=page_viewer.PAGE_HEIGHT, elem_id="page-view",
                                             visible=False, buttons=["fullscreen"],
                                             color_map={"caption": "#f59e0b", page_viewer.PASSAGE_LABEL: "#10b981"})
                    page_focus = gr.Textbox(visible="hidden", elem_id="page-focus", interactive=False)
                    page_text = gr.Textbox(visible="hidden", elem_id="page-text", interactive=False)
                    detail = gr.Markdown(DETAIL_HINT, elem_id="figure-detail")
                # Gradio's own download-all gives bare PNGs: the zip below has the captions and pages too.
                gallery = gr.Gallery(label="Figures and tables", columns=3, height=460, object_fit="contain",
                                     allow_preview=False, elem_id="gallery", buttons=["fullscreen"])
                download_all = gr.DownloadButton("Download all (images, captions, pages)", visible=False, size="sm",
                                                 elem_id="download-all")
                annotations = gr.Checkbox(value=settings.extraction.crop_annotations, label="Show my highlights and notes",
                                          info="Annotations in the PDF are never read as the paper; ticked, page images and "
                                               "the figures of the next paper loaded show them.", elem_id="show-annotations")
            with gr.Column(scale=6):
                chatbot = gr.Chatbot(label="Chat about this paper", height=620, elem_id="chat", autoscroll=False,  # `follow`
                                     placeholder="Load a paper, then ask about its figures, tables and text.",
                                     buttons=["copy"], feedback_options=None, latex_delimiters=LATEX_DELIMITERS)
                # The question box right under the chat, the suggestions and the overview under it: above it, they put
                # it off a desktop's screen (on a phone they go above the chat, `assets/app.css`).
                question = question_box.build("Question", "e.g. Which method has the lowest error? Then: and on the other dataset?",
                                              "question")
                suggestions = gr.Dataset(components=[gr.Textbox(visible=False), gr.Textbox(visible=False)], samples=[],
                                         headers=["Ask", "About"], label="Suggested questions",
                                         elem_id="suggested-questions", visible=False)
                overview = gr.Markdown("", visible=False, elem_id="paper-overview")
                with gr.Row():
                    export = gr.Button("Export the chat (zip: Markdown and figures)", size="sm", elem_id="export-chat")
                    export_file = gr.File(label="Chat export", visible=False, elem_id="export-file", interactive=False)
                check = spiqa_check.build()
                with gr.Accordion("Settings", open=False, elem_id="settings") as settings_panel:
                    model = model_settings.build(settings)
    return PaperTab(upload=upload, upload_marks=upload_marks, arxiv=arxiv, example=example, status=status, gallery=gallery, page=page,
                    detail=detail, annotations=annotations, chatbot=chatbot, overview=overview, suggestions=suggestions, question=question, download_all=download_all,
                    viewer_controls=viewer_controls, previous_page=previous_page, page_number=page_number, page_jump=page_jump,
                    next_page=next_page, back_to_chat=back_to_chat, page_focus=page_focus, page_text=page_text,
                    zoom_controls=zoom_controls, zoom_out=zoom_out, zoom_level=zoom_level, zoom_in=zoom_in, export=export, export_file=export_file, check=check, settings=settings_panel, model=model)


def wire(tab: PaperTab, session: gr.State, queues: Queues) -> PaperEvents:
    """Connect the loaders, the browser and the chat; returns the events other panels chain on.

    A question picked from the SPIQA check's list is asked in this chat, so it is connected here with
    the typed one: the chat's Stop must cancel whichever is answering.
    """
    shown = components(LoadOutputs, tab, session=session)
    upload_watch.wire(tab.upload_marks, session)
    upload_inputs = [tab.upload, tab.upload_marks.number, session]  # the upload's load says which upload it is
    loads = tuple(
        Load(trigger(queues.handler(fn), inputs, shown, api_name=name, show_progress_on=tab.gallery,
                     js=js, **queues.paper), name)
        for trigger, fn, inputs, js, name in (
            (tab.upload.upload, load_upload, upload_inputs, upload_watch.numbered(1, len(upload_inputs)), "load_pdf"),
            (tab.arxiv.submit, load_arxiv, [tab.arxiv, session], None, "load_arxiv"),
            (tab.example.input, load_example, [tab.example, session], None, "load_example"),
        )
    )
    for load in loads:
        load.event.then(None, js=IN_VIEW, queue=False, api_visibility="private")
    # Once a paper is ready, the model's summary when the visitor has a model (`start.summarise`).
    summaries = [load.event.then(queues.handler(start.summarise), [session, *tab.model.inputs()],
                                 components(start.SummaryOutputs, tab, session=session), api_visibility="private",
                                 **queues.ask) for load in loads]
    viewer = components(page_viewer.ViewerOutputs, tab)
    tab.gallery.select(queues.handler(show_figure), [session], viewer, api_visibility="private",
                       **queues.view).then(None, [tab.page_focus, tab.page_text], None, js=page_viewer.REVEAL)  # needs the browser's selection
    tab.annotations.change(show_annotations, [tab.annotations, session], [session], queue=False, api_visibility="private")
    follow.keep_following(tab.chatbot)
    tab.chatbot.select(queues.handler(page_viewer.open_from_chat), [session], viewer, api_visibility="private",
                       **queues.view).then(None, [tab.page_focus, tab.page_text], None, js=page_viewer.REVEAL)  # needs the browser's selection
    for button, fn, name in ((tab.previous_page, page_viewer.previous_page, "previous_page"),
                             (tab.next_page, page_viewer.next_page, "next_page"),
                             (tab.zoom_out, page_viewer.zoom_out, "zoom_out"), (tab.zoom_in, page_viewer.zoom_in, "zoom_in")):
        button.click(queues.handler(fn), [session], viewer, api_name=name, **queues.view).then(
            None, [tab.page_focus, tab.page_text], None, js=page_viewer.REFOCUS)
    tab.page_jump.submit(queues.handler(page_viewer.go_to), [tab.page_jump, session], viewer, api_name="go_to_page",
                         **queues.view).then(None, [tab.page_focus, tab.page_text], None, js=page_viewer.REFOCUS)
    tab.back_to_chat.click(None, js=page_viewer.BACK_TO_CHAT)
    # One click: the fresh zip is shown and downloaded at once (its chip stays, to download it again).
    tab.export.click(chat.export, [session], [tab.export_file], api_name="export_chat").then(
        None, [tab.export_file], None, js=DOWNLOAD_JS)
    tab.chatbot.clear(chat.clear, [session], components(chat.ClearOutputs, tab, session=session), api_name="clear_chat")

    asked = [tab.question, session, *tab.model.inputs()]
    answered = components(chat.AskOutputs, tab, session=session)
    # Stop shows first and Ask comes back last in one chain per question: as separate events, an
    # answer's Ask could arrive before its Stop (a question sent during an upload) and leave Stop showing.
    typed = question_box.show_stop_on(tab.question.submit, tab.question).then(
        queues.handler(chat.ask), asked, answered, api_name="ask", **queues.ask)
    clicked = tab.check.questions.click(spiqa_check.pick_question, [tab.check.questions], [tab.question], queue=False)
    picked = question_box.show_stop_on(clicked.then, tab.question).then(
        queues.handler(chat.ask_spiqa), asked, answered, api_visibility="private", **queues.ask)
    suggestion = tab.suggestions.click(spiqa_check.pick_question, [tab.suggestions], [tab.question], queue=False,
                                       api_name="pick_suggestion")
    suggested = question_box.show_stop_on(suggestion.then, tab.question).then(
        queues.handler(chat.ask), asked, answered, api_visibility="private", **queues.ask)
    for answer in (typed, picked, suggested):
        question_box.show_ask_after(answer, tab.question)
    stopped = tab.question.stop(chat.stop, [session], components(chat.StopOutputs, tab, session=session),
                                cancels=[typed, picked, suggested, *summaries], api_name="stop")
    question_box.show_ask_after(stopped, tab.question)
    return PaperEvents(loads=loads, typed=typed, picked=picked)
