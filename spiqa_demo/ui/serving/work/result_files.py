"""Result files of the Error analysis tab read and scored in worker processes, never in the web server.

Scoring grows with the answers' lengths (ROUGE-L with the product of an answer's and its ground
truth's), so a small file can be built to take minutes: each file is read in `SCORING`, a `FairQueue`
of `SPIQA_UI_RESULTS_CONCURRENCY` slots, each with its `Worker`, within `SPIQA_UI_RESULTS_CPU_S` processor
seconds and `SPIQA_UI_WORKER_MEMORY_MB`, and an answer or ground truth of more than
`SPIQA_UI_MAX_ANSWER_TOKENS` tokens is not scored at all (the summary says how many). A session has
one file being read and one waiting, and sessions take turns, so a visitor's costly file holds one
slot while another visitor's file is read in the other. The tab waits for a `Scoring` without
holding a thread (`steps.Wait`). The SPIQA metrics of a loaded file are computed the same way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Concatenate, Generic, TypeVar

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation import analysis
from spiqa_demo.evaluation.records import ResultRecord
from spiqa_demo.settings import EvaluationSettings
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.messages import as_sentence
from spiqa_demo.ui.serving.work.pools import SCORING
from spiqa_demo.ui.serving.work.workers import Limits, Report, SlotWorkers

T = TypeVar("T")
_workers = SlotWorkers()


class Scoring(Generic[T]):
    """One file's work queued in `SCORING`: `outcome` once `done`, its value or the `PaperError` saying why none."""

    def __init__(self, task: Callable[Concatenate[Report, ...], T], args: tuple[object, ...], what: str) -> None:
        self._task, self._args, self._what = task, args, what
        self.outcome: T | PaperError = PaperError(f"{what}: not done")
        self._done = threading.Event()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def finish(self, outcome: T | PaperError) -> Scoring[T]:
        self.outcome = outcome
        self._done.set()
        return self

    def dropped(self, reason: str) -> None:
        self.finish(PaperError(as_sentence(f"{self._what}: not done: {reason}")))

    def run(self, slot: int) -> None:
        settings = app_settings().ui
        limits = Limits(settings.ui_results_cpu_s, settings.ui_worker_memory_mb, "SPIQA_UI_RESULTS_CPU_S")
        try:
            self.finish(_workers[slot].run(self._task, self._args, self._what, limits))
        except PaperError as exc:
            self.finish(exc)
        except Exception as exc:  # a bug: said in a line, the app goes on
            self.finish(PaperError(f"{self._what}: something went wrong ({type(exc).__name__})"))


def _read(report: Report, path: Path, name: str, max_rows: int, max_tokens: int) -> analysis.Results:
    """(In a worker) the result file read and its answers scored."""
    return analysis.load_results(path, name, max_rows=max_rows, max_tokens=max_tokens)


def _metrics(report: Report, records: list[ResultRecord], settings: EvaluationSettings) -> str:
    """(In a worker) the file's SPIQA metrics, as the SPIQA paper reports them."""
    from spiqa_demo.evaluation import score_records
    from spiqa_demo.evaluation.report import format_summary

    return format_summary(score_records(records, bertscore=False, settings=settings))


def reading(path: Path, owner: Hashable) -> Scoring[analysis.Results]:
    """`path` being read and scored for session `owner`, within the app's bounds."""
    settings = app_settings().ui
    job = Scoring(_read, (path, path.name, settings.ui_max_results_rows, settings.ui_max_answer_tokens),
                  f"{path.name}: scoring it")
    SCORING.submit(owner, job)
    return job


def measuring(results: analysis.Results, owner: Hashable) -> Scoring[str]:
    """The SPIQA metrics of a loaded file being computed for session `owner`."""
    job = Scoring(_metrics, (results.records, app_settings().evaluation), f"{results.name}: computing its metrics")
    SCORING.submit(owner, job)
    return job


def refused(error: PaperError) -> Scoring[analysis.Results]:
    """A file refused before any work (no file chosen, too large): done at once, saying why."""
    return Scoring(_read, (), "").finish(error)


def warm() -> None:
    """Start the workers (the app's start-up calls this)."""
    for worker in _workers.of(SCORING.slots):
        worker.start()
