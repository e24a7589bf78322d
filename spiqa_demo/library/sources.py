"""What the user gave as cited papers, sorted into PDF files and arXiv ids.

An argument that exists on disk is a PDF (or a folder of PDFs, not searched recursively); one that
does not is an arXiv id or link when it reads as one ("1512.03385", "arXiv:1512.03385v2",
"https://arxiv.org/abs/1512.03385"), else a one-line notice. A missing "x.pdf" is never taken for
an arXiv id, even when its name holds one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from spiqa_demo.library.records import Notice
from spiqa_demo.paper_text import find_arxiv_id


@dataclass
class Sources:
    """PDF paths and arXiv ids to add, and notices about arguments that are neither."""

    pdfs: list[Path] = field(default_factory=list)
    arxiv_ids: list[str] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)


def pdfs_in(folder: Path) -> list[Path]:
    """The PDF files directly inside `folder`, by name."""
    return sorted((p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".pdf"), key=lambda p: p.name)


def sort_sources(arguments: Sequence[str | Path]) -> Sources:
    """Folders expanded to their PDFs; arXiv ids kept as given (see the module docstring)."""
    sources = Sources()
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            found = pdfs_in(path)
            sources.pdfs += found
            if not found:
                sources.notices.append(Notice(str(path), "failed", f"{path}: the folder has no PDF files"))
        elif path.is_file():
            sources.pdfs.append(path)
        elif find_arxiv_id(str(argument), whole=True):
            sources.arxiv_ids.append(str(argument).strip())
        else:
            sources.notices.append(Notice(str(argument), "failed", f"{argument}: no such file or folder, and not an arXiv id"))
    return sources
