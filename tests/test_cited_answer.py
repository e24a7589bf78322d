"""Answering from the cited papers (`ask --cited`, `crosspaper.cited_answer`) on real shared papers.

Anchors and cited papers that are both in the shared papers: Coordinate Attention cites CBAM,
A2-Nets, non-local networks and ResNet; A2-Nets cites ResNet, non-local networks and the
Transformer; CBAM cites ResNet. Questions name the method as a table row does and say which paper
they mean ("In the paper that proposed CBAM"); the right cited paper must rank first and give a
passage. Models are scripted, the loopback OpenAI-compatible listener, or a tiny random-weight
local model loaded as a real one is: no network.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from tiny_models import tiny_llama

from evalsuite.openai_listener import openai_listener
from spiqa_demo.cli import main
from spiqa_demo.crosspaper.cited_answer import CitedAnswer, ask_cited, ask_cited_stream
from spiqa_demo.crosspaper.names import introduced_names, name_parts, spelled_out
from spiqa_demo.crosspaper.prompts import CROSSPAPER_PROMPT_VERSION
from spiqa_demo.crosspaper.ranking import CitationRanker
from spiqa_demo.crosspaper.target import named_target, without_target
from spiqa_demo.crosspaper.types import AnchorFigure, CitedCandidate
from spiqa_demo.library import PaperLibrary
from spiqa_demo.models.base import Message, Usage
from spiqa_demo.settings import get_settings

COORDINATE = "coordinate-attention-cvpr2021.pdf"
A2NETS = "a2-nets-neurips2018.pdf"
CBAM = "cbam-eccv2018.pdf"
NONLOCAL = "non-local-nn-cvpr2018-1711.07971.pdf"
RESNET = "resnet-1512.03385.pdf"
TRANSFORMER = "attention-is-all-you-need-1706.03762.pdf"
UNCITED = "ecapa-tdnn-interspeech2020-2005.07143.pdf"
CITED_FOLDER = [CBAM, NONLOCAL, A2NETS, RESNET, TRANSFORMER, UNCITED]

CASES = [
    (COORDINATE, "In Table 2, CBAM is compared with our coordinate attention. In the paper that proposed CBAM, "
                 "how is the channel attention computed?", CBAM),
    (COORDINATE, "A2-Nets is compared in the table. In the paper that introduced A2-Nets, how does the double "
                 "attention block gather features?", A2NETS),
    (A2NETS, "In Table 3, the Non-local network is compared with A2-Net. In the paper that proposed the non-local "
             "operation, which pairwise function is used?", NONLOCAL),
    (A2NETS, "In Table 1, ResNet-50 is the baseline. In ResNet's paper, how many layers does the deepest network on "
             "CIFAR-10 have?", RESNET),
    (CBAM, "In Table 4, ResNet50 is used as the baseline. In the paper that introduced ResNet, what is the depth of "
           "the deepest ImageNet model?", RESNET),
    (COORDINATE, "The non-local block is listed among the attention methods. In the paper that proposed the "
                 "non-local block, which video classification datasets were used?", NONLOCAL),
    (COORDINATE, "ResNet-50 is the backbone in the table. In the original ResNet paper, what top-5 error does the "
                 "ensemble reach on ImageNet?", RESNET),
]  # fmt: skip


@pytest.fixture(scope="module")
def cited_folder(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cited")
    for name in CITED_FOLDER:
        shutil.copy(shared / "papers" / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def libraries(shared: Path, cited_folder: Path) -> dict[str, PaperLibrary]:
    out = {}
    for anchor in (COORDINATE, A2NETS, CBAM):
        library = PaperLibrary.open(shared / "papers" / anchor, get_settings())
        library.add([cited_folder], workers=2)
        out[anchor] = library
    return out


@pytest.mark.parametrize(("anchor", "question", "expected"), CASES)
def test_the_named_cited_paper_ranks_first_with_a_passage(libraries, anchor: str, question: str, expected: str) -> None:
    answer = ask_cited(libraries[anchor], question)
    first = answer.cited_papers[0]
    assert first.source is not None and Path(first.source).name == expected, [c.title for c in answer.cited_papers[:3]]
    assert answer.passages and Path(answer.passages[0].source).name == expected
    passage = answer.passages[0]
    assert passage.page >= 1 and passage.bbox is not None and passage.text
    assert answer.text == "" and any("retrieval only" in m for m in answer.messages) and answer.prompt_version == ""


def test_a_second_question_reads_the_cited_papers_through_the_same_passage_index(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The passage index of the cited papers a question leads to is built once, then kept in the
    library's store: the next question about them tokenizes no paragraph again."""
    from retrieval import get_embedder
    from retrieval import store as store_module
    from retrieval.passage_index import PassageIndex
    from retrieval.store import IndexStore

    built: list[PassageIndex] = []

    class CountedPassageIndex(PassageIndex):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            built.append(self)

    monkeypatch.setattr(store_module, "PassageIndex", CountedPassageIndex)
    library = PaperLibrary.open(shared / "papers" / COORDINATE, get_settings(), store=IndexStore(get_embedder()))
    library.add([shared / "papers" / name for name in (CBAM, NONLOCAL, A2NETS)])  # the three it cites: every answer reads them all
    first = ask_cited(library, CASES[0][1])
    second = ask_cited(library, CASES[1][1])
    assert len(built) == 1 and first.passages and second.passages
    assert Path(first.passages[0].source).name == CBAM and Path(second.passages[0].source).name == A2NETS


