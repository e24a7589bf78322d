"""The chat across papers: a question about the loaded paper answered from the papers it cites.

Each question becomes: the user's message; a collapsed "thought" with the anchor's references
ranked for it (and which are in the library); the answer (streamed as the model writes it); then
the evidence: the anchor figure the question is about, the cited paper chosen (title, why), and
the supporting passage quoted with its page, shown under the chat on its page with the passage
boxed. Without any cited paper in the library the answer says so and lists the references the
question leads to, so the reader knows which PDFs to add. Stop, model settings and model calls
work as in the single-paper chat (`chat`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import gradio as gr

from spiqa_demo.crosspaper.replies import is_abstention
from spiqa_demo.errors import InputError
from spiqa_demo.paper_text import one_line
from spiqa_demo.questions import check_question
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.chat_messages import History
from spiqa_demo.ui.serving.files import storage
from spiqa_demo.ui.serving.messages import figure_name, full_sentence, public_name
from spiqa_demo.ui.serving.untrusted import code, inert
from spiqa_demo.ui.serving.work import model_calls
from spiqa_demo.ui.serving.work.page_renders import PageRender, rendered
from spiqa_demo.ui.serving.work.page_view import PAGE_DPI, box_on_page, page_text
from spiqa_demo.ui.serving.work.steps import POLL_S, Wait
from spiqa_demo.ui.shared.chat_stream import Streamed, chat_message, question_message, stream_reply
from spiqa_demo.ui.shared.model_settings import ModelChoice, PanelChoice, PanelValue, model_notes, resolve_backend, worded
from spiqa_demo.ui.state.across_session import AcrossSession, FollowUpContext
from spiqa_demo.ui.state.chat_history import bounded
from spiqa_demo.ui.state.session import Answering, Session

if TYPE_CHECKING:

    from spiqa_demo.crosspaper.cited_answer import CitedAnswer, CitedPaper, CitedPassage
    from spiqa_demo.library import PaperLibrary


RANKING_TITLE = "Ranked references"
NO_ANCHOR = "Load a paper in the Paper tab first: its references appear here, and questions are about it."
STILL_LOADING = "The paper is still being read in the Paper tab; ask again when it is ready."
NO_CITED = ("None of the papers this question leads to is in the library yet: add their PDFs (or arXiv ids) "
            "under “Add cited papers”. The references that best match the question:")
SHOWN_REFERENCES = 10
NOT_AVAILABLE = "—"
SHOWS = "the cited paper and the passage that best match your question"  # without a model
PASSAGE_HINT = "The passage that supports an answer is shown here on its page, boxed."


class AskOutputs(NamedTuple):
    """A cross-paper question's turn as it streams (outputs left out stay as they are), in the order of `components`."""

    chatbot: History
    state: AcrossSession
    question: str  # the box, emptied
    page: Any = gr.skip()  # the supporting passage on its page, once answered
    detail: Any = gr.skip()
    page_text: Any = gr.skip()  # the page's selectable text (`page_view.page_text`), laid over it in the browser



class StopOutputs(NamedTuple):
    """The chat after a stop, in the order of `components`."""

    chatbot: History
    state: AcrossSession



def references_table(answer: CitedAnswer, limit: int = SHOWN_REFERENCES) -> str:
    """The ranked references (best first) with whether each is in the library and why it ranks there."""
    if not answer.cited_papers:
        return "This paper has no references to rank."
    rows = ["| # | Reference | Title | In the library | Score | Why |", "|---|---|---|---|---|---|"]
    for i, cited in enumerate(answer.cited_papers[:limit], 1):
        held = inert(public_name(cited.source)) if cited.source else NOT_AVAILABLE
        rows.append(f"| {i} | {inert(cited.key)} | {inert(cited.title[:120])} | {held} | {cited.score:.2f} | {inert(cited.why)} |")
    return "\n".join(rows)


def chosen_paper(answer: CitedAnswer) -> CitedPaper | None:
    """The cited paper the best passage comes from (the best ranked one in the library without passages)."""
    held = [c for c in answer.cited_papers if c.source]
    if answer.passages:
        return next((c for c in held if c.source == answer.passages[0].source), held[0] if held else None)
    return held[0] if held else None


