"""A chat's stored history, bounded: its latest turns, and each message's text at most so long.

A chat lives on the server (`session.Chat`) for as long as its session, and the whole of it is
sent again with every update of an answer, so its size is bounded. A turn is a question with what
answers it; when a new question makes more than `SPIQA_UI_CHAT_MAX_TURNS` turns, the oldest are
dropped and the chat says so at its top. A message's text is cut at `MAX_MESSAGE_CHARS` (a reply
streamed by a server that never stops, a page of text in a caption).
"""

from __future__ import annotations

from spiqa_demo.ui.serving.chat_messages import History

# An answer of the app's longest reply (SPIQA_MAX_NEW_TOKENS, 512 tokens) is about 2,500 characters,
# a shortlist table about 2,000: ten times that leaves room and still bounds a turn.
MAX_MESSAGE_CHARS = 20_000
CUT = "… *(cut: too long to keep)*"


def bounded(text: str) -> str:
    """`text` cut to `MAX_MESSAGE_CHARS` with a mark saying so."""
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS] + CUT


def dropped_note(turns: int) -> str:
    """What the top of a chat says once older turns were dropped."""
    kept = "question" if turns == 1 else f"{turns} questions"
    return f"*Older questions and answers were dropped: this chat keeps the last {kept} and their answers.*"


def keep_recent(history: History, turns: int) -> None:
    """Drop the oldest turns of `history` in place (the list is shared with handlers still writing to it)
    so that at most `turns` questions remain, with a note at the top saying older ones were dropped."""
    questions = [i for i, message in enumerate(history) if message.get("role") == "user"]
    if len(questions) <= turns:
        return
    del history[:questions[-turns]]  # everything before the first kept question: older turns, an earlier note
    history.insert(0, {"role": "assistant", "content": dropped_note(turns)})
