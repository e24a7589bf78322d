"""Reading a model's short answer: the "Answer:" label it may add, and whether it abstained.

Shared by the app's cross-paper answer and by the M3SciQA answer benchmark, which asks for the same
"I don't know" when the text cannot answer.
"""

from __future__ import annotations

import re

from spiqa_demo.crosspaper.prompts import IDK

__all__ = ["IDK", "clean_answer", "is_abstention"]

_IDK_PHRASES = ("i don't know", "i do not know", "i dont know", "i don’t know")
_LEAD = re.compile(r"^\s*(?:\**\s*(?:final\s+)?answer\s*\**\s*[:：]\s*)", re.IGNORECASE)


def is_abstention(answer: str) -> bool:
    """The answer says "I don't know" (first, or as its whole content); an empty answer is no abstention."""
    text = clean_answer(answer).lower().strip(" \"'`*.")
    return any(text.startswith(p) for p in _IDK_PHRASES)


def clean_answer(reply: str) -> str:
    """The reply without a leading "Answer:" label and surrounding whitespace."""
    return _LEAD.sub("", reply.strip(), count=1).strip()
