"""The typed records a `PaperLibrary` reports: its papers, which references are available, notices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from spiqa_demo.types import Paper

MatchedBy = Literal["arxiv", "title"]
NoticeKind = Literal["duplicate", "failed", "no-bibliography"]


@dataclass(frozen=True)
class LibraryPaper:
    """A provided paper: its extraction and where it came from (the path given, or "arXiv:ID")."""

    paper: Paper
    origin: str

    @property
    def key(self) -> str:
        """The paper's key in the library and its indexes (its PDF's sha256)."""
        return self.paper.sha256


@dataclass(frozen=True)
class Availability:
    """One reference of the anchor and the provided paper that holds it (`source` None: not provided).

    `reference` is the index in `anchor.references`; `similarity` is the title similarity (0-100)
    when matched by title, 100 when matched by arXiv id.
    """

    reference: int
    key: str
    title: str
    source: str | None = None
    paper: str | None = None  # the matched paper's key
    matched_by: MatchedBy | None = None
    similarity: float | None = None


@dataclass(frozen=True)
class Notice:
    """Something a user should know about one input: a duplicate kept once, a file that could not
    be read or downloaded, an anchor without a bibliography. `message` is one line for people."""

    source: str
    kind: NoticeKind
    message: str
