"""Mutated versions of real papers, and the check each must pass through extraction and search.

`mutations(base, rng, n)` yields `n` (kind, bytes) cases from the bytes of a small real PDF: random
truncations, byte flips, dropped objects, graphics states nested thousands deep, huge media boxes,
decompression bombs (a content stream and an image), and deeply nested arrays. `run_case` opens one
as the commands do (`open_paper`: extraction and index), searches it and says how it ended: a
`Paper`, the library's `InputError`, or a failure (any other exception, past the time limit, past the memory bound).
The fuzz test and `benchmarks.fuzz_pdfs` share both.
"""

from __future__ import annotations

import random
import re
import resource
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pymupdf

from retrieval import Embedder
from spiqa_demo.errors import InputError
from spiqa_demo.settings import Settings

KINDS = ("truncate", "flip", "drop_object", "nested_q", "huge_mediabox", "content_bomb", "image_bomb", "nested_arrays")
OUTCOMES = ("paper", "input_error", "crash", "hang", "memory")
BOMB_BYTES = 64_000_000  # decompressed size of a bomb by default: a thousand times its compressed size


def small_pdf(source: Path, first_page: int, pages: int = 2) -> bytes:
    """`pages` pages of `source` from `first_page` (0-based) as a PDF of their own, streams compressed."""
    with pymupdf.open(source) as src, pymupdf.open() as out:
        out.insert_pdf(src, from_page=first_page, to_page=min(first_page + pages, src.page_count) - 1)
        return out.tobytes(garbage=3, deflate=True)


def mutations(base: bytes, rng: random.Random, n: int, bomb_bytes: int = BOMB_BYTES) -> Iterator[tuple[str, bytes]]:
    """`n` mutated copies of `base`, the kinds taken in turn, each with its own random choices;
    bombs decompress to `bomb_bytes`."""
    for i in range(n):
        kind = KINDS[i % len(KINDS)]
        if kind in ("content_bomb", "image_bomb"):
            yield kind, _MUTATORS[kind](base, rng, bomb_bytes)
        else:
            yield kind, _MUTATORS[kind](base, rng)


def _truncate(base: bytes, rng: random.Random) -> bytes:
    return base[: rng.randrange(1, len(base))]


def _flip(base: bytes, rng: random.Random) -> bytes:
    data = bytearray(base)
    for _ in range(rng.choice((1, 4, 32, 256))):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


_OBJECT = re.compile(rb"\n\d+ 0 obj\b.*?endobj", re.DOTALL)


def _drop_object(base: bytes, rng: random.Random) -> bytes:
    """An object removed: blanked in place (offsets stay right) or cut out (the xref points astray)."""
    spans = [m.span() for m in _OBJECT.finditer(base)]
    start, end = rng.choice(spans)
    filler = b" " * (end - start) if rng.random() < 0.5 else b""
    return base[:start] + filler + base[end:]


def _edit(base: bytes, change: Callable[[pymupdf.Document, pymupdf.Page], None]) -> bytes:
    with pymupdf.open("pdf", base) as doc:
        change(doc, doc[0])
        return doc.tobytes()


def _nested_q(base: bytes, rng: random.Random) -> bytes:
    depth = rng.choice((300, 5_000, 50_000))
    closed = rng.random() < 0.5

    def change(doc: pymupdf.Document, page: pymupdf.Page) -> None:
        xref = page.get_contents()[0]
        doc.update_stream(xref, b"q " * depth + doc.xref_stream(xref) + (b" Q" * depth if closed else b""))

    return _edit(base, change)


def _huge_mediabox(base: bytes, rng: random.Random) -> bytes:
    box = rng.choice(("[0 0 14400 14400]", "[0 0 1e9 1e9]", "[-1e30 -1e30 1e30 1e30]", "[0 0 0 0]", "[0 0 200000 3]"))
    unit = rng.choice(("", "75"))

    def change(doc: pymupdf.Document, page: pymupdf.Page) -> None:
        doc.xref_set_key(page.xref, "MediaBox", box)
        doc.xref_set_key(page.xref, "CropBox", "null")
        if unit:
            doc.xref_set_key(page.xref, "UserUnit", unit)

    return _edit(base, change)


