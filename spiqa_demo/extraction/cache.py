"""The on-disk extraction cache: one folder per (PDF sha256, extractor version, DPI).

Opening a paper that was seen before reads its `paper.json` instead of re-extracting. Folders are
written under a temporary name and renamed, so a crash never leaves a half-written entry; the cache
is kept under `SPIQA_CACHE_MAX_MB` by deleting the least recently used papers.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from spiqa_demo.settings import Settings
from spiqa_demo.types import Paper


def papers_root(settings: Settings) -> Path:
    return settings.cache_dir / "papers"


def entry_dir(settings: Settings, sha256: str, version: str, dpi: int) -> Path:
    return papers_root(settings) / f"{sha256[:32]}-v{version}-{dpi}dpi"


def paper_cache_dir(paper: Paper, settings: Settings | None = None) -> Path:
    """The folder of `paper`'s cache entry, where other artefacts (its retrieval index) are saved."""
    from spiqa_demo.settings import get_settings

    return entry_dir(settings or get_settings(), paper.sha256, paper.extractor_version, paper.dpi)


def read_entry(folder: Path) -> Paper | None:
    """The cached `Paper` with absolute image paths, or None when absent or unreadable."""
    path = folder / "paper.json"
    try:
        paper = Paper.from_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError):
        return None
    os.utime(path)  # least-recently-used eviction reads this
    return paper.with_image_root(folder)


def evict(settings: Settings, keep: Path) -> None:
    """Delete least recently used entries until the cache fits `cache_max_mb` (never `keep`)."""
    root = papers_root(settings)
    entries = []
    total = 0
    for folder in root.iterdir() if root.is_dir() else []:
        size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        stamp = folder / "paper.json"
        entries.append((stamp.stat().st_mtime if stamp.exists() else 0.0, size, folder))
        total += size
    limit = settings.cache_max_mb * 1_000_000
    for _, size, folder in sorted(entries):
        if total <= limit:
            break
        if folder != keep:
            shutil.rmtree(folder, ignore_errors=True)
            total -= size
