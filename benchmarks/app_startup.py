"""App start-up and paper-loading speed, against the issue's bars (printed as ratios: < 1 is within).

Launches `python app.py` on 127.0.0.1 with a fresh cache folder (nothing extracted) and prints:

1. Seconds until the page is served (bar: 10 s on 2 cores).
2. The first paper uploaded after start, seconds until it is askable (and how long of that it waited
   for a reader), beside a warm load of the same paper (bar: within 2x).
3. 10-page papers, upload -> ready to ask, in the warmed app (bar: 3 s).
4. The longest shared paper (most pages, `papers/` and below): its time to askable split into
   reading (until its gallery is shown) and indexing (the rest), beside a warm baseline.

The warm loads (2 and 4) run in a second launch of the app, with a cache folder of its own, once it
is warm: two other papers loaded and its processes idle (its warm-up done). So a warm load reads and
indexes the paper anew, in a reader that never held it (a reader keeps the indexes of papers it
read in memory: a copy of the paper in the same app could find its index there).

Every load goes through the API (`gradio_client`) as an upload, is extracted, cropped and indexed.

Usage, from the repository root: `python -m benchmarks.app_startup` (reads the shared papers from
SPIQA_SHARED, default ../shared).
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from evalsuite.local_servers import ServerDidNotStart, free_port, server_process, wait_until_answering
from evalsuite.paths import REPO, SHARED

STARTUP_BAR_S = 10.0
READY_BAR_S = 3.0
FIRST_TO_WARM_BAR = 2.0
TEN_PAGE_PAPERS = ["non-local-nn-cvpr2018-1711.07971.pdf", "coordinate-attention-cvpr2021.pdf",
                   "a2-nets-neurips2018.pdf", "metapath2vec-kdd2017.pdf"]
FIRST_PAPER = "ecapa-tdnn-interspeech2020-2005.07143.pdf"  # 5 pages
# A load's progress before a reader takes it (spiqa_demo.ui.serving.work.loading: WAITING, STARTING).
READER_WAITS = ("Waiting for a free reader", "Starting the paper reader")
POLL_S = 0.05
# The app counts as idle (its warm-up done) once its processes use less than this many processor
# seconds in a second (looked at for at most IDLE_LIMIT_S).
IDLE_CPU_S = 0.05
IDLE_LIMIT_S = 120.0


@dataclass(frozen=True)
class Load:
    """One upload's timings, seconds from submitting it."""

    waited_s: float  # until a reader took it (its progress no longer says it waits for one)
    shown_s: float  # until its gallery was shown: read (extracted and cropped)
    ready_s: float  # until askable: indexed too
    summary: str  # the paper's summary line ("5 pages, 4 figures, 2 tables")

    @property
    def indexing_s(self) -> float:
        return self.ready_s - self.shown_s


def served(url: str, process: subprocess.Popen[bytes], log: Path) -> float:
    """Seconds until the app serves its page (`SystemExit` with its log's tail when it does not)."""
    try:
        return wait_until_answering(url, process, log, ready=lambda head: b"<html" in head.lower())
    except ServerDidNotStart as exc:
        raise SystemExit(f"app.py: {exc}") from None


def gallery_items(gallery: object) -> list[object]:
    """The items a load's gallery output shows: a plain list (the last output), or the value of an update
    (`{"__type__": "update", "value": [...]}`: shown anew while the paper is indexed)."""
    if isinstance(gallery, dict):
        gallery = gallery.get("value")
    return gallery if isinstance(gallery, list) else []


def load(client, pdf: Path) -> Load:  # type: ignore[no-untyped-def]
    """Upload `pdf` and follow its load to the end (its progress and outputs looked at every `POLL_S`)."""
    from gradio_client import handle_file

    started = time.monotonic()
    waited_s = shown_s = None
    job = client.submit(handle_file(str(pdf)), api_name="/load_pdf")
    while not job.done():
        now = time.monotonic() - started
        progress = job.status().progress_data or []
        if waited_s is None and progress and not any(p.desc and p.desc.startswith(READER_WAITS) for p in progress):
            waited_s = now
        if shown_s is None and any(gallery_items(output[1]) for output in job.outputs()):
            shown_s = now
        time.sleep(POLL_S)
    ready_s = time.monotonic() - started
    status = job.outputs()[-1][0]
    if "Could not load" in status:
        raise SystemExit(f"{pdf.name}: {status}")
    return Load(waited_s or 0.0, shown_s or ready_s, ready_s, status.split("\n\n")[1].split(" · ")[0])


