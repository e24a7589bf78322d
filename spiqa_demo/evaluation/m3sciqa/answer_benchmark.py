"""M3SciQA stage 2 as a resumable run: rank, answer from the top-k cited papers, judge, one results.jsonl line each.

Each combined question's cited papers are ranked by stage 1 (from its visual question and the
anchor image, in the seeded candidate order), the model answers from the top-k papers' titles
and abstracts (the only text the data has), and the graded judge scores the answer 1 / 0.5 / 0.
Contexts: `ranked` (top-k of stage 1, the benchmark's setting), `title-only` (the gold paper's
title alone: M3SciQA's "I don't know" compliance setting, where a compliant model abstains) and
`gold` (the gold paper's title and abstract: the ceiling that abstracts allow).

Records are `ResultRecord`s (the error-analysis tab reads them): paper = anchor arXiv id, figure
category = the anchor's modal, `metrics` = `judge`, `abstained` and, for `ranked`, `retrieval_hit`
(the gold paper was in the context); `details` holds the rest. Resuming follows `evaluate`: a
re-run skips questions already in the file, judges those still without a verdict, and retries
questions whose model call failed (those are not written). An unparseable judge reply is a real
outcome: the record is written with `error` saying so and no `judge` metric.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter
from typing import Literal

from tqdm.auto import tqdm

from spiqa_demo.crosspaper.types import CandidateRanking
from spiqa_demo.errors import BackendError, InputError, PaperError
from spiqa_demo.evaluation.harness import RunReport, answer_all
from spiqa_demo.evaluation.m3sciqa.answering import CHUNK_CHARS, ContextPaper, answer_from_papers
from spiqa_demo.evaluation.m3sciqa.combined import CombinedData, CombinedQuestion
from spiqa_demo.evaluation.m3sciqa.judge import GradedJudge, JudgeReplyError, StoredVerdict
from spiqa_demo.evaluation.prompts import M3SCIQA_PROMPT_VERSION
from spiqa_demo.evaluation.records import ResultRecord
from spiqa_demo.evaluation.resume import ResultWriter
from spiqa_demo.models.base import ModelBackend
from spiqa_demo.questions import check_k
from spiqa_demo.settings import QASettings

Context = Literal["ranked", "title-only", "gold"]
CONTEXTS: tuple[Context, ...] = ("ranked", "title-only", "gold")
Ranker = Callable[[CombinedQuestion], CandidateRanking]
DATA_NOTE = "M3SciQA's cited papers come as titles and abstracts only (no full text): answers rest on those."


@dataclass(frozen=True)
class AnswerSettings:
    context: Context = "ranked"
    k: int = QASettings.model_fields["cited_k"].default
    chunk_chars: int = CHUNK_CHARS

    def __post_init__(self) -> None:
        if self.context not in CONTEXTS:
            raise InputError(f"unknown context {self.context!r}: use one of {', '.join(CONTEXTS)}")
        check_k(self.k)

    @property
    def task(self) -> str:
        """The record's task: the run's setting, so resuming continues only the same setting."""
        return f"m3sciqa-ranked-top{self.k}" if self.context == "ranked" else f"m3sciqa-{self.context}"


def context_papers(question: CombinedQuestion, data: CombinedData, ranking: CandidateRanking | None,
                   settings: AnswerSettings) -> list[ContextPaper]:
    """The cited papers the model is given for `question` under `settings`."""
    if settings.context == "ranked":
        if ranking is None:
            raise InputError("the ranked context needs a stage-1 ranking")
        return [ContextPaper.of(r.candidate) for r in ranking.ranked[: settings.k]]
    gold = data.candidate(question.anchor_id, question.gold_id)
    return [ContextPaper.of(gold, with_abstract=settings.context == "gold")]


def question_record(question: CombinedQuestion, data: CombinedData, settings: AnswerSettings, model: str) -> ResultRecord:
    """The record of `question` with its reference answer and no answer yet."""
    return ResultRecord(
        paper_id=question.anchor_id,
        question_key=question.key,
        question=question.question,
        ground_truth=question.answer,
        answer="",
        reference_figures=[question.figure] if question.figure else [],
        figure_category=question.modal,
        split=f"m3sciqa-{data.split}",
        task=settings.task,
        model=model,
        messages=[DATA_NOTE],
        details={
            "benchmark": "M3SciQA stage 2",
            "line": question.line,
            "context": settings.context,
            "k": settings.k,
            "reference_arxiv_id": question.reference_arxiv_id,
            "gold_id": question.gold_id,
            "anchor_reasoning_type": question.anchor_reasoning_type,
            "reference_reasoning_type": question.reference_reasoning_type,
            "question_anchor": question.question_anchor,
            "prompt_version": M3SCIQA_PROMPT_VERSION,
        },
    )


def answer_one(question: CombinedQuestion, data: CombinedData, backend: ModelBackend, rank: Ranker | None,
               judge: GradedJudge | None, settings: AnswerSettings) -> tuple[ResultRecord, str]:
    """The record of one question and, when the judge could not be reached, its error (the run stops on it)."""
    record = question_record(question, data, settings, backend.name)
    ranking = None
    if settings.context == "ranked":
        if rank is None:
            raise InputError("the ranked context needs a stage-1 ranker")
        started = perf_counter()
        ranking = rank(question)
        record.timings["ranking"] = perf_counter() - started
        record.details["gold_rank"] = ranking.rank_of(question.gold_id)
        record.details["ranking_notes"] = list(ranking.notes)
    papers = context_papers(question, data, ranking, settings)
    ranks = {p.id: ranking.rank_of(p.id) for p in papers} if ranking is not None else {}
    record.details["papers"] = [{"id": p.id, "title": p.title, "rank": ranks.get(p.id),
                                 "abstract": None if p.abstract is None else bool(p.abstract)} for p in papers]
    gold_in_context = any(p.id == question.gold_id for p in papers)
    record.details["gold_in_context"] = gold_in_context
    if settings.context == "ranked":
        record.metrics["retrieval_hit"] = float(gold_in_context)
    started = perf_counter()
    try:
        answer = answer_from_papers(backend, question.question, papers, settings.chunk_chars)
    except BackendError as exc:  # no reply at all: not written, so a re-run retries it
        record.error = str(exc)
        return record, ""
    record.timings["answer"] = perf_counter() - started
    record.answer = answer.answer
    record.raw_response = "\n\n---\n\n".join(answer.replies)
    record.parse = "abstained" if answer.abstained else "answered"
    record.metrics["abstained"] = float(answer.abstained)
    record.details["chunks"] = answer.chunks
    return record, judge_into(record, judge) if judge is not None else ""


def judge_into(record: ResultRecord, judge: GradedJudge) -> str:
    """Adds the judge's verdict to `record`; returns the error when the judge could not be reached.

    An unparseable reply is kept in `details["judge"]` with `error` saying so (no `judge` metric).
    """
    started = perf_counter()
    record.error = ""
    try:
        verdict = judge.judge(record.question, record.ground_truth, record.answer)
    except JudgeReplyError as exc:
        record.error = str(exc)
        record.details["judge"] = StoredVerdict(judge.name, exc.reply, None).to_dict()
        return ""
    except BackendError as exc:
        record.error = f"judge failed: {exc}"
        return f"the judge {judge.name!r} failed: {exc}; the answers so far are kept, run the same command again"
    record.timings["judge"] = perf_counter() - started
    record.metrics["judge"] = verdict.score
    record.details["judge"] = StoredVerdict.of(verdict).to_dict()
    return ""


def run_answers(
    data: CombinedData,
    backend: ModelBackend,
    out: Path,
    *,
    rank: Ranker | None = None,
    judge: GradedJudge | None = None,
    settings: AnswerSettings | None = None,
    limit: int | None = None,
    concurrency: int = 1,
    progress: bool = True,
) -> tuple[RunReport, list[ResultRecord]]:
    """Answer (and judge) the questions of `data` not yet in `out`; returns the run and every record of these questions.

    Questions are taken in file order (`limit`: the first N); `settings` default to `AnswerSettings()`.
    """
    settings = settings or AnswerSettings()
    questions = data.questions[:limit] if limit else data.questions
    writer = ResultWriter(out)
    try:
        writer.check_same_run(backend.name, settings.task)
        report = RunReport(total=len(questions), warnings=list(writer.warnings))
        todo = [q for q in questions if (q.anchor_id, q.key) not in writer.done]
        earlier = [writer.done[(q.anchor_id, q.key)] for q in questions if (q.anchor_id, q.key) in writer.done]
        report.already_done = len(questions) - len(todo)
        bar = tqdm(total=len(questions), initial=report.already_done, desc=f"M3SciQA {settings.task}", unit="q",
                   disable=not progress)
        try:
            answer_all(todo, lambda q: answer_one(q, data, backend, rank, judge, settings), lambda q: q.key,
                       concurrency, writer, report, bar)
        finally:
            bar.close()
        report.judged = sum("judge" in writer.done[k].metrics for q in todo if (k := (q.anchor_id, q.key)) in writer.done)
        if judge is not None:  # verdicts missing from an earlier run (judge down, or a reply it could not read)
            for record in [r for r in earlier if "judge" not in r.metrics]:
                judge_error = judge_into(record, judge)
                writer.write(record)
                report.judged += "judge" in record.metrics
                if judge_error:
                    raise PaperError(judge_error)
        keys = [(q.anchor_id, q.key) for q in questions]
        return report, [writer.done[k] for k in keys if k in writer.done]
    finally:
        writer.close()
