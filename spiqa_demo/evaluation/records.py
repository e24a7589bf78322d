"""One typed record per answered question: what batch evaluation writes and error analysis reads.

A `ResultRecord` holds the question, its ground truth (answer, reference figures, the reference
figure's SPIQA Table 6 category), the model's answer, the figure it chose, its raw reply, timings
and per-question metric values. Our `results.jsonl` stores one record per line (`to_dict`);
official SPIQA response files are read into the same records (`spiqa_demo.evaluation.official`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

from spiqa_demo.evaluation.metrics.l3score import L3Result

if TYPE_CHECKING:
    from spiqa_demo.qa import Answer


@dataclass
class FigureAnswer:
    """One figure's verdict and answer, in the one-image-per-turn protocol of SPIQA's open models."""

    figure: str
    helpful: str  # the model's "is this figure helpful" reply, as written
    answer: str

    @property
    def is_helpful(self) -> bool:
        """SPIQA's rule: any reply containing "no" (case-insensitive) means not helpful."""
        return "no" not in self.helpful.lower()


@dataclass
class ResultRecord:
    """One question's outcome.

    `answer` is the text the metrics score. `chosen_figure` is None when the task picks no figure
    or the choice could not be read (`parse` says how it was read). `metrics` holds per-question
    values: `L3Score` (0-1), `L3Score-exact` (local judges), `retrieval_hit` (1.0/0.0),
    `judge` (M3SciQA's graded judge: 1, 0.5 or 0), `abstained` (1.0: the answer is "I don't know"). `l3`
    keeps each judge verdict (`L3Result.to_dict`, with the judge's model name). `messages` are the
    QA flow's notes for people; `notes` say why a check left a value out (`evaluation.check`);
    `error` says why a question got no answer at all (or, for a judged benchmark, why its verdict
    is missing). `details` holds what a benchmark other than SPIQA adds (M3SciQA's reasoning types,
    the cited papers the answer was given, the judge's verdict as `evaluation.m3sciqa.judge.StoredVerdict`); readers that do not know it ignore it.
    """

    paper_id: str
    question_key: str
    question: str
    ground_truth: str
    answer: str
    reference_figures: list[str] = field(default_factory=list)
    figure_category: str = ""
    split: str = ""
    task: str = ""
    model: str = ""
    chosen_figure: str | None = None
    chosen_index: int | None = None
    all_figures: list[str] = field(default_factory=list)
    parse: str = ""
    raw_response: str = ""
    figure_answers: list[FigureAnswer] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    metrics: dict[str, float | None] = field(default_factory=dict)
    l3: list[L3Result] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def retrieval_hit(self) -> bool | None:
        """Whether the chosen figure is a reference (`metrics["retrieval_hit"]`); None: it cannot be told."""
        hit = self.metrics.get("retrieval_hit")
        return None if hit is None else bool(hit)

    def take_answer(self, answer: Answer) -> None:
        """Copy what a QA flow's `Answer` says into this record (the figure choice is the caller's:
        it names figures by the benchmark's own files)."""
        self.answer = answer.answer
        self.raw_response = answer.raw_response
        self.parse = answer.parse
        self.chosen_index = answer.chosen_index
        self.timings = dict(answer.timings)
        self.messages = list(answer.messages)

    @property
    def key(self) -> tuple[str, str]:
        """(paper id, question key): unique within a result file."""
        return (self.paper_id, self.question_key)

    @property
    def predictions(self) -> list[str]:
        """The texts SPIQA's scripts score for this question, one (prediction, ground truth) pair each.

        Normally the answer alone. With per-figure answers (SPIQA's open models) every figure judged
        helpful contributes its answer, and a question with none contributes one empty answer.
        """
        if not self.figure_answers:
            return [self.answer]
        return [a.answer for a in self.figure_answers if a.is_helpful] or [""]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"l3": [v.to_dict() for v in self.l3]}

    def to_json(self) -> str:
        """One line of results.jsonl."""
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ResultRecord:
        """A record from `to_dict` output; unknown keys are ignored, missing optional ones defaulted."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        missing = [k for k in ("paper_id", "question_key", "question", "ground_truth", "answer") if k not in values]
        if missing:
            raise ValueError(f"missing field(s) {', '.join(missing)}")
        values["question_key"] = str(values["question_key"])
        values["figure_answers"] = [FigureAnswer(**a) for a in values.get("figure_answers") or []]
        values["l3"] = [L3Result.from_dict(v) for v in values.get("l3") or []]
        for key in ("answer", "ground_truth", "question"):
            if not isinstance(values[key], str):
                raise ValueError(f"field {key!r} is {type(values[key]).__name__}, not text")
        return cls(**values)


@dataclass
class ResultSet:
    """The records of one result file, with what is known about the run and what was repaired."""

    records: list[ResultRecord]
    source: str = ""
    kind: str = ""  # "results.jsonl", "spiqa-cot", "spiqa-direct", "spiqa-per-figure"
    warnings: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.records)

    @property
    def models(self) -> list[str]:
        return sorted({r.model for r in self.records if r.model})

    @property
    def tasks(self) -> list[str]:
        return sorted({r.task for r in self.records if r.task})
