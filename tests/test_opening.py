"""Opening one paper (`spiqa_demo.library.open_paper`): a real small paper gives its extraction and
index, a second open embeds nothing, and a bad file is one clear `InputError`, its kept copy deleted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from retrieval_fixtures import CountingEmbedder, embedder

from retrieval import Embedder
from retrieval.store import IndexStore
from spiqa_demo.cli import main
from spiqa_demo.errors import InputError
from spiqa_demo.library import Keeper, open_paper
from spiqa_demo.settings import Settings, get_settings

PAPER = "ecapa-tdnn-interspeech2020-2005.07143.pdf"  # 5 pages
QUESTION = "How does the equal error rate of ECAPA-TDNN compare with the x-vector baseline?"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """An empty extraction cache of its own: the first open extracts and embeds, whatever ran before."""
    settings = get_settings()
    return settings.model_copy(update={"extraction": settings.extraction.with_overrides(cache_dir=tmp_path / "cache")})


def copies_in(folder: Path) -> Keeper:
    """A caller that keeps its copies in `folder`, as the app keeps uploads."""

    def keep(source: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy(source, folder / source.name))

    return Keeper(keep=keep, discard=lambda path: path.unlink(missing_ok=True))


def test_a_paper_opens_with_its_index_and_opens_again_from_the_caches(
    shared: Path, settings: Settings, embedder: Embedder, tmp_path: Path
) -> None:
    counting = CountingEmbedder(embedder)
    store = IndexStore(counting)
    heard: list[tuple[float, str]] = []
    shown: list[Path] = []
    first = open_paper(shared / "papers" / PAPER, settings, keep=copies_in(tmp_path / "kept"), store=store,
                       progress=lambda fraction, message: heard.append((fraction, message)),
                       extracted=lambda paper, pdf: shown.append(pdf))  # fmt: skip
    assert first.pdf == tmp_path / "kept" / PAPER and shown == [first.pdf]
    assert first.paper.items and first.index.items == first.paper.items
    assert [f for f, _ in heard] == sorted(f for f, _ in heard) and heard[0] == (0.0, f"Opening {PAPER}")
    assert heard[-1] == (0.85, f"Indexing {len(first.paper.items)} figures and tables")
    assert any(m.startswith("Reading page") for _, m in heard)
    embedded = counting.encoded
    assert embedded > 0

    again = open_paper(first.pdf, settings, store=store)  # the same process: the index in memory
    elsewhere = open_paper(first.pdf, settings, store=IndexStore(counting))  # another process: saved beside the extraction
    assert counting.encoded == embedded
    assert again.paper == first.paper and elsewhere.index.items == elsewhere.paper.items
    best = first.index.search(QUESTION, 1)[0].item.id
    assert again.index.search(QUESTION, 1)[0].item.id == best == elsewhere.index.search(QUESTION, 1)[0].item.id


@pytest.mark.parametrize(("name", "content", "message"), [
    ("notes.txt", b"plain text", "notes.txt: only PDF files can be read (got a .txt)"),
    ("fake.pdf", b"plain text that calls itself a PDF", "fake.pdf: not a PDF file"),
    ("empty.pdf", b"", "empty.pdf: the file is empty"),
    ("broken.pdf", b"%PDF-1.4\nnot really a PDF\n", "broken.pdf: "),
])  # fmt: skip
def test_a_bad_file_is_one_clear_input_error_and_its_copy_is_not_kept(
    settings: Settings, tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    bad = tmp_path / name
    bad.write_bytes(content)
    kept = tmp_path / "kept"
    with pytest.raises(InputError) as error:
        open_paper(bad, settings, keep=copies_in(kept))
    assert str(error.value).startswith(message) and "\n" not in str(error.value)
    assert not kept.exists() or list(kept.iterdir()) == []


def test_a_missing_or_oversized_file_is_refused_before_it_is_copied(shared: Path, settings: Settings, tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    with pytest.raises(InputError, match=r"missing\.pdf: file not found"):
        open_paper(tmp_path / "missing.pdf", settings, keep=copies_in(kept))
    with pytest.raises(InputError, match="over the 0 MB limit"):
        open_paper(shared / "papers" / PAPER, settings.model_copy(update={"extraction": settings.extraction.with_overrides(max_file_mb=0)}), keep=copies_in(kept))
    assert not kept.exists()


def test_the_search_command_opens_the_paper_the_same_way(shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", str(shared / "papers" / PAPER), QUESTION, "--k", "2"]) == 0
    assert capsys.readouterr().out.startswith(f"{PAPER}: ")
    text = tmp_path / "paper.txt"
    text.write_text("not a paper")
    assert main(["search", str(text), QUESTION]) == 2
    assert "paper.txt: only PDF files can be read" in capsys.readouterr().err
