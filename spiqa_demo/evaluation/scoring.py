"""Score a set of records: the SPIQA metrics overall, per split and per figure category.

COCO metrics are computed over each group as one set (as SPIQA computed them over a split);
BERTScore and L3Score are means of per-answer values; retrieval accuracy applies to CoT records.
`overview` gives the few headline numbers the app's summary lines show, cheap enough to redo as each
answer comes in. With a judge, answers without a verdict of that judge are judged (concurrently for APIs) and the
verdicts are stored in the records, so a caller can write them out and never ask twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tqdm.auto import tqdm

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.metrics.classic import COCO_KEYS, CocoMetrics, bert_score_f1
from spiqa_demo.evaluation.metrics.l3score import L3Judge, L3Result
from spiqa_demo.evaluation.metrics.retrieval_accuracy import retrieval_accuracy
from spiqa_demo.evaluation.records import ResultRecord
from spiqa_demo.evaluation.spiqa import FIGURE_TYPES
from spiqa_demo.settings import EvaluationSettings

METRIC_KEYS = ("retrieval_accuracy", *COCO_KEYS, "BERTScore-F1", "L3Score")


@dataclass
class GroupScores:
    """The metrics of one group of questions (values on a 0-1 scale; None: not computed)."""

    n: int
    values: dict[str, float | None]

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, **self.values}


@dataclass
class Summary:
    """All scores of one result file: overall, per split (SPIQA Tables 3/5) and per category (Table 6)."""

    overall: GroupScores
    by_split: dict[str, GroupScores]
    by_category: dict[str, GroupScores]
    model: str = ""
    task: str = ""
    judge: str | None = None
    source: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The `--json` object: overall metrics at the top level, groups and notes below."""
        return {
            **self.overall.to_dict(),
            "model": self.model,
            "task": self.task,
            "judge": self.judge,
            "source": self.source,
            "scale": "0-1 (CIDEr 0-10); the tables print x100 like the SPIQA paper",
            "by_split": {k: v.to_dict() for k, v in self.by_split.items()},
            "by_category": {k: v.to_dict() for k, v in self.by_category.items()},
            "notes": self.notes,
        }


@dataclass
class _Pair:
    record: int
    slot: int  # index into the record's predictions
    prediction: str
    reference: str


def _pairs(records: Sequence[ResultRecord]) -> list[_Pair]:
    return [
        _Pair(i, slot, text, record.ground_truth)
        for i, record in enumerate(records)
        for slot, text in enumerate(record.predictions)
    ]


def judge_records(
    records: Sequence[ResultRecord],
    judge: L3Judge,
    concurrency: int = 1,
    on_done: Callable[[ResultRecord], None] | None = None,
    progress: bool = False,
) -> int:
    """Give every answer without a verdict of `judge` an L3Score; returns how many were judged.

    `on_done(record)` runs (in the calling thread) as each record's verdicts are complete, so
    they can be written out at once. A judge error stops the run after the finished records.
    """
    todo = [r for r in records if not _has_verdicts(r, judge.names)]
    if not todo:
        return 0

    bar = tqdm(total=len(todo), desc=f"L3Score ({judge.name})", unit="q", disable=not progress)
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = [pool.submit(judge_record, r, judge) for r in todo]
        try:
            for future in futures:
                record = future.result()
                if on_done:
                    on_done(record)
                bar.update(1)
        except BaseException:
            for pending in futures:
                pending.cancel()
            raise
        finally:
            bar.close()
    return len(todo)


def judge_record(record: ResultRecord, judge: L3Judge) -> ResultRecord:
    """`record` with `judge`'s verdict on each of its predictions (`l3`) and their mean L3Score.

    A judge failure raises `PaperError` and leaves the record as it was.
    """
    verdicts = [judge.score(record.question, record.ground_truth, text) for text in record.predictions]
    record.l3 = verdicts
    record.metrics["L3Score"] = sum(v.score for v in verdicts) / len(verdicts)
    exact = [v.exact for v in verdicts if v.exact is not None]
    if len(exact) == len(verdicts):
        record.metrics["L3Score-exact"] = sum(exact) / len(exact)
    return record


def _has_verdicts(record: ResultRecord, judges: set[str]) -> bool:
    verdicts = _answer_verdicts(record)
    return bool(verdicts) and all(v.judge in judges for v in verdicts)


def _answer_verdicts(record: ResultRecord) -> list[L3Result]:
    """The record's verdicts, one per prediction; none when some are missing, as they cannot be matched to answers."""
    return record.l3 if len(record.l3) == len(record.predictions) else []


