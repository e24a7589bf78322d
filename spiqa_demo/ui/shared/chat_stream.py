"""The streaming both chats share (Paper, Across papers): a model call's pieces shown in the chat as they
come, the waits between them, and the messages a chat keeps (bounded, `chat_history`).

A turn's "thought" message says what the answer is waiting for; the reply grows as the model writes
it and is replaced by the finished answer, or kept and marked stopped when the turn is stopped.
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Iterator
from contextlib import closing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, NamedTuple, TypeVar

from spiqa_demo.errors import PaperError
from spiqa_demo.questions import Question
from spiqa_demo.ui.serving.chat_messages import History, ImageContent, Message
from spiqa_demo.ui.serving.messages import full_sentence
from spiqa_demo.ui.serving.untrusted import inert
from spiqa_demo.ui.serving.work import model_calls
from spiqa_demo.ui.serving.work.model_calls import ModelCall
from spiqa_demo.ui.serving.work.steps import POLL_S, Wait
from spiqa_demo.ui.state.chat_history import MAX_MESSAGE_CHARS, bounded
from spiqa_demo.ui.state.session import Answering, Session

if TYPE_CHECKING:
    from gradio.components.chatbot import MetadataDict

    from spiqa_demo.models import ModelBackend

log = logging.getLogger(__name__)

A = TypeVar("A")  # the final object a streamed flow ends with (`Answer`, `CitedAnswer`)


def chat_message(role: Literal["user", "assistant"], text: str | ImageContent,
                 metadata: MetadataDict | None = None) -> Message:
    """A Gradio message (a thought when it has `metadata`); its text is bounded (`chat_history.bounded`), as
    every message of a chat is kept."""
    message: Message = {"role": role, "content": bounded(text) if isinstance(text, str) else text}
    if metadata is not None:
        message["metadata"] = metadata
    return message


def question_message(asked: Question) -> Message:
    """The asker's message: the question as it is kept, with a note when it was cut to its limit."""
    return chat_message("user", asked.text + "".join(f"\n\n> ⚠️ {full_sentence(note)}" for note in asked.notes))



def waiting_for_model(call: ModelCall[object]) -> str:
    ahead = call.ahead()
    return ("Waiting for the model: other questions are being answered first"
            + (f" ({ahead} before this one)" if ahead else "") + "…")


@dataclass
class Streamed(Generic[A]):
    """How a streamed answer ended: its final object, a failure message for people, or neither (stopped)."""

    answer: A | None = None
    error: str = ""



def stream_reply(call: ModelCall[object], final: type[A], turn: Answering, history: History,
                 result: Streamed[A], status: type | None = None) -> Generator[Wait | None, None, None]:
    """Show a model call's text pieces in the chat as they come (None: show the chat now; a `Wait`
    while the model has nothing new) and put how it ended in `result`; events of type `status` (a
    step with its `text`) are shown in the turn's thought instead. However the stream ends
    (answered, failed, stopped, cancelled) the call is stopped, freeing its model; an unanswered
    turn is marked stopped with what was written kept."""
    reply = chat_message("assistant", "")
    streamed = ""
    try:
        while not turn.stopped and result.answer is None:
            if not call.started:
                turn.think(waiting_for_model(call))
                yield None
                yield Wait(lambda: call.started or call.finished or turn.stopped, POLL_S)
                continue
            events = call.take()
            if not events and call.finished:
                break
            if not events:
                yield Wait(lambda: call.has_news() or turn.stopped)
            for event in events:
                if isinstance(event, final):
                    result.answer = event
                    break
                if turn.stopped:
                    break
                if status is not None and isinstance(event, status):
                    turn.think(f"{inert(str(getattr(event, 'text', event)))}…")
                    yield None
                    continue
                if not streamed:
                    turn.think("Waiting for the model's reply…")
                    turn.reply = reply
                    history.append(reply)
                if len(streamed) <= MAX_MESSAGE_CHARS:  # a reply that never ends is kept up to the bound
                    streamed += str(event)
                    turn.written = streamed
                reply["content"] = bounded(inert(streamed))
                yield None  # each piece is shown, however many came at once
    except Exception as exc:  # PaperError: bad input; anything else is a bug, but the chat goes on
        if not isinstance(exc, PaperError):
            log.exception("answering failed")
        result.error = str(exc) if isinstance(exc, PaperError) else f"something went wrong while answering ({type(exc).__name__})"
        turn.finished = True
        if turn.thought in history:  # a newer question may have dropped this turn (`chat_history.keep_recent`)
            history.remove(turn.thought)
    finally:
        call.stop()
        if result.answer is None:
            turn.stop()  # cancelled, closed, or stopped: what was written stays, marked stopped
    if (result.answer is not None or result.error) and reply in history:
        history.remove(reply)



class AskOutputs(NamedTuple):
    """A question's turn as it streams, in the order of `components`."""

    chatbot: History
    session: Session
    question: str  # the box, emptied



def shown_turn(history: History, session: Session) -> AskOutputs:
    """The chat as it stands, with the question box emptied; a copy, as the session's list goes on changing
    (this answer, a load's greeting) while Gradio sends this one."""
    return AskOutputs(chatbot=list(history), session=session, question="")



def streamed_answer(events: Iterator[object], final: type[A], backend: ModelBackend | None, session: Session, turn: Answering, history: History,
                    status: type | None = None) -> Generator[AskOutputs | Wait, None, A | None]:
    """Run a flow as the session's model call (`model_calls.start`), stream it into `history`
    (`stream_reply`), say its error in the chat, and return its final object; None when it has none
    (the chat as it then stands was shown)."""
    result: Streamed[A] = Streamed()
    call = model_calls.start(id(session), events, backend)
    with closing(stream_reply(call, final, turn, history, result, status=status)) as chunks:
        for step in chunks:
            yield step or shown_turn(history, session)
    if result.error:
        history.append(chat_message("assistant", f"⚠️ {inert(full_sentence(result.error))}"))
    if result.answer is None:
        yield shown_turn(history, session)
    return result.answer
