"""arXiv identifiers as SPIQA, PDFs and users write them, reduced to one comparable form."""

from __future__ import annotations

import re

# New-style ids (0704.0001 onwards) and old-style ids (hep-th/9901001), optional version.
_ARXIV = re.compile(r"(?<![\w.])(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?(?![\d])", re.IGNORECASE)


def normalise_arxiv_id(text: str | None) -> str | None:
    """`"arXiv:1611.05742v3"`, `"https://arxiv.org/abs/1611.05742"` -> `"1611.05742"`; None if absent."""
    if not text:
        return None
    match = _ARXIV.search(text.strip())
    return match.group(1) if match else None
