"""Batch evaluation: answer every question of a SPIQA split with a QA flow, one results.jsonl line each.

Questions run with bounded concurrency (API backends) or in batches (local models: the replies of
`batch_size` questions come from one left-padded `generate` call, identical to one by one), each
line is written and flushed as soon as its question is done, and a re-run of the same command
skips every question already in the file (and only adds missing L3Score verdicts). A question
whose model call failed outright (server down, missing images) is not written, so a re-run retries
it; a reply that could not be parsed is a real outcome and is written.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Literal, TypeVar

from tqdm.auto import tqdm

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.inputs import HUB_IMAGES_HINT, PaperInput, spiqa_candidates, spiqa_paper_input
from spiqa_demo.evaluation.metrics.l3score import L3Judge
from spiqa_demo.evaluation.metrics.retrieval_accuracy import is_retrieval_hit
from spiqa_demo.evaluation.records import ResultRecord
from spiqa_demo.evaluation.resume import ResultWriter
from spiqa_demo.evaluation.scoring import judge_record, judge_records
from spiqa_demo.evaluation.spiqa import SpiqaDataset, SpiqaPaper, SpiqaQuestion
from spiqa_demo.evaluation.spiqa.images import ImageFolder
from spiqa_demo.models.base import ModelBackend
from spiqa_demo.models.batching import BatchingBackend, can_batch
from spiqa_demo.qa import Answer, Task, ask
from spiqa_demo.questions import SPIQA_MAX_CANDIDATES

CandidateMode = Literal["spiqa", "retrieval"]
IMAGELESS_TASKS: tuple[Task, ...] = ("full", "caption-only")  # run by text-only models too
STOP_AFTER_FIRST_FAILURES = 5  # all of the first N questions failing means a setup problem, not bad luck
T = TypeVar("T")
R = TypeVar("R")

SPIQA_REPLY_TOKENS = 128  # SPIQA's GPT scripts ask for 128 new tokens in every task


@dataclass
class RunReport:
    """What one resumable run (`run_evaluation`, M3SciQA's `run_answers`) did."""

    total: int
    already_done: int = 0
    written: int = 0
    judged: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)  # (question, why)
    warnings: list[str] = field(default_factory=list)

    def messages(self) -> list[str]:
        out = list(self.warnings)
        if self.failures:
            question, why = self.failures[0]
            out.append(f"{len(self.failures)} question(s) got no answer and were not written (first: {question}: "
                       f"{why}); run the same command again to retry them")
        return out


def run_evaluation(
    dataset: SpiqaDataset,
    backend: ModelBackend,
    out: Path,
    *,
    task: Task = "cot",
    images: ImageFolder | None = None,
    judge: L3Judge | None = None,
    concurrency: int = 1,
    batch_size: int = 1,
    candidates: CandidateMode = "spiqa",
    limit: int | None = None,
    max_new_tokens: int = SPIQA_REPLY_TOKENS,
    progress: bool = True,
) -> RunReport:
    """Answer the questions of `dataset` not yet in `out`, appending one line per question.

    `images` is required unless the task or the model reads no images (caption-only; a text-only
    model's "full" task, on captions). `max_new_tokens` defaults to the
    reply length of SPIQA's scripts. `batch_size` > 1 batches a local model's generation
    (`batch_size` questions in flight); `concurrency` is the number of questions in flight otherwise
    (API backends).
    """
    if not backend.supports_images and task not in IMAGELESS_TASKS:
        raise PaperError(f"model {backend.name!r} reads no images, and the {task!r} task shows figure images: "
                         "use --task full (captions and paper text), --task caption-only or a multimodal model")
    shows_images = backend.supports_images and task != "caption-only"
    if images is None and shows_images:
        raise PaperError(f"evaluate needs the SPIQA figure images for task {task!r}: {HUB_IMAGES_HINT}")
    questions = list(dataset.questions())[:limit]
    writer = ResultWriter(out)
    try:
        writer.check_same_run(backend.name, task)
        report = RunReport(total=len(questions), already_done=0, warnings=list(writer.warnings))
        todo = [(p, q) for p, q in questions if (p.paper_id, q.key) not in writer.done]
        report.already_done = len(questions) - len(todo)
        papers = {p.source_id: p for p, _ in todo}
        inputs = {source_id: spiqa_paper_input(p, images) for source_id, p in papers.items()}
        if images is not None and todo and all(len(i.missing) == len(i.paper.items) for i in inputs.values()):
            example = next(iter(inputs.values())).missing[:1]
            raise PaperError(f"no figure image of this split was found under {images.root} (e.g. {example}); "
                             f"{HUB_IMAGES_HINT}")

        model, workers = backend, concurrency
        if batch_size > 1 and can_batch(backend):
            model, workers = BatchingBackend(backend, batch_size), max(concurrency, batch_size)

        def work(paper: SpiqaPaper, question: SpiqaQuestion) -> tuple[ResultRecord, str]:
            return _answer_one(dataset.split, paper, question, inputs[paper.source_id], model, task, judge,
                               candidates, max_new_tokens, needs_images=images is not None and shows_images)

        bar = tqdm(total=len(questions), initial=report.already_done, desc=f"evaluate {task}", unit="q",
                   disable=not progress)
        try:
            answer_all(todo, lambda pq: work(*pq), lambda pq: f"{pq[0].paper_id}/{pq[1].key}", workers, writer, report, bar)
        finally:
            bar.close()
        if judge is not None:
            dataset_keys = {(p.paper_id, q.key) for p, q in questions}
            earlier = [r for k, r in writer.done.items() if k in dataset_keys]
            report.judged = judge_records(earlier, judge, concurrency, on_done=writer.write, progress=progress)
        return report
    finally:
        writer.close()


