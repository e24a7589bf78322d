"""Every prompt the QA flows send, in one versioned place, as SPIQA's evaluation scripts send them.

Comparability with the SPIQA paper's tables depends on this text, so change it only together with
`PROMPT_VERSION` (recorded in every `Answer`). The `SPIQA_*` templates are those of SPIQA's GPT
evaluation scripts character for character (the space before the colon of "The answer is :", the
trailing " \\n", the `{'Image': A, ...}` template), with `<question>` replaced as the scripts replace
it; so is the layout of the parts: "Image i: ", the image, "Caption i: ... \\n\\n", and the full
paper as "Paragraphs from the paper: ...: " (the Gemini scripts drop the caption's " \\n\\n"; the
GPT layout is kept). The one-image-per-turn texts are those of SPIQA's LLaVA-1.5 script between the
model's own chat wrapper ("USER: <image>\\n" ... "\\nASSISTANT:"), which the backend adds.

SPIQA has no CoT or full-paper prompt without captions, nor a full-paper prompt for text-only
models: those variants (`use_captions=False`, text-only models) are this project's own, worded as
the nearest official prompt with the missing input left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from spiqa_demo.models.base import Message, Part
from spiqa_demo.types import Figure

PROMPT_VERSION = "spiqa-2"

QUESTION_SLOT = "<question>"

SPIQA_COT = (
    "You are given a question, a few input images, and a caption corresponding to each input image. "
    "First, please determine which image and corresponding caption is most helpful to answer the question, "
    "and briefly explain why. Next, please generate a direct answer to the question. Question: <question>. "
    "First output which image is helpful in the following format: "
    "{'Image': A, 'Rationale': 'Very Brief Explanation on Why Image A is helpful'} where A is the image number. "
    "Next, answer the question as The answer is : <Your Answer>. \n"
)
SPIQA_DIRECT = (
    "You are given a question, a few input images, and a caption corresponding to each input image. "
    "Please answer the question based on the input images and corresponding captions. Question: <question>. "
    "Output in the following format: {'Answer': 'Direct Answer to the Question'}. \n"
)
SPIQA_CAPTION_ONLY = (
    "You are given a question, and a few input captions. Please answer the question based on the input "
    "captions. Question: <question>. Output in the following format: {'Answer': 'Direct Answer to the Question'}. \n"
)
SPIQA_IMAGE_ONLY = (
    "You are given a question, and a few input images. Please answer the question based on the input images. "
    "Question: <question>. Output in the following format: {'Answer': 'Direct Answer to the Question'}. \n"
)
SPIQA_FULL_PAPER = (
    "You are given a question, paragraphs from a scientific paper, a few input images, and a caption "
    "corresponding to each input image. Please answer the question based on the paper, input images and "
    "corresponding captions. Question: <question>. "
    "Output in the following format: {'Answer': 'Direct Answer to the Question'}. \n"
)

# This project's variants, for inputs SPIQA's scripts never send (see the module docstring).
COT_IMAGES_ONLY = (
    "You are given a question, and a few input images. "
    "First, please determine which image is most helpful to answer the question, "
    "and briefly explain why. Next, please generate a direct answer to the question. Question: <question>. "
    "First output which image is helpful in the following format: "
    "{'Image': A, 'Rationale': 'Very Brief Explanation on Why Image A is helpful'} where A is the image number. "
    "Next, answer the question as The answer is : <Your Answer>. \n"
)
FULL_PAPER_IMAGES_ONLY = (
    "You are given a question, paragraphs from a scientific paper, and a few input images. "
    "Please answer the question based on the paper and input images. Question: <question>. "
    "Output in the following format: {'Answer': 'Direct Answer to the Question'}. \n"
)
FULL_PAPER_TEXT_ONLY = (
    "You are given a question, paragraphs from a scientific paper, and the captions of its figures and tables. "
    "Please answer the question based on the paper and the captions. Question: <question>. "
    "Output in the following format: {'Answer': 'Direct Answer to the Question'}. \n"
)

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
NO_CAPTION = "(no caption)"


def fill(template: str, question: str) -> str:
    """The template with the question in its slot, as SPIQA's scripts fill it."""
    return template.replace(QUESTION_SLOT, question)