def score_records(
    records: Sequence[ResultRecord],
    bertscore: bool = True,
    settings: EvaluationSettings | None = None,
) -> Summary:
    """The metrics of `records` overall, per split and per figure category.

    L3Score comes from the verdicts stored in the records (`judge_records` adds them); verdicts
    of different judges are not comparable, so mixed ones are reported, not averaged. BERTScore that cannot
    run (no model offline) is left out with a note rather than failing the other metrics.
    """
    notes: list[str] = []
    pairs = _pairs(records)
    coco = CocoMetrics([p.prediction for p in pairs], [p.reference for p in pairs]) if pairs else None
    bert: list[float] | None = None
    if bertscore and pairs:
        try:
            bert = bert_score_f1([p.prediction for p in pairs], [p.reference for p in pairs], settings=settings)
        except PaperError as exc:
            notes.append(f"BERTScore-F1 not computed: {exc}")
    judge_name, l3 = _l3_values(records, pairs, notes)

    computed: dict[frozenset[int], GroupScores] = {}

    def group(indices: Iterable[int]) -> GroupScores:
        members = frozenset(indices)
        if members in computed:  # e.g. a single split is the whole set
            return computed[members]
        subset = [k for k, p in enumerate(pairs) if p.record in members]
        values: dict[str, float | None] = dict.fromkeys(METRIC_KEYS)
        values["retrieval_accuracy"] = _retrieval_accuracy([records[i] for i in sorted(members)])
        if coco is not None and subset:
            values.update(coco.score(subset))
        if bert is not None and subset:
            values["BERTScore-F1"] = sum(bert[k] for k in subset) / len(subset)
        scored = [v for v in (l3[k] for k in subset) if v is not None]
        if scored:
            values["L3Score"] = sum(score for score, _ in scored) / len(scored)
            exact = [e for _, e in scored if e is not None]
            if len(exact) == len(scored):
                values["L3Score-exact"] = sum(exact) / len(exact)
        computed[members] = GroupScores(n=len(members), values=values)
        return computed[members]

    by_split = _groups(records, lambda r: r.split or "all", order=("test-A", "test-B", "test-C"))
    by_category = _groups(records, lambda r: r.figure_category, order=FIGURE_TYPES)
    by_category.pop("", None)
    failures = sum(r.parse == "failed" for r in records if r.task == "cot")
    if failures:
        notes.append(f"{failures} CoT replies named no figure; they count as retrieval misses")
    empty = sum(not r.answer.strip() for r in records)
    if empty:
        notes.append(f"{empty} empty answers; scored as empty predictions")
    models = sorted({r.model for r in records if r.model})
    tasks = sorted({r.task for r in records if r.task})
    return Summary(
        overall=group(range(len(records))),
        by_split={name: group(ids) for name, ids in by_split.items()},
        by_category={name: group(ids) for name, ids in by_category.items()},
        model=", ".join(models),
        task=", ".join(tasks),
        judge=judge_name,
        notes=notes,
    )


def _retrieval_accuracy(records: Sequence[ResultRecord]) -> float | None:
    """SPIQA's top-1 accuracy over the CoT records (only that task names a chosen figure)."""
    cot = [r for r in records if r.task == "cot"]
    return retrieval_accuracy([r.chosen_figure for r in cot], [r.reference_figures for r in cot])


def _l3_values(
    records: Sequence[ResultRecord], pairs: Sequence[_Pair], notes: list[str]
) -> tuple[str | None, list[tuple[float, float | None] | None]]:
    """The judge and, per pair, (score, exact) from its stored verdict; None where there is none."""
    judges = sorted({v.judge for r in records for v in r.l3 if v.judge})
    if len(judges) > 1:
        notes.append(f"L3Score not computed: verdicts of several judges ({', '.join(judges)}) are not comparable")
        return None, [None] * len(pairs)
    if not judges:
        return None, [None] * len(pairs)
    values: list[tuple[float, float | None] | None] = []
    for pair in pairs:
        verdicts = _answer_verdicts(records[pair.record])
        values.append((verdicts[pair.slot].score, verdicts[pair.slot].exact) if verdicts else None)
    have = sum(v is not None for v in values)
    if have < len(pairs):
        notes.append(f"L3Score ({judges[0]}) covers {have} of {len(pairs)} answers")
    return judges[0], values


@dataclass(frozen=True)
class Overview:
    """The headline numbers of a set of answers, as the app's summary lines show them.

    `l3` holds one mean L3Score per judge: like `score_records`, it never averages verdicts of
    different judges, which are not comparable; it shows each judge's mean rather than none, as a
    summary line has room for them.
    """

    questions: int
    right: int  # answers whose chosen figure is a reference
    told: int  # answers where that can be told
    l3: dict[str, float]  # judge name ("" when a verdict names none) -> mean L3Score of its verdicts
    rouge_l: float | None  # mean per-answer ROUGE-L

    @property
    def retrieval_accuracy(self) -> float | None:
        return self.right / self.told if self.told else None


def overview(
    records: Sequence[ResultRecord],
    hits: Sequence[bool | None] | None = None,
    rouge_l: Sequence[float | None] | None = None,
) -> Overview:
    """The headline numbers of `records`; None in `hits` / `rouge_l`: no value for that record.

    `hits` (whether each record's chosen figure is a reference) and `rouge_l` default to the
    records' stored `retrieval_hit` and `ROUGE-L`; error analysis passes its own, as result
    files need not store them.
    """
    if hits is None:
        hits = [r.retrieval_hit for r in records]
    if rouge_l is None:
        rouge_l = [r.metrics.get("ROUGE-L") for r in records]
    told = [hit for hit in hits if hit is not None]
    rouge = [value for value in rouge_l if value is not None]
    return Overview(
        questions=len(records),
        right=sum(told),
        told=len(told),
        l3=_l3_means(records),
        rouge_l=sum(rouge) / len(rouge) if rouge else None,
    )


def _l3_means(records: Sequence[ResultRecord]) -> dict[str, float]:
    """Each judge's mean over its verdicts on answers (the pairs `score_records` scores), by judge name."""
    scores: dict[str, list[float]] = {}
    for record in records:
        for verdict in _answer_verdicts(record):
            scores.setdefault(verdict.judge, []).append(verdict.score)
    return {judge: sum(values) / len(values) for judge, values in sorted(scores.items())}


def _groups(records: Sequence[ResultRecord], key: Callable[[ResultRecord], str], order: Sequence[str]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for i, record in enumerate(records):
        groups.setdefault(key(record), []).append(i)
    rank = {name: i for i, name in enumerate(order)}
    return dict(sorted(groups.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))
