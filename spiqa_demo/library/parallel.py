"""Extract many PDFs at once: a process pool of min(cores, files) workers over the cached `load_paper`,
each file checked first as `open_paper` checks one (`check_file`).

Extraction is CPU-bound Python, so processes (not threads) use every core; each worker goes
through the extraction cache as a single load does, so a PDF seen before costs a file read. Workers
are not forked from the caller, which may hold threads (a web server, an embedding model) that a
forked child would inherit mid-lock: they fork from a fork server, a single-threaded process that
imported the extraction code once, so a pool costs a fork instead of a fresh interpreter's imports
(spawn, where the platform has no fork server). One file is extracted in this process (a pool would
only add its start-up), and so is every file when the caller says how to extract one (an app runs
them in its own limited workers). A file that fails gives its message and leaves the others unaffected.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from spiqa_demo.errors import PaperError
from spiqa_demo.extraction import load_paper
from spiqa_demo.library.opening import check_file
from spiqa_demo.settings import ExtractionSettings
from spiqa_demo.types import Paper


@dataclass(frozen=True)
class Extracted:
    """One file's outcome: its `Paper`, or the one-line `error` saying why there is none."""

    path: Path
    paper: Paper | None = None
    error: str | None = None


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform reports it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def extract_one(path: Path, settings: ExtractionSettings) -> Extracted:
    """One file checked and extracted through the cache, or the message saying why it cannot be."""
    try:
        check_file(path, settings)
        return Extracted(path, paper=load_paper(path, settings))
    except PaperError as exc:
        return Extracted(path, error=str(exc))
    except Exception as exc:  # one unreadable file must not take the other files down with it
        return Extracted(path, error=f"{path.name}: extraction failed ({type(exc).__name__}: {exc})")


def _start_method() -> multiprocessing.context.BaseContext:
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


def extract_all(paths: Sequence[Path], settings: ExtractionSettings, workers: int | None = None,
                finished: Callable[[Path], None] | None = None,
                extract: Callable[[Path], Extracted] | None = None) -> list[Extracted]:
    """The outcome of every path, in the order given (`workers`: at most this many processes);
    `finished` is told of each path as its extraction ends, in the order they end (for progress).
    `extract`: how one file is extracted instead, one after the other (an app's limited worker processes)."""
    count = min(workers or available_cores(), len(paths))
    if count <= 1 or extract is not None:
        out = []
        for p in paths:
            out.append(extract(Path(p)) if extract is not None else extract_one(Path(p), settings))
            if finished is not None:
                finished(Path(p))
        return out
    with ProcessPoolExecutor(max_workers=count, mp_context=_start_method()) as pool:
        futures = [pool.submit(extract_one, Path(p), settings) for p in paths]
        if finished is not None:
            for path, future in zip(paths, futures):
                future.add_done_callback(_telling(finished, Path(path)))
        out = []
        for path, future in zip(paths, futures):
            try:
                out.append(future.result())
            except BrokenProcessPool:
                out.append(Extracted(Path(path), error=f"{Path(path).name}: the extraction process stopped (out of memory?)"))
        return out


def _telling(finished: Callable[[Path], None], path: Path) -> Callable[[Future[Extracted]], None]:
    """A future's done-callback that tells `finished` of `path`."""
    return lambda _: finished(path)
