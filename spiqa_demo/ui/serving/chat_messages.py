"""A chat message as the app's chatbots hold and Gradio shows it (`gr.Chatbot(type="messages")`).

Gradio's own `MessageDict` types an image as a full `FileDataDict`; the app's chats send the
shorter form Gradio also reads (a served file's path and its alt text), so the message is typed
here with Gradio's `MetadataDict` for a thought's title and status. Serving holds it because a
paper load greets its owner's chat (`loading.PaperOwner`) and serving imports nothing above it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

if TYPE_CHECKING:
    from gradio.components.chatbot import MetadataDict


class ImageContent(TypedDict):
    """An image shown in a chat message: the served file, and its text for those who cannot see it."""

    path: str
    alt_text: str


class Message(TypedDict):
    """One message of a chat: a thought when its `metadata` has a title (an `id` alone names the message)."""

    role: Literal["user", "assistant"]
    content: str | ImageContent
    metadata: NotRequired[MetadataDict]


History = list[Message]  # a chat's messages, oldest first
