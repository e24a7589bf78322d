"""Passages benchmark: what the passage extraction gives on the 62 real papers, printed (never asserted).

    python -m benchmarks.passages     (from the repository root)

(a) passages per paper (`papers/` and `papers/litqa/`);
(b) printed lines per passage on the double-spaced manuscripts (the bioRxiv/medRxiv preprints,
    `10.1101_*`), counted as the page's text lines inside the passage's box: one passage per line
    means a reader is quoted half sentences;
(c) passages that read as reference-list entries: author lists ("Smith, J. A.,", "Smith JA,",
    "J. A. Smith,") with a year, a DOI, or a list number before a surname. A rough reading of the
    text, not the extractor's own rule (`passages.outside_bibliography` compares with the parsed
    bibliography), so that the two can disagree.
The last line is JSON with the headline numbers. Data: `SPIQA_SHARED` (default ../shared).
"""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from pathlib import Path

import pymupdf

from evalsuite.paths import SHARED
from spiqa_demo.extraction import extract_paper
from spiqa_demo.types import Passage

_AUTHOR = re.compile(
    r"\b[A-Z][A-Za-z'\u00C0-\u017F-]+,?\s(?:[A-Z]\.\s?-?){1,3}[,;.]"  # Smith, J. A.,
    r"|\b[A-Z][a-z'\u00C0-\u017F-]+\s[A-Z]{1,3}[,.]"  # Smith JA,
    r"|\b(?:[A-Z]\.\s?){1,3}\s?[A-Z][a-z'-]+,"  # J. A. Smith,
)
_YEAR = re.compile(r"\(?(?:19|20)\d\d[a-z]?\)?[.;,):]")
_DOI = re.compile(r"doi\.org|doi:|\bdoi\b", re.IGNORECASE)
_NUMBERED = re.compile(r"^\[?\d{1,3}[\].]?\s+[A-Z][A-Za-z'-]+,? [A-Z]")
# Prose: more than this share of its words open in lower case (titles in sentence case do too, so
# author lists with a year count only below it).
_PROSE_LOWER = 0.5
# Text lines whose middles are this close (pt) are one printed line; a line belongs to a passage
# when its middle lies inside the passage's box grown by this much (pt).
_SAME_LINE = 2
_BOX_SLACK = 1
_LINE_BINS = ("1", "2", "3-4", "5+")


def looks_like_reference(text: str) -> bool:
    """The passage reads as one or more reference-list entries."""
    authors = len(_AUTHOR.findall(text))
    year = _YEAR.search(text) is not None
    words = [w for w in text.split() if w[:1].isalpha()]
    lower = sum(w[0].islower() for w in words) / max(1, len(words))
    numbered = _NUMBERED.match(text) is not None
    if _DOI.search(text) and (authors or numbered):
        return True
    return (numbered and (authors >= 2 or (authors >= 1 and year))) or (authors >= 2 and year and lower <= _PROSE_LOWER)


def _printed_lines(pdf: Path, passages: list[Passage]) -> list[int]:
    """How many printed text lines each passage's box holds."""
    out = []
    with pymupdf.open(pdf) as doc:
        middles: dict[int, list[tuple[float, float]]] = {}
        for passage in passages:
            if passage.page not in middles:
                data = doc[passage.page - 1].get_text("dict")
                middles[passage.page] = [
                    ((ln["bbox"][0] + ln["bbox"][2]) / 2, (ln["bbox"][1] + ln["bbox"][3]) / 2)
                    for block in data["blocks"] if block.get("type") == 0
                    for ln in block["lines"] if "".join(s["text"] for s in ln["spans"]).strip()
                ]  # fmt: skip
            x0, y0, x1, y1 = passage.bbox
            ys = sorted(
                {round(y) for x, y in middles[passage.page] if x0 - _BOX_SLACK <= x <= x1 + _BOX_SLACK and y0 - _BOX_SLACK <= y <= y1 + _BOX_SLACK}
            )
            out.append(sum(1 for i, y in enumerate(ys) if i == 0 or y - ys[i - 1] > _SAME_LINE))
    return out


def _bin(lines: int) -> str:
    return "1" if lines <= 1 else "2" if lines == 2 else "3-4" if lines <= 4 else "5+"


def main() -> int:
    root = SHARED / "papers"
    pdfs = sorted(root.glob("*.pdf")) + sorted((root / "litqa").glob("*.pdf"))
    total = references = 0
    bins: Counter[str] = Counter()
    preprint_passages = 0
    print("== (a) passages per paper, (c) reading as references ==")
    for pdf in pdfs:
        passages = extract_paper(pdf).passages
        refs = [p for p in passages if looks_like_reference(p.text)]
        total += len(passages)
        references += len(refs)
        line = f"  {pdf.name[:48]:48s} {len(passages):5d} passages  {len(refs):3d} read as references"
        if pdf.name.startswith("10.1101_"):
            counts = _printed_lines(pdf, passages)
            bins.update(_bin(n) for n in counts)
            preprint_passages += len(counts)
            line += f"  lines per passage: median {statistics.median(counts) if counts else 0:g}, one line {sum(n == 1 for n in counts)}"
        print(line)
    print(f"all: {len(pdfs)} papers, {total} passages, {references} read as references")
    print("== (b) printed lines per passage, double-spaced preprints ==")
    shares = {b: round(bins[b] / max(1, preprint_passages), 3) for b in _LINE_BINS}
    print(f"  {preprint_passages} passages; " + ", ".join(f"{b} line(s): {bins[b]} ({shares[b]:.0%})" for b in _LINE_BINS))
    print(json.dumps({"papers": len(pdfs), "passages": total, "read_as_references": references, "preprint_passages": preprint_passages, "preprint_lines": shares}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
