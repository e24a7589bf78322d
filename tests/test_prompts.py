"""Every prompt pinned, part by part, to what SPIQA's official evaluation scripts send.

The literals below are copied from ../shared/notes/spiqa-prompts.md (SPIQA's GPT scripts and its
LLaVA-1.5 script, verbatim); a prompt change that is not SPIQA's fails here first. The last test
checks the literals themselves against that file.
"""

from __future__ import annotations

import re
from pathlib import Path

from spiqa_demo.qa import prompts
from spiqa_demo.types import Figure

QUESTION = "How many layers does the encoder have?"

FIGURE = Figure(kind="figure", label="Figure 1", number="1", page=1, bbox=(0.0, 0.0, 1.0, 1.0),
                caption="Figure 1: The encoder and the decoder.", image="fig1.png")
TABLE = Figure(kind="table", label="Table 2", number="2", page=2, bbox=(0.0, 0.0, 1.0, 1.0),
               caption="Table 2: Results on the test set.", image="tab2.png", text="| a | b |")
ITEMS = [FIGURE, TABLE]

# SPIQA's prompts, with QUESTION in the <question> slot.
COT = "You are given a question, a few input images, and a caption corresponding to each input image. First, please determine which image and corresponding caption is most helpful to answer the question, and briefly explain why. Next, please generate a direct answer to the question. Question: How many layers does the encoder have?. First output which image is helpful in the following format: {'Image': A, 'Rationale': 'Very Brief Explanation on Why Image A is helpful'} where A is the image number. Next, answer the question as The answer is : <Your Answer>. \n"
DIRECT = "You are given a question, a few input images, and a caption corresponding to each input image. Please answer the question based on the input images and corresponding captions. Question: How many layers does the encoder have?. Output in the following format: {'Answer': 'Direct Answer to the Question'}. \n"
CAPTION_ONLY = "You are given a question, and a few input captions. Please answer the question based on the input captions. Question: How many layers does the encoder have?. Output in the following format: {'Answer': 'Direct Answer to the Question'}. \n"
IMAGE_ONLY = "You are given a question, and a few input images. Please answer the question based on the input images. Question: How many layers does the encoder have?. Output in the following format: {'Answer': 'Direct Answer to the Question'}. \n"
FULL_PAPER = "You are given a question, paragraphs from a scientific paper, a few input images, and a caption corresponding to each input image. Please answer the question based on the paper, input images and corresponding captions. Question: How many layers does the encoder have?. Output in the following format: {'Answer': 'Direct Answer to the Question'}. \n"
HELPFUL = " Caption: Figure 1: The encoder and the decoder. Is the input image and caption helpful to answer the following question. Answer in one word - Yes or No. Question: How many layers does the encoder have?."
BRIEF = " Caption: Figure 1: The encoder and the decoder. Please provide a brief answer to the following question after looking into the input image and caption. Question: How many layers does the encoder have?."

# SPIQA's layout of the candidates (GPT scripts).
IMAGES_AND_CAPTIONS = ["Image 0: ", Path("fig1.png"), "Caption 0: Figure 1: The encoder and the decoder. \n\n",
                       "Image 1: ", Path("tab2.png"), "Caption 1: Table 2: Results on the test set. \n\n"]
IMAGES = ["Image 0: ", Path("fig1.png"), "Image 1: ", Path("tab2.png")]
CAPTIONS = ["Caption 0: Figure 1: The encoder and the decoder. \n\n", "Caption 1: Table 2: Results on the test set. \n\n"]


def parts(messages: list) -> list:
    (message,) = messages
    assert message.role == "user"
    return list(message.parts)


def test_prompt_version_names_the_verbatim_prompts() -> None:
    assert prompts.PROMPT_VERSION == "spiqa-2"


def test_cot_is_spiqas() -> None:
    assert parts(prompts.cot_messages(QUESTION, ITEMS)) == [COT, *IMAGES_AND_CAPTIONS]


def test_direct_with_images_and_captions_is_spiqas() -> None:
    assert parts(prompts.direct_messages(QUESTION, ITEMS)) == [DIRECT, *IMAGES_AND_CAPTIONS]


def test_caption_only_is_spiqas() -> None:
    assert parts(prompts.caption_only_messages(QUESTION, ITEMS)) == [CAPTION_ONLY, *CAPTIONS]


def test_image_only_is_spiqas() -> None:
    assert parts(prompts.direct_messages(QUESTION, ITEMS, use_captions=False)) == [IMAGE_ONLY, *IMAGES]


def test_full_paper_is_spiqas() -> None:
    sent = parts(prompts.full_paper_messages(QUESTION, "Intro. Method.", ITEMS))
    assert sent == [FULL_PAPER, "Paragraphs from the paper: Intro. Method.: ", *IMAGES_AND_CAPTIONS]


def test_one_image_per_turn_pair_is_spiqas_inside_the_chat_wrapper() -> None:
    # The LLaVA script's "USER: <image>\n" and "\nASSISTANT:" are the model's chat template's.
    assert parts(prompts.helpful_messages(QUESTION, FIGURE)) == [Path("fig1.png"), HELPFUL]
    assert parts(prompts.brief_answer_messages(QUESTION, FIGURE)) == [Path("fig1.png"), BRIEF]


def test_variants_spiqa_never_sent_keep_its_reply_formats() -> None:
    cot = parts(prompts.cot_messages(QUESTION, ITEMS, use_captions=False))
    assert cot[1:] == IMAGES and "caption" not in cot[0].lower()
    assert cot[0].endswith(COT[COT.index(" Question: "):])
    full = parts(prompts.full_paper_messages(QUESTION, "Intro.", ITEMS, use_captions=False))
    assert full[1:] == ["Paragraphs from the paper: Intro.: ", *IMAGES] and "caption" not in full[0].lower()
    text_only = parts(prompts.full_paper_messages(QUESTION, "Intro.", ITEMS, images=False))
    assert text_only[1] == "Paragraphs from the paper: Intro.: " and not any(isinstance(p, Path) for p in text_only)
    assert "Table 2: Results on the test set." in text_only[2] and "| a | b |" in text_only[2]
    for prompt in (cot[0], full[0], text_only[0]):
        assert f"Question: {QUESTION}. " in prompt and prompt.endswith(". \n")


def test_the_literals_are_the_notes_verbatim(shared: Path) -> None:
    notes = (shared / "notes" / "spiqa-prompts.md").read_text(encoding="utf-8")
    templates = {
        COT: next(line[4:] for line in notes.splitlines() if line.startswith("    You are given")),
        **dict(zip([DIRECT, CAPTION_ONLY, IMAGE_ONLY, FULL_PAPER], re.findall(r"`(You are given[^`]*)`", notes))),
    }
    for literal, template in templates.items():
        assert literal == template.replace("\\n", "\n").replace("<question>", QUESTION)
    turns = [line.split("<image>\\n", 1)[1].removesuffix("\\nASSISTANT:") for line in notes.splitlines()
             if line.startswith("    USER: <image>")]
    filled = [t.replace("<caption>", FIGURE.caption).replace("<question>", QUESTION) for t in turns]
    assert filled == [HELPFUL, BRIEF]
