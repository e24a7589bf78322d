"""Every prompt the QA flows send, in one versioned place, worded as SPIQA worded them.

Comparability with the SPIQA paper's tables depends on this wording, so change it only together
with `PROMPT_VERSION` (recorded in every `Answer`). Sources: the direct-QA and full-paper prompts
and the "Image i: <image> Caption i: ..." layout are those of SPIQA's evaluation scripts; the CoT
prompt follows the paper's description (find the most helpful image and caption, briefly say why,
then answer) and the reply format its official parser reads (`{'Image': i, 'Rationale': ...}`
then `The answer is: ...`); the one-image-per-turn prompts are those of its open-model scripts.
`use_captions=False` gives SPIQA's image-only ablation.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from spiqa_demo.models.base import Message, Part
from spiqa_demo.types import Figure

PROMPT_VERSION = "spiqa-1"

_GIVEN = {
    True: "You are given a question, a few input images, and a caption corresponding to each input image.",
    False: "You are given a question and a few input images.",
}
_GIVEN_PAPER = {
    True: (
        "You are given a question, paragraphs from a scientific paper, a few input images, "
        "and a caption corresponding to each input image."
    ),
    False: "You are given a question, paragraphs from a scientific paper, and a few input images.",
}
_IMAGE_AND_CAPTION = {True: "image and caption", False: "image"}
_BASED_ON = {True: "the input images and corresponding captions", False: "the input images"}
_BASED_ON_PAPER = {True: "the paper, input images and corresponding captions", False: "the paper and input images"}

COT_FORMAT = (
    "Output in the following format: {'Image': Image Index, 'Rationale': 'Very Brief Explanation'} \n"
    "The answer is: 'Direct Answer to the Question'. \n"
)
DIRECT_FORMAT = "Output in the following format: {'Answer': 'Direct Answer to the Question'}. \n"

# SPIQA's open-model protocol: one image per turn, "is it helpful?" then "answer from it".
HELPFUL_QUESTION = {
    True: "Is the input image and caption helpful to answer the following question. Answer in one word - Yes or No.",
    False: "Is the input image helpful to answer the following question. Answer in one word - Yes or No.",
}
BRIEF_ANSWER = {
    True: "Please provide a brief answer to the following question after looking into the input image and caption.",
    False: "Please provide a brief answer to the following question after looking into the input image.",
}
HELPFUL_YES, HELPFUL_NO = "Yes", "No"

TRUNCATION_MARK = "\n[... the rest of the paper was cut to fit the model's context ...]"


def cot_prompt(question: str, use_captions: bool = True) -> str:
    return (
        f"{_GIVEN[use_captions]} First, please determine which {_IMAGE_AND_CAPTION[use_captions]} is most "
        "helpful to answer the question, and briefly explain why. Then, answer the question directly. "
        f"Question: {question}. {COT_FORMAT}"
    )


def direct_prompt(question: str, use_captions: bool = True) -> str:
    return (
        f"{_GIVEN[use_captions]} Please answer the question based on {_BASED_ON[use_captions]}. "
        f"Question: {question}. {DIRECT_FORMAT}"
    )


def full_paper_prompt(question: str, use_captions: bool = True) -> str:
    return (
        f"{_GIVEN_PAPER[use_captions]} Please answer the question based on {_BASED_ON_PAPER[use_captions]}. "
        f"Question: {question}. {DIRECT_FORMAT}"
    )


def full_paper_text_only_prompt(question: str) -> str:
    """For text-only models: the figures and tables come as captions (and table text) only."""
    return (
        "You are given a question, paragraphs from a scientific paper, and the captions of its figures "
        "and tables. Please answer the question based on the paper and the captions. "
        f"Question: {question}. {DIRECT_FORMAT}"
    )


def figure_parts(items: Sequence[Figure], use_captions: bool = True) -> list[Part]:
    """SPIQA's layout: "Image i: " <image> "Caption i: ..." for each item, in order."""
    parts: list[Part] = []
    for i, item in enumerate(items):
        parts += [f"Image {i}: ", Path(item.image)]
        if use_captions:
            parts.append(f"Caption {i}: {item.caption or '(no caption)'}")
        parts.append("\n\n")
    return parts


def caption_lines(items: Sequence[Figure]) -> str:
    """Figures and tables as text, for text-only models: title, caption, and a table's own text."""
    lines = []
    for item in items:
        lines.append(f"{item.title}: {item.caption or '(no caption)'}")
        if item.kind == "table" and item.text:
            lines.append(item.text)
    return "\n\n".join(lines)


def cot_messages(question: str, items: Sequence[Figure], use_captions: bool = True) -> list[Message]:
    return [Message("user", [cot_prompt(question, use_captions), *figure_parts(items, use_captions)])]


def direct_messages(question: str, items: Sequence[Figure], use_captions: bool = True) -> list[Message]:
    return [Message("user", [direct_prompt(question, use_captions), *figure_parts(items, use_captions)])]


def full_paper_messages(
    question: str, paper_text: str, items: Sequence[Figure], use_captions: bool = True, images: bool = True
) -> list[Message]:
    """The paper's text, then its figures as images (or, for text-only models, as captions)."""
    if not images:
        body = f"Paper:\n{paper_text}\n\nFigures and tables:\n{caption_lines(items)}"
        return [Message("user", [full_paper_text_only_prompt(question), body])]
    parts: list[Part] = [full_paper_prompt(question, use_captions), f"Paper:\n{paper_text}\n\n"]
    return [Message("user", parts + figure_parts(items, use_captions))]


def helpful_messages(question: str, item: Figure, use_captions: bool = True) -> list[Message]:
    """One-image turn: is this figure (and caption) helpful? Yes or No."""
    caption = f" Caption: {item.caption or '(no caption)'}" if use_captions else ""
    return [Message("user", [Path(item.image), f"{caption} {HELPFUL_QUESTION[use_captions]} Question: {question}."])]


def brief_answer_messages(question: str, item: Figure, use_captions: bool = True) -> list[Message]:
    """One-image turn: answer from this figure (and caption)."""
    caption = f" Caption: {item.caption or '(no caption)'}" if use_captions else ""
    return [Message("user", [Path(item.image), f"{caption} {BRIEF_ANSWER[use_captions]} Question: {question}."])]
