"""Example papers offered in the app: the PDFs of `SPIQA_EXAMPLES_DIR` (the repo ships none).

Visitors pick an example by its display name; the server maps the name back to its own file, so
no path is ever taken from the browser.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from spiqa_demo.errors import PaperError
from spiqa_demo.settings import get_settings

MAX_EXAMPLES = 40


@lru_cache(maxsize=4)
def _examples(folder: Path) -> dict[str, Path]:
    if not folder.is_dir():
        return {}
    titles: dict[str, str] = {}
    manifest = folder / "manifest.json"
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else []
        titles = {e["file"]: e.get("title", "") for e in entries if isinstance(e, dict) and "file" in e}
    except (OSError, ValueError, TypeError):
        titles = {}  # a broken manifest only loses the titles
    found: dict[str, Path] = {}
    for pdf in sorted(folder.glob("*.pdf"))[:MAX_EXAMPLES]:
        title = titles.get(pdf.name, "")
        found[f"{title} ({pdf.name})" if title else pdf.name] = pdf
    return dict(sorted(found.items(), key=lambda kv: kv[0].lower()))


def example_papers() -> dict[str, Path]:
    """Display name -> PDF path, sorted by name; empty when the folder is absent."""
    return _examples(get_settings().examples_dir.resolve())


def example_pdf(name: str) -> Path:
    """The PDF of the example called `name`; `PaperError` for anything that is not one of them."""
    path = example_papers().get(name or "")
    if path is None:
        raise PaperError(f"there is no example paper called {name!r}")
    return path
