"""The chat over the loaded paper (Gradio 6 messages): the answer streams, then the evidence is shown.

Each question becomes: the user's message; a collapsed "thought" with the shortlist and its
retrieval scores; the answer (streamed as the model writes it, then replaced by the parsed answer);
and the chosen figure inline with its label, page and the model's rationale. Notes from the QA flow
(a server that cannot be reached, a wrong key) are shown under the answer; the retrieval-only notice
is said once per session. Follow-up questions ask about the same paper.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from spiqa_demo.errors import InputError
from spiqa_demo.questions import check_question
from spiqa_demo.types import Figure, Paper
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.chat_messages import History
from spiqa_demo.ui.serving.files import storage
from spiqa_demo.ui.serving.messages import figure_name, full_sentence
from spiqa_demo.ui.serving.untrusted import inert
from spiqa_demo.ui.serving.work.loading import greeting
from spiqa_demo.ui.serving.work.steps import POLL_S, Wait
from spiqa_demo.ui.shared.chat_stream import (
    AskOutputs,
    chat_message,
    question_message,
    shown_turn,
    streamed_answer,
)
from spiqa_demo.ui.shared.model_settings import (
    READER,
    ModelChoice,
    PanelChoice,
    PanelValue,
    model_notes,
    resolve_backend,
    worded,
)
from spiqa_demo.ui.state.chat_history import bounded
from spiqa_demo.ui.state.session import Answering, Session
from spiqa_demo.ui.tabs.paper import examples, reader_chat

if TYPE_CHECKING:
    from spiqa_demo.qa import Answer

SHORTLIST_TITLE = "Shortlist"
SHOWS = "the figure or table that best matches your question"  # SPIQA's tasks, without a model

EMPTY_QUESTION = "*(an empty question)*"
NO_PAPER = "Load a paper first: upload a PDF or type an arXiv id above."
NO_PAPER_OR_EXAMPLE = "Load a paper first: upload a PDF, type an arXiv id, or pick an example above."  # where there are examples
# A question sent just after a file was dropped can reach the server before the browser's word that
# the file is uploading (`upload_watch`): a question with no paper waits this long for that word, or
# for a load to begin. Once the word came, it waits for the upload however long it takes.
UPLOAD_GRACE_S = 5.0
# How long a question waits, once its paper is ready, for the load's request to send its last update:
# that takes one step of the load's handler, so only a request gone without closing its handler is
# waited for this long; long enough for a step on a machine busy with other loads.
REPORTED_GRACE_S = 10.0
UPLOADING = "Waiting for the paper to arrive: it is still uploading…"
LOOKING = "Looking for a paper being uploaded…"


class ClearOutputs(NamedTuple):
    """The chat after the trash button, in the order of `components`."""

    chatbot: History
    session: Session


def clear(session: Session | None) -> ClearOutputs:
    """Forget the chat (the trash button); the paper stays loaded, and the chat greets it again rather
    than showing the "load a paper" placeholder."""
    session = session or Session()
    session.clear_chat()
    if session.paper is not None:
        session.history.append(chat_message("assistant", greeting(session.paper)))
    return ClearOutputs(chatbot=list(session.history), session=session)


def export(session: Session | None) -> dict[str, Any]:
    """The reader's conversation as a fresh zip (`exports.chat_zip`), every question in it, stopped ones
    marked; shown, and downloaded by the button's next step; said when there is nothing yet."""
    import gradio as gr

    from spiqa_demo.ui.tabs.paper.exports import chat_zip

    if session is None or session.paper is None or not session.asked:
        gr.Warning("Nothing to export yet: ask a question about a loaded paper first (with the Reader task).")
        return gr.update(value=None, visible=False)
    storage.in_use(session)
    count = len(session.asked)
    return gr.update(value=str(chat_zip(session.paper, session.asked)), visible=True,
                     label=f"Chat export: {count} question{'s' if count > 1 else ''}")


