"""What an error-analysis session found, written out: the rows as CSV, and a Markdown report.

The report holds each file's verdicts (how many right, by which rule), retrieval accuracy, SPIQA's
error taxonomy as a table and as a bar chart drawn in text (it reads the same in a terminal, a
notebook and on GitHub), the comparison counts when there are two files, and the rows themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from spiqa_demo.evaluation.comparison import OUTCOME_NAMES, OUTCOMES, Comparison, JudgedFile
from spiqa_demo.evaluation.taxonomy import CELL_NAMES, CELLS

if TYPE_CHECKING:
    import pandas as pd

BAR_WIDTH = 40  # characters of the longest bar
CELL_TEXT = 300  # characters of one table cell in the report (the CSV keeps whole texts)


def rows_csv(rows: pd.DataFrame) -> str:
    """The rows as CSV text (whole texts, one row per question)."""
    return rows.to_csv(index=False)


def _cell(value: object) -> str:
    text = " ".join(str(value).split())
    text = text if len(text) <= CELL_TEXT else text[: CELL_TEXT - 1] + "…"
    return text.replace("|", "\\|")


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return "\n".join(lines + ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows])


def taxonomy_chart(files: Sequence[JudgedFile]) -> str:
    """SPIQA's error taxonomy of each file as horizontal bars, one per cell and file."""
    counts = {(f.name, c): f.taxonomy.counts[c] for f in files for c in CELLS}
    top = max(counts.values(), default=0) or 1
    label = max(len(CELL_NAMES[c]) for c in CELLS)
    lines = []
    for name in CELLS:
        for index, file in enumerate(files):
            count = counts[(file.name, name)]
            tag = CELL_NAMES[name] if index == 0 else ""
            lines.append(f"{tag:<{label}}  {chr(ord('A') + index)} {'█' * round(BAR_WIDTH * count / top):<{BAR_WIDTH}} {count}")
    legend = [f"{chr(ord('A') + i)} = {f.name}" for i, f in enumerate(files)]
    return "```text\n" + "\n".join(lines) + "\n\n" + "\n".join(legend) + "\n```"


def markdown_report(files: Sequence[JudgedFile], comparison: Comparison | None, rows: pd.DataFrame, selection: str) -> str:
    """The report: counts per file, the taxonomy (table and chart), the comparison, then `rows` (what `selection` says they are)."""
    parts = ["# Error analysis", "", f"Rows: {selection} ({len(rows)} questions).", "", "## Verdicts and retrieval", ""]
    parts.append(markdown_table(
        ["", "file", "questions", "right", "retrieval accuracy", "verdict rules"],
        [[chr(ord("A") + i), f.name, len(f.records), f.right,
          "—" if f.retrieval_accuracy is None else f"{f.retrieval_accuracy:.3f}",
          ", ".join(f"{rule} {n}" for rule, n in f.verdict_rules.items())] for i, f in enumerate(files)]))
    parts += ["", "## SPIQA error taxonomy", ""]
    parts.append(markdown_table(["cell", *(f.name for f in files)], [[CELL_NAMES[c], *(f.taxonomy.counts[c] for f in files)] for c in CELLS]))
    unknown = [f"{f.name}: {f.taxonomy.figure_unknown}" for f in files if f.taxonomy.figure_unknown]
    if unknown:
        parts += ["", "Answers whose chosen figure cannot be told (counted apart): " + ", ".join(unknown) + "."]
    parts += ["", taxonomy_chart(files)]
    for file in files:
        kinds = file.taxonomy.by_figure_type
        if kinds:
            parts += ["", f"By figure type ({file.name}):", ""]
            parts.append(markdown_table(["figure type", *(CELL_NAMES[c] for c in CELLS)],
                                        [[kind, *(counts[c] for c in CELLS)] for kind, counts in sorted(kinds.items())]))
    if comparison is not None:
        counts = comparison.counts
        parts += ["", "## Comparison", "", f"{len(comparison.pairs)} shared questions; "
                  f"only in A: {len(comparison.only_a)}, only in B: {len(comparison.only_b)} (counted apart).", ""]
        parts.append(markdown_table(["outcome", "questions"], [[OUTCOME_NAMES[o], counts[o]] for o in OUTCOMES]))
    parts += ["", "## Rows", "", markdown_table(list(rows.columns), rows.astype(str).values.tolist())]
    return "\n".join(parts) + "\n"
