"""The official SPIQA model-response files, read into `ResultRecord`s as SPIQA's metric scripts read them.

Shape: `{arxiv_id: {question_key: {question, response, answer, referred_figures_names, ...}}}`
(or a folder of per-paper `<arxiv_id>_response.json` files holding the inner mapping). Three reply
formats occur, detected from the replies themselves:

- CoT (`{'Image': i, 'Rationale': ...}` then "The answer is: ..."): the answer is the text after
  "The answer is" (or "The answer to the question is"), exactly as `close_models_metrics_CoT.py`
  cuts it; the chosen image is read by the QA flow's CoT parser (`spiqa_demo.qa.parsing`), which
  finds it wherever SPIQA's parser does, and is mapped to `all_figures_names`.
- direct (`{'Answer': ...}`): the answer is cut as `close_models_metrics.py` cuts it.
- per-figure (SPIQA's open models: `{figure: [helpful?, answer]}`): every figure judged helpful
  contributes its answer, as `open_models_metrics.py` scores them.

Cutting answers the way the scripts did is what makes the paper's numbers reproduce here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from spiqa_demo.evaluation.records import FigureAnswer, ResultRecord, ResultSet
from spiqa_demo.evaluation.spiqa import normalise_figure_type, parse_figure_file, split_from_name
from spiqa_demo.paper_text import normalise_arxiv_id
from spiqa_demo.qa.parsing import parse_cot

_IMAGE_KEY = re.compile(r"""['"]Image['"]\s*:""")


def spiqa_cot_answer(response: str) -> str:
    """The answer part of a CoT reply, cut as SPIQA's CoT metric script cuts it."""
    for mark in ("The answer is", "The answer to the question is"):
        parts = response.split(mark)
        if len(parts) == 2:
            return parts[1]
    return response


def spiqa_direct_answer(response: str) -> str:
    """The answer of a direct reply (`{'Answer': ...}`), cut as SPIQA's direct metric script cuts it."""
    return response.split("'Image':")[0].replace("'Answer':", "").replace("{", "")[:-1].strip()


def detect_format(entries: list[dict[str, Any]]) -> str:
    """"per-figure", "cot" or "direct", by what most replies look like."""
    replies = [e.get("response") for e in entries]
    if sum(isinstance(r, dict) for r in replies) * 2 > len(replies):
        return "per-figure"
    texts = [r for r in replies if isinstance(r, str)]
    return "cot" if sum(bool(_IMAGE_KEY.search(t)) for t in texts) * 2 >= max(len(texts), 1) else "direct"


def run_name(source: str) -> tuple[str, str]:
    """(model/setting, split) from an official file or folder path.

    Merged files: `test-C_GPT4_QA__gpt4o_cot_image+caption_size_full.json`; SPIQA's repository:
    `test-C_Responses/test-C_GPT4_QA/gpt4o_cot_image+caption_size_full/`.
    """
    path = Path(source)
    stem = path.name.removesuffix(".json")
    split = "test-C" if any(split_from_name(part) == "test-C" for part in path.parts) else ""
    return stem.split("__", 1)[-1], split


def _category(references: list[str]) -> str:
    """Without the dataset only the kind is known: tables are "table", figures "other" (as test-C)."""
    parsed = parse_figure_file(references[0]) if references else None
    return normalise_figure_type(None, parsed.kind) if parsed else ""


def _names(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _record(paper_id: str, key: str, entry: dict[str, Any], fmt: str, model: str, split: str) -> ResultRecord:
    reply = entry.get("response")
    references = _names(entry.get("referred_figures_names"))
    record = ResultRecord(
        paper_id=normalise_arxiv_id(paper_id) or paper_id,
        question_key=str(key),
        question=str(entry.get("question", "")),
        ground_truth=str(entry["answer"]),
        answer="",
        reference_figures=references,
        figure_category=_category(references),
        split=split,
        task=fmt,
        model=model,
        all_figures=_names(entry.get("all_figures_names")),
        raw_response=reply if isinstance(reply, str) else repr(reply),
    )
    if fmt == "per-figure":
        items = reply.items() if isinstance(reply, dict) else []
        record.figure_answers = [
            FigureAnswer(str(figure), str(v[0]), str(v[1]))
            for figure, v in items
            if isinstance(v, (list, tuple)) and len(v) >= 2
        ]
        record.answer = record.predictions[0]
    elif not isinstance(reply, str):
        record.parse = "failed"  # the scripts score a missing reply as an empty answer
    elif fmt == "direct":
        record.answer = spiqa_direct_answer(reply)
    else:
        record.answer = spiqa_cot_answer(reply)
        cot = parse_cot(reply)
        record.parse = cot.method
        record.chosen_index = cot.image
        if cot.image is not None and 0 <= cot.image < len(record.all_figures):
            record.chosen_figure = record.all_figures[cot.image]
    return record


def read_official(data: Any, source: str) -> ResultSet:
    """Records from parsed official response JSON; malformed entries are skipped with a warning."""
    model, split = run_name(source)
    warnings: list[str] = []
    entries: list[tuple[str, str, dict[str, Any]]] = []
    for paper_id, questions in data.items():
        if not isinstance(questions, dict):
            warnings.append(f"paper {paper_id}: expected an object of questions, got {type(questions).__name__}")
            continue
        for key, entry in questions.items():
            if not isinstance(entry, dict) or "answer" not in entry or "response" not in entry:
                what = "no 'answer'" if isinstance(entry, dict) and "response" in entry else "no 'response'"
                what = what if isinstance(entry, dict) else f"a {type(entry).__name__}, not an object"
                warnings.append(f"paper {paper_id} question {key}: skipped ({what})")
                continue
            entries.append((str(paper_id), str(key), entry))
    fmt = detect_format([e for _, _, e in entries]) if entries else "direct"
    records = [_record(p, k, e, fmt, model, split) for p, k, e in entries]
    return ResultSet(records=records, source=source, kind=f"spiqa-{fmt}", warnings=warnings)
