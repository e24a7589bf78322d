"""A result file as a pandas table for error analysis: one row per question, filters, plot data, diffs.

Rows come from `spiqa_demo.evaluation.read_results` (our results.jsonl or the official SPIQA
responses). Each row carries the question, ground truth, answer, chosen and reference figures,
the figure category, whether the chosen figure was the reference (CoT runs; for other runs a stored
`retrieval_hit`, e.g. M3SciQA's "the gold cited paper was in the context"), the answer's verdict
(`verdicts`: right or wrong, and the rule that decided) and its cell of SPIQA's error taxonomy
(`taxonomy`), the stored L3Score, a graded judge's score (`judge`: M3SciQA's 1 / 0.5 / 0) and
per-answer ROUGE-L / BLEU-1. Answers are shown without the stray ": " official replies keep (the
metrics score them as SPIQA's scripts cut them). `side_by_side` lays two files out question by
question with both verdicts (`comparison`). The "score"
filters and plots use L3Score when the file has verdicts, else the graded judge's, else ROUGE-L.
`Results.overview` gives the file's headline numbers (`scoring.overview`) from this table's values.
The app's error-analysis tab (`spiqa_demo.ui.tabs.errors.error_analysis`) shows these tables.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.comparison import OUTCOME_NAMES, Comparison, JudgedFile, compare_files, judge_file
from spiqa_demo.evaluation.metrics.classic import answer_scores
from spiqa_demo.evaluation.scoring import Overview, overview
from spiqa_demo.evaluation.taxonomy import CELL_NAMES, CELL_SHORT, CELLS, cell
from spiqa_demo.evaluation.verdicts import clean_answer

if TYPE_CHECKING:
    import pandas as pd

    from spiqa_demo.evaluation.records import ResultRecord

COLUMNS = ["paper", "key", "split", "model", "category", "question", "ground truth", "answer",
           "chosen", "reference", "retrieval", "correct", "verdict", "taxonomy", "L3Score", "judge", "ROUGE-L", "BLEU-1"]
TABLE_COLUMNS = ["paper", "key", "category", "question", "ground truth", "answer", "verdict", "retrieval", "ROUGE-L"]
SIDE_COLUMNS = ["paper", "key", "category", "question", "ground truth", "answer A", "verdict A", "figure A",
                "answer B", "verdict B", "figure B", "outcome"]
ANY = "(all)"
BINS = 10


@dataclass
class Results:
    """One loaded result file: its records and their table (row i = record i)."""

    name: str
    records: list[ResultRecord]
    frame: pd.DataFrame
    judged: JudgedFile
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


def load_results(path: Path, name: str = "", max_rows: int | None = None, max_tokens: int | None = None) -> Results:
    """Read a result file and score every answer's text; `PaperError` for files that are not results,
    and for files of more than `max_rows` answers before any is scored (scoring and the table's memory
    grow with the answers: a caller serving many people bounds them). An answer whose text or ground
    truth has more than `max_tokens` tokens is not scored (no ROUGE-L or BLEU; a warning says how many):
    ROUGE-L's time and memory grow with the product of the two lengths. The others' values are
    unchanged."""
    import pandas as pd

    from spiqa_demo.evaluation.reader import read_results

    result = read_results(path)
    records = result.records
    if max_rows is not None and len(records) > max_rows:
        raise PaperError(f"{name or path.name} holds {len(records)} answers, more than the {max_rows} read here: "
                         "score it with `python -m spiqa_demo score --responses FILE`")
    warnings = list(result.warnings)
    scored = [i for i, r in enumerate(records)
              if max_tokens is None or max(_tokens(r.answer), _tokens(r.ground_truth)) <= max_tokens]
    if len(scored) < len(records):
        left = len(records) - len(scored)
        warnings.append(f"{left} answer{' was' if left == 1 else 's were'} not scored (no ROUGE-L or BLEU): longer, "
                        f"or with a longer ground truth, than the {max_tokens} tokens scored here")
    scores: list[dict[str, float]] = [{} for _ in records]
    try:
        for i, values in zip(scored, answer_scores([records[i].answer for i in scored],
                                                   [records[i].ground_truth for i in scored])):
            scores[i] = values
    except PaperError as exc:
        warnings.append(f"ROUGE-L and BLEU not computed: {exc}")
    judged = judge_file(name or path.name, records)
    rows = []
    for record, text, hit, verdict in zip(records, scores, judged.figures, judged.verdicts):
        found = cell(hit, verdict.right)
        rows.append({
            "paper": record.paper_id,
            "key": record.question_key,
            "split": record.split,
            "model": record.model,
            "category": record.figure_category,
            "question": record.question,
            "ground truth": record.ground_truth,
            "answer": clean_answer(record.answer),
            "chosen": record.chosen_figure or "",
            "reference": ", ".join(record.reference_figures),
            "retrieval": "" if hit is None else ("right" if hit else "wrong"),
            "correct": "right" if verdict.right else "wrong",
            "verdict": verdict.label,
            "taxonomy": CELL_NAMES[found] if found else "",
            "L3Score": record.metrics.get("L3Score"),
            "judge": record.metrics.get("judge"),
            "ROUGE-L": text.get("ROUGE-L"),
            "BLEU-1": text.get("BLEU-1"),
        })
    frame = pd.DataFrame(rows, columns=COLUMNS)
    for column in ("L3Score", "judge", "ROUGE-L", "BLEU-1"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").round(3)
    return Results(name=name or path.name, records=records, frame=frame, judged=judged, warnings=warnings)


def _tokens(text: str) -> int:
    """Words and punctuation marks in `text`: at least as many as the metrics' tokenizer finds."""
    return len(_TOKEN.findall(text))


