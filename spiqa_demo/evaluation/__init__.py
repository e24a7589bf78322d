"""The measurement of the product: SPIQA and M3SciQA data, the run harness, scoring, metrics, judges.

Everything here imports the product (extraction, retrieval, qa, crosspaper, models); nothing in the
product imports it (`tests/test_layering.py`). The app's SPIQA check and error-analysis tab and the
CLI's `evaluate`, `score`, `bench-*` commands are its users.

- `spiqa`: the SPIQA benchmark's splits loaded into one typed model, hub downloads, figure images,
  matching a PDF to its SPIQA paper.
- `metrics`: L3Score and the classic metrics exactly as SPIQA computes them; retrieval accuracy.
- `m3sciqa`: M3SciQA's data, stage-1 and stage-2 benchmarks of the cross-paper reader, its judge.
- `prompts`: the judges' and M3SciQA's prompts, versioned per protocol.
- `records`: `ResultRecord` (one answered question) and `ResultSet`; results.jsonl is one record per line.
- `reader`: `read_results(path)` loads our results.jsonl or an official SPIQA response file
  (`official`) into records; `align_with_dataset` joins them with a SPIQA split.
- `scoring`: `score_records` -> `Summary` (overall, per split, per figure category);
  `judge_records` adds L3Score verdicts; `overview` -> `Overview`, the headline numbers of the app's
  summary lines (one mean L3Score per judge).
- `report`: the summary as tables in the layout of the SPIQA paper (Tables 3, 5, 6).
- `harness`: `run_evaluation` answers a dataset's questions with a QA flow, one line per question,
  resumable; `each_done` is the question loop it shares with the app.
- `check`: the app's SPIQA check: `check_answer` scores one answer about an extracted PDF against
  its SPIQA question, `check_paper` runs all questions of the paper.
- `verdicts`: is an answer right? L3Score when stored, else deterministic rules, each verdict naming its rule.
- `taxonomy`: SPIQA's error taxonomy (right/wrong figure x right/wrong answer), per model and figure type.
- `comparison`: two result files judged and compared question by question (the `compare` command).
- `export`: what error analysis found, as CSV and as a Markdown report with the counts and a chart.
- `analysis`: a result file as a pandas table for error analysis (filters, plots, the side-by-side table).
- `retrieval_benchmark`: `run_retrieval_benchmark` measures figure retrieval alone on a split
  (top-k accuracy against the random baseline, per figure category) and `run_ablation` what each
  retrieval signal adds (the `bench-retrieval` command).
"""

from spiqa_demo.evaluation.reader import Alignment, align_with_dataset, read_results
from spiqa_demo.evaluation.records import FigureAnswer, ResultRecord, ResultSet
from spiqa_demo.evaluation.scoring import (
    METRIC_KEYS,
    GroupScores,
    Overview,
    Summary,
    judge_records,
    overview,
    score_records,
)

__all__ = [
    "METRIC_KEYS",
    "Alignment",
    "FigureAnswer",
    "GroupScores",
    "Overview",
    "ResultRecord",
    "ResultSet",
    "Summary",
    "align_with_dataset",
    "judge_records",
    "overview",
    "read_results",
    "score_records",
]
