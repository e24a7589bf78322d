"""Where the evaluation suite finds things: the repository, and the shared data (`SPIQA_SHARED`,
by default `../shared` beside the repository), named once for every benchmark and test."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SPIQA_SHARED") or REPO.parent / "shared").resolve()
