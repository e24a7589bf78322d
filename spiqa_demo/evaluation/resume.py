"""Appending to results.jsonl so an interrupted run loses nothing and a re-run recomputes nothing.

Every finished question is one line, written and flushed at once. Opening an existing file reads
what it holds (those questions are done), and cuts off an incomplete last line left by a run
killed mid-write, so the file stays valid JSONL.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.reader import read_jsonl
from spiqa_demo.evaluation.records import ResultRecord


class ResultWriter:
    """A results.jsonl opened for appending; `done` holds the records already in it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warnings: list[str] = []
        self.done: dict[tuple[str, str], ResultRecord] = {}
        if path.is_dir():
            raise PaperError(f"--out {path} is a folder; give a file name such as results.jsonl")
        if path.exists():
            self._load()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = path.open("a", encoding="utf-8")
        except OSError as exc:
            raise PaperError(f"cannot write {path}: {exc.strerror or exc}") from exc

    def _load(self) -> None:
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise PaperError(f"cannot read {self.path}: {exc.strerror or exc}") from exc
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            with self.path.open("r+b") as handle:
                handle.truncate(cut)
            data = data[:cut]
            self.warnings.append("dropped an incomplete last line (a run interrupted while writing)")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PaperError(f"{self.path.name} is not a results.jsonl file (not UTF-8 text)") from exc
        existing = read_jsonl(text, str(self.path))
        if text.strip() and not existing.records:
            raise PaperError(f"{self.path.name} is not a results.jsonl file ({existing.warnings[0]}); "
                             "give another --out")
        self.warnings += existing.warnings
        self.done = {r.key: r for r in existing.records}

    def check_same_run(self, model: str, task: str) -> None:
        """Refuse to add a run's records to a file holding another model's or task's: resuming continues one run."""
        other = next((r for r in self.done.values() if (r.model, r.task) != (model, task)), None)
        if other is not None:
            raise PaperError(
                f"{self.path} holds results of model {other.model!r}, task {other.task!r}; this run is model "
                f"{model!r}, task {task!r}. Give another --out (resuming only continues the same run)"
            )

    def write(self, record: ResultRecord) -> None:
        """Append one record as a line and flush it to disk."""
        self._handle.write(record.to_json() + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self.done[record.key] = record

    def write_missing(self, records: Iterable[ResultRecord]) -> None:
        """Append the records not yet in the file."""
        for record in records:
            if record.key not in self.done:
                self.write(record)

    def reuse_verdicts(self, records: Iterable[ResultRecord]) -> list[str]:
        """Copy L3Score verdicts already in the file onto the same questions; returns the warnings so far."""
        for record in records:
            old = self.done.get(record.key)
            if old is not None and old.l3 and old.predictions == record.predictions:
                record.l3 = old.l3
                record.metrics.update({k: v for k, v in old.metrics.items() if k.startswith("L3Score")})
        return self.warnings

    def close(self) -> None:
        self._handle.close()
