"""Read any SPIQA file into a `SpiqaDataset`, detecting its shape.

Shapes (the keys of one paper entry decide):
- test-A, train, val: `{id: {"paper_id", "all_figures": {file: {caption, content_type, figure_type}},
  "qa": [{question, answer, explanation, reference}]}}`
- test-B: `{arxiv_id: {"title", "all_figures_tables": {file: caption}, "figure_types",
  "passages", and parallel per-question lists "question", "composition" (the answer),
  "referred_figures_tables", "question_key", "question_type", ...}}`; in the official file the
  list/dict fields may be Python-literal strings, read with `ast.literal_eval`.
- test-C (QASPER-based): `{id: {"arxiv_id", "question": [...], "answer": [{free_form_answer,
  yes_no, ...}], "figures_and_tables": [{file, caption}], "referred_figures_tables": [[...]],
  "question_key", "full_text"}}`.
- test-C rebuilt from the official responses (`{"_provenance", "papers": {...}}`), no captions.

Bad files raise `PaperError`; a bad paper entry is skipped with a note in `SpiqaDataset.warnings`
(or raises with `strict=True`), so a partly damaged file still yields its good papers.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.spiqa.figure_names import parse_figure_file
from spiqa_demo.evaluation.spiqa.figure_types import normalise_figure_type
from spiqa_demo.evaluation.spiqa.model import Shape, SpiqaDataset, SpiqaFigure, SpiqaPaper, SpiqaQuestion
from spiqa_demo.paper_text import normalise_arxiv_id
from spiqa_demo.settings import EvaluationSettings

# Whole words only, so "latest-c" or "interval" name no split.
_SPLIT_PATTERNS = (
    (re.compile(r"(?<![a-z])test[-_ ]?a(?![a-z])", re.I), "test-A"),
    (re.compile(r"(?<![a-z])test[-_ ]?b(?![a-z])", re.I), "test-B"),
    (re.compile(r"(?<![a-z])test[-_ ]?c(?![a-z])", re.I), "test-C"),
    (re.compile(r"(?<![a-z])train", re.I), "train"),
    (re.compile(r"(?<![a-z])val", re.I), "val"),
)


class _EntryError(ValueError):
    """One paper entry is malformed; the message says what is wrong."""


def load_dataset(
    path: str | Path, split: str | None = None, strict: bool = False, settings: EvaluationSettings | None = None
) -> SpiqaDataset:
    """Load a SPIQA JSON file of any shape.

    `path` is a local file, or a split name ("test-A", "test-B", "test-C", "train", "val") that is
    fetched from the Hugging Face dataset when no such file exists. `split` overrides the split
    name otherwise guessed from the file name (then from the shape). `settings` say where the hub
    dataset is.
    """
    file = Path(path)
    if not file.exists():
        from spiqa_demo.evaluation.spiqa.hub import SPLIT_FILES, fetch_split_json

        if str(path) not in SPLIT_FILES:
            raise PaperError(f"SPIQA file not found: {path} (give a JSON file or one of {', '.join(SPLIT_FILES)})")
        split = split or str(path)
        file = fetch_split_json(str(path), settings)
    data = _read_json(file)
    shape, entries = detect_shape(data, file)
    split = split or split_from_name(file.name) or shape.removesuffix("-derived")
    reader = _READERS[shape]
    dataset = SpiqaDataset(split=split, shape=shape, papers=[], source=str(file))
    for key, entry in entries.items():
        try:
            paper = reader(str(key), entry, dataset.warnings)
        except (_EntryError, KeyError, TypeError, ValueError, AttributeError) as exc:
            message = f"paper {key}: {_describe(exc)}"
            if strict:
                raise PaperError(f"{file.name}: malformed {shape} entry, {message}") from exc
            dataset.warnings.append(f"skipped {message}")
            continue
        paper.split = split
        dataset.papers.append(paper)
    if not dataset.papers:
        first = dataset.warnings[0] if dataset.warnings else "no entries"
        raise PaperError(f"{file.name}: no usable {shape} paper entries ({first})")
    return dataset


def detect_shape(data: Any, file: Path | None = None) -> tuple[Shape, dict[str, Any]]:
    """The shape of parsed SPIQA JSON and its `{key: paper entry}` mapping; PaperError if unknown."""
    name = file.name if file else "SPIQA data"
    if isinstance(data, dict) and isinstance(data.get("papers"), dict) and "_provenance" in data:
        return "test-C-derived", data["papers"]
    if not isinstance(data, dict) or not data:
        raise PaperError(f"{name}: expected a JSON object of papers keyed by id, got {type(data).__name__ if data else 'nothing'}")
    for entry in data.values():
        if not isinstance(entry, dict):
            continue
        if "all_figures" in entry and "qa" in entry:
            return "test-A", data
        if "all_figures_tables" in entry:
            return "test-B", data
        if "figures_and_tables" in entry:
            return "test-C", data
    sample = next(iter(data.values()))
    keys = ", ".join(sorted(sample)[:8]) if isinstance(sample, dict) else type(sample).__name__
    raise PaperError(
        f"{name}: not a SPIQA file (a paper entry has {keys}; expected test-A 'all_figures'+'qa', "
        "test-B 'all_figures_tables' or test-C 'figures_and_tables')"
    )


def _read_json(file: Path) -> Any:
    if file.is_dir():
        raise PaperError(f"{file} is a folder; give the SPIQA JSON file")
    try:
        with file.open(encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as exc:
        raise PaperError(f"{file.name}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
    except UnicodeDecodeError as exc:
        raise PaperError(f"{file.name}: not a UTF-8 JSON file") from exc
    except OSError as exc:
        raise PaperError(f"cannot read {file}: {exc.strerror or exc}") from exc


def split_from_name(name: str) -> str | None:
    """The SPIQA split a file or folder name says it holds ("SPIQA_testA.json" -> "test-A"), if any."""
    return next((split for pattern, split in _SPLIT_PATTERNS if pattern.search(name)), None)


def _describe(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"missing field {exc.args[0]!r}"
    return str(exc) or type(exc).__name__


def _literal(value: Any, expected: type, name: str) -> Any:
    """`value` as `expected` (list/dict), parsing Python-literal or JSON strings as the official test-B has them."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                raise _EntryError(f"field {name!r} is not a {expected.__name__} literal") from None
    if not isinstance(value, expected):
        raise _EntryError(f"field {name!r} should be a {expected.__name__}, got {type(value).__name__}")
    return value


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _unique(files: Any) -> list[str]:
    """Reference files as a list without duplicates; a bare string is one reference."""
    if isinstance(files, str):
        files = [files]
    if not isinstance(files, list):
        raise _EntryError(f"reference figures should be a list of file names, got {type(files).__name__}")
    return list(dict.fromkeys(f for f in files if isinstance(f, str) and f))