def answer_all(
    todo: Sequence[T],
    work: Callable[[T], tuple[ResultRecord, str]],
    label: Callable[[T], str],
    concurrency: int,
    writer: ResultWriter,
    report: RunReport,
    bar: tqdm,
) -> None:
    """Run `work` (a record and a judge error, "" when none) over `todo` with at most `concurrency`
    in flight, writing each answered record as it is done. A question without an answer is counted
    (named by `label`) and not written, so a re-run retries it; when the first questions all fail
    the setup is wrong and the run stops. A judge's error stops the run after its answer is kept."""
    attempted = 0
    with closing(each_done(todo, work, concurrency)) as done:  # a raise below cancels the rest
        for item, (record, judge_error) in done:
            attempted += 1
            if record.error and not record.raw_response:
                report.failures.append((label(item), record.error))
                if attempted == len(report.failures) == min(STOP_AFTER_FIRST_FAILURES, len(todo)):
                    raise PaperError(f"the first {attempted} questions all failed; stopping. First error: "
                                     f"{report.failures[0][1]}")
            else:
                writer.write(record)
                report.written += 1
            if judge_error:  # the answer is kept; a re-run with a working judge adds the verdicts
                raise PaperError(judge_error)
            bar.update(1)


def each_done(todo: Sequence[T], work: Callable[[T], R], concurrency: int = 1) -> Generator[tuple[T, R], None, None]:
    """`(item, work(item))` for every item as it is done, at most `concurrency` in flight.

    The one question loop of batch evaluation and the app's "run all"; with one in flight the
    results come in `todo`'s order. Leaving the loop early cancels the questions not yet started.
    """
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    futures: dict[Future[R], T] = {pool.submit(work, item): item for item in todo}
    try:
        for future in as_completed(futures):
            yield futures[future], future.result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def question_record(split: str, paper: SpiqaPaper, question: SpiqaQuestion, task: str, model: str) -> ResultRecord:
    """A record of `question` with its ground truth and no answer yet."""
    return ResultRecord(
        paper_id=paper.paper_id,
        question_key=question.key,
        question=question.question,
        ground_truth=question.answer,
        answer="",
        reference_figures=list(question.references),
        figure_category=_category(paper, question),
        split=split,
        task=task,
        model=model,
    )


def _answer_one(
    split: str,
    paper: SpiqaPaper,
    question: SpiqaQuestion,
    source: PaperInput,
    backend: ModelBackend,
    task: Task,
    judge: L3Judge | None,
    candidates: CandidateMode,
    max_new_tokens: int,
    needs_images: bool,
) -> tuple[ResultRecord, str]:
    """The record of one question and, when the judge failed on it, the judge's error."""
    record = question_record(split, paper, question, task, backend.name)
    if needs_images and source.missing:
        record.error = f"figure images not found: {', '.join(source.missing[:3])}" + (
            f" and {len(source.missing) - 3} more" if len(source.missing) > 3 else "")
        return record, ""

    def shortlist(_paper: object, _question: str, k: int) -> list:
        return spiqa_candidates(source, paper, question, SPIQA_MAX_CANDIDATES if task == "cot" else k)

    try:
        answer = ask(source.paper, question.question, backend, task=task, max_new_tokens=max_new_tokens,
                     shortlist=shortlist if candidates == "spiqa" else None)
    except PaperError as exc:  # the question itself is unusable (e.g. empty)
        record.error = str(exc)
        return record, ""
    _fill(record, answer, source)
    if judge is not None and record.raw_response:
        started = perf_counter()
        try:
            judge_record(record, judge)
        except PaperError as exc:
            return record, str(exc)
        record.timings["l3score"] = perf_counter() - started
    return record, ""


def _fill(record: ResultRecord, answer: Answer, source: PaperInput) -> None:
    record.take_answer(answer)
    record.all_figures = [f for c in answer.candidates if (f := source.file_of(c.figure))]
    record.chosen_figure = source.file_of(answer.figure) if answer.figure_source == "model" else None
    if not answer.answered and not answer.raw_response:
        record.error = "; ".join(answer.messages) or "the model gave no reply"
    if record.task == "cot":
        record.metrics["retrieval_hit"] = float(is_retrieval_hit(record.chosen_figure, record.reference_figures))


def _category(paper: SpiqaPaper, question: SpiqaQuestion) -> str:
    figure = paper.figure(question.references[0]) if question.references else None
    return figure.figure_type if figure is not None else ""
