"""Hostile and broken PDFs: about a hundred mutated real papers through extraction and search.

Every case must end in a `Paper` or the library's one-line `InputError`: no other exception, no
run past the extraction time limit, no peak-RSS growth past the bound. A page MuPDF cannot read
(graphics states nested thousands deep) is skipped with a warning while the rest is readable.
The mutations are seeded and made from 2-page excerpts, to keep the run short;
`python -m benchmarks.fuzz_pdfs` runs more of them over every shared paper.
"""

from __future__ import annotations

import random
import shutil
from collections import Counter
from pathlib import Path

import pymupdf
import pytest
from retrieval_fixtures import embedder  # the session's MiniLM fixture

from evalsuite.pdf_mutations import KINDS, mutations, run_case, small_pdf
from retrieval import Embedder
from retrieval.embedder import MemoEmbedder
from spiqa_demo.errors import InputError
from spiqa_demo.extraction import extract_paper
from spiqa_demo.settings import ExtractionSettings, Settings, get_settings

# A paper with a figure and a table on its second and third pages, and one with tables.
EXCERPTS = [("ecapa-tdnn-interspeech2020-2005.07143.pdf", 1), ("looking-beyond-text-pdffigures-aaai2015ws.pdf", 2)]
CASES_PER_EXCERPT = 48  # 6 of each kind: the benchmark runs many more
SEED = 14
QUESTION = "Which model has the lowest error?"
TIMEOUT_S = 30.0
HANG_S = 30.0  # past the time limit: one MuPDF call is not interrupted mid-page
MEMORY_MB = 1024.0  # the crop bound and a decoded bomb fit many times over
# Smaller than the benchmark's, for a short run: still a thousand times their compressed size.
BOMB_BYTES = 16_000_000


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> ExtractionSettings:
    # Small crops (a huge page's crop is rendered up to the pixel bound) keep the run short.
    return get_settings().extraction.with_overrides(cache_dir=tmp_path_factory.mktemp("fuzz-cache"), dpi=50, max_crop_pixels=4_000_000,
                                         extraction_timeout_s=TIMEOUT_S)


def _nested(base: bytes, pages: list[int], depth: int = 5_000) -> bytes:
    with pymupdf.open("pdf", base) as doc:
        for number in pages:
            xref = doc[number].get_contents()[0]
            doc.update_stream(xref, b"q " * depth + doc.xref_stream(xref) + b" Q" * depth)
        return doc.tobytes()


def test_a_page_nested_too_deep_is_skipped_with_a_warning(shared: Path, tmp_path: Path, settings: ExtractionSettings) -> None:
    base = small_pdf(shared / "papers" / EXCERPTS[0][0], EXCERPTS[0][1])
    path = tmp_path / "nested.pdf"
    path.write_bytes(_nested(base, [0]))
    paper = extract_paper(path, image_dir=tmp_path / "crops", settings=settings)
    assert paper.page_count == 2 and all(f.page == 2 for f in paper.items)
    assert any("Page 1 could not be read (too many nested graphics states)" in w for w in paper.warnings), paper.warnings
    assert not any("text layer" in w for w in paper.warnings), "a skipped page is not a page without text"


def test_a_paper_with_no_readable_page_is_one_input_error(shared: Path, tmp_path: Path, settings: ExtractionSettings) -> None:
    base = small_pdf(shared / "papers" / EXCERPTS[0][0], EXCERPTS[0][1])
    path = tmp_path / "nested.pdf"
    path.write_bytes(_nested(base, [0, 1]))
    with pytest.raises(InputError) as caught:
        extract_paper(path, settings=settings)
    message = str(caught.value)
    assert "nested.pdf" in message and "no page" in message and "\n" not in message


def test_mutated_papers_end_in_a_paper_or_the_documented_error(
    shared: Path, tmp_path: Path, settings: ExtractionSettings, embedder: Embedder
) -> None:
    memo = MemoEmbedder(embedder)
    rng = random.Random(SEED)
    results = []
    for name, first_page in EXCERPTS:
        base = small_pdf(shared / "papers" / name, first_page)
        for n, (kind, data) in enumerate(mutations(base, rng, CASES_PER_EXCERPT, BOMB_BYTES)):
            path = tmp_path / f"{Path(name).stem}-{n}-{kind}.pdf"
            path.write_bytes(data)
            # A cache per case: each commit walks its cache to evict, which would grow with the run.
            own = settings.with_overrides(cache_dir=tmp_path / "cache" / f"{path.stem}")
            results.append(run_case(kind, path, Settings(extraction=own), memo, QUESTION, HANG_S, MEMORY_MB))
            shutil.rmtree(own.cache_dir, ignore_errors=True)
    assert len(results) == len(EXCERPTS) * CASES_PER_EXCERPT and {r.kind for r in results} == set(KINDS)
    failures = [f"{r.kind}: {r.outcome} {r.detail[:200]}" for r in results if r.outcome not in ("paper", "input_error")]
    assert not failures, f"{len(failures)} of {len(results)} cases failed:\n" + "\n".join(failures)
    outcomes = Counter(r.outcome for r in results)
    assert outcomes["paper"] and outcomes["input_error"], outcomes  # both ends are exercised
