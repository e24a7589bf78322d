"""The reader's conversation in the Paper tab's chat (the default task; SPIQA's tasks stay in `chat`).

Each question is asked in the context of the chat so far (`spiqa_demo.conversation`): a follow-up
says how it was read ("Read as: ..."), and the answer is shown with what it rests on: the cited
figure or table (crop, label, page) and the cited passages (quoted, with their page). Selecting one
of those messages opens its page in the viewer with the evidence boxed (`page_viewer`); the session
keeps which evidence each message shows. The model's internal numbering never reaches the reader:
the core names images by their labels, and a model that says it does not know shows no evidence.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from spiqa_demo.conversation import Evidence, Status, Turn, ask_turn_stream, stopped_turn
from spiqa_demo.conversation.extractive import NOT_FOUND
from spiqa_demo.paper_text import one_line
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.chat_messages import History, Message
from spiqa_demo.ui.serving.messages import figure_name
from spiqa_demo.ui.serving.untrusted import inert
from spiqa_demo.ui.serving.work.steps import Wait
from spiqa_demo.ui.shared.chat_stream import AskOutputs, chat_message, shown_turn, streamed_answer
from spiqa_demo.ui.shared.model_settings import model_notes, worded
from spiqa_demo.ui.state.chat_history import bounded
from spiqa_demo.ui.state.session import Asked

if TYPE_CHECKING:
    from spiqa_demo.models.base import ModelBackend
    from spiqa_demo.types import Paper
    from spiqa_demo.ui.state.session import Answering, Session

EVIDENCE_TITLE = "Evidence"
OPEN_HINT = "select to open its page, boxed"
QUOTE_CHARS = 600
SHOWS = "the paper's sentences that best answer your question, quoted"  # without a model
CLOSEST = "closest match (it does not answer the question)"


def evidence_name(e: Evidence) -> str:
    """"Table 3 · page 7", "Unlabelled figure (page 2)", or "Passage · page 6"."""
    return figure_name(e.figure) if e.figure is not None else f"Passage · page {e.page}"


def evidence_markdown(turn: Turn) -> str:
    """The shortlist the answer was written from: kind, page, score and whether the answer cites it."""
    if not turn.evidence:
        return "No figures, tables or text to rank."
    rows = ["| # | Evidence | Page | Score | Cited |", "|---|---|---|---|---|"]
    for i, e in enumerate(turn.evidence, 1):
        cited = "**cited**" if e in turn.cited else ""
        rows.append(f"| {i} | {inert(e.figure.title if e.figure is not None else 'Passage')} | {e.page} | {e.score:.2f} | {cited} |")
    return "\n".join(rows) + f"\n\n*Searched with:* “{inert(turn.read_as)}”"


def passage_quote(e: Evidence, chars: int = QUOTE_CHARS) -> str:
    """The passage's quoted sentences (those the answer rests on), or its text, cut to `chars`."""
    return one_line(" … ".join(e.quotes) if e.quotes else e.text, chars)


def answer_markdown(turn: Turn) -> str:
    """The answer's text; one that says the paper does not say (`Turn.not_found`) or the model does
    not know (`Turn.abstained`) says so first, in a note of its own kind, before the closest evidence."""
    if turn.not_found:
        rest = turn.answer.removeprefix(NOT_FOUND).strip()
        return f"ℹ️ **{NOT_FOUND}**" + (f" {inert(rest)}" if rest else "") + "\n\n*The closest evidence is shown below for you to check.*"
    if turn.abstained:
        return f"ℹ️ **The evidence shown to the model does not answer this.** *The model said:* {inert(turn.answer)}"
    return inert(turn.answer) if turn.answer else "*No answer was found in this paper.*"


def quoted_in(answer: str, e: Evidence) -> bool:
    """The answer already says the passage's quoted sentences word for word (an extractive answer quotes them)."""
    said = " ".join(answer.split())
    return bool(e.quotes) and all(" ".join(q.split()) in said for q in e.quotes)