def test_the_named_target_is_read_generically() -> None:
    question = "In Table 2, CBAM is compared. In the paper that proposed CBAM, what is the kernel size?"
    target = named_target(question)
    assert target is not None and target.text == "CBAM"
    assert "CBAM" not in without_target(question, target)
    possessive = named_target("In CBAM's paper, what is used?")
    assert possessive is not None and possessive.text == "CBAM"
    # Benchmark-style questions point at the paper through the figure and name none.
    assert named_target("Which method exhibits a score of 34.9 in the Acc-7 metric on MOSI?") is None
    assert named_target("What is the paper that proposed the method with the best score about?") is None


def test_a_name_a_paper_spells_out_or_introduces() -> None:
    assert name_parts("ResNet") == ["res", "net"] and name_parts("SENet") == ["s", "e", "net"]
    assert name_parts("Transformer") is None and name_parts("A2-Nets") is None and name_parts("BERT") == ["b", "e", "r", "t"]
    assert spelled_out("ResNet", "On ImageNet we evaluate residual nets with a depth of up to 152 layers.")
    assert spelled_out("ELMo", "Deep contextualized Embeddings from Language Models")
    assert not spelled_out("ResNet", "residual learning for deep networks")  # a word that is not small breaks it
    assert introduced_names("We propose a new simple network architecture, the Transformer, based solely on attention.") == {"transformer"}
    assert introduced_names("We introduce a new language representation model called BERT, which stands for ...") == {"bert"}
    assert introduced_names("We present a method for ImageNet classification.") == set()  # what it is for is not its name
    # words in a row are one name, set apart by its first: the kind of thing it is ("Block") names no paper
    assert introduced_names("We propose Convolutional Block Attention Module (CBAM), a simple attention module") == {
        "convolutional", "convolutionalblockattentionmodule"}
    assert "nonlocal" in introduced_names("We present Non-local Neural Networks as a family of building blocks")


def test_a_definition_outweighs_a_spelled_out_name_and_a_title_word() -> None:
    resnet = CitedCandidate("r" * 8, "Deep residual learning for image recognition", "We evaluate residual nets on ImageNet.")
    wide = CitedCandidate("w" * 8, "Wide residual networks")
    inception = CitedCandidate("i" * 8, "Inception-v4, inception-resnet and the impact of residual connections")
    others = [CitedCandidate(str(i) * 8, f"An unrelated paper on topic {i}") for i in range(6)]
    question = "In the paper that proposed ResNet, how deep is the deepest model?"
    spelled = CitationRanker().rank(question, AnchorFigure(), [*others, wide, resnet])
    assert {r.candidate.id for r in spelled.ranked[:2]} == {resnet.id, wide.id}  # both spell the name out
    named = CitationRanker().rank(question, AnchorFigure(), [wide, inception, *others, replace(resnet, aliases=("ResNet",))])
    assert named.ranked[0].candidate.id == resnet.id and named.ranked[0].signals.question_target > named.ranked[1].signals.question_target


def test_no_cited_paper_available_gives_the_ranking_and_says_what_to_add(shared: Path) -> None:
    library = PaperLibrary.open(shared / "papers" / COORDINATE, get_settings())
    answer = ask_cited(library, CASES[0][1], ScriptedBackend("[1] never asked"))
    assert answer.passages == [] and answer.text == ""
    assert answer.cited_papers and all(c.source is None for c in answer.cited_papers)
    assert any("none of the top 3 cited papers" in m and "add their PDFs" in m for m in answer.messages)


