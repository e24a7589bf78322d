"""Text the app did not write, made inert for Gradio's Markdown: shown as it reads, never as markup.

A PDF's text (titles, captions, quoted passages), a file name, a result file's answers and a
model's reply are written by whoever made them, and the chat, the viewer's notes and the tabs show
them as Markdown. Escaping HTML alone leaves Markdown's own markup: `![x](https://host/t.png)`
makes the visitor's browser fetch from `host` as soon as it is shown (a prompt-injected reply can
put the conversation in that URL; any fetch tells `host` the visitor's address), and `[text](url)`
hides where a link goes. So HTML is escaped and brackets, which every Markdown image and link
(inline, reference, footnote) needs, are written as character references: Markdown shows them as
brackets and never reads them as markup. A bare URL stays a link that shows its whole address and
fetches nothing unless clicked. Maths stays maths: the chats render `$...$`, `\\(...\\)` and `$$...$$`
(`LATEX_DELIMITERS`); Gradio takes such a span out before reading Markdown and gives its HTML text,
entities decoded, to KaTeX (which follows no link: `trust` is off), so escaped characters and
brackets inside it still read as maths. Only `\\[...\\]` needs its brackets, so it is written as the
same display maths, `$$...$$`. The app's own markup (its tables, emphasis, the crops it serves as
images of their own) is written around this text, never through it.

A file the reader downloads (the chat's export) is read as text and maybe opened in a Markdown
viewer; the app never shows it. There such text is written as it reads (`plain`: "[p. 2]", "'"),
with only what a viewer would make live turned into a character reference: a bracket that closes a
link, an image or a link definition ("](", "][", "]:"), and the "<" that opens an HTML tag or an
autolink. A reference is used, not a backslash, because a backslash already before it in the text
would escape the backslash and leave the markup live.
"""

from __future__ import annotations

import re
from html import escape

_BRACKETS = str.maketrans({"[": "&#91;", "]": "&#93;"})
_LIVE_BRACKET = re.compile(r"\](?=[(\[:])")  # a link's, an image's or a definition's closing bracket
_LIVE_TAG = re.compile(r"<(?=[A-Za-z/!?])")  # an HTML tag, comment or declaration, or an autolink
_DISPLAY_MATHS = re.compile(r"\\\[([\s\S]+?)\\\]")  # \[...\], as Gradio finds a span: the shortest
LATEX_DELIMITERS: list[dict[str, str | bool]] = [
    {"left": "$$", "right": "$$", "display": True},
    {"left": "$", "right": "$", "display": False},
    {"left": "\\(", "right": "\\)", "display": False},
]


def inert(text: str) -> str:
    """`text` as Markdown that shows it as it reads: no HTML, no image, no link hidden behind words."""
    return escape(_DISPLAY_MATHS.sub(r"$$\1$$", text)).translate(_BRACKETS)


def code(text: str) -> str:
    """`text` as an inline code span (a file name, a setting): Markdown shows a code span's
    characters as they are (entities too, so it is not escaped) and reads no markup in it; only a
    backtick could close it early, and a line break is no part of a name."""
    return "`" + " ".join(text.replace("`", "'").split()) + "`"


def plain(text: str) -> str:
    """`text` as Markdown for a downloaded file: as it reads, except the bracket or "<" that would
    make a link, an image or HTML of it (see the module docstring)."""
    return _LIVE_TAG.sub("&lt;", _LIVE_BRACKET.sub("&#93;", text))
