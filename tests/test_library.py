"""The paper library: provided papers matched to an anchor's references, bad input, passage search.

Real pairs from the shared papers: Coordinate Attention cites CBAM (its reference prints the
"Cbam:" prefix the title page sets apart), non-local networks and A2-Nets by title; the ACL 2019
deep Transformer cites BERT with its arXiv id. ECAPA-TDNN (speaker verification) is cited by
neither. arXiv is pointed at a closed local port: tests never touch the network.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pymupdf
import pytest

from evalsuite.local_servers import free_port
from evalsuite.pdf_factory import two_column_paper
from spiqa_demo.cli import main
from spiqa_demo.errors import PaperError
from spiqa_demo.library import LibraryPaper, PaperLibrary
from spiqa_demo.library.matching import match_references
from spiqa_demo.library.sources import sort_sources
from spiqa_demo.library.titles import TITLE_THRESHOLD, title_similarity
from spiqa_demo.paper_text import normalise_title
from spiqa_demo.settings import get_settings
from spiqa_demo.types import Paper, Reference

COORDINATE = "coordinate-attention-cvpr2021.pdf"
CITED = ["cbam-eccv2018.pdf", "non-local-nn-cvpr2018-1711.07971.pdf", "a2-nets-neurips2018.pdf"]
UNCITED = "ecapa-tdnn-interspeech2020-2005.07143.pdf"


@pytest.fixture(scope="module")
def library(shared: Path) -> PaperLibrary:
    papers = shared / "papers"
    lib = PaperLibrary.open(papers / COORDINATE, get_settings())
    assert lib.add([papers / name for name in [*CITED, UNCITED]], workers=2) == []
    return lib


def _by_source(library: PaperLibrary) -> dict[str, str]:
    return {Path(a.source).name: a.key for a in library.availability() if a.source}


def test_matching_by_title(library: PaperLibrary) -> None:
    assert _by_source(library) == {"cbam-eccv2018.pdf": "[44]", "non-local-nn-cvpr2018-1711.07971.pdf": "[43]",
                                   "a2-nets-neurips2018.pdf": "[7]"}  # fmt: skip
    availability = library.availability()
    assert len(availability) == len(library.anchor.references) == 50
    assert all(a.matched_by == "title" and a.similarity is not None and a.similarity >= TITLE_THRESHOLD for a in availability if a.source)
    assert [Path(p.origin).name for p in library.unmatched()] == [UNCITED]


def test_matching_by_arxiv_id(shared: Path) -> None:
    papers = shared / "papers"
    lib = PaperLibrary.open(papers / "deep-transformer-mt-acl2019-1906.01787.pdf", get_settings())
    lib.add([papers / "bert-1810.04805.pdf"])
    [found] = [a for a in lib.availability() if a.source]
    assert (found.key, found.matched_by, found.similarity) == ("Devlin et al., 2018", "arxiv", 100.0)
    assert lib.papers[0].paper.arxiv_id == "1810.04805v2" and lib.unmatched() == []


def test_the_same_pdf_twice_is_kept_once(library: PaperLibrary, shared: Path, tmp_path: Path) -> None:
    copy = tmp_path / "renamed-cbam.pdf"
    shutil.copy(shared / "papers" / CITED[0], copy)
    count = len(library.papers)
    notices = library.add([copy, shared / "papers" / COORDINATE])
    assert [n.kind for n in notices] == ["duplicate", "duplicate"] and len(library.papers) == count
    assert "same PDF as" in notices[0].message and "kept once" in notices[0].message
    assert Path(library.availability()[43].source or "").name == CITED[0]  # the first copy still holds [44]


def test_a_failing_pdf_leaves_the_others(shared: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nnot really a PDF\n")
    lib = PaperLibrary.open(shared / "papers" / COORDINATE, get_settings())
    notices = lib.add([broken, shared / "papers" / CITED[1], tmp_path / "missing.pdf"], workers=2)
    assert [(Path(n.source).name, n.kind) for n in notices] == [("missing.pdf", "failed"), ("broken.pdf", "failed")]
    assert all("\n" not in n.message and "Traceback" not in n.message for n in notices)
    assert [Path(p.origin).name for p in lib.papers] == [CITED[1]]
    assert _by_source(lib) == {CITED[1]: "[43]"}


@pytest.mark.parametrize("workers", [1, 2])
def test_each_file_is_told_as_it_is_read(shared: Path, tmp_path: Path, workers: int) -> None:
    """Progress can count files as they finish (a batch of papers no longer sits at 0 % until all are read)."""
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nnot really a PDF\n")
    lib = PaperLibrary.open(shared / "papers" / COORDINATE, get_settings())
    read: list[Path] = []
    lib.add_pdfs([broken, shared / "papers" / CITED[1]], workers=workers, finished=read.append)
    assert sorted(p.name for p in read) == sorted([broken.name, CITED[1]])  # the failed one counts as read too


def test_arxiv_offline_gives_one_line(shared: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SPIQA_ARXIV_PDF_URL", f"http://127.0.0.1:{free_port()}/pdf/{{id}}")  # nothing listens there
    get_settings.cache_clear()
    lib = PaperLibrary.open(shared / "papers" / COORDINATE, get_settings())
    [notice] = lib.add(["arXiv:1807.06521"])
    assert notice.kind == "failed" and "not reachable" in notice.message and lib.papers == []
    assert main(["library", str(shared / "papers" / COORDINATE), "1807.06521"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("note: cannot download arXiv 1807.06521")


def test_passage_search_per_paper_from_the_store(library: PaperLibrary) -> None:
    keys = {Path(p.origin).name: p.key for p in library.papers}
    everything = [library.anchor.sha256, *keys.values()]
    passages = library.passages(everything)
    assert library.passages(list(reversed(everything))) is passages  # kept in the store, built once
    assert len(passages) == sum(len(p.passages) for p in [library.anchor, *(e.paper for e in library.papers)])
    top = passages.search("speaker verification embeddings", k=3)
    assert top and top[0].paper == keys[UNCITED]
    cbam_only = passages.search("speaker verification channel attention", k=5, papers=[keys[CITED[0]]])
    assert cbam_only and {h.paper for h in cbam_only} == {keys[CITED[0]]}
    with pytest.raises(PaperError, match="not in this corpus"):
        passages.search("attention", k=5, papers=["no-such-paper"])


def test_a_paper_without_a_bibliography(shared: Path, tmp_path: Path) -> None:
    anchor = two_column_paper(tmp_path / "plain.pdf").path
    lib = PaperLibrary.open(anchor, get_settings())
    lib.add([shared / "papers" / UNCITED])
    assert [n.kind for n in lib.notices] == ["no-bibliography"] and "no bibliography" in lib.notices[0].message
    assert lib.availability() == [] and [Path(p.origin).name for p in lib.unmatched()] == [UNCITED]


def test_cli_json(shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "cited"
    folder.mkdir()
    for name in [CITED[0], UNCITED]:
        shutil.copy(shared / "papers" / name, folder / name)
    assert main(["library", str(shared / "papers" / COORDINATE), str(folder), "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["available"] == 1 and out["anchor"]["references"] == 50
    assert [Path(s).name for s in out["unmatched"]] == [UNCITED] and out["notices"] == []
    assert [r["key"] for r in out["references"] if r["source"]] == ["[44]"]


def _tiny_pdf(path: Path, n: int) -> Path:
    doc = pymupdf.open()
    doc.new_page(width=300, height=300).insert_text((40, 60), f"Tiny paper number {n}", fontsize=11)
    doc.save(path)
    return path


def test_a_hundred_pdfs_at_once(shared: Path, tmp_path: Path) -> None:
    lib = PaperLibrary.open(shared / "papers" / COORDINATE, get_settings())
    pdfs = [_tiny_pdf(tmp_path / f"tiny-{n:03}.pdf", n) for n in range(100)]
    assert lib.add([tmp_path], workers=2) == []
    assert sorted(Path(p.origin).name for p in lib.papers) == [p.name for p in pdfs]
    assert len(lib.unmatched()) == 100


# Units: titles, sources, matching order ----------------------------------------------------------


def test_title_normalisation_and_similarity() -> None:
    assert normalise_title("Aˆ2-Nets: Double Attention Networks") == "a 2 nets double attention networks"
    assert normalise_title("Eﬃcient convolu- tional nets") == "efficient convolutional nets"
    assert title_similarity("CBAM: Convolutional block attention module", "Convolutional Block Attention Module") == 100
    assert title_similarity("Residual attention network for image classification",
                            "Residual networks for image classification") < TITLE_THRESHOLD  # fmt: skip
    assert title_similarity("BAM: Bottleneck attention module", "CBAM: Convolutional block attention module") < TITLE_THRESHOLD
    assert title_similarity("", "Anything") == 0


def test_sources_are_sorted(tmp_path: Path) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "b.PDF").write_bytes(b"%PDF-")
    (folder / "a.pdf").write_bytes(b"%PDF-")
    (folder / "notes.txt").write_text("x")
    (tmp_path / "empty").mkdir()
    sources = sort_sources([folder, "1512.03385", "https://arxiv.org/abs/1706.03762v2", "missing-1512.03385.pdf", tmp_path / "empty"])
    assert [p.name for p in sources.pdfs] == ["a.pdf", "b.PDF"]
    assert sources.arxiv_ids == ["1512.03385", "https://arxiv.org/abs/1706.03762v2"]
    assert [n.source for n in sources.notices] == ["missing-1512.03385.pdf", str(tmp_path / "empty")]


def _paper(sha: str, title: str, arxiv_id: str | None = None, pages: int = 1) -> LibraryPaper:
    paper = Paper(sha256=sha, source=f"{sha}.pdf", title=title, arxiv_id=arxiv_id, page_sizes=[(612.0, 792.0)] * pages)
    return LibraryPaper(paper, f"{sha}.pdf")


def test_matching_ignores_the_order_papers_were_added() -> None:
    refs = [Reference(key="[1]", text="", title="Deep residual learning for image recognition", arxiv_id="1512.03385"),
            Reference(key="[2]", text="", title="Attention is all you need")]  # fmt: skip
    papers = [_paper("b" * 64, "Attention Is All You Need"), _paper("a" * 64, "Attention is all you need."),
              _paper("c" * 64, "Some other title", arxiv_id="1512.03385v1")]  # fmt: skip
    forward, backward = match_references(refs, papers), match_references(refs, papers[::-1])
    assert forward == backward
    assert [(a.paper, a.matched_by) for a in forward] == [("c" * 64, "arxiv"), ("b" * 64, "title")]


def test_of_two_copies_with_the_same_title_the_complete_one_holds_the_reference() -> None:
    """A truncated download repaired into its first pages has the full copy's title: the full copy wins."""
    refs = [Reference(key="[44]", text="", title="CBAM: Convolutional block attention module")]
    title = "CBAM: Convolutional Block Attention Module"
    for short, full in (("a", "f"), ("f", "a")):  # whichever hash is larger
        papers = [_paper(short * 64, title), _paper(full * 64, title, pages=17)]
        for order in (papers, papers[::-1]):
            assert [a.paper for a in match_references(refs, order)] == [full * 64]
