"""App start-up and paper-loading speed, against the issue's bars (printed as ratios: < 1 is within).

1. Seconds from `python app.py` until the page is served (bar: 10 s on 2 cores).
2. Seconds from upload to ready-to-ask for 10-page papers (bar: 3 s): uploaded through the API
   (`gradio_client`), extracted (not cached: a fresh cache folder), cropped and indexed. Measured
   on the running app after one other paper was loaded (steady state); the first upload after
   start, when the embedder may still be loading in the background, is printed too.

Usage, from the repository root: `python -m benchmarks.app_startup` (reads the shared papers from
SPIQA_SHARED, default ../shared).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from evalsuite.local_servers import ServerDidNotStart, free_port, server_process, wait_until_answering
from evalsuite.paths import REPO, SHARED

STARTUP_BAR_S = 10.0
READY_BAR_S = 3.0
TEN_PAGE_PAPERS = ["non-local-nn-cvpr2018-1711.07971.pdf", "coordinate-attention-cvpr2021.pdf",
                   "a2-nets-neurips2018.pdf", "metapath2vec-kdd2017.pdf"]
FIRST_PAPER = "ecapa-tdnn-interspeech2020-2005.07143.pdf"  # 5 pages, loaded first (not timed against the bar)


def served(url: str, process: subprocess.Popen[bytes], log: Path) -> float:
    """Seconds until the app serves its page (`SystemExit` with its log's tail when it does not)."""
    try:
        return wait_until_answering(url, process, log, ready=lambda head: b"<html" in head.lower())
    except ServerDidNotStart as exc:
        raise SystemExit(f"app.py: {exc}") from None


def load_seconds(client, pdf: Path) -> tuple[float, float, str]:
    """(seconds until the gallery is shown, seconds until ready to ask, the paper's summary line)."""
    from gradio_client import handle_file

    started = time.monotonic()
    gallery_s = None
    job = client.submit(handle_file(str(pdf)), api_name="/load_pdf")
    for output in job:
        if gallery_s is None and isinstance(output[1], list) and output[1]:
            gallery_s = time.monotonic() - started
    ready_s = time.monotonic() - started
    status = job.outputs()[-1][0]
    if "Could not load" in status:
        raise SystemExit(f"{pdf.name}: {status}")
    return gallery_s or ready_s, ready_s, status.split("\n\n")[1].split(" · ")[0]


def main() -> None:
    from gradio_client import Client

    missing = [name for name in [FIRST_PAPER, *TEN_PAGE_PAPERS] if not (SHARED / "papers" / name).is_file()]
    if missing:
        raise SystemExit(f"shared papers not found under {SHARED / 'papers'}: {missing}; set SPIQA_SHARED")
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory(prefix="spiqa-bench-") as cache:
        env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "SPIQA_CACHE_DIR": cache, "HF_HUB_OFFLINE": "1",
               "SPIQA_BACKEND": "none", "SPIQA_DATA_DIR": str(SHARED),
               "GRADIO_TEMP_DIR": str(Path(cache) / "ui" / "gradio")}
        started = time.monotonic()
        with server_process([sys.executable, "app.py"], Path(cache) / "app.log", cwd=REPO, env=env) as process:
            serve_s = served(url, process, Path(cache) / "app.log")
            print(f"startup: page served {serve_s:.2f} s after `python app.py` (bar {STARTUP_BAR_S:.0f} s): "
                  f"ratio {serve_s / STARTUP_BAR_S:.2f}")
            client = Client(url, verbose=False, download_files=False)  # a browser fetches crops on its own machine
            _, first_s, summary = load_seconds(client, SHARED / "papers" / FIRST_PAPER)
            print(f"first upload after start ({FIRST_PAPER}: {summary}): ready in {first_s:.2f} s "
                  f"({time.monotonic() - started:.1f} s after launch; includes any background model loading)")
            times = []
            for name in TEN_PAGE_PAPERS:
                gallery_s, seconds, summary = load_seconds(client, SHARED / "papers" / name)
                times.append(seconds)
                print(f"  {name} ({summary}): gallery shown {gallery_s:.2f} s, ready to ask {seconds:.2f} s")
            median, worst = statistics.median(times), max(times)
            load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
            print(f"machine: {os.cpu_count()} cores, load average {load} (other work on the machine slows every number)")
            print(f"upload -> ready to ask, 10-page papers (uncached): median {median:.2f} s, max {worst:.2f} s "
                  f"(bar {READY_BAR_S:.0f} s): ratio {median / READY_BAR_S:.2f} (max {worst / READY_BAR_S:.2f})")


if __name__ == "__main__":
    main()
