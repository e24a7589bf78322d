"""Both chats keep following the newest answer.

Gradio's chatbot stops scrolling with new messages once its content grew under the reader (an
expanded shortlist makes the chat taller than where the reader was), so every answer after that
streams out of sight. Each change of the chat's messages scrolls it to its end in the browser, after
the new messages are drawn.
"""

from __future__ import annotations

import gradio as gr

SCROLL_TO_END = """() => { requestAnimationFrame(() => requestAnimationFrame(() => {
  document.querySelectorAll('#%s .bubble-wrap').forEach(s => { s.scrollTop = s.scrollHeight; });
})); }"""


def keep_following(chatbot: gr.Chatbot) -> None:
    """Scroll `chatbot` (which has an `elem_id`) to its newest message whenever its messages change."""
    chatbot.change(None, None, None, js=SCROLL_TO_END % chatbot.elem_id, queue=False, api_visibility="private")
