"""A `Summary` as readable tables in the layout of the SPIQA paper.

One table per split (the rows of Tables 3 and 5: retrieval accuracy, BLEU-1..4, METEOR, ROUGE-L,
CIDEr, BERTScore F1, L3Score) and one per figure category (Table 6: tables, schematics, plots &
charts, visualizations, others). Values print x100 with two decimals, as the paper prints them.
"""

from __future__ import annotations

from spiqa_demo.evaluation.scoring import METRIC_KEYS, GroupScores, Summary
from spiqa_demo.evaluation.spiqa import FIGURE_TYPE_NAMES

_HEADERS = {"retrieval_accuracy": "Top-1 Acc", "L3Score-exact": "L3Score exact"}


def _columns(summary: Summary) -> list[str]:
    groups = [summary.overall, *summary.by_split.values(), *summary.by_category.values()]
    keys = [k for k in METRIC_KEYS if any(g.values.get(k) is not None for g in groups)]
    if any(g.values.get("L3Score-exact") is not None for g in groups):
        keys.append("L3Score-exact")
    return keys


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}"


def _table(title: str, rows: list[tuple[str, GroupScores]], keys: list[str]) -> list[str]:
    header = [title, "N", *(_HEADERS.get(k, k) for k in keys)]
    body = [[name, str(g.n), *(_cell(g.values.get(k)) for k in keys)] for name, g in rows]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(row: list[str]) -> str:
        return "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))

    return [line(header), "  ".join("-" * w for w in widths), *(line(r) for r in body)]


def format_summary(summary: Summary) -> str:
    """The per-split and per-category tables, with what was scored and any notes."""
    keys = _columns(summary)
    judge = summary.judge or "none (L3Score not requested)"
    lines = [
        f"{summary.source or 'results'}: {summary.model or '?'} ({summary.task or '?'}), "
        f"{summary.overall.n} questions, L3Score judge: {judge}",
        "Scores x100, as in the SPIQA paper (Tables 3 and 5: per split; Table 6: per figure category).",
        "",
    ]
    splits = list(summary.by_split.items())
    if len(splits) > 1:
        splits.append(("all", summary.overall))
    lines += _table("Split", splits, keys)
    if summary.by_category:
        categories = [(_figure_type_name(k), g) for k, g in summary.by_category.items()]
        lines += ["", *_table("Figure category", categories, keys)]
    lines += [f"note: {n}" for n in summary.notes]
    return "\n".join(lines)


def _figure_type_name(category: str) -> str:
    """The printed name of a SPIQA figure category; an unknown category as it is stored."""
    return next((name for key, name in FIGURE_TYPE_NAMES.items() if key == category), category)
