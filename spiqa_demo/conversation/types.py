"""The reader's conversation as data: a piece of `Evidence`, a `Turn` (question, how it was read,
answer, evidence) and the `Conversation` that holds one paper's turns.

These are the boundary the UI and the CLI read: `Turn.to_json()` is the CLI's JSON shape.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from spiqa_demo.types import BBox, Figure, Passage

EvidenceKind = Literal["figure", "table", "passage"]


@dataclass(frozen=True)
class Cell:
    """One cell of a table's body an answer states: its row (index in `TableStructure.body`) and
    column, the row's name, the column's heading path and the cell as printed."""

    row: int
    column: int
    row_name: str
    heading: str
    value: str

    def to_dict(self) -> dict[str, Any]:
        return {"row": self.row_name, "column": self.heading, "value": self.value}


@dataclass(frozen=True)
class Evidence:
    """One thing an answer may rest on: a figure or table (its caption as `text`) or a passage.

    `page` is 1-based; `box` in PDF points on that page (the passage's paragraph, the figure's
    region); `label` is "Figure 3" / "Table 2" (empty for passages); `cited` says whether the answer
    cites it; `quotes` are the sentences of a passage the answer quotes (extractive answers) or
    that best match the question; `named` says the question names this figure or table by its
    label ("What does Figure 3 show?"), which ranks it first whatever the scores; `cells` are the
    cells of a table the answer states (extractive lookups), for the app to box on the table.
    """

    kind: EvidenceKind
    page: int
    label: str
    text: str
    score: float
    box: BBox | None
    item: Figure | Passage
    cited: bool = False
    quotes: tuple[str, ...] = ()
    named: bool = False
    cells: tuple[Cell, ...] = ()

    @property
    def key(self) -> str:
        """Stable within a paper: the figure's id ("figure-3"), or "passage-p6-312" for a passage."""
        if isinstance(self.item, Figure):
            return self.item.id
        return f"passage-p{self.page}-{int(self.box[1]) if self.box else 0}"

    @property
    def figure(self) -> Figure | None:
        return self.item if isinstance(self.item, Figure) else None

    @property
    def passage(self) -> Passage | None:
        return self.item if isinstance(self.item, Passage) else None

    def citation(self) -> str:
        """How an answer cites it: "[Figure 3]", "[Table 2]", "[p. 6]"."""
        return f"[{self.label}]" if self.label else f"[p. {self.page}]"

    def to_dict(self) -> dict[str, Any]:
        """The CLI's evidence entry: kind, page, label (figures/tables), text, score, cited (and quotes, cells)."""
        d: dict[str, Any] = {"kind": self.kind, "page": self.page}
        if self.kind != "passage":
            d["label"] = self.label
        d["text"] = self.text
        d["score"] = round(self.score, 4)
        d["cited"] = self.cited
        if self.quotes:
            d["quotes"] = list(self.quotes)
        if self.cells:
            d["cells"] = [c.to_dict() for c in self.cells]
        return d


@dataclass(frozen=True)
class Turn:
    """One question and its answer.

    `read_as` is the standalone question retrieval searched with (the question itself unless it was
    a follow-up); `evidence` is ranked best first; `abstained` means the model said it does not
    know, so no evidence is shown as supporting; `not_found` means the answer says the paper does not
    seem to say what was asked (the best evidence is still shown for the reader to check); `messages` are notes for the reader (history
    dropped, the model failed, ...). `model` is the model's name (None: extractive answer). `stopped`: the
    reader stopped the answer before it was complete (`flow.stopped_turn`).
    """

    question: str
    read_as: str
    answer: str
    evidence: tuple[Evidence, ...] = ()
    messages: tuple[str, ...] = ()
    abstained: bool = False
    not_found: bool = False
    model: str | None = None
    stopped: bool = False

    @property
    def followup(self) -> bool:
        """The question was read as another question (a follow-up completed from the history)."""
        return self.read_as != self.question

    @property
    def cited(self) -> tuple[Evidence, ...]:
        """The evidence the answer cites, best first (none when the model abstained)."""
        return () if self.abstained else tuple(e for e in self.evidence if e.cited)

    @property
    def shown(self) -> tuple[Evidence, ...]:
        """The evidence to show beside the answer: what it cites, else the best figure or table and
        the best passage (an answer that cites nothing still rests on something a reader can check);
        nothing when the model abstained."""
        if self.abstained or self.cited:
            return self.cited
        best_item = next((e for e in self.evidence if e.figure is not None), None)
        best_passage = next((e for e in self.evidence if e.passage is not None), None)
        return tuple(e for e in self.evidence if e is best_item or e is best_passage)

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "read_as": self.read_as,
            "answer": self.answer,
            "evidence": [e.to_dict() for e in self.evidence],
            "messages": list(self.messages),
            "not_found": self.not_found,
        }

    def to_json(self) -> str:
        """The CLI's one-line JSON object for this turn."""
        return json.dumps(self.to_dict(), ensure_ascii=False)


@dataclass
class Conversation:
    """The turns asked about one paper, oldest first; a new paper starts a new conversation."""

    paper_key: str = ""
    turns: list[Turn] = field(default_factory=list)

    def clear(self) -> None:
        """Forget the turns (the paper stays)."""
        self.turns.clear()

    @property
    def last(self) -> Turn | None:
        return self.turns[-1] if self.turns else None

    def append(self, turn: Turn) -> None:
        self.turns.append(turn)
