"""What a question may be, for every entry point (CLI, app, evaluation, retrieval alike).

A question is its words with whitespace collapsed; an empty one is an input error, and a very long
one is cut to `QASettings.max_question_chars` (SPIQA_MAX_QUESTION_CHARS) so that a pasted page cannot
crowd the paper out of a model's context. SPIQA's chain-of-thought protocol shows the model at
most `SPIQA_MAX_CANDIDATES` candidate figures per question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spiqa_demo.errors import InputError
from spiqa_demo.settings import QASettings

SPIQA_MAX_CANDIDATES = 8
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Question:
    """A checked question: its text, and whether it was cut to the length limit."""

    text: str
    cut_to: int | None = None  # the limit it was cut to; None when it was short enough

    @property
    def notes(self) -> list[str]:
        """What the asker is told about the check: that the question was cut, if it was."""
        return [] if self.cut_to is None else [f"the question was cut to its first {self.cut_to} characters"]


def check_question(question: object, settings: QASettings | None = None) -> Question:
    """The question with its whitespace collapsed and cut to the limit; `InputError` when empty.

    Only the words up to the limit are read: a question of megabytes (an app's client can send one)
    costs no more memory than the limit.
    """
    limit = (settings or QASettings()).max_question_chars
    given = question if isinstance(question, str) else ""
    words: list[str] = []
    length = -1  # the collapsed text's length so far: words and the spaces between them
    for word in _WORD.finditer(given):
        words.append(given[word.start():min(word.end(), word.start() + limit + 1)])
        length += 1 + len(words[-1])
        if length > limit:
            break
    text = " ".join(words)
    if not text:
        raise InputError("the question is empty: type a question about the paper (its text, figures or tables)")
    return Question(text[:limit], limit) if len(text) > limit else Question(text)


def check_k(k: int, what: str = "k") -> int:
    """`k` (how many items, figures or papers to take) when it is at least 1; `InputError` naming `what` otherwise."""
    if k < 1:
        raise InputError(f"{what} must be at least 1 (got {k})")
    return k