def supporting(answer: CitedAnswer) -> list[CitedPassage]:
    """The passages shown as the answer's support: none when the model said it does not know (the
    passages it read are listed in the ranking, never as support for an answer that was not given)."""
    return [] if answer.text and is_abstention(answer.text) else answer.passages


def passage_quote(passage: CitedPassage) -> str:
    return f"> {inert(one_line(passage.text, 700))}\n\n— *{inert(passage.paper_title)}*, page {passage.page}"


def answer_messages(answer: CitedAnswer, notes: list[str]) -> History:
    """The assistant messages for a finished answer (after the ranking thought)."""
    cited = chosen_paper(answer)
    passages = supporting(answer)
    passage = passages[0] if passages else None
    if answer.text:
        text = inert(answer.text)
    elif passage is not None:
        text = f"*No written answer.* The best supporting passage is from **{inert(passage.paper_title)}**, page {passage.page}."
    else:
        best = [f"{i}. {inert(c.key)} *{inert(c.title[:160])}* — {inert(c.why)}"
                for i, c in enumerate(answer.cited_papers[:5], 1)]
        text = NO_CITED + "\n\n" + ("\n".join(best) or "*(this paper has no references)*")
    if notes:
        text += "\n\n" + "\n".join(f"> ⚠️ {inert(note)}" for note in notes)
    messages = [chat_message("assistant", text)]
    figure = answer.anchor_figure
    if figure is not None:
        if figure.image:
            messages.append(chat_message("assistant", {"path": figure.image, "alt_text": figure.title}))
        messages.append(chat_message("assistant", f"**In this paper: {inert(figure_name(figure))}** · "
                                           "the figure or table the question is about"))
    if cited is not None and cited.source:
        messages.append(chat_message("assistant", f"**Cited paper:** {inert(cited.key)} *{inert(cited.title)}* "
                                           f"({code(public_name(cited.source))})\n\n*Why this paper:* {inert(cited.why)}"))
    if passage is not None:
        messages.append(chat_message("assistant", "**Supporting passage** (boxed on its page, under the chat):\n\n" + passage_quote(passage)))
    return messages


def passage_render(answer: CitedAnswer, owner: object) -> PageRender | None:
    """The page of the best supporting passage being drawn for session `owner` (None: no passage, or its PDF is gone)."""
    passages = supporting(answer)
    if not passages or not Path(passages[0].source).is_file():
        return None
    return rendered(Path(passages[0].source), passages[0].page, False, PAGE_DPI, owner)


def passage_view(answer: CitedAnswer, render: PageRender | None) -> tuple[dict[str, Any], str]:
    """(AnnotatedImage update, markdown): the best passage on its page (drawn by `render`), boxed."""
    passages = supporting(answer)
    if not passages:
        return gr.update(value=None, visible=False), PASSAGE_HINT
    passage = passages[0]
    detail = f"#### {inert(passage.paper_title)} · page {passage.page}\n\nThe supporting passage (quoted in the chat) is boxed."
    if render is None or render.image is None:
        why = f": {inert(render.error)}" if render is not None and render.error else ""
        return gr.update(value=None, visible=False), detail + f"\n\n*(the page image is not available{why})*"
    if passage.bbox is None:
        detail += "\n\n*(where the passage sits on the page is not known, so nothing is boxed)*"
    return gr.update(value=box_on_page(render.image, passage.bbox, f"page {passage.page}"), visible=True), detail


def _wait_for_cited(across: AcrossSession, turn: Answering) -> Iterator[Wait | None]:
    """While cited papers are being added, say so (None: show it) and wait: the question may be about them."""
    job = across.add_job
    while job is not None and not job.done and not turn.stopped:
        turn.think(f"Waiting for the cited papers to be read: {inert(job.message)}…")
        yield None
        yield Wait(lambda: job.done or turn.stopped, POLL_S)


def _turn(history: History, across: AcrossSession) -> AskOutputs:
    """The chat as it stands, with the question box emptied; a copy, as the session's list goes on changing
    while Gradio sends this one."""
    return AskOutputs(chatbot=list(history), state=across, question="")


def _say(across: AcrossSession, history: History, message: str) -> AskOutputs:
    history.append(chat_message("assistant", inert(message)))
    return _turn(history, across)


