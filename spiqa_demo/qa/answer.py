"""The typed result of asking a question: `Answer`, with the figures the model saw as `Candidate`s.

An `Answer` is always returned, even when no model could answer (none configured, server down,
garbage reply): then `answered` is False, `messages` say why in words, and `figure` is still the
best retrieved figure, so the user sees the evidence. It round-trips to JSON (`to_dict`), which is
what the CLI's `--json` prints and what batch evaluation stores.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from spiqa_demo.types import Figure, RetrievalScores

# "caption-only" and "image-only" are SPIQA's direct-QA ablations (its Table 4).
Task = Literal["cot", "direct", "full", "caption-only", "image-only"]
TASKS: tuple[Task, ...] = ("cot", "direct", "full", "caption-only", "image-only")
# Who picked `Answer.figure`: the model ("Image i"), retrieval (no usable pick), or nobody.
FigureSource = Literal["model", "retrieval", "none"]


@dataclass
class Candidate:
    """A figure or table in the prompt, as "Image {index}", with its retrieval scores.

    `score` orders the candidates (the fused retrieval score); `scores` are retrieval's signals
    (None when the candidates come from elsewhere, e.g. SPIQA's protocol); `helpful` is the model's
    P(Yes) for this figure under the one-image-per-turn protocol (None: not judged).
    """

    figure: Figure
    score: float
    scores: RetrievalScores | None = None
    helpful: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON: the signals and the helpfulness together under "scores", as `ask --json` prints them."""
        scores: dict[str, float] = self.scores.to_dict() if self.scores else {}
        if self.helpful is not None:
            scores["helpful"] = self.helpful
        return {"id": self.figure.id, "title": self.figure.title, "page": self.figure.page,
                "image": self.figure.image, "score": self.score, "scores": scores}


@dataclass
class Answer:
    """One question's outcome: the answer, the figure that supports it, and how it was reached."""

    question: str
    task: Task
    model: str | None  # None: no model answered (retrieval only)
    answer: str = ""
    figure: Figure | None = None
    figure_source: FigureSource = "none"
    chosen_index: int | None = None  # the "Image i" the model picked, as written (may be out of range)
    rationale: str = ""
    candidates: list[Candidate] = field(default_factory=list)
    raw_response: str = ""
    parse: str = ""  # how the reply was read: dict | field | mention | declined | failed | direct
    answered: bool = False
    messages: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # seconds: retrieval, model, total
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    prompt_version: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["figure"] = None if self.figure is None else {**asdict(self.figure), "id": self.figure.id,
                                                            "title": self.figure.title}
        data["candidates"] = [c.to_dict() for c in self.candidates]
        return data

    def to_json(self, indent: int | None = 1) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)
