"""The chat over the loaded paper (Gradio 6 messages): the answer streams, then the evidence is shown.

Each question becomes: the user's message; a collapsed "thought" with the shortlist and its
retrieval scores; the answer (streamed as the model writes it, then replaced by the parsed answer);
and the chosen figure inline with its label, page and the model's rationale. Notes from the QA flow
(a server that cannot be reached, a wrong key) are shown under the answer; the retrieval-only notice
is said once per session. Follow-up questions ask about the same paper.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from html import escape
from typing import Any

from spiqa_demo.errors import PaperError
from spiqa_demo.ui.model_settings import RETRIEVAL_ONLY_NOTICE, ModelChoice, resolve_backend
from spiqa_demo.ui.session import Session

log = logging.getLogger(__name__)

History = list[dict[str, Any]]  # Gradio messages
SHORTLIST_TITLE = "Shortlist"

NO_PAPER = "Load a paper first: upload a PDF, type an arXiv id, or pick an example above."
STILL_LOADING = "The paper is still being read and indexed; ask again when the chat says it is ready."


def clear(session: Session | None) -> Session:
    """Forget the chat (the trash button); the paper stays loaded."""
    session = session or Session()
    session.history = []
    return session


def _text(role: str, text: Any, **extra: Any) -> dict[str, Any]:
    return {"role": role, "content": text, **extra}


def shortlist_markdown(answer) -> str:  # type: ignore[no-untyped-def]
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
            f"| {i} | {escape(candidate.figure.title)} | {candidate.figure.page} | {candidate.score:.2f} | "
            f"{dense:.2f} | {bm25:.1f} | {', '.join(notes)} |"
        )
    shown = "Image i is the i-th figure shown to the model." if answer.model else "Ranked by retrieval (no model)."
    return "\n".join(rows) + f"\n\n{shown}"


def figure_caption(answer) -> str:  # type: ignore[no-untyped-def]
    """"**Figure 3** · page 5 · chosen by the model (Image 1)" plus the rationale and caption."""
    figure = answer.figure
    who = {
        "model": f"chosen by the model (Image {answer.chosen_index})",
        "retrieval": "best retrieval match" + (" (the model named no figure)" if answer.model else ""),
    }.get(answer.figure_source, "")
    lines = [f"**{escape(figure.title)}** · page {figure.page} · {who}"]
    if answer.rationale:
        lines.append(f"*Why this figure:* {escape(answer.rationale)}")
    if figure.caption:
        lines.append(f"<small>{escape(figure.caption[:400])}</small>")
    return "\n\n".join(lines)


def answer_messages(answer, notes: list[str]) -> History:  # type: ignore[no-untyped-def]
    """The assistant messages for a finished answer (after the shortlist thought)."""
    if answer.answered:
        text = escape(answer.answer)
    elif answer.figure is not None:
        text = f"*No written answer.* The most relevant {answer.figure.kind} is **{escape(answer.figure.title)}** (page {answer.figure.page})."
    else:
        text = "*No written answer, and this paper has no figures or tables to show.*"
    if notes:
        text += "\n\n" + "\n".join(f"> ⚠️ {escape(note)}" for note in notes)
    messages = [_text("assistant", text)]
    if answer.figure is not None and answer.figure.image:
        messages.append(_text("assistant", {"path": answer.figure.image, "alt_text": answer.figure.title}))
        messages.append(_text("assistant", figure_caption(answer)))
    return messages


def _notes(answer, session: Session, notice: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The flow's messages for people; the retrieval-only notice only the first time in a session."""
    notes = []
    for message in answer.messages:
        if message == RETRIEVAL_ONLY_NOTICE:
            if session.told_retrieval_only:
                continue
            session.told_retrieval_only = True
        notes.append(message[:1].upper() + message[1:])
    return notes


def ask(question: str, session: Session | None, *choice_and_key: Any) -> Iterator[tuple[History, Session, str]]:
    """Stream one question's turn into the session's chat: yields (history, session, question box)."""
    from spiqa_demo.qa import Answer, ask_stream

    session = session or Session()
    history = session.history
    *fields, api_key = choice_and_key
    choice = ModelChoice.from_inputs(*fields)
    question = " ".join((question or "").split())
    if not question:
        yield list(history), session, ""
        return
    history.append(_text("user", question))
    if session.loading or session.paper is None:
        history.append(_text("assistant", STILL_LOADING if session.loading else NO_PAPER))
        yield list(history), session, ""
        return
    thought = _text("assistant", "Ranking the paper's figures and tables…",
                    metadata={"title": SHORTLIST_TITLE, "status": "pending"})
    history.append(thought)
    yield list(history), session, ""

    backend, notice = resolve_backend(choice, api_key)
    reply = _text("assistant", "")
    streamed = ""
    try:
        for event in ask_stream(session.paper, question, backend, task=choice.task, k=choice.k,
                                use_captions=choice.captions, notice=notice):
            if isinstance(event, Answer):
                answer = event
                break
            if not streamed:
                thought["content"] = "Waiting for the model's reply…"
                history.append(reply)
            streamed += event
            reply["content"] = escape(streamed)
            yield list(history), session, ""
    except Exception as exc:  # PaperError: bad input; anything else is a bug, but the chat goes on
        if not isinstance(exc, PaperError):
            log.exception("answering failed")
        message = str(exc) if isinstance(exc, PaperError) else f"something went wrong while answering ({type(exc).__name__})"
        history.remove(thought)
        if reply in history:
            history.remove(reply)
        history.append(_text("assistant", f"⚠️ {escape(message[:1].upper() + message[1:])}"))
        yield list(history), session, ""
        return
    session.last_answer = answer
    thought["content"] = shortlist_markdown(answer)
    thought["metadata"] = {
        "title": f"{SHORTLIST_TITLE}: {len(answer.candidates)} candidates by retrieval score",
        "status": "done",
        "duration": round(answer.timings.get("total", 0.0), 2),
    }
    if reply in history:
        history.remove(reply)
    history.extend(answer_messages(answer, _notes(answer, session, notice)))
    yield list(history), session, ""
