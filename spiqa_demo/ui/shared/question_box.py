"""The question box of both chats (Paper, Across papers) and its Ask/Stop toggle.

While an answer is being written the box's button is Stop (its stop event stops the answer); once
the answer or the stop is over, Ask comes back. Both chats build and toggle the box here, so they
look and behave alike.
"""

from __future__ import annotations

from collections.abc import Callable

import gradio as gr
from gradio.events import Dependency

from spiqa_demo.ui.serving.guards.input_limits import limit

ASK_BUTTON, STOP_BUTTON = "Ask", "Stop"


def build(label: str, placeholder: str, elem_id: str) -> gr.Textbox:
    """A question box showing Ask; the browser stops typing at the question's limit (the server cuts too)."""
    return gr.Textbox(label=label, placeholder=placeholder, submit_btn=ASK_BUTTON, stop_btn=False, max_lines=4,
                      elem_id=elem_id, max_length=limit("question"))


def show_stop_on(trigger: Callable[..., Dependency], box: gr.Textbox) -> Dependency:
    """Show Stop in `box` when `trigger` (a way of asking) fires; returns that event, to chain the answer on."""
    return trigger(stop_button, None, [box], queue=False, api_visibility="private")


def show_ask_after(event: Dependency, box: gr.Textbox) -> Dependency:
    """Show Ask in `box` again once `event` (an answer, or a stop) is over."""
    return event.then(ask_button, None, [box], queue=False, api_visibility="private")


def stop_button() -> gr.Textbox:
    """The box showing Stop (an update for it), for a handler that starts writing on its own (a summary)."""
    return gr.Textbox(submit_btn=False, stop_btn=STOP_BUTTON)


def ask_button() -> gr.Textbox:
    """The box showing Ask again (an update for it)."""
    return gr.Textbox(submit_btn=ASK_BUTTON, stop_btn=False)
