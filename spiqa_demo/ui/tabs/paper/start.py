"""The start on a paper once it is ready to ask: its overview and the questions suggested from it
(`spiqa_demo.conversation.overview`), a click on one asking it in the chat; and, when the visitor has
a model, the model's three-sentence summary citing pages, written into the chat as an answer is.

The summary is a turn of the chat without a question (`Session.start_turn`): it streams through the
session's model call (`model_calls`, in the model pools, bounded like an answer, and only ever to the
model `resolve_backend` allows), Stop stops it with what was written kept and marked, and a question
asked meanwhile stops it the same way; a question asked as the paper became ready, before the summary
began, is answered instead of it. Without a model the start is the overview alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from typing import Any, NamedTuple

import gradio as gr

from spiqa_demo.conversation.overview import Overview, Summary, overview, summary_stream
from spiqa_demo.types import Paper
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.files import storage
from spiqa_demo.ui.serving.messages import full_sentence
from spiqa_demo.ui.serving.untrusted import inert
from spiqa_demo.ui.serving.work import model_calls
from spiqa_demo.ui.serving.work.steps import Wait
from spiqa_demo.ui.shared import question_box
from spiqa_demo.ui.shared.chat_stream import Streamed, chat_message, stream_reply
from spiqa_demo.ui.shared.model_settings import PanelChoice, PanelValue, resolve_backend
from spiqa_demo.ui.state.session import Session

SUMMARY_TITLE = "The paper in three sentences"


def overview_markdown(seen: Overview) -> str:
    """The counts and the abstract's opening with its page (the title is the status line's)."""
    opening = f"\n\n> {inert(seen.opening)} [p. {seen.opening_page}]" if seen.opening else ""
    return f"**At a glance:** {seen.counts}.{opening}"


def shown(paper: Paper | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the overview, the suggested questions) for a paper ready to ask; hidden while none is (a new
    paper being read starts clean, with nothing left from the previous one)."""
    if paper is None:
        return gr.update(value="", visible=False), gr.update(samples=[], visible=False)
    settings = app_settings()
    seen = overview(paper, settings.qa, settings.retrieval)
    # Each figure's or table's with its caption's gist beside it: "What does Fig. 2 show?" four times over tells the
    # reader nothing of the paper; a section's question with its heading. Two columns, each shown whole
    # (`overview.SHOWN_CHARS`); the first is what is asked.
    samples = [[s.question, s.hint or s.about] for s in seen.suggestions]
    return (gr.update(value=overview_markdown(seen), visible=True),
            gr.update(samples=samples, visible=bool(samples)))


class SummaryOutputs(NamedTuple):
    """The chat as the summary is written, and the question box's Ask/Stop, in the order of `components`."""

    chatbot: Any
    session: Session
    question: Any = gr.skip()  # Stop while it is written, Ask after; what the reader types is left alone


def _just_loaded(session: Session) -> Paper | None:
    """The paper the session's latest load made ready, None when that load failed or another took over."""
    job = session.load_job
    if job is None or not job.done or job.error or job.paper is None or session.paper is not job.paper:
        return None
    return session.paper


def summarise(session: Session | None, *panel: PanelValue) -> Iterator[SummaryOutputs | Wait]:
    """After a load: with a model chosen, its summary of the paper just loaded, streamed into the chat (as
    `steps`); without one, once a question was asked about it, or with `SPIQA_UI_SUMMARY_ON_LOAD` off, nothing."""
    session = session or Session()
    asked = session.turn is not None or session.asked
    paper = _just_loaded(session) if app_settings().ui.ui_summary_on_load and not asked else None
    chosen = PanelChoice.from_values(panel)
    backend = resolve_backend(chosen.choice, chosen.api_key)[0] if paper is not None else None
    thought = chat_message("assistant", "Asking the model for a summary…", metadata={"title": SUMMARY_TITLE, "status": "pending"})
    # Checked again as it starts: a question asked, or answered, while the backend was being made goes first.
    turn = session.start_turn_when_idle(thought) if paper is not None and backend is not None else None
    if paper is None or backend is None or turn is None:
        yield SummaryOutputs(gr.skip(), session)
        return
    storage.in_use(session)
    history = session.history
    history.append(thought)
    yield SummaryOutputs(list(history), session, question_box.stop_button())
    result: Streamed[Summary] = Streamed()
    call = model_calls.start(id(session), summary_stream(paper, backend), backend)
    with closing(stream_reply(call, Summary, turn, history, result)) as chunks:
        for step in chunks:
            yield step or SummaryOutputs(list(history), session)
    if result.answer is not None:
        turn.finished = True
        turn.think("Written by the model from the abstract, the captions and the conclusion; each sentence names "
                   "its page.", {"title": SUMMARY_TITLE, "status": "done"})
        history.append(chat_message("assistant", inert(result.answer.text)))
    elif result.error:
        history.append(chat_message("assistant", f"⚠️ The model's summary could not be written: {inert(full_sentence(result.error))}"))
    mine = session.turn is turn  # else a question took over (it shows Ask when it is over), or Stop did
    if mine:
        session.turn = None
    yield SummaryOutputs(list(history), session, question_box.ask_button() if mine else gr.skip())
