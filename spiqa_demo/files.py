"""Walking folders that other threads and processes change meanwhile (the caches' evictions)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path


def files_under(folder: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """Every file under `folder` that is still there when reached, with its `stat`.

    Other loads rename their staging folders into place and evict entries while this walks:
    `os.walk` skips a folder that vanished under it (`Path.rglob` raises), and a file gone
    before its `stat` is skipped.
    """
    for root, _, names in os.walk(folder):
        for name in names:
            path = Path(root, name)
            try:
                yield path, path.stat()
            except OSError:
                continue
