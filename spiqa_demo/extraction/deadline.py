"""The extraction's time limit (`SPIQA_EXTRACTION_TIMEOUT_S`): a hostile or huge file is stopped
with an `InputError` instead of holding a worker; reading pages, OCR and cropping all check it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from spiqa_demo.errors import InputError


@dataclass(frozen=True)
class Deadline:
    """`limit_s` seconds from when it is made (the PDF just opened) to extract `path`."""

    path: Path
    limit_s: float
    started: float = field(default_factory=time.monotonic)

    @property
    def at(self) -> float:
        """The `time.monotonic()` reading at which time is up (what OCR runs are given)."""
        return self.started + self.limit_s

    def check(self) -> None:
        """`InputError` when the time is up."""
        if time.monotonic() - self.started > self.limit_s:
            raise InputError(f"{self.path.name}: extraction took longer than {self.limit_s:.0f} s and was stopped")
