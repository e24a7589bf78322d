"""The "Across papers" tab: the loaded paper's references, its library of cited papers, and the chat.

The left column shows which references of the paper loaded in the Paper tab are in this session's
library, and adds cited papers by upload (several PDFs at once) or arXiv id, with progress; files
that match no reference and files that cannot be read are listed with their reason. The right
column is the cross-paper chat (`across_chat`) and the supporting passage on its page.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from html import escape
from pathlib import Path
from typing import Any

import gradio as gr

from spiqa_demo.library import PaperLibrary
from spiqa_demo.settings import get_settings
from spiqa_demo.ui import across_chat, question_box
from spiqa_demo.ui.across_session import AcrossSession, public_name
from spiqa_demo.ui.cited_loading import CitedLoad
from spiqa_demo.ui.model_settings import ModelSettings
from spiqa_demo.ui.session import Session

POLL_S = 0.2  # how often an add's progress is reported
NOTHING_TO_ADD = "Choose one or more PDFs of papers this paper cites, or type an arXiv id."


def status_markdown(session: Session, library: PaperLibrary | None) -> str:
    """Which paper the references are of (or why there are none yet)."""
    if session.loading:
        return "*The paper is being read in the Paper tab; its references appear here when it is ready.*"
    if library is None:
        return across_chat.NO_ANCHOR
    anchor = library.anchor
    lines = [f"### {escape(anchor.title or anchor.source)}",
             f"{len(anchor.references)} references · ask about its figures and tables; answers come from the cited papers you add."]
    lines += [f"> ⚠️ {escape(n.message.replace(library.anchor_origin, public_name(library.anchor_origin)))}"
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
        rows += [f"| {escape(a.key)} | {escape(a.title[:140] or '(title not recognised)')} | "
                 f"{'✅ ' + escape(public_name(a.source)) if a.source else across_chat.NOT_AVAILABLE} |" for a in availability]
        lines.append("\n".join(rows))
    unmatched = library.unmatched()
    if unmatched:
        names = ", ".join(f"`{escape(public_name(p.origin))}` (*{escape(p.paper.title or 'no title found')}*)" for p in unmatched)
        lines.append(f"> ⚠️ Added but matching no reference of this paper: {names}. Check that this paper cites them.")
    return "\n\n".join(lines)


def refresh(session: Session | None, across: AcrossSession | None) -> tuple[AcrossSession, str, str]:
    """(state, status, references) for the paper now loaded (a new paper starts a new library)."""
    session, across = session or Session(), across or AcrossSession()
    library = across.sync(session)
    return across, status_markdown(session, library), references_markdown(library)


def _add(session: Session | None, across: AcrossSession | None, files: Sequence[Path], arxiv_ids: Sequence[str],
         progress: gr.Progress) -> Iterator[tuple[AcrossSession, str, str, Any]]:
    """Shared body of the two adders: yields (state, references, add report, upload box)."""
    session, across = session or Session(), across or AcrossSession()
    library = across.sync(session)
    if library is None or session.loading:
        message = across_chat.STILL_LOADING if session.loading else across_chat.NO_ANCHOR
        yield across, references_markdown(library), f"> ⚠️ {escape(message)}", gr.skip()
        return
    if not files and not arxiv_ids:
        yield across, references_markdown(library), escape(NOTHING_TO_ADD), gr.skip()
        return
    job = CitedLoad(library, files, arxiv_ids, after=across.add_job)
    across.add_job = job
    yield across, gr.skip(), f"*Adding {len(files) + len(arxiv_ids)} papers…*", gr.skip()
    while not job.wait(POLL_S):
        progress(job.fraction, desc=job.message)
    progress(1.0, desc=job.message)
    report = []
    if job.added:
        report.append("Added: " + ", ".join(f"`{escape(public_name(o))}`" for o in job.added) + ".")
    report += [f"> ⚠️ {escape(m)}" for m in job.messages()]
    if across.library is not library:  # another paper was loaded meanwhile: these were for the previous one
        report.append("> ⚠️ Another paper was loaded meanwhile, so these papers were added to the previous paper's library.")
    for message in job.messages():
        gr.Warning(message)
    yield across, references_markdown(across.library), "\n\n".join(report) or escape(job.message), None


def add_files(files: list[str] | str | None, session: Session | None, across: AcrossSession | None,
              progress: gr.Progress = gr.Progress()) -> Iterator[tuple[AcrossSession, str, str, Any]]:
    """Add uploaded cited PDFs (several at once)."""
    paths = [Path(f) for f in ([files] if isinstance(files, str) else files or [])]
    yield from _add(session, across, paths, [], progress)


def add_arxiv(text: str, session: Session | None, across: AcrossSession | None,
              progress: gr.Progress = gr.Progress()) -> Iterator[tuple[AcrossSession, str, str, Any]]:
    """Download cited papers by arXiv id (several separated by spaces or commas) and add them."""
    ids = [part for part in (text or "").replace(",", " ").split() if part]
    for across_state, references, report, _ in _add(session, across, [], ids, progress):
        yield across_state, references, report, gr.skip()


def build() -> dict[str, Any]:
    """The tab's components (inside the caller's `gr.Tab`)."""
    settings = get_settings()
    c: dict[str, Any] = {}
    with gr.Row():
        with gr.Column(scale=5):
            c["status"] = gr.Markdown(across_chat.NO_ANCHOR, elem_id="across-status")
            with gr.Group():
                c["upload"] = gr.File(label=f"Add cited papers (PDFs, several at once, up to {settings.max_file_mb} MB each)",
                                      file_types=[".pdf"], type="filepath", file_count="multiple", elem_id="cited-upload",
                                      height=110)
                c["arxiv"] = gr.Textbox(label="…or arXiv ids of cited papers", placeholder="1807.06521 1512.03385",
                                        elem_id="cited-arxiv", max_lines=1, submit_btn="Fetch")
            c["report"] = gr.Markdown("", elem_id="cited-report")
            c["references"] = gr.Markdown("", elem_id="cited-references")
        with gr.Column(scale=6):
            c["chat"] = gr.Chatbot(label="Chat across papers", height=560, elem_id="across-chat", buttons=["copy"],
                                   placeholder="Ask about a figure or table of the loaded paper; the answer comes from "
                                               "the paper it cites, e.g. “In the paper that proposed CBAM, how is "
                                               "channel attention computed?”", feedback_options=None)
            c["question"] = question_box.build("Question across papers", "In the paper that proposed X, how is Y computed?",
                                               "across-question")
            c["page"] = gr.AnnotatedImage(label="Supporting passage on its page", height=620, elem_id="cited-page",
                                          visible=False)
            c["detail"] = gr.Markdown(across_chat.PASSAGE_HINT, elem_id="cited-passage")
    return c


def wire(c: dict[str, Any], tab: gr.Tab, session: gr.State, across: gr.State, model: ModelSettings,
         ask_queue: dict[str, Any], paper_queue: dict[str, Any]) -> None:
    """Connect the tab's events; answers use the Paper tab's model settings (`model`)."""
    refreshed = [across, c["status"], c["references"]]
    tab.select(refresh, [session, across], refreshed, api_name="cited_references", queue=False)
    added = [across, c["references"], c["report"], c["upload"]]
    c["upload"].upload(add_files, [c["upload"], session, across], added, api_name="add_cited",
                       show_progress_on=c["references"], **paper_queue)
    c["arxiv"].submit(add_arxiv, [c["arxiv"], session, across], added, api_name="add_cited_arxiv",
                      show_progress_on=c["references"], **paper_queue)
    answered = [c["chat"], across, c["question"], c["page"], c["detail"]]
    # Stop shows first and Ask comes back last in one chain: as two separate events, a quick answer's
    # Ask could arrive before the Stop and leave the Stop button showing.
    asking = question_box.show_stop_on(c["question"].submit, c["question"]).then(
        across_chat.ask, [c["question"], session, across, *model.inputs()], answered, api_name="ask_cited", **ask_queue)
    question_box.show_ask_after(asking, c["question"])
    question_box.show_ask_after(
        c["question"].stop(across_chat.stop, [across], [c["chat"], across], cancels=[asking], api_name="stop_cited"),
        c["question"])
    c["chat"].clear(across_chat.clear, [across], [across], api_name="clear_cited_chat")