def ask(question: str, session: Session | None, across: AcrossSession | None,
        *panel: PanelValue) -> Iterator[AskOutputs | Wait]:
    """Stream one cross-paper question's turn (as `steps`: Gradio runs it `unthreaded`); once answered,
    the supporting passage is shown on its page."""
    session, across = session or Session(), across or AcrossSession()
    storage.in_use(session)
    chosen = PanelChoice.from_values(panel)
    choice, api_key = chosen.choice, chosen.api_key
    try:  # cut to its limit here, before the chat keeps it
        asked = check_question(question, app_settings().qa)
    except InputError as exc:  # nothing typed: said, not silently ignored
        yield _say(across, across.history, f"⚠️ {full_sentence(str(exc))}")
        return
    library = across.sync(session)
    user = question_message(asked)
    if session.loading or library is None:
        across.add_question(user)
        yield _say(across, across.history, STILL_LOADING if session.loading else NO_ANCHOR)
        return
    thought = chat_message("assistant", "Ranking this paper's references for the question…",
                    metadata={"title": RANKING_TITLE, "status": "pending"})
    turn = across.start_turn(thought)
    history = across.history
    across.add_question(user, thought)
    for step in _wait_for_cited(across, turn):
        yield step or _turn(history, across)
    if turn.stopped:
        yield _turn(history, across)
        return
    turn.think("Ranking this paper's references for the question…")
    yield _turn(history, across)
    yield from _answer(asked.text, library, session, across, turn, choice, api_key)


def _answer(question: str, library: PaperLibrary, session: Session, across: AcrossSession, turn: Answering,
            choice: ModelChoice, api_key: str) -> Iterator[AskOutputs | Wait]:
    from spiqa_demo.conversation import read_question
    from spiqa_demo.crosspaper.cited_answer import CitedAnswer, ask_cited_stream

    history = across.history
    backend, notice = resolve_backend(choice, api_key)
    started = time.monotonic()
    # In the context of the chat: a follow-up ("and what is its computational cost?") is completed from
    # the previous question (naming the same cited paper) and asked about the same figure or table.
    previous = across.last
    reading = read_question(question, previous.read_as if previous else None, library.anchor)
    followup = previous is not None and reading.text != question
    events = ask_cited_stream(library, reading.text, backend, figure=previous.figure if followup and previous else None,
                              settings=library.settings.qa)
    result: Streamed[CitedAnswer] = Streamed()
    call = model_calls.start(id(session), events, backend)  # the session's one model call, whichever tab asks
    with closing(stream_reply(call, CitedAnswer, turn, history, result)) as chunks:
        for step in chunks:
            yield step or _turn(history, across)
    if result.error:
        yield _say(across, history, f"⚠️ {full_sentence(result.error)}")
        return
    answer = result.answer
    if answer is None:
        yield _turn(history, across)
        return
    turn.finished = True
    if across.turn is turn:
        across.turn = None
    held = sum(1 for c in answer.cited_papers if c.source)
    turn.think(bounded(references_table(answer)), {"title": f"{RANKING_TITLE}: {len(answer.cited_papers)}, {held} in the library",
                                                   "status": "done", "duration": round(time.monotonic() - started, 2)})
    notes = model_notes([worded(notice, SHOWS)] if notice else [], across, SHOWS) + [full_sentence(m) for m in answer.messages]
    across.last = FollowUpContext(reading.text, answer.anchor_figure)
    messages = answer_messages(answer, notes)
    if followup:
        messages[0]["content"] = f"*Read as:* “{inert(reading.text)}”\n\n{messages[0]['content']}"
    history.extend(messages)
    render = passage_render(answer, id(across))
    if render is not None and not render.done:
        yield Wait(lambda: render.done)
    page, detail = passage_view(answer, render)
    text = page_text(render.image) if render is not None and render.image is not None else ""
    yield AskOutputs(chatbot=list(history), state=across, question="", page=page, detail=detail, page_text=text)


def stop(across: AcrossSession | None) -> StopOutputs:
    """The Stop button: the answer being written keeps its text, marked stopped."""
    across = across or AcrossSession()
    across.stop_turn()
    return StopOutputs(chatbot=list(across.history), state=across)


def clear(across: AcrossSession | None) -> AcrossSession:
    """Forget the chat and what follow-ups read on from; the library stays."""
    across = across or AcrossSession()
    across.history, across.last = [], None
    return across
