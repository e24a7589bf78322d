"""The typed boundary of ingestion: a `Paper` with its passages, figures, tables and references.

Everything downstream (retrieval, QA, metrics, UI) consumes these dataclasses only. They round-trip
through JSON (`Paper.to_json` / `Paper.from_json`), which is also the on-disk cache format and the
`extract` command's output. Coordinates are PDF points, origin top-left, `[x0, y0, x1, y1]`.
`RetrievalScores` lives here too: retrieval produces it and QA and the UI carry it, and both may
import this module.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from spiqa_demo.paper_text import Kind

BBox = tuple[float, float, float, float]
Progress = Callable[[float, str], None]  # (fraction done, a message for people): extraction reports, the UI shows

SCHEMA_VERSION = 3


def round_bbox(value: Sequence[float]) -> BBox:
    """A box in points rounded to 0.01 pt: finer than any rendering, and stored papers stay small."""
    x0, y0, x1, y1 = (round(float(v), 2) for v in value)
    return (x0, y0, x1, y1)


def _bbox(value: Any) -> BBox | None:
    return None if value is None else round_bbox(value)


def _citations(d: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(i) for i in d.get("citations", ()))


@dataclass(frozen=True)
class Reference:
    """One entry of the paper's bibliography.

    `key` is how the paper cites it: the printed label ("[12]", "12.", "[DCLT19]"), or for
    author-year bibliographies, which print no label, the citation formed from the authors and the
    printed year ("Devlin et al., 2019", "Liu et al., 2019a"). `text` is the whole entry as printed
    (without its label); the other fields are parsed from it and empty when not recognised.
    """

    key: str
    text: str
    title: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str = ""
    arxiv_id: str | None = None
    doi: str | None = None
    url: str | None = None
    page: int = 0

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Reference:
        return cls(
            key=d["key"],
            text=d.get("text", ""),
            title=d.get("title", ""),
            authors=tuple(d.get("authors", ())),
            year=None if d.get("year") is None else int(d["year"]),
            venue=d.get("venue", ""),
            arxiv_id=d.get("arxiv_id"),
            doi=d.get("doi"),
            url=d.get("url"),
            page=int(d.get("page", 0)),
        )


@dataclass
class Passage:
    """A paragraph of body text in reading order (two-column aware); `citations` are the indices in
    `Paper.references` of the references it cites, in order of first citation."""

    text: str
    page: int
    bbox: BBox
    citations: tuple[int, ...] = ()

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Passage:
        return cls(text=d["text"], page=int(d["page"]), bbox=round_bbox(d["bbox"]), citations=_citations(d))


@dataclass
class Mention:
    """A sentence of the body text that cites a figure/table, with the passage it comes from and
    the references the sentence itself cites (indices in `Paper.references`)."""

    passage: int
    sentence: str
    citations: tuple[int, ...] = ()

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Mention:
        return cls(passage=int(d["passage"]), sentence=d["sentence"], citations=_citations(d))


def _markdown_row(cells: Sequence[str], width: int) -> str:
    padded = [c.replace("|", "\\|") for c in cells] + [""] * (width - len(cells))
    return "| " + " | ".join(padded) + " |"


@dataclass(frozen=True)
class TableStructure:
    """A table's cells as printed: `header` rows (column headings; a spanning row such as the
    datasets above a sub-header row of metrics), then `body` rows, each starting with its row name
    (a method, a setting). Empty cells are "" (a heading spanning several columns is written once).
    `boxes` are where the cells of the header rows then the body rows are printed (PDF points; None
    for an empty cell), so an answer that states a cell can show it on the page; none for a table
    read from an image."""

    header: tuple[tuple[str, ...], ...] = ()
    body: tuple[tuple[str, ...], ...] = ()
    boxes: tuple[tuple[BBox | None, ...], ...] = ()

    @property
    def width(self) -> int:
        return max((len(r) for r in (*self.header, *self.body)), default=0)

    def body_cell_box(self, row: int, column: int) -> BBox | None:
        """Where body cell (`row`, `column`) is printed, when known."""
        at = len(self.header) + row
        return self.boxes[at][column] if at < len(self.boxes) and column < len(self.boxes[at]) else None

    @property
    def row_names(self) -> tuple[str, ...]:
        """The first cell of every body row that has one."""
        return tuple(r[0] for r in self.body if r and r[0])

    def column_headings(self) -> tuple[str, ...]:
        """Per column, its heading path top-down ("Yelp2018 ndcg@20"): above the last header row,
        an empty cell lies under a spanning heading and takes the nearest heading to its left."""
        paths: list[list[str]] = [[] for _ in range(self.width)]
        for i, row in enumerate(self.header):
            spanning = ""
            for j in range(self.width):
                cell = row[j] if j < len(row) else ""
                spanning = cell or (spanning if i < len(self.header) - 1 else "")
                if spanning:
                    paths[j].append(spanning)
        return tuple(" ".join(p) for p in paths)

    def to_markdown(self) -> str:
        """A Markdown table: the header rows, the separator, then the body (a header row of empty
        cells when none was recognised, as Markdown needs one)."""
        width = self.width
        if not width:
            return ""
        header = self.header or (("",) * width,)
        lines = [_markdown_row(r, width) for r in header]
        lines.append("|" + "---|" * width)
        lines += [_markdown_row(r, width) for r in self.body]
        return "\n".join(lines)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TableStructure:
        return cls(
            header=tuple(tuple(str(c) for c in r) for r in d.get("header", ())),
            body=tuple(tuple(str(c) for c in r) for r in d.get("body", ())),
            boxes=tuple(tuple(_bbox(b) for b in r) for r in d.get("boxes", ())),
        )


@dataclass
class Figure:
    """A figure or a table (`kind`), as printed in the paper.

    `label` keeps the printed form ("Fig. 3", "TABLE IV"); `number` is normalised ("3", "4", "A1");
    unlabelled figures (no caption found) have `label == number == ""`. `bbox` is the graphic or
    table body without its caption; `image` is the PNG crop's path (relative to the `Paper`'s folder
    when saved by `extract`); `text` is the words inside the region (a Markdown table for tables);
    `table` is a table's structure (header rows, row names, cells) when its words were read.
    `citations` are the references cited in the caption or inside the region (a table row
    "BERT [12]"), as indices in `Paper.references`; the mentions carry their own. `part` names the
    part bound after the paper that numbers from 1 again ("supplement", "appendix"; "" in the paper
    itself): such an item's number has the part's prefix ("S3") and its label names the part
    ("Table 3 (supplement)"), so the paper's Table 3 and the supplement's are two items.
    """

    kind: Kind
    label: str
    number: str
    page: int
    bbox: BBox
    caption: str = ""
    caption_bbox: BBox | None = None
    image: str = ""
    text: str = ""
    mentions: list[Mention] = field(default_factory=list)
    citations: tuple[int, ...] = ()
    part: str = ""
    table: TableStructure | None = None

    @property
    def id(self) -> str:
        """Stable key within a paper: "figure-3", "table-2", or "figure-p4-1" when unlabelled."""
        if self.number:
            return f"{self.kind}-{self.number}"
        return f"{self.kind}-p{self.page}-{int(self.bbox[1])}"

    @property
    def title(self) -> str:
        """A display name: the printed label, or "Unlabelled figure (page N)"."""
        return self.label or f"Unlabelled {self.kind} (page {self.page})"

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Figure:
        return cls(
            kind=d["kind"],
            label=d.get("label", ""),
            number=str(d.get("number", "")),
            page=int(d["page"]),
            bbox=round_bbox(d["bbox"]),
            caption=d.get("caption", ""),
            caption_bbox=_bbox(d.get("caption_bbox")),
            image=d.get("image", ""),
            text=d.get("text", ""),
            mentions=[Mention.from_dict(m) for m in d.get("mentions", [])],
            citations=_citations(d),
            part=d.get("part", ""),
            table=TableStructure.from_dict(d["table"]) if d.get("table") else None,
        )


@dataclass(frozen=True)
class RetrievalScores:
    """The signals behind an item's retrieval rank.

    `dense` is the cosine similarity (-1..1), `bm25` the raw BM25 score, `label` whether the
    question names this item ("Table 3"), `prior` the kind prior added from the question's wording,
    `table` how much of the question the item's table structure holds (headings, row names, cells).
    """

    dense: float
    bm25: float
    label: bool
    prior: float = 0.0
    table: float = 0.0

    def to_dict(self) -> dict[str, float]:
        """JSON numbers; `label` as 1.0/0.0, the shape `ask --json` has always printed."""
        return {"dense": self.dense, "bm25": self.bm25, "label": float(self.label), "prior": self.prior, "table": self.table}


@dataclass
class Paper:
    """One ingested PDF: metadata, passages, `items` (all figures and tables in page order) and
    `references` (the bibliography in printed order; empty when none was found)."""

    sha256: str
    source: str
    title: str
    arxiv_id: str | None
    page_sizes: list[tuple[float, float]]
    passages: list[Passage] = field(default_factory=list)
    items: list[Figure] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    extractor_version: str = ""
    dpi: int = 200
    schema_version: int = SCHEMA_VERSION

    @property
    def page_count(self) -> int:
        return len(self.page_sizes)

    @property
    def figures(self) -> list[Figure]:
        return [f for f in self.items if f.kind == "figure"]

    @property
    def tables(self) -> list[Figure]:
        return [f for f in self.items if f.kind == "table"]

    def get(self, item_id: str) -> Figure | None:
        """The item with this `Figure.id`, or None."""
        return next((f for f in self.items if f.id == item_id), None)

    def cited_by(self, item: Figure) -> list[Reference]:
        """The references `item` cites in its caption and region, then in the sentences that mention it."""
        indices = dict.fromkeys([*item.citations, *(i for m in item.mentions for i in m.citations)])
        return [self.references[i] for i in indices if 0 <= i < len(self.references)]

    def summary(self) -> str:
        """One line for people: "12 pages, 7 figures, 5 tables" ("no tables", not "0 tables")."""
        def count(n: int, word: str) -> str:
            return f"{n} {word}" if n == 1 else f"{n or 'no'} {word}s"

        return ", ".join(
            (count(self.page_count, "page"), count(len(self.figures), "figure"), count(len(self.tables), "table"))
        )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["page_count"] = self.page_count
        return d

    def to_json(self, indent: int | None = 1) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Paper:
        return cls(
            sha256=d["sha256"],
            source=d.get("source", ""),
            title=d.get("title", ""),
            arxiv_id=d.get("arxiv_id"),
            page_sizes=[(float(w), float(h)) for w, h in d["page_sizes"]],
            passages=[Passage.from_dict(p) for p in d.get("passages", [])],
            items=[Figure.from_dict(f) for f in d.get("items", [])],
            references=[Reference.from_dict(r) for r in d.get("references", [])],
            warnings=list(d.get("warnings", [])),
            extractor_version=d.get("extractor_version", ""),
            dpi=int(d.get("dpi", 200)),
            schema_version=int(d.get("schema_version", SCHEMA_VERSION)),
        )

    @classmethod
    def from_json(cls, text: str) -> Paper:
        return cls.from_dict(json.loads(text))

    def with_image_root(self, root: Path) -> Paper:
        """A copy whose relative `image` paths are made absolute under `root`."""
        data = self.to_dict()
        for item in data["items"]:
            if item["image"] and not Path(item["image"]).is_absolute():
                item["image"] = str(root / item["image"])
        return Paper.from_dict(data)
