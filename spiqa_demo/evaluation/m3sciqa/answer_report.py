"""The numbers of an M3SciQA stage-2 run: judge score, "I don't know" compliance, and where answers fail.

Score = mean judge selection (1 / 0.5 / 0) over the answers that have a verdict (an unparseable
judge reply leaves a question out, counted in `unjudged`). Compliance: how often the model
abstains, overall and split by whether the gold cited paper was in its context. When the gold
is missing no answer can rest on it, so abstaining there is the compliant reply; in the title-only
setting every answer should be an abstention. Rows: overall, gold in context or not (ranked
context), per reference reasoning type and per anchor modal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spiqa_demo.evaluation.m3sciqa.judge import StoredVerdict
from spiqa_demo.evaluation.records import ResultRecord


@dataclass(frozen=True)
class GroupNumbers:
    questions: int
    judged: int
    score: float | None  # mean selection over the judged answers
    abstained: int
    score_answered: float | None  # mean selection over the judged answers that did not abstain

    @property
    def abstention_rate(self) -> float | None:
        return self.abstained / self.questions if self.questions else None

    def as_dict(self) -> dict[str, Any]:
        return {"questions": self.questions, "judged": self.judged, "score": _round(self.score),
                "abstained": self.abstained, "abstention_rate": _round(self.abstention_rate),
                "score_answered": _round(self.score_answered)}


def numbers(records: Sequence[ResultRecord]) -> GroupNumbers:
    judged = [r for r in records if r.metrics.get("judge") is not None]
    answered = [r for r in judged if not r.metrics.get("abstained")]
    return GroupNumbers(
        questions=len(records),
        judged=len(judged),
        score=_mean(r.metrics["judge"] for r in judged),
        abstained=sum(bool(r.metrics.get("abstained")) for r in records),
        score_answered=_mean(r.metrics["judge"] for r in answered),
    )


def rows(records: Sequence[ResultRecord]) -> list[tuple[str, GroupNumbers]]:
    """(row name, numbers): overall, gold in context yes/no, per reference reasoning type, per modal."""
    out = [("all", numbers(records))]
    groups: list[tuple[str, Callable[[ResultRecord], str]]] = [
        ("gold in context", lambda r: "" if r.retrieval_hit is None else ("yes" if r.retrieval_hit else "no")),
        ("reference type", lambda r: str(r.details.get("reference_reasoning_type") or "")),
        ("modal", lambda r: r.figure_category),
    ]
    for label, key in groups:
        for value in sorted({key(r) for r in records} - {""}):
            out.append((f"{label}={value}", numbers([r for r in records if key(r) == value])))
    return out


def table(records: Sequence[ResultRecord]) -> str:
    head = f"{'rows':50s} {'n':>4s} {'judged':>6s} {'score':>6s} {'abstain':>7s} {'answered score':>14s}"
    lines = [head, "-" * len(head)]
    for name, g in rows(records):
        lines.append(f"{name:50s} {g.questions:4d} {g.judged:6d} {_fmt(g.score):>6s} {_fmt(g.abstention_rate):>7s} "
                     f"{_fmt(g.score_answered):>14s}")
    return "\n".join(lines)


def summary(records: Sequence[ResultRecord]) -> dict[str, Any]:
    """The `--json` object: overall numbers at the top level, the groups below."""
    overall = numbers(records)
    grouped = rows(records)[1:]
    by = {label: {name.split("=", 1)[1]: g.as_dict() for name, g in grouped if name.startswith(label + "=")}
          for label in ("gold in context", "reference type", "modal")}
    stored = [StoredVerdict.from_details(r.details) for r in records]
    judges = sorted({v.model for v in stored if v is not None and v.model})
    return {
        **overall.as_dict(),
        "unjudged": overall.questions - overall.judged,
        "judge_errors": sum(bool(r.error) for r in records),
        "gold_in_context": _round(_mean(float(hit) for r in records if (hit := r.retrieval_hit) is not None)),
        "abstention_rate_gold_in_context": by["gold in context"].get("yes", {}).get("abstention_rate"),
        "abstention_rate_gold_missing": by["gold in context"].get("no", {}).get("abstention_rate"),
        "models": sorted({r.model for r in records if r.model}),
        "judges": judges,
        "per_reference_reasoning_type": by["reference type"],
        "per_modal": by["modal"],
    }


def _mean(values: Any) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
