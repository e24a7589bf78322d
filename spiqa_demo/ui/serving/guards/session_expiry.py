"""A session left idle is forgotten whole: its states, and Gradio's copies of what it showed and sent.

Gradio keeps, per session, the app's states (the paper, the chats, a result file) and the last value
of every component an event read or filled (a chat, a table, each box's text as the client sent it).
It frees the states an hour after a browser tab closes, and the rest only when 10,000 newer sessions
push the session out; a client of the API never says that it left. So a session not used for
`SPIQA_UI_SESSION_TTL_S` seconds is dropped here: its states' delete callbacks run (an answer still
waiting is stopped, freeing its model slot) and nothing of it stays. `gr.State(time_to_live=...)`
is not used: it counts from a state's last change, so a visitor who only reads (the gallery, the
results table) would lose the paper, and it leaves Gradio's copies in place (measured: about half
of what a session holding a result file of 10,000 answers keeps).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from spiqa_demo.ui.serving.app_settings import app_settings

if TYPE_CHECKING:
    import gradio as gr
    from gradio.routes import App
    from gradio.state_holder import StateHolder

SWEEP_S = 10.0  # how often idle sessions are looked for


@runtime_checkable
class AnswerWriter(Protocol):
    """A state with a chat (`state.session.Chat`): the answer it is still writing can be stopped."""

    def stop_turn(self) -> None: ...


def visitor_state(initial: object) -> gr.State:
    """A `gr.State` starting as `initial`, one per session; when the session is forgotten, an answer its
    chat is still writing is stopped."""
    import gradio as gr

    return gr.State(initial, delete_callback=_forgotten)


def _forgotten(value: object) -> None:
    if isinstance(value, AnswerWriter):
        value.stop_turn()


def forget_idle(holder: StateHolder, ttl_s: float, now: datetime) -> int:
    """Drop the sessions of `holder` last used more than `ttl_s` seconds before `now`; how many were dropped."""
    idle = [session for session, used in list(holder.time_last_used.items()) if (now - used).total_seconds() > ttl_s]
    for session in idle:
        holder.delete_state(session)  # the states' delete callbacks
        with holder.lock:
            holder.session_data.pop(session, None)
            holder.time_last_used.pop(session, None)
    return len(idle)


@contextlib.asynccontextmanager
async def forgetting_idle_sessions(app: App) -> AsyncIterator[None]:
    """The app's lifespan (`launch(app_kwargs=...)`): idle sessions are looked for every `SWEEP_S` seconds
    on the server's event loop, where Gradio frees closed tabs' states too."""
    async def sweep() -> None:
        while True:
            await asyncio.sleep(SWEEP_S)
            forget_idle(app.state_holder, app_settings().ui.ui_session_ttl_s, datetime.now())

    task = asyncio.create_task(sweep())
    try:
        yield
    finally:
        task.cancel()