@lru_cache(maxsize=2)
def _deflated(size: int, pattern: bytes) -> bytes:
    packer = zlib.compressobj(1)
    chunk = pattern * (1_000_000 // len(pattern))
    return b"".join(packer.compress(chunk) for _ in range(size // len(chunk))) + packer.flush()


def _add_stream(doc: pymupdf.Document, header: str, deflated: bytes) -> int:
    """A new stream object holding `deflated` as it is, marked FlateDecode."""
    xref = doc.get_new_xref()
    doc.update_object(xref, header)
    doc.update_stream(xref, deflated, compress=False)
    doc.xref_set_key(xref, "Filter", "/FlateDecode")
    return xref


def _content_bomb(base: bytes, rng: random.Random, size: int) -> bytes:
    """A content stream of `size` bytes of blanks or comments, stored in a thousandth of that."""
    pattern = rng.choice((b" ", b"%" + b"x" * 78 + b"\n"))

    def change(doc: pymupdf.Document, page: pymupdf.Page) -> None:
        bomb = _add_stream(doc, "<<>>", _deflated(size, pattern))
        doc.xref_set_key(page.xref, "Contents", f"[{bomb} 0 R {' '.join(f'{x} 0 R' for x in page.get_contents())}]")

    return _edit(base, change)


def _image_bomb(base: bytes, rng: random.Random, size: int) -> bytes:
    """A page drawing an RGB image of `size` bytes, stored in a thousandth of that."""
    side = int((size / 3) ** 0.5)
    x0 = rng.uniform(50, 300)

    def change(doc: pymupdf.Document, page: pymupdf.Page) -> None:
        extra = doc.new_page()
        image = _add_stream(doc, f"<< /Type /XObject /Subtype /Image /Width {side} /Height {side} /ColorSpace /DeviceRGB "
                                 "/BitsPerComponent 8 >>", _deflated(side * side * 3, b"\0"))
        contents = doc.get_new_xref()
        doc.update_object(contents, "<<>>")
        doc.update_stream(contents, f"q 250 0 0 200 {x0:.1f} 300 cm /Bomb Do Q BT /F1 9 Tf 72 280 Td (Figure 1: A bomb.) Tj ET".encode())
        doc.xref_set_key(extra.xref, "Resources", f"<< /XObject << /Bomb {image} 0 R >> /Font << /F1 << /Type /Font "
                                                  "/Subtype /Type1 /BaseFont /Helvetica >> >> >>")
        doc.xref_set_key(extra.xref, "Contents", f"{contents} 0 R")

    return _edit(base, change)


def _nested_arrays(base: bytes, rng: random.Random) -> bytes:
    """A page's annotation list nested thousands of arrays deep (written as bytes: MuPDF refuses
    to build it; the shifted offsets make it repair the file)."""
    depth = rng.choice((1_000, 20_000))
    page = re.search(rb"/Type\s*/Page\b(?!s)", base)
    assert page is not None, "no page object in the base PDF"
    nested = b" /Annots " + b"[" * depth + b"]" * depth
    return base[: page.end()] + nested + base[page.end() :]


_MUTATORS: dict[str, Callable[..., bytes]] = {
    "truncate": _truncate, "flip": _flip, "drop_object": _drop_object, "nested_q": _nested_q,
    "huge_mediabox": _huge_mediabox, "content_bomb": _content_bomb, "image_bomb": _image_bomb,
    "nested_arrays": _nested_arrays,
}


@dataclass(frozen=True)
class CaseResult:
    kind: str
    outcome: str  # one of OUTCOMES
    seconds: float
    rss_growth_mb: float  # growth of the process's peak RSS during the case
    detail: str = ""


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def run_case(
    kind: str, path: Path, settings: Settings, embedder: Embedder, question: str, hang_s: float, memory_mb: float
) -> CaseResult:
    """Open `path` (`open_paper`: checked, extracted, indexed) and search it as the `search` command
    does; classify the end.

    `embedder`: a `MemoEmbedder` keeps the many identical texts of mutated copies from being re-encoded.

    A hang is a case still running `hang_s` after its extraction time limit; the memory bound is on
    the growth of the peak RSS, which only a case that needs more than any before it can move.
    """
    from retrieval.store import IndexStore
    from spiqa_demo.library import open_paper

    before, started = peak_rss_mb(), time.monotonic()
    outcome, detail = "paper", ""
    try:
        open_paper(path, settings, store=IndexStore(embedder)).index.search(question, 3)
    except InputError as exc:
        outcome, detail = "input_error", str(exc)
        if "\n" in detail:
            outcome = "crash"  # the documented error is one line
    except Exception as exc:  # anything else is what the fuzz run looks for
        outcome, detail = "crash", f"{type(exc).__name__}: {exc}"
    seconds = time.monotonic() - started
    growth = peak_rss_mb() - before
    if seconds > settings.extraction.extraction_timeout_s + hang_s:
        outcome, detail = "hang", f"{seconds:.1f} s"
    elif growth > memory_mb:
        outcome, detail = "memory", f"+{growth:.0f} MB"
    return CaseResult(kind, outcome, seconds, growth, detail)