def turn_messages(turn: Turn, notes: list[str]) -> list[tuple[Message, Evidence | None]]:
    """The assistant messages for a finished turn (after the evidence thought), each with the evidence
    selecting it opens (the answer opens its first cited evidence)."""
    shown = turn.shown
    head = f"*Read as:* “{inert(turn.read_as)}”\n\n" if turn.followup else ""
    text = head + answer_markdown(turn)
    if notes:
        text += "\n\n" + "\n".join(f"> ⚠️ {inert(note)}" for note in notes)
    messages: list[tuple[Message, Evidence | None]] = [(chat_message("assistant", text), shown[0] if shown else None)]
    cited = CLOSEST if turn.not_found else "cited" if turn.cited else "best match (the answer cites none)"
    for e in shown:
        figure = e.figure
        if figure is not None:
            if figure.image:
                messages.append((chat_message("assistant", {"path": figure.image, "alt_text": e.label or figure.title}), e))
            caption = f"<small>{inert(one_line(figure.caption, 400))}</small>" if figure.caption else ""
            cells = "".join(f"\n\nCell: row “{inert(c.row_name)}”, column “{inert(c.heading)}”: **{inert(c.value)}** (boxed on its page)"
                            for c in e.cells)
            messages.append((chat_message("assistant", f"**{inert(evidence_name(e))}** · {cited} · *{OPEN_HINT}*{cells}\n\n{caption}"), e))
        elif quoted_in(turn.answer, e):  # said once: the answer is this quote
            messages.append((chat_message("assistant", f"**{inert(evidence_name(e))}** · {cited}, quoted in the answer · "
                                                        f"*{OPEN_HINT}*"), e))
        else:
            messages.append((chat_message("assistant", f"> {inert(passage_quote(e))}\n\n— **page {e.page}** · {cited} · "
                                                        f"*{OPEN_HINT}*"), e))
    return messages


def answer(question: str, paper: Paper, session: Session, chat_turn: Answering, backend: ModelBackend | None,
           notice: str) -> Iterator[AskOutputs | Wait]:
    """Stream one reader's turn into the session's chat (the steps of `chat.ask` once the paper is there)."""
    settings = app_settings()
    history: History = session.history
    chat_turn.think("Reading the question…", {"title": EVIDENCE_TITLE, "status": "pending"})
    conversation = session.conversation
    # The flow answers on a copy: its turn enters the session's conversation here, in this thread, once it is
    # shown, or as stopped (`on_stop`); a stopped call still running in a model's thread adds nothing after Stop.
    events = ask_turn_stream(paper, replace(conversation, turns=list(conversation.turns)), question, backend, settings.qa,
                             retrieval=settings.retrieval, notice=worded(notice, SHOWS))

    def keep_stopped(stopped: Answering) -> None:
        """However it is stopped, the question counts as asked for the next follow-up, and the export
        keeps it with what was written, marked stopped."""
        kept = stopped_turn(paper, conversation, question, settings.qa)
        session.asked.append(Asked(replace(kept, answer=stopped.written)))

    chat_turn.on_stop = keep_stopped
    turn = yield from streamed_answer(events, Turn, backend, session, chat_turn, history, status=Status)
    if turn is None:  # stopped (kept above) or failed
        return
    chat_turn.finished = True  # first: a Stop from now on keeps nothing (the answer is whole)
    conversation.append(turn)
    session.asked.append(Asked(turn))
    chat_turn.think(bounded(evidence_markdown(turn)),
                    {"title": f"{EVIDENCE_TITLE}: {len(turn.evidence)} figures, tables and passages by retrieval score",
                     "status": "done"})
    for message, evidence in turn_messages(turn, model_notes(turn.messages, session, SHOWS)):
        history.append(message)
        if evidence is not None:
            session.cite(message, evidence)
    if session.turn is chat_turn:
        session.turn = None
    yield shown_turn(history, session)
