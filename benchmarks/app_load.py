"""The shared app under load: many visitors at once, and one visitor's slow model beside the others.

1. N visitors (default 16) each upload a different 10-page-class paper at the same moment (cold
   cache: every copy has its own bytes), wait until it is ready to ask, then ask retrieval-only
   questions. Prints visitors served, ready-to-ask and answer percentiles, the server's peak
   memory (resident set of the app process) and whether its log has tracebacks.
2. One visitor's answer streams from an OpenAI-compatible server for 20 s; another visitor asks a
   retrieval-only question meanwhile. Prints how long that answer took (the issue's bar: 2 s).
3. With `--runs N`: the crowd comes N times (the same papers, so later runs read the cache), then
   everyone leaves. Prints the server's resident set (anonymous and file-backed) after a warm-up, after
   each run, and once idle past the session lifetime (`--ttl`, SPIQA_UI_SESSION_TTL_S for this run),
   when every session is forgotten: what stays then is what the server keeps.

Usage: `python -m benchmarks.app_load [--visitors 16] [--questions 3] [--runs 1] [--ttl 60]` from the
repository root (reads the shared papers from SPIQA_SHARED, default ../shared).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.app_startup import served
from evalsuite.local_servers import free_port, server_process
from evalsuite.openai_listener import Listener, openai_listener
from evalsuite.paths import REPO, SHARED
from spiqa_demo.ui.serving.guards.session_expiry import SWEEP_S

QUESTIONS = ("Which table reports the main results?", "What does Figure 1 show?",
             "Which method has the lowest error?", "How does the ablation change the accuracy?")
SLOW_STREAM_S = 20
RETRIEVAL_BAR_S = 2.0
# Visitors wait as a browser does: httpx's 5 s default would count a slow upload as a lost visitor.
CLIENT_TIMEOUT_S = 120.0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


class PeakMemory:
    """The app process's peak resident set (VmHWM), read when asked."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def megabytes(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")


def resident(pid: int) -> str:
    """The process's resident set in MB, with its anonymous (heap, stacks) and file-backed (mapped libraries) parts."""
    fields = {line.split(":")[0]: int(line.split()[1]) / 1024 for line in Path(f"/proc/{pid}/status").read_text().splitlines()
              if line.startswith(("VmRSS", "RssAnon", "RssFile"))}
    return f"{fields['VmRSS']:.0f} MB (anonymous {fields['RssAnon']:.0f}, files {fields['RssFile']:.0f})"


def visitor(url: str, pdf: Path, questions: int, ready: list[float], answers: list[float], failures: list[str]) -> None:
    from gradio_client import Client, handle_file

    try:
        client = Client(url, verbose=False, download_files=False, httpx_kwargs={"timeout": CLIENT_TIMEOUT_S})
        started = time.monotonic()
        status, *_ = client.predict(handle_file(str(pdf)), api_name="/load_pdf")
        if "Could not load" in status:
            failures.append(f"{pdf.name}: {status}")
            return
        ready.append(time.monotonic() - started)
        for question in QUESTIONS[:questions]:
            asked = time.monotonic()
            client.predict(question, "cot", "none", "", "", 8, 0, True, "", api_name="/ask")
            answers.append(time.monotonic() - asked)
    except Exception as exc:  # a visitor that was not served is counted, not fatal
        failures.append(f"{pdf.name}: {type(exc).__name__}: {exc}")


