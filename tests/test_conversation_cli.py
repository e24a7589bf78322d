"""`ask --json` (the reader's task by default) and `chat --json` on a shared paper, without a model and
with a loopback one."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from evalsuite.openai_listener import openai_listener
from spiqa_demo.cli import main
from spiqa_demo.settings import get_settings

PAPER = "resnet-1512.03385.pdf"


@pytest.fixture(autouse=True)
def _no_configured_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "SPIQA_API_KEY", "SPIQA_MODEL", "SPIQA_BACKEND", "SPIQA_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()


def test_ask_json_prints_the_ranked_evidence_and_the_extractive_answer(shared: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["ask", str(shared / "papers" / PAPER), "What weight decay and momentum do they use?", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    turn = json.loads(lines[0])
    assert set(turn) == {"question", "read_as", "answer", "evidence", "messages", "not_found"}
    assert "weight decay of 0.0001" in turn["answer"] and "[p. " in turn["answer"]
    kinds = {e["kind"] for e in turn["evidence"]}
    assert "passage" in kinds and kinds & {"figure", "table"}
    for e in turn["evidence"]:
        assert e["page"] >= 1 and isinstance(e["score"], float) and isinstance(e["cited"], bool) and e["text"]
        assert ("label" in e) == (e["kind"] != "passage")
    scores = [e["score"] for e in turn["evidence"]]
    assert scores == sorted(scores, reverse=True)


def test_chat_json_answers_each_line_in_the_context_of_the_earlier_ones(shared: Path, capsys: pytest.CaptureFixture,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    questions = "What is the top-1 error of the 34-layer ResNet on ImageNet validation?\n\nand on CIFAR-10?\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(questions))
    assert main(["chat", str(shared / "papers" / PAPER), "--json"]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["read_as"] == first["question"]
    assert second["question"] == "and on CIFAR-10?"
    assert second["read_as"] == "What is the top-1 error of the 34-layer ResNet on CIFAR-10?"
    assert "Table 6" in [e["label"] for e in second["evidence"] if e["kind"] != "passage"][:3]


def test_chat_with_a_model_sends_the_earlier_turn(shared: Path, capsys: pytest.CaptureFixture,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("What optimizer do they use?\nwhy?\n"))

    def reply(request: dict) -> str:
        last = request["messages"][-1]["content"]
        text = last if isinstance(last, str) else " ".join(p.get("text", "") for p in last)
        return "Why do they use SGD?" if "Standalone question:" in text else "They use SGD [p. 4]."

    with openai_listener(reply=reply) as listener:
        code = main(["chat", str(shared / "papers" / PAPER), "--base-url", listener.url, "--model", "m", "--json"])
    assert code == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["answer"] == second["answer"] == "They use SGD [p. 4]."
    assert second["read_as"] == "Why do they use SGD?"
    sent = json.loads(listener.requests[-1][listener.requests[-1].index("{"):])["messages"]
    assert sent[:2] == [{"role": "user", "content": "What optimizer do they use?"},
                        {"role": "assistant", "content": "They use SGD [p. 4]."}]


def test_chat_skips_an_empty_question_with_a_message(shared: Path, capsys: pytest.CaptureFixture,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("   \t \n"))
    assert main(["chat", str(shared / "papers" / PAPER), "--json"]) == 0
    assert capsys.readouterr().out == ""