def _figure(file: str, caption: str, content_type: str | None, raw_type: str | None) -> SpiqaFigure:
    """`kind`/`number` come from the file name (the printed label); the category also uses `content_type`."""
    parsed = parse_figure_file(file)
    kind = parsed.kind if parsed else ("table" if content_type == "table" else "figure")
    return SpiqaFigure(
        file=file,
        caption=_text(caption),
        kind=kind,
        number=parsed.number if parsed else "",
        page=parsed.page if parsed else None,
        figure_type=normalise_figure_type(raw_type, content_type or kind),
    )


def _parallel(entry: dict[str, Any], names: tuple[str, ...], key: str, warnings: list[str]) -> list[list[Any]]:
    """Per-question lists of test-B/test-C, cut to the shortest with a warning when they disagree."""
    columns = [_literal(entry[name], list, name) for name in names]
    lengths = {len(c) for c in columns}
    if len(lengths) > 1:
        warnings.append(f"paper {key}: per-question lists differ in length {sorted(lengths)}; kept the first {min(lengths)}")
    return columns


def _paper_id(*candidates: Any) -> str:
    for candidate in candidates:
        if isinstance(candidate, str) and (found := normalise_arxiv_id(candidate)):
            return found
    raise _EntryError("no arXiv id in the entry's key or fields")


def _read_test_a(key: str, entry: dict[str, Any], warnings: list[str]) -> SpiqaPaper:
    figures_raw = _literal(entry["all_figures"], dict, "all_figures")
    figures = {
        file: _figure(file, info.get("caption", ""), info.get("content_type"), info.get("figure_type"))
        for file, info in figures_raw.items()
        if isinstance(info, dict)
    }
    questions = []
    for i, qa in enumerate(_literal(entry["qa"], list, "qa")):
        if not isinstance(qa, dict) or not _text(qa.get("question")):
            warnings.append(f"paper {key}: question {i} has no question text; skipped")
            continue
        questions.append(
            SpiqaQuestion(
                key=str(qa.get("question_key", i)),
                question=_text(qa["question"]),
                answer=_text(qa.get("answer")),
                references=_unique(qa.get("reference", [])),
                explanation=_text(qa.get("explanation")),
            )
        )
    return SpiqaPaper(
        paper_id=_paper_id(entry.get("paper_id"), key),
        source_id=key,
        title=_text(entry.get("title")),
        figures=figures,
        questions=questions,
        passages=[],
    )