_TOKEN = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class Filters:
    """What the table shows; `ANY` / empty means no restriction."""

    split: str = ANY
    model: str = ANY
    category: str = ANY
    retrieval: str = ANY  # right | wrong
    correct: str = ANY  # right | wrong: the answer's verdict
    taxonomy: str = ANY  # a `taxonomy.CELL_NAMES` value
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
                          ("retrieval", filters.retrieval), ("correct", filters.correct), ("taxonomy", filters.taxonomy)):
        if value and value != ANY:
            mask &= frame[column] == value
    score = frame[results.score_column]
    if filters.low > 0.0 or filters.high < 1.0:
        mask &= score.between(filters.low, filters.high)
    if filters.text.strip():
        mask &= _contains(frame, ["question", "answer", "ground truth", "paper"], filters.text)
    return frame[mask]


def _contains(frame: pd.DataFrame, columns: list[str], text: str) -> pd.Series:
    """Rows where any of `columns` contains `text` (case ignored)."""
    joined = frame[columns[0]].astype(str)
    for column in columns[1:]:
        joined = joined + " " + frame[column].astype(str)
    return joined.str.lower().str.contains(text.strip().lower(), regex=False)


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


def taxonomy_counts(*files: Results) -> pd.DataFrame:
    """SPIQA's error taxonomy of each file, for a chart: `cell` (its short name), `file`, `figure type` ("all" is the
    whole file) and `questions`, cell by cell (the files of one cell side by side)."""
    import pandas as pd

    found = [(results.name, results.judged.taxonomy) for results in files]
    rows = [{"cell": CELL_SHORT[name], "file": file, "figure type": kind, "questions": counts[name]}
            for name in CELLS for file, taxonomy in found
            for kind, counts in {"all": taxonomy.counts, **taxonomy.by_figure_type}.items()]
    return pd.DataFrame(rows, columns=["cell", "file", "figure type", "questions"])


@dataclass
class SideBySide:
    """Two files question by question: the comparison and its table (row i = `comparison.pairs[i]`)."""

    comparison: Comparison
    frame: pd.DataFrame

    def summary(self) -> str:
        """The counts in one Markdown paragraph."""
        a, b, counts = self.comparison.a, self.comparison.b, self.comparison.counts
        if not self.comparison.pairs:
            return f"{a.name} and {b.name} share no questions (compared by arXiv id and question key)."
        text = (f"{len(self.comparison.pairs)} shared questions · **A** {escape_markdown(a.name)}: {a.right} right · "
                f"**B** {escape_markdown(b.name)}: {b.right} right · right in both **{counts['both_right']}**, "
                f"right in A only **{counts['a_only_right']}**, right in B only **{counts['b_only_right']}**, "
                f"wrong in both **{counts['both_wrong']}**")
        apart = [f"{len(keys)} only in {side}" for side, keys in (("A", self.comparison.only_a), ("B", self.comparison.only_b)) if keys]
        return text + (f" · counted apart: {', '.join(apart)}" if apart else "") + "."


def escape_markdown(text: str) -> str:
    """A file name as Markdown text (its underscores are not emphasis)."""
    return text.replace("_", "\\_").replace("*", "\\*")


def _figure_cell(file: str | None, hit: bool | None) -> str:
    if hit is None:
        return file or ""
    return f"{'✓' if hit else '✗'} {file or '(none)'}"


def side_by_side(a: Results, b: Results) -> SideBySide:
    """The shared questions of two files with both answers, verdicts and chosen figures."""
    import pandas as pd

    comparison = compare_files(a.judged, b.judged)
    rows = []
    for i, j in comparison.pairs:
        first, second = a.records[i], b.records[j]
        rows.append({
            "paper": first.paper_id, "key": first.question_key, "category": a.frame.at[i, "category"],
            "question": first.question, "ground truth": first.ground_truth,
            "answer A": a.frame.at[i, "answer"], "verdict A": a.frame.at[i, "verdict"],
            "figure A": _figure_cell(first.chosen_figure, a.judged.figures[i]),
            "answer B": b.frame.at[j, "answer"], "verdict B": b.frame.at[j, "verdict"],
            "figure B": _figure_cell(second.chosen_figure, b.judged.figures[j]),
            "outcome": OUTCOME_NAMES[comparison.outcome((i, j))],
        })
    return SideBySide(comparison, pd.DataFrame(rows, columns=SIDE_COLUMNS))


@dataclass(frozen=True)
class SideFilters:
    """What the side-by-side table shows; `ANY` / empty means no restriction."""

    outcome: str = ANY  # a `comparison.OUTCOME_NAMES` value
    category: str = ANY
    paper: str = ANY
    text: str = ""


def side_filtered(side: SideBySide, filters: SideFilters) -> pd.DataFrame:
    """The side-by-side rows that pass `filters` (the row index is kept: it points back to the pairs)."""
    frame = side.frame
    mask = frame["question"].notna()
    for column, value in (("outcome", filters.outcome), ("category", filters.category), ("paper", filters.paper)):
        if value and value != ANY:
            mask &= frame[column] == value
    if filters.text.strip():
        mask &= _contains(frame, ["question", "ground truth", "answer A", "answer B", "paper"], filters.text)
    return frame[mask]
