"""The reader's prompts, versioned together: the answer that cites its evidence, and the rewrite of a
follow-up into a standalone question. SPIQA's prompts (`spiqa_demo.qa.prompts`) are the
reproduction's and stay untouched; these are the product's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from spiqa_demo.conversation.types import Evidence
from spiqa_demo.models.base import Message, Part

IDK = "I don't know"

# Abstaining is asked for plainly and first-class: a reader trusts an answer that may say "not here"
# only if it says so instead of filling the gap from what the model knows of other papers.
ANSWER_INSTRUCTIONS = (
    "You answer a reader's question about a scientific paper from the figures, tables and passages "
    "of the paper shown below, and from nothing else: not from what you know of this or other papers. "
    "Answer in one to three sentences. After each claim, cite what it rests on exactly as labelled: "
    "[Figure 3] or [Table 2] for a figure or table, [p. 6] for a passage on page 6. If what is shown "
    f'does not answer the question, do not guess: reply exactly "{IDK}".'
)
REWRITE_INSTRUCTIONS = (
    "Rewrite the reader's last question about the paper as one standalone question that can be "
    "understood without the conversation, keeping its meaning. If it already stands alone, repeat it. "
    "Reply with the question only."
)


def evidence_parts(evidence: Sequence[Evidence], images: int) -> list[Part]:
    """Figures/tables (the first `images` with their crop) with captions, then passages with pages."""
    parts: list[Part] = []
    items = [e for e in evidence if e.figure is not None]
    passages = [e for e in evidence if e.passage is not None]
    if items:
        parts.append("\n\nFigures and tables:")
        for n, e in enumerate(items):
            parts.append(f"\n[{e.label}] (page {e.page}): ")
            crop = e.figure.image if e.figure is not None else ""
            if n < images and crop and Path(crop).is_file():
                parts.append(Path(crop))
            parts.append(f" Caption: {' '.join(e.text.split())}")
    if passages:
        parts.append("\n\nPassages:")
        for e in passages:
            parts.append(f"\n[p. {e.page}] {' '.join(e.text.split())}")
    return parts


def answer_message(question: str, evidence: Sequence[Evidence], images: int) -> Message:
    """The last user message: instructions, the shortlisted evidence, the question."""
    return Message("user", [ANSWER_INSTRUCTIONS, *evidence_parts(evidence, images), f"\n\nQuestion: {question}\nAnswer:"])


def history_messages(turns: Sequence[tuple[str, str]]) -> list[Message]:
    """Earlier (question, answer) pairs as chat turns, oldest first."""
    messages: list[Message] = []
    for question, answer in turns:
        messages += [Message("user", [question]), Message("assistant", [answer or IDK])]
    return messages


def rewrite_messages(turns: Sequence[tuple[str, str]], question: str) -> list[Message]:
    """One short request: the conversation so far and the follow-up, for its standalone form."""
    lines = [f"Reader: {q}\nAssistant: {a or IDK}" for q, a in turns]
    text = "\n".join(lines)
    return [Message("user", [f"{REWRITE_INSTRUCTIONS}\n\nConversation:\n{text}\n\nLast question: {question}\nStandalone question:"])]
