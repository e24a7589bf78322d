"""The start on a paper once it is ready to ask: its overview and the questions suggested from it
(`spiqa_demo.conversation.overview`), a click on one asking it in the chat."""

from __future__ import annotations

from typing import Any

import gradio as gr

from spiqa_demo.conversation.overview import Overview, overview
from spiqa_demo.types import Paper
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.untrusted import inert


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
    samples = [[s.question] for s in seen.suggestions]
    return gr.update(value=overview_markdown(seen), visible=True), gr.update(samples=samples, visible=bool(samples))
