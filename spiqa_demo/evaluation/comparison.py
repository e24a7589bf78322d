"""Who is right? Two result files judged answer by answer and compared on the questions they share.

`judge_file` gives every answer of one file its verdict (`verdicts.verdict`: L3Score when stored,
else the deterministic rules) and whether its chosen figure is a ground-truth one, the two facts the
error taxonomy (`taxonomy`) is made of. `compare_files` pairs two judged files by (arXiv id without
version, question key): each shared question is both right, right only in A, right only in B, or
both wrong; questions present in one file only are counted apart, never as wrong. The CLI's
`compare` and the app's error-analysis tab both build on these.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from spiqa_demo.evaluation.metrics.retrieval_accuracy import is_retrieval_hit
from spiqa_demo.evaluation.records import ResultRecord
from spiqa_demo.evaluation.taxonomy import Taxonomy, taxonomy
from spiqa_demo.evaluation.verdicts import Verdict, verdict
from spiqa_demo.paper_text import normalise_arxiv_id

Outcome = Literal["both_right", "a_only_right", "b_only_right", "both_wrong"]
OUTCOMES: tuple[Outcome, ...] = ("both_right", "a_only_right", "b_only_right", "both_wrong")
OUTCOME_NAMES: dict[Outcome, str] = {
    "both_right": "right in both",
    "a_only_right": "right in A, wrong in B",
    "b_only_right": "right in B, wrong in A",
    "both_wrong": "wrong in both",
}


def figure_right(record: ResultRecord) -> bool | None:
    """Whether the record's chosen figure is a ground-truth one: CoT runs name it (a reply naming none
    is a miss, as SPIQA counts it); other runs only when they stored it; None when it cannot be told."""
    if record.task == "cot":
        return is_retrieval_hit(record.chosen_figure, record.reference_figures)
    return record.retrieval_hit


def question_id(record: ResultRecord) -> tuple[str, str]:
    """The key two files share for a question: arXiv id without version, question key."""
    return (normalise_arxiv_id(record.paper_id) or record.paper_id, record.question_key)


@dataclass
class JudgedFile:
    """One result file's answers with their verdicts and whether each chose a right figure (index = record)."""

    name: str
    records: list[ResultRecord]
    verdicts: list[Verdict]
    figures: list[bool | None]

    @property
    def retrieval_accuracy(self) -> float | None:
        """The share of right figures among the answers where it can be told (`score`'s for CoT files)."""
        told = [hit for hit in self.figures if hit is not None]
        return sum(told) / len(told) if told else None

    @property
    def verdict_rules(self) -> dict[str, int]:
        """How many verdicts each rule gave."""
        return dict(Counter(v.rule for v in self.verdicts).most_common())

    @property
    def right(self) -> int:
        return sum(v.right for v in self.verdicts)

    @cached_property
    def taxonomy(self) -> Taxonomy:
        """Computed once: the report and the charts read it cell by cell."""
        return taxonomy(self.figures, [v.right for v in self.verdicts], [r.figure_category for r in self.records])

    def summary(self) -> dict[str, Any]:
        """The `compare --json` object of one file."""
        return {
            "file": self.name,
            "retrieval_accuracy": self.retrieval_accuracy,
            "verdict_rules": self.verdict_rules,
            "taxonomy": self.taxonomy.to_dict(),
        }


def judge_file(name: str, records: list[ResultRecord]) -> JudgedFile:
    """Every answer's verdict and figure outcome."""
    return JudgedFile(name=name, records=records, verdicts=[verdict(r) for r in records],
                      figures=[figure_right(r) for r in records])


def outcome(a_right: bool, b_right: bool) -> Outcome:
    """Which of two answers to one question are right."""
    if a_right:
        return "both_right" if b_right else "a_only_right"
    return "b_only_right" if b_right else "both_wrong"


@dataclass
class Comparison:
    """Two judged files on their shared questions: `pairs` holds (index in A, index in B) per shared question."""

    a: JudgedFile
    b: JudgedFile
    pairs: list[tuple[int, int]]
    only_a: list[tuple[str, str]] = field(default_factory=list)
    only_b: list[tuple[str, str]] = field(default_factory=list)

    def outcome(self, pair: tuple[int, int]) -> Outcome:
        return outcome(self.a.verdicts[pair[0]].right, self.b.verdicts[pair[1]].right)

    @property
    def counts(self) -> dict[Outcome, int]:
        found = Counter(self.outcome(pair) for pair in self.pairs)
        return {name: found.get(name, 0) for name in OUTCOMES}

    def to_dict(self) -> dict[str, Any]:
        """The `compare --json` object: the shared questions, both files' summaries, the comparison counts,
        and the questions present in one file only (counted apart)."""
        return {
            "questions": len(self.pairs),
            "a": self.a.summary(),
            "b": self.b.summary(),
            "comparison": self.counts,
            "only_in_a": len(self.only_a),
            "only_in_b": len(self.only_b),
        }


def compare_files(a: JudgedFile, b: JudgedFile) -> Comparison:
    """Pair the questions of `a` and `b`; the ones in one file only are listed apart."""
    in_b = {question_id(record): i for i, record in enumerate(b.records)}
    pairs = [(i, in_b[question_id(record)]) for i, record in enumerate(a.records) if question_id(record) in in_b]
    shared = {question_id(b.records[j]) for _, j in pairs}
    return Comparison(
        a=a, b=b, pairs=pairs,
        only_a=[question_id(r) for r in a.records if question_id(r) not in in_b],
        only_b=[question_id(r) for r in b.records if question_id(r) not in shared],
    )