def cot_prompt(question: str, use_captions: bool = True) -> str:
    return fill(SPIQA_COT if use_captions else COT_IMAGES_ONLY, question)


def direct_prompt(question: str, use_captions: bool = True) -> str:
    return fill(SPIQA_DIRECT if use_captions else SPIQA_IMAGE_ONLY, question)


def full_paper_prompt(question: str, use_captions: bool = True) -> str:
    return fill(SPIQA_FULL_PAPER if use_captions else FULL_PAPER_IMAGES_ONLY, question)


def figure_parts(items: Sequence[Figure], use_captions: bool = True) -> list[Part]:
    """SPIQA's layout: "Image i: ", the image, then "Caption i: ... \\n\\n" (left out without captions)."""
    parts: list[Part] = []
    for i, item in enumerate(items):
        parts += [f"Image {i}: ", Path(item.image)]
        if use_captions:
            parts.append(_caption_part(i, item))
    return parts


def caption_parts(items: Sequence[Figure]) -> list[Part]:
    """SPIQA's caption-only layout: "Caption i: ... \\n\\n" for each item, no images."""
    return [_caption_part(i, item) for i, item in enumerate(items)]


def _caption_part(i: int, item: Figure) -> str:
    return f"Caption {i}: {item.caption or NO_CAPTION} \n\n"


def paper_part(paper_text: str) -> str:
    return f"Paragraphs from the paper: {paper_text}: "


def caption_lines(items: Sequence[Figure]) -> str:
    """Figures and tables as text, for text-only models: title, caption, and a table's own text."""
    lines = []
    for item in items:
        lines.append(f"{item.title}: {item.caption or NO_CAPTION}")
        if item.kind == "table" and item.text:
            lines.append(item.text)
    return "\n\n".join(lines)


def cot_messages(question: str, items: Sequence[Figure], use_captions: bool = True) -> list[Message]:
    return [Message("user", [cot_prompt(question, use_captions), *figure_parts(items, use_captions)])]


def direct_messages(question: str, items: Sequence[Figure], use_captions: bool = True) -> list[Message]:
    """SPIQA's direct QA: image + caption, or image only (`use_captions=False`)."""
    return [Message("user", [direct_prompt(question, use_captions), *figure_parts(items, use_captions)])]


def caption_only_messages(question: str, items: Sequence[Figure]) -> list[Message]:
    """SPIQA's caption-only ablation: the captions, no images."""
    return [Message("user", [fill(SPIQA_CAPTION_ONLY, question), *caption_parts(items)])]


def full_paper_messages(
    question: str, paper_text: str, items: Sequence[Figure], use_captions: bool = True, images: bool = True
) -> list[Message]:
    """The paper's text, then its figures as images (or, for text-only models, as captions)."""
    if not images:
        return [Message("user", [fill(FULL_PAPER_TEXT_ONLY, question), paper_part(paper_text), caption_lines(items)])]
    parts: list[Part] = [full_paper_prompt(question, use_captions), paper_part(paper_text)]
    return [Message("user", parts + figure_parts(items, use_captions))]


def helpful_messages(question: str, item: Figure, use_captions: bool = True) -> list[Message]:
    """One-image turn: is this figure (and caption) helpful? Yes or No."""
    return [Message("user", [Path(item.image), _one_image_text(HELPFUL_QUESTION, question, item, use_captions)])]


def brief_answer_messages(question: str, item: Figure, use_captions: bool = True) -> list[Message]:
    """One-image turn: answer from this figure (and caption)."""
    return [Message("user", [Path(item.image), _one_image_text(BRIEF_ANSWER, question, item, use_captions)])]


def _one_image_text(asks: dict[bool, str], question: str, item: Figure, use_captions: bool) -> str:
    caption = f" Caption: {item.caption or NO_CAPTION}" if use_captions else ""
    return f"{caption} {asks[use_captions]} Question: {question}."
