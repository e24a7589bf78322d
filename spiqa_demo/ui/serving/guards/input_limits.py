"""The longest text a client may send in each free-text field, enforced where the handlers receive it.

The browser's boxes stop typing at these lengths (`max_length`), but a client can call the API
with anything, and what a handler keeps (the chat history, the session) or passes on (a model
name, a URL, an error message quoting the input) would be as large as the request. Nothing valid
is longer than these limits, so a longer value is cut without a word; a question is cut to
`QASettings.max_question_chars` with a note to the asker (`spiqa_demo.questions.check_question`).
"""

from __future__ import annotations

from typing import Literal

from spiqa_demo.ui.serving.app_settings import app_settings

Field = Literal["question", "model", "base_url", "api_key", "arxiv", "search"]

# Characters. A Hugging Face id or a model folder is a path; URLs stay well under browsers' 2048;
# keys of the usual APIs are under 200 characters; the arXiv boxes take a few ids or links.
LIMITS: dict[Field, int] = {
    "model": 512,
    "base_url": 2048,
    "api_key": 1024,
    "arxiv": 2048,
    "search": 500,
}


def limit(field: Field) -> int:
    """The most characters `field` keeps (the question's limit is the QA settings' `max_question_chars`)."""
    return app_settings().qa.max_question_chars if field == "question" else LIMITS[field]


def capped(value: object, field: Field) -> str:
    """What a client sent for `field` as text of at most its limit (None or a value that is not text: empty)."""
    return value[:limit(field)] if isinstance(value, str) else ""