def _read_test_b(key: str, entry: dict[str, Any], warnings: list[str]) -> SpiqaPaper:
    captions = _literal(entry["all_figures_tables"], dict, "all_figures_tables")
    types = _literal(entry.get("figure_types", {}), dict, "figure_types")
    figures = {file: _figure(file, caption, None, types.get(file)) for file, caption in captions.items()}
    names = ("question", "composition", "referred_figures_tables")
    questions_raw, answers, references = _parallel(entry, names, key, warnings)
    keys = _literal(entry.get("question_key", []), list, "question_key")
    qtypes = _literal(entry.get("question_type", []), list, "question_type")
    questions = [
        SpiqaQuestion(
            key=str(keys[i]) if i < len(keys) else str(i),
            question=_text(question),
            answer=_text(answer),
            references=_unique(refs),
            question_type=_text(qtypes[i]) if i < len(qtypes) else "",
        )
        for i, (question, answer, refs) in enumerate(zip(questions_raw, answers, references))
    ]
    passages = [p.strip() for p in _literal(entry.get("passages", []), list, "passages") if isinstance(p, str) and p.strip()]
    return SpiqaPaper(
        paper_id=_paper_id(key, entry.get("arxiv_url"), entry.get("arxiv_id")),
        source_id=key,
        title=_text(entry.get("title")),
        figures=figures,
        questions=questions,
        passages=passages,
    )


def _test_c_answer(answer: Any) -> str:
    """The ground truth as SPIQA's test-C scripts compute it: free-form text, else Yes/No."""
    if isinstance(answer, str):
        return answer.strip()
    if not isinstance(answer, dict):
        return ""
    if isinstance(answer.get("answer"), dict):  # QASPER nests the fields one level deeper
        answer = answer["answer"]
    if _text(answer.get("free_form_answer")):
        return _text(answer["free_form_answer"])
    if isinstance(answer.get("yes_no"), bool):
        return "Yes" if answer["yes_no"] else "No"
    spans = answer.get("extractive_spans")
    return ", ".join(s.strip() for s in spans if isinstance(s, str)) if isinstance(spans, list) else ""


def _full_text(value: Any) -> list[str]:
    """QASPER full text (`[{section_name, paragraphs}]`, or `{section_name: [...], paragraphs: [[...]]}`) as paragraphs."""
    if isinstance(value, str):
        return [p.strip() for p in value.split("\n\n") if p.strip()]
    paragraphs: list[Any] = []
    if isinstance(value, dict):
        paragraphs = [p for section in value.get("paragraphs", []) for p in (section if isinstance(section, list) else [section])]
    elif isinstance(value, list):
        for section in value:
            paragraphs.extend(section.get("paragraphs", []) if isinstance(section, dict) else [section])
    return [p.strip() for p in paragraphs if isinstance(p, str) and p.strip()]


def _test_c_questions(keys: list[Any], questions: list[Any], answers: list[Any], references: list[Any]) -> list[SpiqaQuestion]:
    """Test-C's parallel lists as questions (both the official and the rebuilt shape)."""
    return [
        SpiqaQuestion(
            key=str(keys[i]) if i < len(keys) else str(i),
            question=_text(question),
            answer=_test_c_answer(answer),
            references=_unique(refs),
        )
        for i, (question, answer, refs) in enumerate(zip(questions, answers, references))
    ]


def _read_test_c(key: str, entry: dict[str, Any], warnings: list[str]) -> SpiqaPaper:
    figures: dict[str, SpiqaFigure] = {}
    for item in _literal(entry["figures_and_tables"], list, "figures_and_tables"):
        if isinstance(item, dict) and isinstance(item.get("file"), str):
            figures[item["file"]] = _figure(item["file"], item.get("caption", ""), None, None)
    questions_raw, answers, references = _parallel(entry, ("question", "answer", "referred_figures_tables"), key, warnings)
    keys = _literal(entry.get("question_key", []), list, "question_key")
    questions = _test_c_questions(keys, questions_raw, answers, references)
    return SpiqaPaper(
        paper_id=_paper_id(entry.get("arxiv_id"), key),
        source_id=key,
        title=_text(entry.get("title")),
        figures=figures,
        questions=questions,
        passages=_full_text(entry.get("full_text", [])),
    )


def _read_test_c_derived(key: str, entry: dict[str, Any], warnings: list[str]) -> SpiqaPaper:
    names = ("question", "answer", "referred_figures_names")
    questions_raw, answers, references = _parallel(entry, names, key, warnings)
    keys = _literal(entry.get("question_key", []), list, "question_key")
    seen = _literal(entry.get("figures_seen_in_cot_prompt", []), list, "figures_seen_in_cot_prompt")
    files = dict.fromkeys(f for group in [*seen, *references] for f in _unique(group))
    questions = _test_c_questions(keys, questions_raw, answers, references)
    return SpiqaPaper(
        paper_id=_paper_id(key),
        source_id=key,
        title="",
        figures={file: _figure(file, "", None, None) for file in files},
        questions=questions,
    )


_READERS: dict[Shape, Callable[[str, dict[str, Any], list[str]], SpiqaPaper]] = {
    "test-A": _read_test_a,
    "test-B": _read_test_b,
    "test-C": _read_test_c,
    "test-C-derived": _read_test_c_derived,
}
