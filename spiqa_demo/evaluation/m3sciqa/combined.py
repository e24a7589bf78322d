"""M3SciQA's combined questions (stage 2: answer from the cited paper), from a folder with the layout of `shared/m3sciqa`.

A combined question starts at a figure or table of an anchor paper ("Consider the paper that
introduces the method with 28.62 on WQ-B ...") and asks about the cited paper it leads to. Read:
`m3sciqa/data/combined_<split>.jsonl` and the anchor clusters and gold mapping that stage 1 reads
(`load_locality`), so both stages see the same seeded candidate order. Only the val split has
answers; test answers are hidden, so only val can be scored.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from spiqa_demo.crosspaper.types import CitedCandidate
from spiqa_demo.errors import InputError
from spiqa_demo.evaluation.m3sciqa.data import DEFAULT_SEED, _read_json, _read_jsonl, load_locality

SPLITS = ("val", "test")


@dataclass(frozen=True)
class CombinedQuestion:
    """One combined question; `key` is stable across runs (it is what resuming matches on)."""

    key: str
    line: int  # 1-based line in combined_<split>.jsonl
    question: str
    answer: str  # "" in the test split
    figure: str  # image path relative to m3sciqa/data, as stored
    image: Path
    anchor_id: str
    reference_arxiv_id: str
    gold_id: str  # S2 id of the cited paper the question leads to
    modal: str  # "figure" or "table"
    anchor_reasoning_type: str
    reference_reasoning_type: str
    question_anchor: str  # the visual part alone, which stage 1 ranks with


@dataclass
class CombinedData:
    """The questions of one split and each anchor's candidates in stage 1's seeded order."""

    root: Path
    split: str
    questions: list[CombinedQuestion]
    clusters: dict[str, list[CitedCandidate]]
    seed: int

    def candidate(self, anchor_id: str, candidate_id: str) -> CitedCandidate:
        return next(c for c in self.clusters[anchor_id] if c.id == candidate_id)


def question_key(anchor_id: str, question: str, seen: dict[str, int]) -> str:
    """A short hash of the anchor and question; a repeated identical question gets `-2`, `-3`, ..."""
    base = hashlib.sha1(f"{anchor_id}|{question}".encode()).hexdigest()[:12]
    seen[base] = seen.get(base, 0) + 1
    return base if seen[base] == 1 else f"{base}-{seen[base]}"


def load_combined(root: Path, split: str = "val", seed: int = DEFAULT_SEED) -> CombinedData:
    """Every combined question of `split` whose gold maps to its anchor's cluster.

    Raises `InputError` for an unknown split, a missing or malformed file, or an unmapped gold.
    """
    if split not in SPLITS:
        raise InputError(f"unknown M3SciQA split {split!r}: use {' or '.join(SPLITS)}")
    root = Path(root)
    locality = load_locality(root, seed=seed)
    gold = _read_json(root / "derived" / "gold_reference_s2.json")
    data_dir = root / "m3sciqa" / "data"
    questions: list[CombinedQuestion] = []
    seen: dict[str, int] = {}
    for line, row in enumerate(_read_jsonl(data_dir / f"combined_{split}.jsonl"), 1):
        anchor, reference = str(row["anchor_arxiv_id"]), str(row["reference_arxiv_id"])
        mapped = gold.get(f"{anchor}|{reference}")
        if mapped is None or anchor not in locality.clusters:
            raise InputError(f"combined_{split}.jsonl line {line}: no gold S2 id for {anchor}|{reference} in derived/")
        gold_id = str(mapped["reference_s2_id"])
        if gold_id not in locality.file_order[anchor]:
            raise InputError(f"combined_{split}.jsonl line {line}: gold {gold_id} is not in {anchor}'s cluster")
        question = str(row["question"])
        questions.append(
            CombinedQuestion(
                key=question_key(anchor, question, seen),
                line=line,
                question=question,
                answer=str(row.get("answer") or ""),
                figure=str(row.get("figure") or ""),
                image=data_dir / str(row.get("figure") or ""),
                anchor_id=anchor,
                reference_arxiv_id=reference,
                gold_id=gold_id,
                modal=str(row.get("modal") or ""),
                anchor_reasoning_type=str(row.get("anchor_reasoning_type") or ""),
                reference_reasoning_type=str(row.get("reference_reasoning_type") or ""),
                question_anchor=str(row.get("question_anchor") or ""),
            )
        )
    return CombinedData(root=root, split=split, questions=questions, clusters=locality.clusters, seed=seed)
