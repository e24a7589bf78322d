"""Library messages as sentences for people."""

from __future__ import annotations

import re
from pathlib import Path

from spiqa_demo.types import Figure

# A first word that names something (a file, path, URL, setting or "name:" prefix) keeps its case.
_NAME = re.compile(r"[./\\_\d'\"`]|:$")


def as_sentence(message: str) -> str:
    """Capitalise a message's first word unless it is a name: "notes.pdf: ..." stays as it is."""
    message = message.strip()
    first = message.split(maxsplit=1)[0] if message else ""
    if not first or _NAME.search(first):
        return message
    return message[:1].upper() + message[1:]


def full_sentence(message: str) -> str:
    """`as_sentence` with its full stop, for a message that text follows or that stands alone: one
    that ends in a question, an ellipsis or a quoted question keeps its own mark."""
    sentence = as_sentence(message)
    if not sentence or sentence.rstrip("”’\"')*").endswith((".", "!", "?", "…")):
        return sentence
    return sentence + "."


def figure_name(figure: Figure, separator: str = " · page ") -> str:
    """"Table 3 · page 7"; an unlabelled item's title names its page already ("Unlabelled table (page 8)"),
    so the page is never said twice."""
    return f"{figure.title}{separator}{figure.page}" if figure.label else figure.title


def public_name(origin: str) -> str:
    """A library origin as shown to people: the file's name (the server's folders stay private)."""
    return origin if origin.startswith("arXiv:") else Path(origin).name