def shortlist_markdown(answer: Answer) -> str:
    """The candidates the model saw, with their fused and per-signal retrieval scores."""
    if not answer.candidates:
        return "No figures or tables to rank."
    chosen = answer.figure.id if answer.figure is not None else None
    rows = ["| # | Item | Page | Score | Dense | BM25 | Notes |", "|---|---|---|---|---|---|---|"]
    for i, candidate in enumerate(answer.candidates):
        scores = candidate.scores
        notes = []
        if candidate.figure.id == chosen:
            notes.append("**chosen**" if answer.figure_source == "model" else "**best retrieved**")
        if scores is not None and scores.label:
            notes.append("named in question")
        if scores is not None and scores.prior:
            notes.append(f"kind prior {scores.prior:+.1f}")
        if candidate.helpful is not None:
            notes.append(f"P(helpful) {candidate.helpful:.2f}")
        dense, bm25 = (scores.dense, scores.bm25) if scores is not None else (float("nan"), float("nan"))
        rows.append(
            f"| {i} | {inert(candidate.figure.title)} | {candidate.figure.page} | {candidate.score:.2f} | "
            f"{dense:.2f} | {bm25:.1f} | {', '.join(notes)} |"
        )
    shown = "Image i is the i-th figure shown to the model." if answer.model else "Ranked by retrieval (no model)."
    return "\n".join(rows) + f"\n\n{shown}"


def figure_caption(answer: Answer, figure: Figure) -> str:
    """"**Figure 3** · page 5 · chosen by the model (Image 1)" plus the rationale and caption of the
    answer's `figure`."""
    who = {
        "model": f"chosen by the model (Image {answer.chosen_index})",
        "retrieval": "best retrieval match" + (" (the model named no figure)" if answer.model else ""),
    }.get(answer.figure_source, "")
    lines = [f"**{inert(figure_name(figure))}** · {who}"]
    if answer.rationale:
        lines.append(f"*Why this figure:* {inert(answer.rationale)}")
    if figure.caption:
        lines.append(f"<small>{inert(figure.caption[:400])}</small>")
    return "\n\n".join(lines)


def answer_messages(answer: Answer, notes: list[str]) -> History:
    """The assistant messages for a finished answer (after the shortlist thought)."""
    if answer.answered:
        text = inert(answer.answer)
    elif answer.figure is not None:
        text = f"*No written answer.* The most relevant {answer.figure.kind} is **{inert(figure_name(answer.figure))}**."
    else:
        text = "*No written answer, and this paper has no figures or tables to show.*"
    if notes:
        text += "\n\n" + "\n".join(f"> ⚠️ {inert(note)}" for note in notes)
    messages = [chat_message("assistant", text)]
    if answer.figure is not None and answer.figure.image:
        messages.append(chat_message("assistant", {"path": answer.figure.image, "alt_text": answer.figure.title}))
        messages.append(chat_message("assistant", figure_caption(answer, answer.figure)))
    return messages


def _wait_for_paper(session: Session, turn: Answering) -> Iterator[Wait | None]:
    """While the session's paper is uploading, then read and indexed, say so (None: show it) and wait."""
    turn.waiting_for_paper = True
    if session.paper is None and session.load_job is None and not session.uploading:
        # The question shows at once, saying what it waits for: the grace is no blank chat.
        turn.think(LOOKING, {"title": "Waiting for a paper", "status": "pending"})  # none is loading yet
        yield None
    yield Wait(lambda: session.paper is not None or session.load_job is not None or session.uploading or turn.stopped,
               UPLOAD_GRACE_S)
    while session.uploading and not turn.stopped:  # ended by its load's start, or by a failed upload
        turn.think(UPLOADING, {"title": "Loading the paper", "status": "pending"})
        yield None
        yield Wait(lambda: not session.uploading or turn.stopped, POLL_S)
    while (job := session.load_job) is not None and not job.done and not turn.stopped:
        turn.think(f"Waiting for the paper to be read and indexed: {inert(job.waiting_message())}…",
                   {"title": "Loading the paper", "status": "pending"})
        yield None
        yield Wait(lambda: job.done or turn.stopped, POLL_S)
    if (last := session.load_job) is not None:
        # The load's request sends its last update once more as it completes: an answer shown before
        # would be replaced by the load's copy of the chat (bounded: a request gone without closing).
        yield Wait(lambda: last.reported.is_set() or turn.stopped, REPORTED_GRACE_S)
    turn.waiting_for_paper = False


