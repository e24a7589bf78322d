"""M3SciQA's stage-1 ("locality") data, from a folder with the layout of `shared/m3sciqa`.

Read: `m3sciqa/data/locality.jsonl` (questions, anchor images), `m3sciqa/paper_cluster_S2.json` and
`..._content.json` (each anchor's cited papers: S2 id, title, abstract) and the offline gold mapping
`derived/gold_reference_s2.json` (anchor + gold arXiv id -> the cluster's S2 id). The stored
cluster order leaks the answer, so every cluster is put in a seeded pseudo-random order that
depends only on the seed and the candidates' ids: the same folder with its clusters stored in
another order loads identically. `file_order` keeps the stored order for the baseline only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spiqa_demo.crosspaper.types import CitedCandidate, seeded_order
from spiqa_demo.errors import InputError

REASONING_TYPES = {"1": "Comparison", "2": "Data Extraction", "3": "Location", "4": "Visual Understanding"}
DEFAULT_SEED = 0


@dataclass(frozen=True)
class LocalityQuestion:
    """One visual-context question; `gold_id` is the S2 id of the cited paper it points to."""

    line: int  # 1-based line in locality.jsonl
    question: str
    image: Path
    anchor_id: str
    reference_arxiv_id: str
    gold_id: str
    modal: str  # "figure" or "table"
    reasoning_type: str  # "Comparison", "Data Extraction", "Location", "Visual Understanding"
    in_first_20: bool  # the gold is among the first 20 stored candidates (the released code's cut)
    suspect_label: bool


@dataclass
class LocalityData:
    """Questions and each anchor's candidates: `clusters` shuffled (seeded), `file_order` as stored."""

    root: Path
    questions: list[LocalityQuestion]
    clusters: dict[str, list[CitedCandidate]]
    file_order: dict[str, list[str]]
    seed: int


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(f"M3SciQA file missing: {path} (expected the layout of shared/m3sciqa)") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"M3SciQA file is not valid JSON: {path} ({exc})") from exc


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError(f"M3SciQA file missing: {path} (expected the layout of shared/m3sciqa)")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{number} is not valid JSON ({exc})") from exc
    return rows


def _clusters(root: Path) -> tuple[dict[str, list[CitedCandidate]], dict[str, list[str]]]:
    ids = _read_json(root / "m3sciqa" / "paper_cluster_S2.json")
    contents = _read_json(root / "m3sciqa" / "paper_cluster_S2_content.json")
    clusters: dict[str, list[CitedCandidate]] = {}
    for anchor, s2_ids in ids.items():
        entries = contents.get(anchor)
        if entries is None or len(entries) != len(s2_ids):
            raise InputError(f"cluster of {anchor}: ids and titles/abstracts do not line up")
        clusters[anchor] = [
            CitedCandidate(id=s2, title=(e.get("title") or "").strip(), abstract=(e.get("abstract") or "").strip())
            for s2, e in zip(s2_ids, entries)
        ]
    return clusters, {anchor: list(s2_ids) for anchor, s2_ids in ids.items()}


def load_locality(root: Path, seed: int = DEFAULT_SEED) -> LocalityData:
    """Every locality question of `root` whose gold maps to its anchor's cluster.

    Raises `InputError` for a missing or malformed file, or a question whose gold is unmapped.
    """
    root = Path(root)
    clusters, file_order = _clusters(root)
    gold = _read_json(root / "derived" / "gold_reference_s2.json")
    data_dir = root / "m3sciqa" / "data"
    questions = []
    for line, row in enumerate(_read_jsonl(data_dir / "locality.jsonl"), 1):
        anchor, reference = str(row["anchor_id"]), str(row["reference_id"])
        mapped = gold.get(f"{anchor}|{reference}")
        if mapped is None or anchor not in clusters:
            raise InputError(f"locality.jsonl line {line}: no gold S2 id for {anchor}|{reference} in derived/")
        if mapped["reference_s2_id"] not in file_order[anchor]:
            raise InputError(f"locality.jsonl line {line}: gold {mapped['reference_s2_id']} is not in {anchor}'s cluster")
        questions.append(
            LocalityQuestion(
                line=line,
                question=str(row["question_anchor"]),
                image=data_dir / str(row["evidence_anchor"]),
                anchor_id=anchor,
                reference_arxiv_id=reference,
                gold_id=str(mapped["reference_s2_id"]),
                modal=str(row.get("modal") or ""),
                reasoning_type=REASONING_TYPES.get(str(row.get("anchor_reasoning_type")), str(row.get("anchor_reasoning_type"))),
                in_first_20=bool(mapped.get("in_first_20")),
                suspect_label=bool(mapped.get("suspect_label")),
            )
        )
    return LocalityData(
        root=root,
        questions=questions,
        clusters={anchor: seeded_order(cands, seed) for anchor, cands in clusters.items()},
        file_order=file_order,
        seed=seed,
    )
