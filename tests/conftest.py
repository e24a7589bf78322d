"""Test-wide setup: no network, offline Hugging Face, the shared data folder, temp caches."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalsuite.paths import SHARED

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
if os.environ.get("PYTEST_XDIST_WORKER"):
    # One worker per core already: a second math thread per worker (torch, llama.cpp and the model
    # servers the tests start read this) only makes the workers spin against each other.
    os.environ.setdefault("OMP_NUM_THREADS", "1")


_real_connect = socket.socket.connect


def _loopback_only(sock: socket.socket, address, *args, **kwargs):
    """Fail loudly on any connection off this machine: tests never touch the network."""
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        host = address[0]
        if host not in ("localhost", "::1") and not str(host).startswith("127."):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
    return _real_connect(sock, address, *args, **kwargs)


socket.socket.connect = _loopback_only


@pytest.fixture(scope="session")
def shared() -> Path:
    """The real data beside the repo (`SPIQA_SHARED`, default ../shared)."""
    if not SHARED.is_dir():
        pytest.fail(f"shared data not found at {SHARED}; set SPIQA_SHARED")
    return SHARED


def _run_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This run's extraction cache. Parallel workers (pytest-xdist) share it, as an app's processes
    would: a paper is extracted and embedded once per run, and the cache's cross-process safety is
    exercised on the way."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "cache"


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The run's cache from the start, so session fixtures that extract papers (set up before any
    test's own fixtures) never write to the user's cache either."""
    from spiqa_demo.settings import get_settings

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPIQA_CACHE_DIR", str(_run_cache(tmp_path_factory)))
        get_settings.cache_clear()
        yield
    get_settings.cache_clear()


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts from the run's cache and fresh settings, whatever an earlier test changed; never the user's cache."""
    monkeypatch.setenv("SPIQA_CACHE_DIR", str(_run_cache(tmp_path_factory)))
    from spiqa_demo.settings import get_settings

    get_settings.cache_clear()


# The files that take longest, longest first: every file over about 5 s in a whole run (a served app
# driven by Chromium, OCR of a scanned paper, sweeps over the shared papers, model servers).
# `--dist loadfile` hands a worker whole files in the order it gets them, and xdist's own order (most
# tests first) leaves few-test files for last, where one of them can run on one worker while the
# other has nothing left: taken longest first, the two workers end within a short file of each other
# and the many short files fill in behind them.
LONGEST_FIRST = (
    "test_app_reader_chat_browser.py", "test_app_browser.py", "test_app_hostile.py", "test_app_client.py",
    "test_ocr.py", "test_extractive_headings.py", "test_evaluation_harness.py", "test_app_viewer_browser.py", "test_extraction.py",
    "test_retrieval_benchmark.py", "test_app_across_browser.py", "test_app_reader_browser.py", "test_named_items.py",
    "test_app_shared_use.py", "test_l3score_llamacpp.py", "test_overview.py", "test_docs.py", "test_cited_answer.py", "test_app_across.py",
    "test_m3sciqa_answers.py", "test_fuzz_pdfs.py", "test_app_untrusted.py", "test_score.py", "test_library.py",
    "test_metrics_reproduction.py", "test_extractive_headings.py", "test_extraction_cache.py", "test_app_memory.py",
    "test_layering.py", "test_app_reader.py", "test_tables.py", "test_models_batching.py", "test_conversation_model.py",
    "test_retrieval.py", "test_app_units.py", "test_references.py", "test_models_openai.py", "test_conversation.py",
    "test_dependencies.py",
)


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # the workers' collection order below is the schedule


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under xdist, files in the order the workers should get them: `LONGEST_FIRST`, then the rest
    as xdist orders them (most tests first). Tests keep their order within a file."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    count: dict[str, int] = {}
    for item in items:
        count[item.path.name] = count.get(item.path.name, 0) + 1
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: (rank.get(item.path.name, len(rank)), -count[item.path.name]))
