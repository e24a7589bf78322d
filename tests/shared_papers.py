"""The real papers of `../shared/papers` with their answer keys, extracted once per test run.

`manifest.json` lists the papers extraction passes; `manifest-hard.json` the ones it once got
wrong (dense pages, captions beside their figures, a supplement numbering from 1 again). Each paper
is read through the run's extraction cache (`tests/conftest.py`), at a low resolution since tests
look at items, not at crop detail: the extraction tests and the named-item tests import the fixtures
and share one extraction per paper, across pytest-xdist workers too.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

import pytest

from spiqa_demo.extraction import load_paper
from spiqa_demo.settings import get_settings
from spiqa_demo.types import Paper

TEST_DPI = 72


@pytest.fixture(scope="session")
def hard_manifest(shared: Path) -> list[dict]:
    """Papers today's tests once got wrong (`manifest-hard.json`): dense pages, captions set beside
    their figures, a supplement numbering from 1 again."""
    return json.loads((shared / "papers" / "manifest-hard.json").read_text())


@pytest.fixture(scope="session")
def manifest(shared: Path, hard_manifest: list[dict]) -> list[dict]:
    """Every real paper with its answer key: `manifest.json` and `manifest-hard.json`."""
    return json.loads((shared / "papers" / "manifest.json").read_text()) + hard_manifest


@pytest.fixture(scope="session")
def shared_papers(shared: Path, manifest: list[dict]) -> dict[str, Paper]:
    """Every manifest paper by file name (in the manifests' order), from the run's extraction cache.

    Workers that need the papers at once split the extraction: each starts at its own share of the
    list and extracts a paper under that paper's lock, so a worker reaching a paper another one is
    extracting waits for it and reads it from the cache instead of extracting it again."""
    get_settings.cache_clear()  # the run's settings, not those a test before this fixture left cached
    settings = get_settings().extraction.with_overrides(dpi=TEST_DPI)
    files = list(dict.fromkeys(e["file"] for e in manifest))
    worker, workers = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:]), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    start = worker * len(files) // max(workers, 1)
    locks = settings.cache_dir.parent / "shared-paper-locks"  # beside the run's cache, not in it
    locks.mkdir(parents=True, exist_ok=True)
    papers: dict[str, Paper] = {}
    for file in files[start:] + files[:start]:
        with open(locks / f"{file}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            papers[file] = load_paper(shared / "papers" / file, settings)
    return {file: papers[file] for file in files}
