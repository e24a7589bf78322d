"""Reading the gold of a reader question set: printed labels, quotes and table cells, and whether an
answer says them.

The gold is checked against the PDF's own text layer (PyMuPDF), never against this project's
extraction, so a gold that is not in the PDF is a transcription error of the set, while a gold the
extraction lost is the system's miss.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

_KINDS = {"fig": "figure", "figure": "figure", "table": "table"}
_LABEL = re.compile(r"^\s*(fig(?:ure)?|table)\.?\s*([0-9]+|[ivxlc]+)\b", re.IGNORECASE)
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


def _arabic(number: str) -> str:
    """ "IV" -> "4"; an arabic number is kept as it is."""
    if number.isdigit():
        return number
    values = [_ROMAN[c] for c in number.lower()]
    return str(sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values)))


def printed_label(label: str) -> tuple[str, str]:
    """("figure", "3") for "Fig. 3", "FIG 3", "Figure 3"; ("table", "4") for "TABLE IV" (a gold label
    as printed, read the way `Figure.kind`/`Figure.number` hold it)."""
    match = _LABEL.match(unicodedata.normalize("NFKC", label))
    if match is None:
        raise ValueError(f"not a figure or table label: {label!r}")
    return _KINDS[match.group(1).lower()], _arabic(match.group(2))


def words(text: str) -> str:
    """Only the letters and digits, case folded: how a quote is found in an answer or a page whatever
    the spacing, punctuation, ligatures, soft hyphens and line-end hyphens."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum())


def quotes(answer: str, quote: str) -> bool:
    """The answer holds the gold quote's words in order."""
    return words(quote) in words(answer)


def _compact(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).replace("\u2212", "-").casefold().split())


def states_cell(answer: str, row: str, value: str) -> bool:
    """The answer states the printed value (not as part of a longer number) and names the row."""
    number = re.escape(_compact(value))
    found = re.search(rf"(?<![0-9.]){number}(?![0-9])", _compact(answer)) is not None
    return found and words(row) in words(answer)


@cache
def _pdf_pages(pdf: Path) -> tuple[str, ...]:
    """Each page's text as `words`, also without the lines that are only a number (a preprint's
    printed line numbers, which a quote skips)."""
    import pymupdf

    with pymupdf.open(pdf) as document:
        texts = [page.get_text() for page in document]
    return tuple(words(t) + "|" + words("\n".join(line for line in t.splitlines() if not line.strip().isdigit())) for t in texts)


def in_pdf(pdf: Path, page: int, *texts: str) -> bool:
    """Every one of `texts` is printed on `page` (1-based) of the PDF."""
    pages = _pdf_pages(pdf)
    return 1 <= page <= len(pages) and all(words(text) in pages[page - 1] for text in texts)


def pages_with(pdf: Path, *texts: str) -> list[int]:
    """The pages (1-based) on which every one of `texts` is printed."""
    return [page for page in range(1, len(_pdf_pages(pdf)) + 1) if in_pdf(pdf, page, *texts)]


def gold_errors(row: dict[str, Any], shared: Path) -> list[str]:
    """What of a question's gold is not printed in its PDF (`shared` / row["paper"]): its quote on its
    page, its cell (label, row name and value on one page), its label; empty when all is printed."""
    pdf = shared / row["paper"]
    errors = []
    if "quote" in row and not in_pdf(pdf, row["page"], row["quote"]):
        errors.append(f"quote not on page {row['page']}: {row['quote']!r}")
    if "value" in row and not pages_with(pdf, row["label"], row["row"], row["value"]):
        errors.append(f"cell not printed with its label: {row['label']}, {row['row']!r}, {row['value']!r}")
    if "label" in row:
        try:
            printed_label(row["label"])
        except ValueError as error:
            errors.append(str(error))
        if not pages_with(pdf, row["label"]):
            errors.append(f"label not printed: {row['label']!r}")
    return errors
