"""`python -m spiqa_demo ask` end to end: a real PDF, real extraction and retrieval, a tiny local model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tiny_models import tiny_cot_vlm

from evalsuite.local_servers import free_port
from spiqa_demo.cli import main
from spiqa_demo.extraction import load_paper
from spiqa_demo.settings import get_settings

QUESTION = "How does the equal error rate of ECAPA-TDNN compare with the x-vector baseline?"


@pytest.fixture(scope="module")
def pdf(shared: Path) -> Path:
    return shared / "papers" / "ecapa-tdnn-interspeech2020-2005.07143.pdf"


@pytest.fixture(autouse=True)
def _no_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "SPIQA_API_KEY", "SPIQA_MODEL", "SPIQA_BACKEND", "SPIQA_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()


def test_ask_answers_with_one_of_the_papers_figures(pdf: Path, tiny_cot_vlm: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["ask", str(pdf), QUESTION, "--task", "cot", "--model", str(tiny_cot_vlm), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    paper = load_paper(pdf, get_settings().extraction)
    assert len(paper.items) >= 2
    assert answer["answered"] and answer["answer"] == "Yes" and answer["task"] == "cot"
    assert answer["figure_source"] == "model" and answer["chosen_index"] == 1
    assert answer["figure"]["id"] in {item.id for item in paper.items}
    assert answer["figure"]["id"] == answer["candidates"][1]["id"]
    assert Path(answer["figure"]["image"]).is_file()
    assert {"dense", "bm25", "label"} <= set(answer["candidates"][0]["scores"])
    assert len(answer["candidates"]) == min(8, len(paper.items))

    assert main(["ask", str(pdf), QUESTION, "--model", str(tiny_cot_vlm), "--task", "direct"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Answer: Yes\nFigure: ") and "  crop: " in out and "task direct" in out


def test_without_a_model_the_best_figure_is_still_shown(pdf: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["ask", str(pdf), QUESTION, "--task", "cot"]) == 0
    captured = capsys.readouterr()
    assert "Answer: (no model answered: retrieval only)" in captured.out
    assert "Figure: " in captured.out and "(best retrieved)" in captured.out
    assert "no model is configured" in captured.err


def test_a_missing_api_key_is_a_clear_message_with_the_figure(pdf: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["ask", str(pdf), QUESTION, "--task", "cot", "--backend", "openai", "--json"]) == 1
    answer = json.loads(capsys.readouterr().out)
    assert not answer["answered"] and answer["figure"] is not None
    assert any("no API key" in m and "OPENAI_API_KEY" in m for m in answer["messages"])


def test_an_unreachable_server_is_a_clear_message_with_the_figure(pdf: Path, capsys: pytest.CaptureFixture,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPIQA_MAX_RETRIES", "0")
    get_settings.cache_clear()
    url = f"http://127.0.0.1:{free_port()}/v1"
    assert main(["ask", str(pdf), QUESTION, "--task", "cot", "--base-url", url, "--model", "m"]) == 1
    captured = capsys.readouterr()
    assert "Answer: (the model gave no answer)" in captured.out and "Figure: " in captured.out
    assert "cannot reach" in captured.err


def test_bad_input_is_one_line_and_exit_code_2(pdf: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["ask", str(pdf), "   "]) == 2
    assert capsys.readouterr().err.startswith("error: the question is empty")
    assert main(["ask", str(tmp_path / "missing.pdf"), QUESTION]) == 2
    assert "file not found" in capsys.readouterr().err