class Pings(threading.Thread):
    """How quickly the server answers a trivial request while it works: its event loop's headroom."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.seconds, self.done = url + "gradio_api/info", [], threading.Event()

    def run(self) -> None:
        import urllib.request

        while not self.done.wait(1.0):
            started = time.monotonic()
            with urllib.request.urlopen(self.url, timeout=CLIENT_TIMEOUT_S) as response:
                response.read()
            self.seconds.append(time.monotonic() - started)


def crowd(url: str, papers: list[Path], visitors: int, questions: int, scratch: Path) -> None:
    ready: list[float] = []
    answers: list[float] = []
    failures: list[str] = []
    copies = []
    for i in range(visitors):  # distinct bytes per visitor: every load is a cold extraction
        copy = scratch / f"visitor-{i}-{papers[i % len(papers)].name}"
        copy.write_bytes(papers[i % len(papers)].read_bytes() + f"\n%visitor {i}\n".encode())
        copies.append(copy)
    threads = [threading.Thread(target=visitor, args=(url, pdf, questions, ready, answers, failures)) for pdf in copies]
    pings = Pings(url)
    started = time.monotonic()
    pings.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    pings.done.set()
    pings.join()
    print(f"{visitors} visitors at once (cold cache, retrieval only), {time.monotonic() - started:.1f} s in all: "
          f"served {visitors - len(failures)}/{visitors}")
    if ready:
        print(f"  ready to ask: p50 {percentile(ready, 0.5):.1f} s, p95 {percentile(ready, 0.95):.1f} s, "
              f"max {max(ready):.1f} s")
    if answers:
        print(f"  answers ({len(answers)}): p50 {percentile(answers, 0.5):.2f} s, p95 {percentile(answers, 0.95):.2f} s, "
              f"mean {statistics.mean(answers):.2f} s")
    if pings.seconds:
        print(f"  the server's reply to a trivial request meanwhile: p50 {percentile(pings.seconds, 0.5):.2f} s, "
              f"p95 {percentile(pings.seconds, 0.95):.2f} s, max {max(pings.seconds):.2f} s")
    for failure in failures:
        print(f"  not served: {failure}")


def warm_up(url: str, pdf: Path) -> None:
    """One paper read and asked about, so that what loads once (the embedder, the index code) is not counted as kept."""
    from gradio_client import Client, handle_file

    client = Client(url, verbose=False, download_files=False, httpx_kwargs={"timeout": CLIENT_TIMEOUT_S})
    client.predict(handle_file(str(pdf)), api_name="/load_pdf")
    client.predict(QUESTIONS[1], "cot", "none", "", "", 8, 0, True, "", api_name="/ask")


def slow_model_beside_retrieval(url: str, pdf: Path, slow: Listener) -> None:
    from gradio_client import Client, handle_file

    slow_visitor, quick_visitor = Client(url, verbose=False), Client(url, verbose=False, download_files=False)
    for client in (slow_visitor, quick_visitor):
        client.predict(handle_file(str(pdf)), api_name="/load_pdf")
    job = slow_visitor.submit("Which table reports the main results?", "cot", "openai", "m", slow.url, 8, 0, True, "",
                              api_name="/ask")
    slow.started.wait(60)
    asked = time.monotonic()
    quick_visitor.predict("What does Figure 1 show?", "cot", "none", "", "", 8, 0, True, "", api_name="/ask")
    waited = time.monotonic() - asked
    streaming = not slow.finished.is_set()
    job.result(timeout=SLOW_STREAM_S * 3)
    print(f"retrieval-only answer while another visitor's model streams for {SLOW_STREAM_S} s: {waited:.2f} s "
          f"(bar {RETRIEVAL_BAR_S:.0f} s): ratio {waited / RETRIEVAL_BAR_S:.2f}"
          f"{'' if streaming else ' (the stream had already ended: not a valid measurement)'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--visitors", type=int, default=16)
    parser.add_argument("--questions", type=int, default=3)
    parser.add_argument("--runs", type=int, default=1, help="times the crowd comes before the memory is read idle")
    parser.add_argument("--ttl", type=float, default=60.0, help="SPIQA_UI_SESSION_TTL_S for this run (seconds)")
    args = parser.parse_args()
    papers = sorted((SHARED / "papers").glob("*.pdf"))
    if not papers:
        raise SystemExit(f"no shared papers under {SHARED / 'papers'}; set SPIQA_SHARED")
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with (tempfile.TemporaryDirectory(prefix="spiqa-load-") as cache,
          openai_listener(chunk_delay_s=1.0, chunks=SLOW_STREAM_S) as slow):
        # The slow model is a loopback endpoint, which visitors may name only when the operator lists it.
        env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "SPIQA_CACHE_DIR": cache, "HF_HUB_OFFLINE": "1",
               "SPIQA_BACKEND": "none", "SPIQA_UI_VISITOR_ENDPOINTS": slow.url, "SPIQA_UI_SESSION_TTL_S": str(args.ttl),
               "GRADIO_TEMP_DIR": str(Path(cache) / "ui" / "gradio")}
        log = Path(cache) / "app.log"
        with server_process([sys.executable, "app.py"], log, cwd=REPO, env=env) as process:
            served(url, process, log)
            memory = PeakMemory(process.pid)
            time.sleep(5)  # the embedder loads in the background after the page is served
            warm_up(url, papers[0])
            start = resident(process.pid)
            crowd(url, papers, args.visitors, args.questions, Path(cache))
            slow_model_beside_retrieval(url, papers[0], slow)
            after = [resident(process.pid)]
            for _ in range(args.runs - 1):
                crowd(url, papers, args.visitors, args.questions, Path(cache))
                after.append(resident(process.pid))
            time.sleep(args.ttl + SWEEP_S + 2)
            print(f"server RSS after a warm-up: {start}; after each run of {args.visitors} visitors: {'; '.join(after)}; "
                  f"idle past the session lifetime ({args.ttl:g} s, every session forgotten): {resident(process.pid)}")
            tracebacks = log.read_text(errors="replace").count("Traceback")
            load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
            print(f"peak memory of the app process: {memory.megabytes():.0f} MB; tracebacks in its log: {tracebacks}")
            print(f"machine: {os.cpu_count()} cores, load average {load}")


if __name__ == "__main__":
    main()
