"""A result file as a pandas table for error analysis: one row per question, filters, plot data, diffs.

Rows come from `spiqa_demo.evaluation.read_results` (our results.jsonl or the official SPIQA
responses). Each row carries the question, ground truth, answer, chosen and reference figures,
the figure category, whether the chosen figure was the reference (CoT runs; for other runs a stored
`retrieval_hit`, e.g. M3SciQA's "the gold cited paper was in the context"), the stored L3Score, a
graded judge's score (`judge`: M3SciQA's 1 / 0.5 / 0) and per-answer ROUGE-L / BLEU-1. The "score"
filters and plots use L3Score when the file has verdicts, else the graded judge's, else ROUGE-L.
`Results.overview` gives the file's headline numbers (`scoring.overview`) from this table's values.
The app's error-analysis tab (`spiqa_demo.ui.error_analysis`) shows these tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.metrics.classic import answer_scores
from spiqa_demo.evaluation.scoring import Overview, overview

if TYPE_CHECKING:
    import pandas as pd

    from spiqa_demo.evaluation.records import ResultRecord

COLUMNS = ["paper", "key", "split", "model", "category", "question", "ground truth", "answer",
           "chosen", "reference", "retrieval", "L3Score", "judge", "ROUGE-L", "BLEU-1"]
TABLE_COLUMNS = ["paper", "key", "category", "question", "answer", "retrieval", "L3Score", "ROUGE-L"]
COMPARE_COLUMNS = ["paper", "key", "question", "answer A", "answer B", "score A", "score B", "retrieval A", "retrieval B", "better"]
ANY = "(all)"
BINS = 10


@dataclass
class Results:
    """One loaded result file: its records and their table (row i = record i)."""

    name: str
    records: list[ResultRecord]
    frame: pd.DataFrame
    warnings: list[str] = field(default_factory=list)

    @property
    def score_column(self) -> str:
        """L3Score when any answer has a verdict, else the graded judge's score, else ROUGE-L."""
        return next((c for c in ("L3Score", "judge") if self.frame[c].notna().any()), "ROUGE-L")

    def overview(self) -> Overview:
        """The file's headline numbers, with the retrieval verdicts and ROUGE-L of this table (files need not store them)."""
        hits = [None if outcome == "" else outcome == "right" for outcome in self.frame["retrieval"]]
        rouge_l = [None if math.isnan(value) else float(value) for value in self.frame["ROUGE-L"]]
        return overview(self.records, hits, rouge_l)


