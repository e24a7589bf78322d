"""Example papers offered in the app: the PDFs of `SPIQA_EXAMPLES_DIR` (the repo ships none).

Each is listed by the title printed on its first page (read once per process, without extracting
the paper) and its file name, so any folder of PDFs is a list a person can choose from. Visitors
pick an example by that display name; the server maps the name back to its own file, so no path
is ever taken from the browser.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from spiqa_demo.errors import PaperError
from spiqa_demo.extraction.document import read_title
from spiqa_demo.ui.serving.app_settings import app_settings

MAX_EXAMPLES = 40


def _title(pdf: Path) -> str:
    try:
        return read_title(pdf, app_settings().extraction)
    except PaperError:
        return ""  # listed by its file name; loading it says what is wrong with it


@lru_cache(maxsize=4)
def _examples(folder: Path) -> dict[str, Path]:
    if not folder.is_dir():
        return {}
    found: dict[str, Path] = {}
    for pdf in sorted(folder.glob("*.pdf"))[:MAX_EXAMPLES]:
        title = _title(pdf)
        found[f"{title} ({pdf.name})" if title else pdf.name] = pdf
    return dict(sorted(found.items(), key=lambda kv: kv[0].lower()))


def example_papers() -> dict[str, Path]:
    """Display name -> PDF path, sorted by name; empty when the folder is absent."""
    return _examples(app_settings().ui.examples_dir.resolve())


def example_pdf(name: str) -> Path:
    """The PDF of the example called `name`; `PaperError` for anything that is not one of them."""
    path = example_papers().get(name or "")
    if path is None:
        raise PaperError(f"there is no example paper called {name!r}")
    return path
