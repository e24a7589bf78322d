"""The "Across papers" tab: the loaded paper's references, its library of cited papers, and the chat.

The left column shows which references of the paper loaded in the Paper tab are in this session's
library, and adds cited papers by upload (several PDFs at once) or arXiv id, with progress; files
that match no reference and files that cannot be read are listed with their reason. The right
column is the cross-paper chat (`across_chat`) and the supporting passage on its page.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import gradio as gr

from spiqa_demo.library import PaperLibrary
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.guards.input_limits import capped, limit
from spiqa_demo.ui.serving.guards.session_expiry import visitor_state
from spiqa_demo.ui.serving.messages import public_name
from spiqa_demo.ui.serving.untrusted import LATEX_DELIMITERS, code, inert
from spiqa_demo.ui.serving.work.cited_loading import CitedLoad
from spiqa_demo.ui.serving.work.steps import POLL_S, Wait
from spiqa_demo.ui.shared import follow, question_box, text_layer
from spiqa_demo.ui.shared.outputs import components
from spiqa_demo.ui.state.across_session import AcrossSession
from spiqa_demo.ui.state.session import Session
from spiqa_demo.ui.tabs.across import across_chat

if TYPE_CHECKING:

    from spiqa_demo.ui.serving.work.queues import Queues
    from spiqa_demo.ui.shared.events import Load
    from spiqa_demo.ui.shared.model_settings import ModelPanel

CITED_PAGE = "cited-page"  # the page view's element id (assets/app.css styles its text layer)
NOTHING_TO_ADD = "Choose one or more PDFs of papers this paper cites, or type an arXiv id."


def status_markdown(session: Session, library: PaperLibrary | None) -> str:
    """Which paper the references are of (or why there are none yet)."""
    if session.loading:
        return "*The paper is being read in the Paper tab; its references appear here when it is ready.*"
    if library is None:
        return across_chat.NO_ANCHOR
    anchor = library.anchor
    lines = [f"### {inert(anchor.title or anchor.source)}",
             f"{len(anchor.references)} references · ask about its figures and tables; answers come from the cited papers you add."]
    lines += [f"> ⚠️ {inert(n.message.replace(library.anchor_origin, public_name(library.anchor_origin)))}"
              for n in library.notices if n.kind == "no-bibliography"]
    return "\n\n".join(lines)


def references_markdown(library: PaperLibrary | None) -> str:
    """Every reference (key, title) and the library file that holds it; provided papers matching none."""
    if library is None:
        return ""
    availability = library.availability()
    held = sum(1 for a in availability if a.source)
    lines = [f"**{held} of {len(availability)} references are in the library.**"]
    if availability:
        rows = ["| Reference | Title | In the library |", "|---|---|---|"]
        rows += [f"| {inert(a.key)} | {inert(a.title[:140] or '(title not recognised)')} | "
                 f"{'✅ ' + inert(public_name(a.source)) if a.source else across_chat.NOT_AVAILABLE} |" for a in availability]
        lines.append("\n".join(rows))
    unmatched = library.unmatched()
    if unmatched:
        names = ", ".join(f"{code(public_name(p.origin))} (*{inert(p.paper.title or 'no title found')}*)" for p in unmatched)
        lines.append(f"> ⚠️ Added but matching no reference of this paper: {names}. Check that this paper cites them.")
    return "\n\n".join(lines)


class RefreshOutputs(NamedTuple):
    """The references of the paper now loaded, in the order of `components`."""

    state: AcrossSession
    status: str
    references: str



def refresh(session: Session | None, across: AcrossSession | None) -> RefreshOutputs:
    """Which paper the references are of, and which are in the library (a new paper starts a new library)."""
    session, across = session or Session(), across or AcrossSession()
    library = across.sync(session)
    return RefreshOutputs(state=across, status=status_markdown(session, library), references=references_markdown(library))


class AddOutputs(NamedTuple):
    """Adding cited papers, as it goes (outputs left out stay as they are), in the order of `components`."""

    state: AcrossSession
    references: Any = gr.skip()
    report: Any = gr.skip()
    upload: Any = gr.skip()  # None empties the upload box once its files are added



def _add(session: Session | None, across: AcrossSession | None, files: Sequence[Path], arxiv_ids: Sequence[str],
         progress: gr.Progress) -> Iterator[AddOutputs | Wait]:
    """Shared body of the two adders (as `steps`: Gradio runs them `unthreaded`)."""
    session, across = session or Session(), across or AcrossSession()
    library = across.sync(session)
    if library is None or session.loading:
        message = across_chat.STILL_LOADING if session.loading else across_chat.NO_ANCHOR
        yield AddOutputs(across, references=references_markdown(library), report=f"> ⚠️ {inert(message)}")
        return
    if not files and not arxiv_ids:
        yield AddOutputs(across, references=references_markdown(library), report=inert(NOTHING_TO_ADD))
        return
    job = CitedLoad(library, files, arxiv_ids, owner=id(session), after=across.add_job)
    across.add_job = job
    yield AddOutputs(across, report=f"*Adding {len(files) + len(arxiv_ids)} papers…*")
    while not job.done:
        progress(job.fraction, desc=job.message)
        yield Wait(lambda: job.done, POLL_S)
    progress(1.0, desc=job.message)
    report = []
    if job.added:
        report.append("Added: " + ", ".join(code(public_name(o)) for o in job.added) + ".")
    report += [f"> ⚠️ {inert(m)}" for m in job.messages()]
    if across.library is not library:  # another paper was loaded meanwhile: these were for the previous one
        report.append("> ⚠️ Another paper was loaded meanwhile, so these papers were added to the previous paper's library.")
    for message in job.messages():
        gr.Warning(message)
    yield AddOutputs(across, references=references_markdown(across.library),
                     report="\n\n".join(report) or inert(job.message), upload=None)


def add_files(files: list[str] | str | None, session: Session | None, across: AcrossSession | None,
              progress: gr.Progress = gr.Progress()) -> Iterator[AddOutputs | Wait]:
    """Add uploaded cited PDFs (several at once)."""
    paths = [Path(f) for f in ([files] if isinstance(files, str) else files or [])]
    yield from _add(session, across, paths, [], progress)


def add_arxiv(text: str, session: Session | None, across: AcrossSession | None,
              progress: gr.Progress = gr.Progress()) -> Iterator[AddOutputs | Wait]:
    """Download cited papers by arXiv id (several separated by spaces or commas) and add them."""
    ids = [part for part in capped(text, "arxiv").replace(",", " ").split() if part]
    for step in _add(session, across, [], ids, progress):
        yield step if isinstance(step, Wait) else step._replace(upload=gr.skip())  # the upload box holds no ids to empty


@dataclass(frozen=True)
class AcrossTab:
    """The tab's widgets and its own state (the library and chat of this visitor's cited papers)."""

    tab_item: gr.Tab  # selecting the tab shows the references of the paper loaded meanwhile
    state: gr.State
    status: gr.Markdown
    upload: gr.File
    arxiv: gr.Textbox
    report: gr.Markdown
    references: gr.Markdown
    chatbot: gr.Chatbot
    question: gr.Textbox
    settings_link: gr.Button  # opens the model settings, which live under the Paper tab's chat
    page: gr.AnnotatedImage
    detail: gr.Markdown
    page_text: gr.Textbox  # the page's text layer, for the browser (`text_layer`)


def open_model_settings() -> tuple[gr.Tabs, gr.Accordion]:
    """The Paper tab, with its settings accordion open: both chats answer with the model chosen there."""
    return gr.Tabs(selected="paper"), gr.Accordion(open=True)


def build() -> AcrossTab:
    """The tab (inside the caller's `gr.Tabs`)."""
    settings = app_settings()
    with gr.Tab("Across papers", id="across", elem_id="across-tab") as tab_item:
        state = visitor_state(AcrossSession())
        with gr.Row():
            with gr.Column(scale=5):
                status = gr.Markdown(across_chat.NO_ANCHOR, elem_id="across-status")
                with gr.Group():
                    upload = gr.File(label=f"Add cited papers (PDFs, up to {settings.extraction.max_file_mb} MB each)",  # one line on a phone: two hid the drop text
                                     file_types=[".pdf"], type="filepath", file_count="multiple", elem_id="cited-upload",
                                     height=110)
                    arxiv = gr.Textbox(label="…or arXiv ids of cited papers", placeholder="1807.06521 1512.03385",
                                       elem_id="cited-arxiv", max_lines=1, submit_btn="Fetch", max_length=limit("arxiv"))
                report = gr.Markdown("", elem_id="cited-report")
                references = gr.Markdown("", elem_id="cited-references")
            with gr.Column(scale=6):
                chatbot = gr.Chatbot(label="Chat across papers", height=560, elem_id="across-chat", buttons=["copy"], latex_delimiters=LATEX_DELIMITERS,
                                     autoscroll=False,  # `follow` places the newest answer
                                     placeholder="Ask about a figure or table of the loaded paper; the answer comes from "
                                                 "the paper it cites, e.g. “In the paper that proposed CBAM, how is "
                                                 "channel attention computed?”", feedback_options=None)
                question = question_box.build("Question across papers", "In the paper that proposed X, how is Y computed?",
                                              "across-question")
                settings_link = gr.Button("Model settings (shared with the Paper tab)", size="sm", elem_id="across-settings")
                page = gr.AnnotatedImage(label="Supporting passage on its page", height=620, elem_id=CITED_PAGE,
                                         visible=False)
                detail = gr.Markdown(across_chat.PASSAGE_HINT, elem_id="cited-passage")
                page_text = gr.Textbox(visible="hidden", elem_id="cited-page-text", interactive=False)
    return AcrossTab(tab_item=tab_item, state=state, status=status, upload=upload, arxiv=arxiv, report=report,
                     references=references, chatbot=chatbot, question=question, settings_link=settings_link, page=page,
                     detail=detail, page_text=page_text)


def wire(tab: AcrossTab, session: gr.State, model: ModelPanel, loads: Sequence[Load], queues: Queues) -> None:
    """Connect the tab's events: its references follow every load of the Paper tab (`loads`, over the
    Paper tab's `session`), and answers use the Paper tab's model settings (`model`)."""
    follow.keep_following(tab.chatbot)
    refreshed = components(RefreshOutputs, tab)
    for load in loads:
        load.event.then(refresh, [session, tab.state], refreshed, api_visibility="private")
    tab.tab_item.select(refresh, [session, tab.state], refreshed, api_name="cited_references", queue=False)
    added = components(AddOutputs, tab)
    tab.upload.upload(queues.handler(add_files), [tab.upload, session, tab.state], added, api_name="add_cited",
                      show_progress_on=tab.references, **queues.paper)
    tab.arxiv.submit(queues.handler(add_arxiv), [tab.arxiv, session, tab.state], added, api_name="add_cited_arxiv",
                     show_progress_on=tab.references, **queues.paper)
    # Stop shows first and Ask comes back last in one chain: as two separate events, a quick answer's
    # Ask could arrive before the Stop and leave the Stop button showing.
    asking = question_box.show_stop_on(tab.question.submit, tab.question).then(
        queues.handler(across_chat.ask), [tab.question, session, tab.state, *model.inputs()],
        components(across_chat.AskOutputs, tab), api_name="ask_cited", **queues.ask)
    question_box.show_ask_after(asking, tab.question)
    asking.then(None, [tab.page_text], None, js=text_layer.text_layer_js(CITED_PAGE))  # selectable, as in the viewer
    stopped = tab.question.stop(across_chat.stop, [tab.state], components(across_chat.StopOutputs, tab), cancels=[asking],
                                api_name="stop_cited")
    question_box.show_ask_after(stopped, tab.question)
    tab.chatbot.clear(across_chat.clear, [tab.state], [tab.state], api_name="clear_cited_chat")
