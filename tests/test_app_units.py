"""The app's handlers and helpers without a server: inputs a client can send, notices, limits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from spiqa_demo.errors import PaperError


def test_model_choice_is_clamped_to_valid_values() -> None:
    from spiqa_demo.ui.model_settings import MAX_SHORTLIST, ModelChoice

    choice = ModelChoice.from_inputs("sql; drop", "gpu-cluster", " m ", " http://x/v1 ", 99, "huge", "yes")
    assert (choice.task, choice.backend, choice.model, choice.base_url) == ("cot", "none", "m", "http://x/v1")
    assert choice.k == MAX_SHORTLIST and choice.image_size == 0 and choice.captions is True
    assert ModelChoice.from_inputs("direct", "local", "", "", 0, 224, False).k == 1


def test_a_locked_space_ignores_the_model_a_client_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    from spiqa_demo.settings import get_settings
    from spiqa_demo.ui.model_settings import ModelChoice, resolve_backend

    monkeypatch.setenv("SPIQA_UI_LOCK_MODEL", "1")
    monkeypatch.setenv("SPIQA_BACKEND", "none")
    get_settings.cache_clear()
    choice = ModelChoice.from_inputs("cot", "openai", "gpt-4o", "http://127.0.0.1:9/v1", 4, 0, True)
    assert choice.backend == "none" and choice.model == "" and choice.base_url == ""
    assert resolve_backend(choice, "sk-visitor")[0] is None


def test_questions_wait_for_a_paper_that_is_still_loading() -> None:
    from spiqa_demo.ui.chat import NO_PAPER, STILL_LOADING, ask
    from spiqa_demo.ui.session import Session

    inputs = ("cot", "none", "", "", 8, 0, True, "")
    history, session, box = list(ask("Which figure?", Session(loading=True), *inputs))[-1]
    assert history[-1]["content"] == STILL_LOADING and box == "" and session.last_answer is None
    history, *_ = list(ask("Which figure?", Session(), *inputs))[-1]
    assert history[-1]["content"] == NO_PAPER
    assert list(ask("  ", Session(), *inputs))[-1][0] == []


@pytest.mark.parametrize(("text", "expected"), [
    ("1706.03762", "1706.03762"),
    ("arXiv:1706.03762v5", "1706.03762v5"),
    ("https://arxiv.org/abs/1611.05742v3", "1611.05742v3"),
    ("https://arxiv.org/pdf/2205.14135", "2205.14135"),
    ("hep-th/9901001", "hep-th/9901001"),
])
def test_arxiv_ids_are_read_from_ids_and_links(text: str, expected: str) -> None:
    from spiqa_demo.ui.arxiv import parse_arxiv_id

    assert parse_arxiv_id(text) == expected


def test_not_an_arxiv_id_says_so() -> None:
    from spiqa_demo.ui.arxiv import parse_arxiv_id

    with pytest.raises(PaperError, match="not an arXiv id"):
        parse_arxiv_id("attention is all you need")


def test_the_ui_folder_stays_under_its_size_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from spiqa_demo.settings import get_settings
    from spiqa_demo.ui import storage

    monkeypatch.setenv("SPIQA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("SPIQA_UI_CACHE_MAX_MB", "1")
    get_settings.cache_clear()
    for i in range(4):
        source = tmp_path / f"paper {i}!.pdf"
        source.write_bytes(b"%PDF-1.4\n" + bytes([i]) * 400_000)
        kept = storage.keep_upload(source)
        assert kept.name == f"paper_{i}_.pdf" and kept.read_bytes() == source.read_bytes()
        os.utime(kept, (1_000 + i, 1_000 + i))  # older uploads are evicted first
    storage.evict()
    left = sorted(p.name for p in storage.uploads_dir().rglob("*.pdf"))
    assert sum(p.stat().st_size for p in storage.ui_root().rglob("*") if p.is_file()) <= 1_000_000
    assert left == ["paper_2_.pdf", "paper_3_.pdf"]


def test_examples_are_picked_by_name_never_by_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from spiqa_demo.settings import get_settings
    from spiqa_demo.ui import examples

    (tmp_path / "a.pdf").write_bytes(b"%PDF-1.4\n")
    (tmp_path / "manifest.json").write_text('[{"file": "a.pdf", "title": "A Paper"}]')
    monkeypatch.setenv("SPIQA_EXAMPLES_DIR", str(tmp_path))
    get_settings.cache_clear()
    assert list(examples.example_papers()) == ["A Paper (a.pdf)"]
    assert examples.example_pdf("A Paper (a.pdf)") == (tmp_path / "a.pdf").resolve()
    with pytest.raises(PaperError, match="no example paper"):
        examples.example_pdf("/etc/passwd")
