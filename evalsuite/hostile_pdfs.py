"""PDFs a hostile visitor sends: small files that are costly to read or to draw.

`huge_image_pdf`: one page of text over a `side` x `side` grey image (40000 x 40000 by default:
1.6 gigapixels in a 1.6 MB file). Decoding it takes seconds of CPU however small the render, which
is what an app must refuse before rendering (`SPIQA_MAX_IMAGE_PIXELS`) or stop (its CPU limit).
The image stream is built from one compressed segment repeated (each ends in a full flush, so
each decodes on its own), so making the file takes about a second instead of compressing 1.6 GB.
`nested_groups_pdf`: a few KB whose one page takes seconds to minutes to draw (`depth`).
"""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import pymupdf
from PIL import Image

_ROWS_PER_SEGMENT = 500


def _white_rows(side: int) -> bytes:
    """A zlib stream of `side` PNG-predicted rows (filter byte 0, then `side` white pixels)."""
    row = b"\x00" + b"\xff" * side
    count, rest = divmod(side, _ROWS_PER_SEGMENT)
    segment_data, tail_data = row * _ROWS_PER_SEGMENT, row * rest
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = raw.compress(segment_data) + raw.flush(zlib.Z_FULL_FLUSH)
    last = zlib.compressobj(9, zlib.DEFLATED, -15)
    tail = last.compress(tail_data) + last.flush(zlib.Z_FINISH)
    checksum = 1
    for _ in range(count):
        checksum = zlib.adler32(segment_data, checksum)
    checksum = zlib.adler32(tail_data, checksum)
    return b"\x78\xda" + segment * count + tail + checksum.to_bytes(4, "big")


def huge_image_pdf(path: Path, side: int = 40_000, title: str = "A page with a huge image") -> Path:
    """A one-page PDF at `path`: `title` as text, and a `side` x `side` image drawn over most of the page."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), title)
    placeholder = io.BytesIO()
    Image.new("L", (4, 4), 255).save(placeholder, "PNG")
    xref = page.insert_image(pymupdf.Rect(50, 100, 550, 700), stream=placeholder.getvalue())
    doc.update_object(xref, f"<< /Type /XObject /Subtype /Image /Width {side} /Height {side} "
                            "/ColorSpace /DeviceGray /BitsPerComponent 8 >>")
    doc.update_stream(xref, _white_rows(side), compress=False)
    doc.xref_set_key(xref, "Filter", "/FlateDecode")
    doc.xref_set_key(xref, "DecodeParms", f"<< /Predictor 15 /Columns {side} /Colors 1 /BitsPerComponent 8 >>")
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path


def nested_groups_pdf(path: Path, source: Path | None = None, depth: int = 5, fan: int = 4, bomb_page: int = 2,
                      title: str = "A page slow to paint") -> Path:
    """A PDF at `path` whose page `bomb_page` paints nested full-page transparency-group forms: each level
    draws the one inside it `fan` times, so the page composites `fan ** depth` full-page groups (a few
    KB; each level more multiplies the drawing time by `fan`). The pages are `source`'s (a paper with
    figures: the bomb goes over its page), else three pages of a line of text each. Reading the text
    is cheap; drawing the page is what an app must bound (a time limit)."""
    doc = pymupdf.open(source) if source is not None else pymupdf.open()
    if source is None:
        for number in range(1, 4):
            doc.new_page().insert_text((72, 72), f"{title}: page {number} of three.")
    width, height = doc[0].rect.width, doc[0].rect.height
    state = doc.get_new_xref()
    doc.update_object(state, "<< /Type /ExtGState /ca 0.6 /CA 0.6 /BM /Multiply >>")
    inner = None
    for level in range(depth + 1):
        form = doc.get_new_xref()
        xobjects = f"/XObject << /F {inner} 0 R >> " if inner is not None else ""
        doc.update_object(form, f"<< /Type /XObject /Subtype /Form /BBox [0 0 {width:g} {height:g}] "
                                f"/Group << /S /Transparency /I true /K true >> "
                                f"/Resources << {xobjects}/ExtGState << /G {state} 0 R >> >> >>")
        body = (f"/G gs {0.2 + 0.1 * (level % 7):.1f} g 0 0 {width:g} {height:g} re f" if inner is None
                else " ".join(["q /G gs /F Do Q"] * fan))
        doc.update_stream(form, body.encode())
        inner = form
    page = doc[bomb_page - 1]
    page.clean_contents()  # one content stream, to append to
    doc.xref_set_key(page.xref, "Resources/XObject/Bomb", f"{inner} 0 R")
    contents = int(doc.xref_get_key(page.xref, "Contents")[1].split()[0])
    doc.update_stream(contents, doc.xref_stream(contents) + b"\nq /Bomb Do Q\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path, garbage=0, deflate=True)
    doc.close()
    return path
