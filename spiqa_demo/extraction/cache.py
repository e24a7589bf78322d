"""The on-disk extraction cache: one folder per (PDF sha256, extractor version, DPI, crop variant).

Opening a paper that was seen before reads its `paper.json` instead of re-extracting (`load_paper`).
Folders are written under a temporary name and renamed, so a crash never leaves a half-written
entry, and a temporary folder whose writer died is swept (`sweep_staging`); the cache is kept under
`SPIQA_CACHE_MAX_MB` by deleting the least recently used papers.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

from spiqa_demo.errors import InputError
from spiqa_demo.extraction.pipeline import EXTRACTOR_VERSION, extract_to_dir
from spiqa_demo.files import files_under
from spiqa_demo.hashing import sha256_of
from spiqa_demo.settings import ExtractionSettings
from spiqa_demo.types import Paper, Progress


def load_paper(pdf: str | Path, settings: ExtractionSettings, progress: Progress | None = None) -> Paper:
    """The `Paper` for `pdf` from the cache under `settings.cache_dir`, extracting it on first use
    (image paths absolute)."""
    path = Path(pdf)
    if not path.is_file():
        raise InputError(f"{path.name}: file not found")
    folder = entry_dir(settings, sha256_of(path), EXTRACTOR_VERSION, settings.dpi)
    cached = read_entry(folder)
    if cached is not None:
        return cached
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{STAGING}{os.getpid()}-", dir=folder.parent))
    try:
        extract_to_dir(path, staging, dpi=settings.dpi, progress=progress, settings=settings)
        paper = commit(staging, folder, settings)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if paper is None:
        raise InputError(f"{path.name}: the extraction cache at {folder} is not writable")
    return paper


STAGING = ".staging-"  # a folder being extracted: `.staging-<pid of its writer>-<random>`


def sweep_staging(settings: ExtractionSettings) -> list[Path]:
    """Delete the staging folders whose writer is gone (killed mid-extraction: past its CPU limit, out
    of memory), and return them. A live process's folder is left alone: the cache is shared by every
    process of the app, and its extractions go on while this runs."""
    removed: list[Path] = []
    try:
        folders = [f for f in papers_root(settings).iterdir() if f.name.startswith(STAGING)]
    except OSError:
        return removed
    for folder in folders:
        pid = folder.name.removeprefix(STAGING).partition("-")[0]
        if pid.isdigit() and _alive(int(pid)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie, killed but not yet waited for, counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][:1] != "Z"
    except (OSError, IndexError):  # no /proc (not Linux): kill(0) said it exists
        return True


def papers_root(settings: ExtractionSettings) -> Path:
    return settings.cache_dir / "papers"


def entry_dir(settings: ExtractionSettings, sha256: str, version: str, dpi: int) -> Path:
    return papers_root(settings) / f"{sha256[:32]}-v{version}-{dpi}dpi{_variant(settings)}"


def _variant(settings: ExtractionSettings) -> str:
    """What else changes an extraction: the default settings add nothing to the folder name."""
    # Crops that keep a reader's annotations are another entry: the same items, other images.
    variant = "-annotated" if settings.crop_annotations else ""
    # A scanned page reads differently with OCR off, in other languages or at another resolution
    # ("auto" and "on" read alike; "on" only fails where Tesseract is missing).
    if settings.ocr == "off":
        return f"{variant}-ocr-off"
    if settings.ocr_figures:
        variant += "-ocr-figures"
    defaults = ExtractionSettings.model_fields
    if (settings.ocr_language, settings.ocr_dpi) != (defaults["ocr_language"].default, defaults["ocr_dpi"].default):
        variant += f"-ocr-{settings.ocr_language}-{settings.ocr_dpi}dpi"
    return variant


# Committing an entry and evicting others are serialised within the process: otherwise one load's
# eviction can delete another load's entry between its rename and its first read.
_COMMIT_LOCK = threading.RLock()


def paper_cache_dir(paper: Paper, settings: ExtractionSettings) -> Path:
    """The folder of `paper`'s cache entry, where other artefacts (its retrieval index) are saved."""
    return entry_dir(settings, paper.sha256, paper.extractor_version, paper.dpi)


def read_entry(folder: Path) -> Paper | None:
    """The cached `Paper` with absolute image paths, or None when absent or unreadable."""
    path = folder / "paper.json"
    try:
        paper = Paper.from_json(path.read_text(encoding="utf-8"))
        os.utime(path)  # least-recently-used eviction reads this
    except (OSError, ValueError, KeyError):
        return None  # absent, unreadable, or evicted by another load meanwhile
    return paper.with_image_root(folder)


def commit(staging: Path, folder: Path, settings: ExtractionSettings) -> Paper | None:
    """Move a finished `staging` folder into place as `folder`, evict to fit, and read it back.

    When another load committed the same entry first, its copy wins and `staging` is dropped; that
    load may be another process sharing the cache, so the rename itself can find the entry there.
    """
    with _COMMIT_LOCK:
        try:
            staging.rename(folder)
        except OSError:
            if not folder.exists():
                raise
            shutil.rmtree(staging, ignore_errors=True)
        evict(settings, keep=folder)
        return read_entry(folder)


def evict(settings: ExtractionSettings, keep: Path) -> None:
    """Delete least recently used entries until the cache fits `cache_max_mb` (never `keep`).

    Only finished entries are candidates: other extractions' staging folders (".staging-*") are
    counted but never deleted, and files that vanish meanwhile (another process evicting or
    renaming) are skipped, so concurrent extraction and eviction never break each other.
    """
    with _COMMIT_LOCK:
        _evict(settings, keep)


def _evict(settings: ExtractionSettings, keep: Path) -> None:
    root = papers_root(settings)
    entries = []
    total = 0
    try:
        folders = list(root.iterdir())
    except OSError:
        return
    for folder in folders:
        size = _size(folder)
        total += size
        if folder.name.startswith(".") or folder == keep:
            continue
        try:
            stamp = (folder / "paper.json").stat().st_mtime
        except OSError:
            continue  # not a finished entry (or gone)
        entries.append((stamp, size, folder))
    limit = settings.cache_max_mb * 1_000_000
    for _, size, folder in sorted(entries):
        if total <= limit:
            break
        shutil.rmtree(folder, ignore_errors=True)
        total -= size


def _size(folder: Path) -> int:
    return sum(stat.st_size for _, stat in files_under(folder))