def load_results(path: Path, name: str = "", max_rows: int | None = None) -> Results:
    """Read a result file and score every answer's text; `PaperError` for files that are not results,
    and for files of more than `max_rows` answers before any is scored (scoring and the table's memory
    grow with the answers: a caller serving many people bounds them)."""
    import pandas as pd

    from spiqa_demo.evaluation.metrics.retrieval_accuracy import is_retrieval_hit
    from spiqa_demo.evaluation.reader import read_results

    result = read_results(path)
    records = result.records
    if max_rows is not None and len(records) > max_rows:
        raise PaperError(f"{name or path.name} holds {len(records)} answers, more than the {max_rows} read here: "
                         "score it with `python -m spiqa_demo score --responses FILE`")
    warnings = list(result.warnings)
    try:
        scores = answer_scores([r.answer for r in records], [r.ground_truth for r in records])
    except PaperError as exc:
        scores = [{}] * len(records)
        warnings.append(f"ROUGE-L and BLEU not computed: {exc}")
    rows = []
    for record, text in zip(records, scores):
        hit = (is_retrieval_hit(record.chosen_figure, record.reference_figures) if record.task == "cot"
               else record.retrieval_hit)
        rows.append({
            "paper": record.paper_id,
            "key": record.question_key,
            "split": record.split,
            "model": record.model,
            "category": record.figure_category,
            "question": record.question,
            "ground truth": record.ground_truth,
            "answer": record.answer,
            "chosen": record.chosen_figure or "",
            "reference": ", ".join(record.reference_figures),
            "retrieval": "" if hit is None else ("right" if hit else "wrong"),
            "L3Score": record.metrics.get("L3Score"),
            "judge": record.metrics.get("judge"),
            "ROUGE-L": text.get("ROUGE-L"),
            "BLEU-1": text.get("BLEU-1"),
        })
    frame = pd.DataFrame(rows, columns=COLUMNS)
    for column in ("L3Score", "judge", "ROUGE-L", "BLEU-1"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").round(3)
    return Results(name=name or path.name, records=records, frame=frame, warnings=warnings)


@dataclass(frozen=True)
class Filters:
    """What the table shows; `ANY` / empty means no restriction."""

    split: str = ANY
    model: str = ANY
    category: str = ANY
    retrieval: str = ANY  # right | wrong
    low: float = 0.0
    high: float = 1.0
    text: str = ""


def choices(results: Results, column: str) -> list[str]:
    """`ANY` and the values present in a column, for a filter dropdown."""
    return [ANY, *sorted(v for v in results.frame[column].dropna().unique() if v != "")]


def filtered(results: Results, filters: Filters) -> pd.DataFrame:
    """The rows that pass `filters` (the row index is kept: it points back to the records)."""
    frame = results.frame
    mask = frame["question"].notna()
    for column, value in (("split", filters.split), ("model", filters.model), ("category", filters.category),
                          ("retrieval", filters.retrieval)):
        if value and value != ANY:
            mask &= frame[column] == value
    score = frame[results.score_column]
    if filters.low > 0.0 or filters.high < 1.0:
        mask &= score.between(filters.low, filters.high)
    if filters.text.strip():
        needle = filters.text.strip().lower()
        text = (frame["question"] + " " + frame["answer"] + " " + frame["ground truth"] + " " + frame["paper"]).str.lower()
        mask &= text.str.contains(needle, regex=False)
    return frame[mask]


def distribution(results: Results) -> pd.DataFrame:
    """Histogram of the score column: `bin` label and `questions` count (BINS equal bins over 0-1)."""
    import pandas as pd

    column = results.score_column
    values = results.frame[column].dropna().clip(0, 1)
    counts = [0] * BINS
    for value in values:
        counts[min(int(value * BINS), BINS - 1)] += 1
    labels = [f"{i / BINS:.1f}" for i in range(BINS)]  # the bin's lower edge
    return pd.DataFrame({"bin": labels, "questions": counts, "metric": column})


def by_category(results: Results) -> pd.DataFrame:
    """Mean score and retrieval accuracy per figure category: one bar each (`bar` = "category · measure")."""
    import pandas as pd

    frame = results.frame.assign(category=results.frame["category"].replace("", "unknown"))
    rows = []
    for category, group in frame.groupby("category"):
        measures = {results.score_column: group[results.score_column].mean()}
        cot = group[group["retrieval"] != ""]
        if len(cot):
            measures["retrieval"] = (cot["retrieval"] == "right").mean()
        for measure, value in measures.items():
            rows.append({"bar": f"{category} · {measure}", "category": category, "measure": measure, "value": value})
    return pd.DataFrame(rows, columns=["bar", "category", "measure", "value"]).fillna(0.0)


def by_retrieval(results: Results) -> pd.DataFrame:
    """Mean score when the chosen figure was right vs wrong (CoT answers only)."""
    import pandas as pd

    cot = results.frame[results.frame["retrieval"] != ""]
    rows = [{"retrieval": outcome, "questions": len(group), f"mean {results.score_column}": group[results.score_column].mean()}
            for outcome, group in cot.groupby("retrieval")]
    return pd.DataFrame(rows, columns=["retrieval", "questions", f"mean {results.score_column}"]).fillna(0.0)


def compare(a: Results, b: Results) -> tuple[pd.DataFrame, str]:
    """Question-by-question comparison of two files on their shared questions, and a one-line verdict."""
    import pandas as pd

    column = a.score_column if a.score_column == b.score_column else "ROUGE-L"
    keep = ["paper", "key", "question", "answer", "retrieval", column]
    joined = a.frame[keep].merge(b.frame[keep], on=["paper", "key"], suffixes=(" A", " B"))
    if joined.empty:
        return pd.DataFrame(columns=COMPARE_COLUMNS), f"{a.name} and {b.name} share no questions (compared by arXiv id and question key)."
    joined = joined.rename(columns={"question A": "question", f"{column} A": "score A", f"{column} B": "score B"})
    difference = joined["score A"].fillna(0) - joined["score B"].fillna(0)
    joined["better"] = ["A" if d > 0.05 else "B" if d < -0.05 else "=" for d in difference]
    joined = joined.assign(_gap=difference.abs()).sort_values("_gap", ascending=False)[COMPARE_COLUMNS]
    counts = joined["better"].value_counts()
    verdict = (f"{len(joined)} shared questions, scored by {column} (a difference over 0.05 counts): "
               f"**A** ({a.name}) better on {counts.get('A', 0)}, **B** ({b.name}) better on {counts.get('B', 0)}, "
               f"{counts.get('=', 0)} about equal; mean {column} A {joined['score A'].mean():.3f}, "
               f"B {joined['score B'].mean():.3f}.")
    if (joined["retrieval A"] != "").any() and (joined["retrieval B"] != "").any():
        verdict += (f" Chosen figure right: A {(joined['retrieval A'] == 'right').sum()}, "
                    f"B {(joined['retrieval B'] == 'right').sum()}.")
    return joined.reset_index(drop=True), verdict
