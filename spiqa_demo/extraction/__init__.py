"""PDF -> `Paper`: every figure and table with label, caption, page, boxes, crop, text and mentions,
and the bibliography with the citations of passages, figures and tables linked to it.

Public entry points:
- `extract_paper(pdf, image_dir=None, debug_dir=None)`: extract (crops written to `image_dir`, a
  picture of every stage's boxes on each page to `debug_dir`, when given);
- `extract_to_dir(pdf, out_dir)`: `out_dir/paper.json` + crops with relative paths (the CLI);
- `load_paper(pdf)`: the cached version the app and the other commands use.
Bad input raises `InputError` (a `PaperError`). The stages are run by `pipeline`, one module each;
`cache` keeps the results.
"""

from __future__ import annotations

from spiqa_demo.extraction.cache import load_paper
from spiqa_demo.extraction.pipeline import EXTRACTOR_VERSION, extract_paper, extract_to_dir

__all__ = ["EXTRACTOR_VERSION", "extract_paper", "extract_to_dir", "load_paper"]
