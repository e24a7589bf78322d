"""Load any result file into one typed record list: our results.jsonl or an official SPIQA response file.

`read_results(path)` is the one entry point (the CLI's `score` and the app's error-analysis tab
use it). `align_with_dataset` joins records with a loaded SPIQA split: it fills what response
files lack (figure categories, the split name) and reports responses and questions that do not match.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.official import read_official
from spiqa_demo.evaluation.records import ResultRecord, ResultSet
from spiqa_demo.evaluation.spiqa import SpiqaDataset
from spiqa_demo.paper_text import normalise_arxiv_id


def read_results(path: str | Path) -> ResultSet:
    """Records from a results.jsonl, an official response JSON, or a folder of per-paper response files.

    Damaged parts (a truncated last line, a malformed entry) are skipped and listed in
    `ResultSet.warnings`; a file with nothing usable raises `PaperError`.
    """
    path = Path(path)
    if path.is_dir():
        result = read_official(_read_response_folder(path), str(path))
    elif not path.is_file():
        raise PaperError(f"result file not found: {path}")
    else:
        text = _read_text(path)
        if not text.strip():
            raise PaperError(f"{path.name} is empty: no results to read")
        data, problem = _decoded(text)
        if problem and not _first_line_is_object(text):
            raise PaperError(f"{path.name}: {problem}")
        if isinstance(data, dict) and not _looks_like_record(data):
            result = read_official(data, str(path))
        elif data is not None and not isinstance(data, dict):
            raise PaperError(f"{path.name}: expected SPIQA responses (a JSON object) or results.jsonl lines")
        else:
            result = read_jsonl(text, str(path))
    if not result.records:
        why = f": {result.warnings[0]}" if result.warnings else ""
        raise PaperError(f"{path.name}: no usable results{why}")
    return result


def read_jsonl(text: str, source: str = "") -> ResultSet:
    """Records from results.jsonl text; bad lines are skipped with a warning, a repeated question keeps its last line."""
    by_key: dict[tuple[str, str], ResultRecord] = {}
    warnings: list[str] = []
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        data, problem = _decoded(line)
        if problem:
            last = number == len(lines)
            warnings.append(f"line {number}: not valid JSON" + (" (a run interrupted while writing?)" if last else ""))
            continue
        try:
            if not isinstance(data, dict):
                raise ValueError(f"a JSON {type(data).__name__}, not an object")
            record = ResultRecord.from_dict(data)
        except (ValueError, TypeError) as exc:
            warnings.append(f"line {number}: skipped ({exc})")
            continue
        by_key[record.key] = record  # a later line replaces an earlier one (verdicts added by a re-run)
    return ResultSet(records=list(by_key.values()), source=source, kind="results.jsonl", warnings=warnings)


@dataclass
class Alignment:
    """How a result file lines up with a dataset."""

    matched: int
    unknown: list[tuple[str, str]] = field(default_factory=list)  # in the results, not in the dataset
    missing: list[tuple[str, str]] = field(default_factory=list)  # in the dataset, not in the results

    def messages(self, dataset_name: str) -> list[str]:
        out = []
        if self.unknown:
            out.append(f"{len(self.unknown)} result(s) match no question of {dataset_name} and are not scored "
                       f"(e.g. {_show(self.unknown)})")
        if self.missing:
            out.append(f"{len(self.missing)} question(s) of {dataset_name} have no result (e.g. {_show(self.missing)})")
        return out


def align_with_dataset(results: ResultSet, dataset: SpiqaDataset) -> Alignment:
    """Keep the records whose question is in `dataset`, filling split, category and missing ground truth.

    Records are matched by (arXiv id without version, question key). Nothing matching at all is an
    error (most likely the wrong split); partial overlap is reported in the returned `Alignment`.
    """
    questions = {}
    for paper, question in dataset.questions():
        questions[(paper.paper_id, question.key)] = (paper, question)
    kept, unknown = [], []
    for record in results.records:
        key = (normalise_arxiv_id(record.paper_id) or record.paper_id, record.question_key)
        if key not in questions:
            unknown.append(record.key)
            continue
        paper, question = questions[key]
        record.split = dataset.split
        record.ground_truth = record.ground_truth or question.answer
        record.reference_figures = record.reference_figures or list(question.references)
        reference = paper.figure(record.reference_figures[0]) if record.reference_figures else None
        if reference is not None:
            record.figure_category = reference.figure_type
        kept.append(record)
    if not kept:
        raise PaperError(
            f"none of the {len(results.records)} results matches a question of {dataset.source or dataset.split} "
            f"(e.g. {_show(unknown)}); is it the right split?"
        )
    seen = {(normalise_arxiv_id(r.paper_id) or r.paper_id, r.question_key) for r in kept}
    results.records = kept
    return Alignment(matched=len(kept), unknown=unknown, missing=[k for k in questions if k not in seen])


def _show(keys: list[tuple[str, str]]) -> str:
    return ", ".join(f"{p}/{q}" for p, q in keys[:3])


def _looks_like_record(data: dict[str, Any]) -> bool:
    return "question_key" in data and "paper_id" in data


def _first_line_is_object(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return isinstance(_decoded(first)[0], dict)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise PaperError(f"{path.name}: not a UTF-8 text file") from exc
    except OSError as exc:
        raise PaperError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _decoded(text: str) -> tuple[Any, str]:
    """`(value, "")`, or `(None, why)` when `text` is not JSON this reader takes: malformed, nested
    deeper than Python's recursion limit, or holding an integer longer than Python converts (its
    guard against quadratic-time conversion); a result file is whatever its uploader made it."""
    try:
        return json.loads(text), ""
    except json.JSONDecodeError as exc:
        return None, (f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                      "a truncated download or an interrupted write?")
    except RecursionError:
        return None, "JSON nested deeper than this app reads"
    except ValueError:
        return None, "JSON holding a number too long to read"


def _read_response_folder(folder: Path) -> dict[str, Any]:
    """SPIQA's repository layout: one `<arxiv_id>_response.json` per paper, `{question_key: entry}`."""
    files = sorted(folder.glob("*.json"))
    if not files:
        raise PaperError(f"{folder}: no SPIQA response files (*.json) in this folder")
    merged: dict[str, Any] = {}
    for file in files:
        data, _ = _decoded(_read_text(file))
        if not isinstance(data, dict):
            raise PaperError(f"{file.name}: not a SPIQA response file (expected a JSON object)")
        merged[file.stem.removesuffix("_response")] = data
    return merged