class ScriptedBackend:
    """A model that replies with a fixed text (or raises), streamed in two pieces."""

    def __init__(self, reply: str | Exception, supports_images: bool = False) -> None:
        self.name = "scripted"
        self.reply = reply
        self.supports_images = supports_images
        self.prompts: list[str] = []
        self.requests: list[Message] = []

    def stream(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> Iterator[str]:
        self.prompts.append(messages[0].text)
        self.requests.append(messages[0])
        if isinstance(self.reply, Exception):
            raise self.reply
        half = len(self.reply) // 2
        yield from (self.reply[:half], self.reply[half:])

    def generate(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> str:
        return "".join(self.stream(messages, max_new_tokens, usage))


@pytest.mark.parametrize(
    ("reply", "note"),
    [
        ("CBAM applies average and max pooling, then a shared MLP [2].", None),
        ("I don't know.", "said it does not know"),
        ("It uses pooling.", "cites none of the passages"),
        ("", "gave no answer"),
        (RuntimeError("server went away"), "the model failed to answer (RuntimeError: server went away)"),
    ],
)
def test_model_answers_cite_passages_or_say_why_not(libraries, reply: str | Exception, note: str | None) -> None:
    backend = ScriptedBackend(reply)
    parts = list(ask_cited_stream(libraries[COORDINATE], CASES[0][1], backend))
    answer = parts[-1]
    assert isinstance(answer, CitedAnswer) and answer.passages and answer.prompt_version == CROSSPAPER_PROMPT_VERSION
    assert "Question:" in backend.prompts[0] and "[1]" in backend.prompts[0]
    if note is None:
        assert answer.text == reply and "".join(p for p in parts[:-1] if isinstance(p, str)) == reply
        assert not answer.messages
        assert answer.passages[0].text in backend.prompts[0].split("[2]")[1]  # the cited passage comes first
    else:
        assert any(note in m for m in answer.messages), answer.messages


@pytest.mark.parametrize("images", [True, False])
def test_the_anchor_figure_itself_goes_to_the_model(libraries, images: bool) -> None:
    """The cited-answer request shows the citing paper's figure or table the question is about (its
    crop to a model that reads images, its caption and text to every model), not only the passages."""
    backend = ScriptedBackend("It pools along both directions [1].", supports_images=images)
    answer = list(ask_cited_stream(libraries[COORDINATE], CASES[0][1], backend))[-1]
    figure = answer.anchor_figure
    assert isinstance(answer, CitedAnswer) and figure is not None and figure.image
    prompt = backend.prompts[0]
    assert f"The question is about {figure.title} (page {figure.page})" in prompt
    assert " ".join(figure.caption.split())[:60] in prompt and prompt.index(figure.title) < prompt.index("[1]")
    assert backend.requests[0].images == ([Path(figure.image)] if images else [])


def test_cli_json_adds_cited_papers_and_passages(shared: Path, cited_folder: Path, tmp_path: Path, capsys) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 this is not a PDF body")
    code = main(["ask", str(shared / "papers" / COORDINATE), CASES[0][1], "--cited", str(cited_folder), str(broken),
                 "--backend", "none", "--json"])  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["answer"] == "" and data["figure"]["id"]
    first = data["cited_papers"][0]
    assert Path(first["source"]).name == CBAM and first["key"] and first["title"] and isinstance(first["score"], float)
    assert any(c["source"] is None for c in data["cited_papers"])
    assert {"source", "page", "text"} <= set(data["passages"][0]) and Path(data["passages"][0]["source"]).name == CBAM
    assert any("broken.pdf" in m for m in data["messages"])  # the paper that failed to extract
    assert any(UNCITED in m and "matches no reference" in m for m in data["messages"])


def test_cli_with_a_model_that_ignores_the_answer_format(shared: Path, cited_folder: Path, capsys) -> None:
    with openai_listener() as listener:
        code = main(["ask", str(shared / "papers" / COORDINATE), CASES[0][1], "--cited", str(cited_folder / CBAM),
                     "--backend", "openai", "--base-url", listener.url, "--model", "listener", "--json"])  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["answer"] and data["model"]
    assert any("cites none of the passages" in m for m in data["messages"])
    assert listener.saw("In the paper that proposed CBAM")


def test_cli_with_a_tiny_local_model(shared: Path, cited_folder: Path, tiny_llama: Path, capsys) -> None:
    """The real local loading and generation path: a random-weight model writes noise, which is
    kept as the answer and said to cite no passage, beside the ranking and passages of retrieval."""
    code = main(["ask", str(shared / "papers" / COORDINATE), CASES[0][1], "--cited", str(cited_folder / CBAM),
                 "--backend", "local", "--model", str(tiny_llama), "--json"])  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["model"] and isinstance(data["answer"], str)
    assert Path(data["cited_papers"][0]["source"]).name == CBAM and data["passages"]
    assert any("cites none of the passages" in m or "gave no answer" in m for m in data["messages"]), data["messages"]