def longest_paper() -> tuple[Path, int]:
    import pymupdf

    pages = {}
    for pdf in sorted((SHARED / "papers").rglob("*.pdf")):
        with pymupdf.open(pdf) as doc:
            pages[pdf] = doc.page_count
    longest = max(pages, key=lambda p: (pages[p], p.name))
    return longest, pages[longest]


@dataclass(frozen=True)
class Launched:
    client: object  # a gradio_client.Client
    process: subprocess.Popen[bytes]
    serve_s: float  # seconds from `python app.py` until the page was served
    started: float  # time.monotonic() at launch


@contextmanager
def launched(cache: Path) -> Iterator[Launched]:
    """`python app.py` with `cache` as its only cache folder, its page served; stopped on leaving."""
    from gradio_client import Client

    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    cache.mkdir(parents=True)
    env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "SPIQA_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1",
           "SPIQA_BACKEND": "none", "SPIQA_DATA_DIR": str(SHARED), "GRADIO_TEMP_DIR": str(cache / "ui" / "gradio")}
    started = time.monotonic()
    with server_process([sys.executable, "app.py"], cache / "app.log", cwd=REPO, env=env) as process:
        serve_s = served(url, process, cache / "app.log")
        client = Client(url, verbose=False, download_files=False)  # a browser fetches crops on its own machine
        yield Launched(client, process, serve_s, started)


def until_idle(process: subprocess.Popen[bytes]) -> None:
    """Return once the app (its server and worker processes) is idle: its warm-up is done."""
    import psutil

    def used() -> float:
        total = 0.0
        try:
            server = psutil.Process(process.pid)
            for member in [server, *server.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    times = member.cpu_times()
                    total += times.user + times.system
        except psutil.Error:
            pass
        return total

    deadline = time.monotonic() + IDLE_LIMIT_S
    before = used()
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = used()
        if now - before < IDLE_CPU_S:
            return
        before = now


def main() -> None:
    papers = SHARED / "papers"
    missing = [name for name in [FIRST_PAPER, *TEN_PAGE_PAPERS] if not (papers / name).is_file()]
    if missing:
        raise SystemExit(f"shared papers not found under {papers}: {missing}; set SPIQA_SHARED")
    longest, pages = longest_paper()
    with tempfile.TemporaryDirectory(prefix="spiqa-bench-") as folder:
        with launched(Path(folder) / "cold") as app:
            print(f"page served: {app.serve_s:.2f} s after `python app.py` (bar {STARTUP_BAR_S:.0f} s): "
                  f"ratio {app.serve_s / STARTUP_BAR_S:.2f}")
            first = load(app.client, papers / FIRST_PAPER)
            after_launch = time.monotonic() - app.started
            times = [load(app.client, papers / name).ready_s for name in TEN_PAGE_PAPERS]
            cold = load(app.client, longest)
        with launched(Path(folder) / "warm") as app:  # the warm baselines (module docstring)
            until_idle(app.process)
            for name in TEN_PAGE_PAPERS[:2]:
                load(app.client, papers / name)
            until_idle(app.process)
            warm = load(app.client, papers / FIRST_PAPER)
            until_idle(app.process)
            again = load(app.client, longest)
        print(f"first paper after start ({FIRST_PAPER}: {first.summary}): askable in {first.ready_s:.2f} s "
              f"(waited {first.waited_s:.2f} s for a reader; {after_launch:.1f} s after launch); "
              f"warm load of the same paper {warm.ready_s:.2f} s (waited {warm.waited_s:.2f} s): "
              f"{first.ready_s / warm.ready_s:.2f}x (bar {FIRST_TO_WARM_BAR:.0f}x)")
        median, worst = statistics.median(times), max(times)
        print(f"10-page papers, upload -> askable (uncached, warm app): median {median:.2f} s, max {worst:.2f} s "
              f"(bar {READY_BAR_S:.0f} s): ratio {median / READY_BAR_S:.2f} (max {worst / READY_BAR_S:.2f})")
        print(f"longest shared paper ({longest.relative_to(papers)}, {pages} pages: {cold.summary}), after the 10-page "
              f"papers: askable in {cold.ready_s:.2f} s = reading {cold.shown_s:.2f} s + indexing {cold.indexing_s:.2f} s; "
              f"warm baseline (the warm app, idle): {again.ready_s:.2f} s = reading {again.shown_s:.2f} s "
              f"+ indexing {again.indexing_s:.2f} s")
        load_average = ", ".join(f"{v:.1f}" for v in os.getloadavg())
        print(f"machine: {os.cpu_count()} cores, load average {load_average} (other work on the machine slows every number)")


if __name__ == "__main__":
    main()
