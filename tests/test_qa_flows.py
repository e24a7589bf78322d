"""The QA flows (CoT, direct, full paper, retrieval only) on Papers built here with PIL-made crops.

Real tiny models answer where the flow matters (a CoT-trained Idefics3, a "Yes"-trained LLaVA for
the one-image protocol, a text-only Llama); scripted backends cover replies a real model would give
only by chance (empty, garbage, "Image 12" of 8, a crash).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from tiny_models import tiny_cot_vlm, tiny_llama, tiny_llava_yes

from evalsuite.tiny_models import COT_REPLY, make_image
from spiqa_demo.errors import PaperError
from spiqa_demo.models import load_backend
from spiqa_demo.models.base import Message, NextTokenLogprobs, Usage
from spiqa_demo.qa import PROMPT_VERSION, Answer, Candidate, ask, ask_stream
from spiqa_demo.settings import QASettings
from spiqa_demo.types import Figure, Paper, Passage, RetrievalScores

TOPICS = [
    "accuracy of the model over training epochs",
    "precision recall and F1 on the test set",
    "architecture of the encoder and decoder",
    "loss curves for three optimizers",
    "ablation of attention heads",
    "runtime in milliseconds per batch",
    "dataset statistics per language",
    "examples of generated captions",
    "learning rate schedule",
    "BLEU scores on translation benchmarks",
]


def make_paper(folder: Path, n_items: int = 4, words: int = 300) -> Paper:
    """A Paper whose figures/tables have real PNG crops and distinct captions."""
    items = []
    for i in range(n_items):
        kind = "table" if i % 3 == 2 else "figure"
        number = str(i + 1)
        image = folder / f"item-{i}.png"
        make_image(i, (200 + 10 * i, 120)).save(image)
        label = f"{'Table' if kind == 'table' else 'Figure'} {number}"
        items.append(Figure(kind=kind, label=label, number=number, page=1 + i // 2, bbox=(50.0, 100.0 + 300 * (i % 2), 500.0, 350.0 + 300 * (i % 2)),
                            caption=f"{label}: {TOPICS[i % len(TOPICS)]}.", image=str(image),
                            text="| a | b |\n|---|---|\n| 1 | 2 |" if kind == "table" else ""))
    body = " ".join(f"word{j % 97}" for j in range(words))
    return Paper(sha256="0" * 64, source="test.pdf", title="A Test Paper", arxiv_id=None,
                 page_sizes=[(612.0, 792.0)] * max(1, (n_items + 1) // 2),
                 passages=[Passage(text=body, page=1, bbox=(50.0, 50.0, 550.0, 700.0))], items=items)


def keyword_shortlist(paper: Paper, question: str, k: int) -> list[Candidate]:
    """A stand-in for retrieval: caption word overlap (as its lexical score), ties in paper order."""
    asked = set(re.findall(r"\w+", question.lower()))
    scored = [(len(asked & set(re.findall(r"\w+", f.caption.lower()))), -i, f) for i, f in enumerate(paper.items)]
    ranked = sorted(scored, key=lambda t: t[:2], reverse=True)[:k]
    return [Candidate(f, float(s), RetrievalScores(dense=0.0, bm25=float(s), label=False)) for s, _, f in ranked]


class ScriptedBackend:
    """A backend whose reply is fixed (or an exception); records what it was asked."""

    def __init__(self, reply: str | Exception, max_images: int | None = None, supports_images: bool = True,
                 context_tokens: int = 100_000) -> None:
        self.name = "scripted"
        self.reply = reply
        self.max_images = max_images
        self.supports_images = supports_images
        self.context_tokens = context_tokens
        self.requests: list[list[Message]] = []

    def generate(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> str:
        self.requests.append(messages)
        if isinstance(self.reply, Exception):
            raise self.reply
        if usage is not None:
            usage.prompt_tokens, usage.completion_tokens = self.count_tokens(messages), len(self.reply.split())
        return self.reply

    def stream(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> Iterator[str]:
        reply = self.generate(messages, max_new_tokens, usage)
        return iter([reply[i : i + 5] for i in range(0, len(reply), 5)])

    def next_token_logprobs(self, messages: list[Message], candidates: list[str] | None = None,
                            top_k: int = 5) -> NextTokenLogprobs:
        return NextTokenLogprobs(top=[], note="scripted")

    def count_tokens(self, messages: list[Message]) -> int:
        return sum(len(m.text) // 4 + 100 * len(m.images) for m in messages)


QUESTION = "What is the accuracy of the model over training epochs?"


@pytest.fixture(scope="module")
def paper(tmp_path_factory: pytest.TempPathFactory) -> Paper:
    return make_paper(tmp_path_factory.mktemp("paper"), n_items=5)


@pytest.fixture(scope="module")
def cot_vlm(tiny_cot_vlm: Path):
    return load_backend(backend="local", model=str(tiny_cot_vlm))


# ---- CoT, the main flow


def test_cot_answer_names_the_figure_the_model_picked(paper: Paper, cot_vlm) -> None:
    answer = ask(paper, QUESTION, cot_vlm, task="cot", shortlist=keyword_shortlist)
    assert isinstance(answer, Answer) and answer.answered
    assert answer.task == "cot" and answer.model == cot_vlm.name and answer.prompt_version == PROMPT_VERSION
    assert answer.raw_response == COT_REPLY
    assert (answer.chosen_index, answer.parse) == (1, "dict")
    assert answer.figure is answer.candidates[1].figure and answer.figure_source == "model"
    assert answer.rationale == "Image 1 shows the results." and answer.answer == "Yes"
    assert answer.candidates[0].figure.caption.endswith("accuracy of the model over training epochs.")
    assert [c.score for c in answer.candidates] == sorted((c.score for c in answer.candidates), reverse=True)
    assert len(answer.candidates) == len(paper.items) and answer.messages == []
    assert answer.prompt_tokens and answer.completion_tokens
    assert {"retrieval", "model", "total"} <= set(answer.timings)
    data = answer.to_dict()
    assert data["figure"]["id"] == answer.figure.id and data["candidates"][0]["scores"]["bm25"] >= 1
    assert '"chosen_index": 1' in answer.to_json()


def test_cot_streams_the_reply_then_returns_the_answer(paper: Paper, cot_vlm) -> None:
    events = list(ask_stream(paper, QUESTION, cot_vlm, shortlist=keyword_shortlist))
    *chunks, final = events
    assert chunks and all(isinstance(c, str) for c in chunks)
    assert isinstance(final, Answer) and "".join(chunks) == final.raw_response == COT_REPLY
    assert final.chosen_index == 1


def test_cot_shows_at_most_eight_candidates_with_captions(tmp_path: Path) -> None:
    paper = make_paper(tmp_path, n_items=10)
    backend = ScriptedBackend("{'Image': 7, 'Rationale': 'r'}\nThe answer is: 3")
    answer = ask(paper, QUESTION, backend, k=12, shortlist=keyword_shortlist)
    assert len(answer.candidates) == 8 and any("at most 8" in m for m in answer.messages)
    (request,) = backend.requests
    text = request[0].text
    assert text.startswith("You are given a question, a few input images, and a caption")
    assert "determine which image and corresponding caption is most helpful" in text and f"Question: {QUESTION}" in text
    assert [f"Image {i}: " in text for i in range(9)] == [True] * 8 + [False]
    assert "Caption 7: " in text and len(request[0].images) == 8
    assert answer.figure is answer.candidates[7].figure and answer.answer == "3"


def test_captions_can_be_switched_off(paper: Paper) -> None:
    backend = ScriptedBackend("{'Image': 0, 'Rationale': 'r'}\nThe answer is: 3")
    ask(paper, QUESTION, backend, shortlist=keyword_shortlist, use_captions=False)
    text = backend.requests[0][0].text
    assert "Caption" not in text and "caption" not in text and "Image 0: " in text


def test_caption_only_shows_every_caption_and_no_image(paper: Paper, tiny_llama: Path) -> None:
    backend = ScriptedBackend("{'Answer': 'ten epochs'}")
    answer = ask(paper, QUESTION, backend, task="caption-only", shortlist=keyword_shortlist)
    (request,) = backend.requests
    text = request[0].text
    assert text.startswith("You are given a question, and a few input captions.") and not request[0].images
    assert [f"Caption {i}: " in text for i in range(6)] == [True] * 5 + [False] and "Image 0" not in text
    assert answer.task == "caption-only" and answer.answer == "ten epochs" and answer.figure_source == "retrieval"
    text_only = ask(paper, QUESTION, load_backend(backend="local", model=str(tiny_llama)), task="caption-only",
                    shortlist=keyword_shortlist, max_new_tokens=8)
    assert text_only.raw_response and not any("text-only" in m for m in text_only.messages)


def test_image_only_shows_every_image_and_no_caption(paper: Paper) -> None:
    backend = ScriptedBackend("{'Answer': 'ten epochs'}")
    answer = ask(paper, QUESTION, backend, task="image-only", shortlist=keyword_shortlist, use_captions=True)
    (request,) = backend.requests
    text = request[0].text
    assert text.startswith("You are given a question, and a few input images.") and len(request[0].images) == 5
    assert "Caption" not in text and "Image 4: " in text
    assert answer.task == "image-only" and answer.answer == "ten epochs"


def test_single_image_models_get_the_one_image_per_turn_protocol(paper: Paper, tiny_llava_yes: Path) -> None:
    backend = load_backend(backend="local", model=str(tiny_llava_yes))
    assert backend.max_images == 1
    answer = ask(paper, QUESTION, backend, k=3, shortlist=keyword_shortlist)
    helpful = [c.helpful for c in answer.candidates]
    assert len(helpful) == 3 and all(0.5 < h <= 1 for h in helpful)
    assert answer.chosen_index == max(range(3), key=lambda i: helpful[i])
    assert answer.figure is answer.candidates[answer.chosen_index].figure and answer.figure_source == "model"
    assert answer.parse == "one-image" and answer.answer == "Yes" and answer.answered
    assert "P(Yes)" in answer.rationale
    assert any("one image per prompt" in m for m in answer.messages)


def test_one_image_protocol_without_log_probs_asks_for_a_plain_yes_or_no(paper: Paper) -> None:
    backend = ScriptedBackend("Yes", max_images=1)
    answer = ask(paper, QUESTION, backend, k=3, shortlist=keyword_shortlist)
    assert [c.helpful for c in answer.candidates] == [1.0, 1.0, 1.0]
    assert answer.to_dict()["candidates"][0]["scores"]["helpful"] == 1.0
    assert answer.chosen_index == 0 and len(backend.requests) == 4
    assert all(len(r[0].images) == 1 for r in backend.requests)
    assert "Is the input image and caption helpful" in backend.requests[0][0].text


# ---- direct and full-paper tasks


def test_direct_shows_every_figure_in_paper_order(paper: Paper, cot_vlm) -> None:
    answer = ask(paper, QUESTION, cot_vlm, task="direct", shortlist=keyword_shortlist)
    assert answer.parse == "direct" and answer.answer == "Yes" and answer.answered
    assert [c.figure for c in answer.candidates] == paper.items
    assert answer.figure is keyword_shortlist(paper, QUESTION, 1)[0].figure and answer.figure_source == "retrieval"


def test_direct_prompt_wording_and_image_cap(tmp_path: Path) -> None:
    paper = make_paper(tmp_path, n_items=9)
    backend = ScriptedBackend("{'Answer': 'about 90%'}")
    answer = ask(paper, QUESTION, backend, task="direct", shortlist=keyword_shortlist, settings=QASettings(max_prompt_images=6))
    text = backend.requests[0][0].text
    assert "Please answer the question based on the input images and corresponding captions" in text
    assert "{'Answer': 'Direct Answer to the Question'}" in text
    assert len(answer.candidates) == 6 and any("6 most relevant" in m for m in answer.messages)
    assert answer.answer == "about 90%"


def test_full_paper_text_is_cut_to_the_context_with_a_note(tmp_path: Path, cot_vlm) -> None:
    paper = make_paper(tmp_path, n_items=3, words=20_000)
    answer = ask(paper, QUESTION, cot_vlm, task="full", shortlist=keyword_shortlist, max_new_tokens=40)
    assert answer.answer == "Yes" and answer.answered
    assert any("cut to fit the model's context of 4096 tokens" in m for m in answer.messages)
    assert answer.prompt_tokens + 40 <= cot_vlm.context_tokens


def test_full_paper_fits_without_a_note_when_short(paper: Paper, cot_vlm) -> None:
    answer = ask(paper, QUESTION, cot_vlm, task="full", shortlist=keyword_shortlist, max_new_tokens=40)
    assert answer.answered and not any("cut" in m for m in answer.messages)


def test_full_paper_with_a_text_only_model_uses_captions(paper: Paper, tiny_llama: Path) -> None:
    backend = load_backend(backend="local", model=str(tiny_llama))
    answer = ask(paper, QUESTION, backend, task="full", shortlist=keyword_shortlist, max_new_tokens=8)
    assert any("reads no images" in m for m in answer.messages)
    assert answer.raw_response is not None and answer.figure is not None
    assert not any("could not answer" in m for m in answer.messages)


def test_text_only_models_are_refused_for_figure_tasks_with_the_figure_still_shown(paper: Paper, tiny_llama: Path) -> None:
    backend = load_backend(backend="local", model=str(tiny_llama))
    for task in ("cot", "direct"):
        answer = ask(paper, QUESTION, backend, task=task, shortlist=keyword_shortlist)
        assert not answer.answered and answer.figure is not None and answer.figure_source == "retrieval"
        assert any("text-only" in m and "--task full" in m for m in answer.messages)


# ---- no model, bad input, bad replies


def test_retrieval_only_without_a_model(paper: Paper) -> None:
    answer = ask(paper, QUESTION, None, shortlist=keyword_shortlist)
    assert answer.model is None and not answer.answered and answer.answer == ""
    assert answer.figure is keyword_shortlist(paper, QUESTION, 1)[0].figure and answer.figure_source == "retrieval"
    assert any("no model is configured" in m for m in answer.messages)
    noted = ask(paper, QUESTION, None, shortlist=keyword_shortlist, notice="no API key: set OPENAI_API_KEY")
    assert noted.messages == ["no API key: set OPENAI_API_KEY"]


@pytest.mark.parametrize("question", ["", "   \n\t "])
def test_an_empty_question_is_refused(paper: Paper, question: str) -> None:
    with pytest.raises(PaperError, match="question is empty"):
        ask(paper, question, None, shortlist=keyword_shortlist)


def test_a_very_long_question_is_cut_with_a_message(paper: Paper) -> None:
    backend = ScriptedBackend("{'Image': 0, 'Rationale': 'r'}\nThe answer is: 3")
    answer = ask(paper, "why " * 5000, backend, shortlist=keyword_shortlist)
    assert len(answer.question) == 2000 and any("first 2000 characters" in m for m in answer.messages)
    assert answer.answered


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("", "empty reply"),
        ("}}{{ ;; garbage \x00", "names no image"),
        ("{'Image': 12, 'Rationale': 'the last one'}\nThe answer is: 5", "picked Image 12, but only Images 0-4"),
        ("{'Image': None, 'Rationale': 'none fit'}\nThe answer is: unknown", "none of the shown figures"),
    ],
)
def test_bad_replies_leave_the_retrieved_figure_and_say_why(paper: Paper, reply: str, message: str) -> None:
    answer = ask(paper, QUESTION, ScriptedBackend(reply), shortlist=keyword_shortlist)
    assert answer.figure is keyword_shortlist(paper, QUESTION, 1)[0].figure and answer.figure_source == "retrieval"
    assert any(message in m for m in answer.messages), answer.messages
    assert answer.raw_response == reply


def test_a_failing_model_is_a_message_not_a_crash(paper: Paper) -> None:
    for task in ("cot", "direct", "full"):
        answer = ask(paper, QUESTION, ScriptedBackend(PaperError("cannot reach http://x")), task=task,
                     shortlist=keyword_shortlist)
        assert not answer.answered and answer.figure is not None
        assert answer.messages[-1] == "the model could not answer: cannot reach http://x"


def test_a_hanging_server_gives_a_timeout_message_and_the_figure(paper: Paper) -> None:
    from test_models_openai import hanging_server

    with hanging_server() as url:
        backend = load_backend(backend="openai", base_url=url, model="m", request_timeout_s=0.5, max_retries=0)
        answer = ask(paper, QUESTION, backend, shortlist=keyword_shortlist)
        streamed = list(ask_stream(paper, QUESTION, backend, shortlist=keyword_shortlist))
    for result in (answer, streamed[-1]):
        assert not result.answered and result.figure is not None
        assert any("no reply from" in m for m in result.messages)


def test_prompts_that_overflow_the_context_drop_the_least_relevant_figures(paper: Paper) -> None:
    backend = ScriptedBackend("{'Image': 0, 'Rationale': 'r'}\nThe answer is: 3", context_tokens=1000)
    answer = ask(paper, QUESTION, backend, shortlist=keyword_shortlist, max_new_tokens=500)
    assert len(answer.candidates) < len(paper.items) and answer.answered
    assert any("fit the model's context of 1000 tokens" in m for m in answer.messages)
    tiny = ScriptedBackend("x", context_tokens=50)
    assert any("does not fit" in m for m in ask(paper, QUESTION, tiny, shortlist=keyword_shortlist).messages)


def test_a_paper_without_figures(tmp_path: Path) -> None:
    paper = make_paper(tmp_path, n_items=0)
    backend = ScriptedBackend("{'Answer': 'from the text'}")
    cot = ask(paper, QUESTION, backend, shortlist=keyword_shortlist)
    assert cot.figure is None and not cot.answered and backend.requests == []
    assert any("no figures or tables" in m for m in cot.messages)
    full = ask(paper, QUESTION, backend, task="full", shortlist=keyword_shortlist)
    assert full.answer == "from the text" and full.figure is None


def test_unknown_task_and_bad_k(paper: Paper) -> None:
    with pytest.raises(PaperError, match="unknown task"):
        ask(paper, QUESTION, None, task="summarise", shortlist=keyword_shortlist)
    with pytest.raises(PaperError, match="k must be at least 1"):
        ask(paper, QUESTION, None, k=0, shortlist=keyword_shortlist)