def ask(question: str, session: Session | None, *panel: PanelValue, spiqa: bool = False) -> Iterator[AskOutputs | Wait]:
    """Stream one question's turn into the session's chat (as `steps`: Gradio runs it `unthreaded`).

    A question asked while the paper loads waits for it. The answer is marked stopped, with what
    was written kept, when the visitor presses Stop, cancels the request, or asks again meanwhile.
    """
    session = session or Session()
    storage.in_use(session)
    chosen = PanelChoice.from_values(panel)
    choice, api_key = chosen.choice, chosen.api_key
    try:  # cut to its limit here, before the chat keeps it
        asked = check_question(question, app_settings().qa)
    except InputError as exc:  # nothing typed: said in the chat, which is where the visitor looks for the answer
        # as a turn of its own: Gradio shows an answer after the previous one in that one's bubble
        session.history += [chat_message("user", EMPTY_QUESTION), chat_message("assistant", f"⚠️ {inert(full_sentence(str(exc)))}")]
        yield shown_turn(session.history, session)
        return
    user = question_message(asked)
    thought = chat_message("assistant", "Ranking the paper's figures and tables…",
                    metadata={"title": SHORTLIST_TITLE, "status": "pending"})
    turn = session.start_turn(thought)
    session.add_question(user, thought)
    # a load failing later is this question's answer
    asked_while_loading = session.loading or session.uploading or session.paper is None
    for step in _wait_for_paper(session, turn):
        yield step or shown_turn(session.history, session)
    if not any(message is user for message in session.history):  # the new paper started a new chat
        session.add_question(user, thought)
    history = session.history
    job = session.load_job
    paper = session.paper
    problem = (NO_PAPER_OR_EXAMPLE if examples.example_papers() else NO_PAPER) if paper is None else ""
    if job is not None and job.error and asked_while_loading and not turn.stopped:
        problem = full_sentence(f"The paper could not be loaded: {job.error}")
    if problem or turn.stopped or paper is None:
        turn.finished = not turn.stopped
        if problem:
            history.remove(thought)
            history.append(chat_message("assistant", inert(problem)))
        yield shown_turn(history, session)
        return
    turn.think("Ranking the paper's figures and tables…", {"title": SHORTLIST_TITLE, "status": "pending"})
    yield shown_turn(history, session)
    if choice.task == READER and not spiqa:
        backend, notice = resolve_backend(choice, api_key)
        yield from reader_chat.answer(asked.text, paper, session, turn, backend, notice)
    else:
        yield from _answer(asked.text, paper, session, turn, choice, api_key)


def ask_spiqa(question: str, session: Session | None, *panel: PanelValue) -> Iterator[AskOutputs | Wait]:
    """`ask` with SPIQA's task (the reader's conversation asks CoT): a question picked from the SPIQA
    check's list is answered as the benchmark asks it, so the check can score it."""
    yield from ask(question, session, *panel, spiqa=True)


def _answer(question: str, paper: Paper, session: Session, turn: Answering, choice: ModelChoice,
            api_key: str) -> Iterator[AskOutputs | Wait]:
    from spiqa_demo.qa import Answer, ask_stream
    from spiqa_demo.qa.shortlist import retrieval_shortlist

    settings = app_settings()
    history = session.history
    backend, notice = resolve_backend(choice, api_key)
    notice = worded(notice, SHOWS)
    events = ask_stream(paper, question, backend, task=choice.spiqa_task, k=choice.k,
                        use_captions=choice.captions, notice=notice, shortlist=retrieval_shortlist(settings.retrieval),
                        settings=settings.qa)
    answer = yield from streamed_answer(events, Answer, backend, session, turn, history)
    if answer is None:
        return
    turn.finished = True
    session.last_answer = answer
    turn.think(bounded(shortlist_markdown(answer)), {
        "title": f"{SHORTLIST_TITLE}: {len(answer.candidates)} candidates by retrieval score",
        "status": "done",
        "duration": round(answer.timings.get("total", 0.0), 2),
    })
    history.extend(answer_messages(answer, model_notes(answer.messages, session, SHOWS)))
    if session.turn is turn:  # only now: a paper load's update shows the chat again, with the whole answer
        session.turn = None
    yield shown_turn(history, session)


class StopOutputs(NamedTuple):
    """The chat after a stop, in the order of `components`."""

    chatbot: History
    session: Session


def stop(session: Session | None) -> StopOutputs:
    """The Stop button: the answer being written keeps its text, marked stopped."""
    session = session or Session()
    session.stop_turn()
    return StopOutputs(chatbot=list(session.history), session=session)
