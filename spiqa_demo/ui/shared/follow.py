"""Both chats show the newest answer from its first line.

A reader reads an answer from its start. Gradio's own scrolling (off: `autoscroll=False` on both chats) goes to
the chat's end, which after an answer citing a tall figure is the bottom of that figure, the answer's text
scrolled out of sight above it; and it stops following once the content grew under the reader. So each change
of the chat's messages places the newest question at the top of the chat, its answer under it, in the browser
once the new messages are drawn; a turn that fits whole is shown down to its end (so is a chat with no question
yet: the greeting, a summary). A question so long that it would push its answer down by more than a third of
the chat gives way to the answer's first line. A chat whose top the window cut off (a phone's, scrolled to its
question box) is brought whole into view. The cited figure loading later grows the chat below what is shown, so
the place holds.
"""

from __future__ import annotations

import gradio as gr

# The rows after the newest question: its turn. Gradio puts a turn's collapsed thought (the evidence list, the
# shortlist) first in its answer's bubble; the answer starts at the first message that is no thought.
SHOW_NEWEST_ANSWER = """() => { requestAnimationFrame(() => requestAnimationFrame(() => {
  const chat = document.getElementById('%s'), wrap = chat?.querySelector('.bubble-wrap');
  if (!wrap) return;
  const rows = [...wrap.querySelectorAll('.message-row')], end = wrap.scrollHeight - wrap.clientHeight;
  const asked = rows.map(r => r.classList.contains('user-row')).lastIndexOf(true);
  if (asked < 0) { wrap.scrollTop = end; return; }
  const inWrap = e => e.getBoundingClientRect().top - wrap.getBoundingClientRect().top + wrap.scrollTop;
  const answer = rows.slice(asked + 1).flatMap(r => [...r.querySelectorAll('.message.panel-full-width')])
    .find(m => !m.querySelector('.thought-group'));
  let top = inWrap(rows[asked]) - 8;
  if (answer && inWrap(answer) - top > wrap.clientHeight / 3) top = inWrap(answer) - 8;
  wrap.scrollTop = Math.min(end, top);
  // A chat whose top the window cut off (a phone's, the question box scrolled to) comes down whole into view.
  const shown = chat.getBoundingClientRect();
  if (shown.top < 0 && shown.bottom > 0) window.scrollBy(0, shown.top);
})); }"""


def keep_following(chatbot: gr.Chatbot) -> None:
    """Show `chatbot`'s (which has an `elem_id`) newest answer from its start whenever its messages change."""
    chatbot.change(None, None, None, js=SHOW_NEWEST_ANSWER % chatbot.elem_id, queue=False, api_visibility="private")
