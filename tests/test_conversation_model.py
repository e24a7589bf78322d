"""The reader's conversation with a model: a real loopback OpenAI-compatible server records every
request, on a shared paper with real extraction and retrieval."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalsuite.openai_listener import Listener, openai_listener
from spiqa_demo.conversation import Conversation, Status, Turn, ask_turn, ask_turn_stream
from spiqa_demo.extraction import load_paper
from spiqa_demo.models import load_backend
from spiqa_demo.models.base import ModelBackend
from spiqa_demo.settings import ModelSettings, QASettings, get_settings
from spiqa_demo.types import Paper

FIRST = "What is the top-1 error of the 34-layer ResNet on ImageNet validation?"
FIRST_ANSWER = "The 34-layer ResNet reaches 25.03% top-1 error [Table 2]."
REWRITTEN = "What is the classification error of ResNets on CIFAR-10?"


@pytest.fixture(scope="module")
def paper(shared: Path) -> Paper:
    return load_paper(shared / "papers" / "resnet-1512.03385.pdf", get_settings().extraction)


def _text(request: dict[str, Any]) -> str:
    parts = []
    for message in request["messages"]:
        content = message["content"]
        parts += [content] if isinstance(content, str) else [p.get("text", "") for p in content]
    return "\n".join(parts)


def _citing(request: dict[str, Any]) -> str:
    """A model that cites the first table and the first passage it was shown, as asked."""
    text = _text(request)
    if "Standalone question:" in text:
        return REWRITTEN
    if "Question: " + FIRST in text:
        return FIRST_ANSWER
    shown = _text({"messages": request["messages"][-1:]}).split("Figures and tables:")[-1]  # the evidence only
    table = re.search(r"\[(Table \d+)\]", shown)
    page = re.search(r"\n\[p\. (\d+)\]", shown)
    assert table and page
    return f"ResNet-110 has 6.43% error [{table[1]}], trained as described on [p. {page[1]}]."


def _backend(listener: Listener, **settings: Any) -> ModelBackend:
    backend = load_backend(ModelSettings(), backend="openai", base_url=listener.url, model="m", api_key="k", **settings)
    assert backend is not None
    return backend


def _chat(paper: Paper, reply: Callable[[dict[str, Any]], str], second: str, **settings: Any) -> tuple[Listener, Turn, list[Any]]:
    with openai_listener(reply=reply) as listener:
        backend = _backend(listener, **settings)
        conversation = Conversation(paper.sha256)
        ask_turn(paper, conversation, FIRST, backend, QASettings())
        events = list(ask_turn_stream(paper, conversation, second, backend, QASettings()))
    turn = events[-1]
    assert isinstance(turn, Turn) and conversation.turns[-1] is turn
    return listener, turn, events


def test_the_followups_request_carries_the_earlier_turn_and_the_models_reading(paper: Paper) -> None:
    listener, turn, events = _chat(paper, _citing, "and on CIFAR-10?")
    assert len(listener.requests) == 3  # first answer, the follow-up's rewrite, its answer
    rewrite, answer = (json.loads(r[r.index("{"):]) for r in listener.requests[1:])
    assert FIRST in _text(rewrite) and "and on CIFAR-10?" in _text(rewrite)
    roles = [m["role"] for m in answer["messages"]]
    assert roles[:2] == ["user", "assistant"] and answer["messages"][0]["content"] == FIRST
    assert answer["messages"][1]["content"] == FIRST_ANSWER
    assert f"Question: {REWRITTEN}" in _text(answer)
    assert turn.read_as == REWRITTEN and turn.question == "and on CIFAR-10?"
    assert any(isinstance(e, Status) and "context of the conversation" in e.text for e in events)
    assert "".join(e for e in events if isinstance(e, str)) == turn.answer


def test_a_rewrite_that_is_no_question_leaves_the_followup_read_without_the_model(paper: Paper) -> None:
    def agreeable(request: dict[str, Any]) -> str:
        return "Yes" if "Standalone question:" in _text(request) else _citing(request)

    _, turn, _ = _chat(paper, agreeable, "and on CIFAR-10?")
    assert turn.read_as == "What is the top-1 error of the 34-layer ResNet on CIFAR-10?"
    assert any("no question" in m for m in turn.messages)


def test_cited_tables_and_passages_come_back_with_their_pages(paper: Paper) -> None:
    _, turn, _ = _chat(paper, _citing, "and on CIFAR-10?")
    label = re.search(r"\[(Table \d+)\]", turn.answer)
    page = re.search(r"\[p\. (\d+)\]", turn.answer)
    assert label and page
    cited_items = [e.label for e in turn.cited if e.figure is not None]
    cited_passages = [e for e in turn.cited if e.passage is not None]
    assert cited_items == [label[1]]
    assert cited_passages and {e.page for e in cited_passages} == {int(page[1])}
    assert all(e.quotes and e.quotes[0] in " ".join(e.text.split()) for e in cited_passages)
    assert not turn.abstained and turn.model == "m"


def test_a_reply_in_no_format_still_gives_an_answer_and_evidence(paper: Paper) -> None:
    def plain(request: dict[str, Any]) -> str:
        return REWRITTEN if "Standalone question:" in _text(request) else "Deeper residual nets have lower error; Image 0 shows it"

    _, turn, _ = _chat(paper, plain, "and on CIFAR-10?")
    first_item = next(e for e in turn.evidence if e.figure is not None)
    assert turn.answer == f"Deeper residual nets have lower error; {first_item.label} shows it"
    assert [e.label for e in turn.cited] == [first_item.label]
    assert turn.evidence and any(e.passage is not None for e in turn.evidence)


def test_i_dont_know_shows_no_supporting_evidence(paper: Paper) -> None:
    def unsure(request: dict[str, Any]) -> str:
        return REWRITTEN if "Standalone question:" in _text(request) else "I don't know. [Table 2]"

    listener, turn, _ = _chat(paper, unsure, "and on CIFAR-10?")
    assert 'does not answer the question, do not guess: reply exactly \\"I don\'t know\\"' in listener.requests[-1]
    assert turn.abstained and turn.cited == () and turn.evidence
    assert not any(e.cited for e in turn.evidence)


def test_earlier_turns_that_do_not_fit_the_context_are_dropped_oldest_first_with_a_note(paper: Paper) -> None:
    long_answer = "The error is low. " * 400  # about 1,800 tokens by the API backend's estimate

    def verbose(request: dict[str, Any]) -> str:
        text = _text(request)
        if "Standalone question:" in text:
            return REWRITTEN
        return long_answer if "Question: " + FIRST in text else "It is 6.43% [Table 6]."

    with openai_listener(reply=verbose) as listener:
        backend = _backend(listener, context_tokens=2500)
        conversation = Conversation(paper.sha256)
        ask_turn(paper, conversation, FIRST, backend, QASettings(max_new_tokens=64))
        turn = ask_turn(paper, conversation, "and on CIFAR-10?", backend, QASettings(max_new_tokens=64))
    answer = json.loads(listener.requests[-1][listener.requests[-1].index("{"):])
    assert [m["role"] for m in answer["messages"]] == ["user"]  # the earlier turn did not fit
    assert any("1 earlier turn was left out" in m and "oldest first" in m for m in turn.messages)
    assert turn.answer == "It is 6.43% [Table 6]."


def test_a_failing_model_leaves_the_quoted_answer_and_says_why(paper: Paper, monkeypatch: pytest.MonkeyPatch) -> None:
    from evalsuite.local_servers import free_port

    monkeypatch.setenv("SPIQA_MAX_RETRIES", "0")
    backend = load_backend(ModelSettings(max_retries=0), backend="openai", base_url=f"http://127.0.0.1:{free_port()}/v1",
                           model="m", api_key="k")
    turn = ask_turn(paper, Conversation(), "What weight decay and momentum do they use?", backend, QASettings())
    assert turn.model is None and "[p. " in turn.answer
    assert any(m.startswith("the model could not answer") for m in turn.messages)
