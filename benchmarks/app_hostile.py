"""The shared app under a hostile visitor (the issue's security test), against its bars.

1. Queues: 24 sessions each hold a model call on a loopback server that accepts and never replies
   (the operator's endpoint, so every visitor may use it); another visitor then asks retrieval-only
   questions. Prints their latency (bar 2 s; the issue measured 404 s).
2. Loads: one session (raw HTTP, one session id) queues 24 loads at once, then disconnects; while
   its flood is read, another visitor loads a fresh 2-page PDF (bar 3 s to ready; the issue: 43.7
   s) and a third asks retrieval-only questions (the issue: 25-34 s). Two floods: the issue's own
   PDFs (1.6 MB, a 40000 x 40000 image each), and long papers that pass every limit (150 pages
   each, distinct bytes, so every one is really read). The fresh PDF's time on an idle app is
   printed beside it.
3. Disk: a visitor loads a paper and views a figure on its page; a hostile one uploads 12 files of
   99 MB and never loads them. Prints the UI folder's largest size against its limit, and whether
   the victim's crops and page image are still served (HTTP 200).

Usage, from the repository root: `python -m benchmarks.app_hostile` (reads the shared papers from
SPIQA_SHARED, default ../shared). Uses about 1.5 GB of temporary disk.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.app_startup import served
from evalsuite.hostile_pdfs import huge_image_pdf
from evalsuite.local_servers import free_port, server_process
from evalsuite.openai_listener import openai_listener
from evalsuite.paths import REPO, SHARED
from evalsuite.raw_visitor import RawVisitor, status_of

if TYPE_CHECKING:
    from gradio_client import Client

HUNG_SESSIONS = 24
FLOOD = 24
LONG_PAGES = 150
UPLOADS, UPLOAD_MB = 12, 99
RETRIEVAL_BAR_S, READY_BAR_S = 2.0, 3.0
CLIENT_TIMEOUT_S = 300.0
QUESTIONS = ("Which table reports the main results?", "What does Figure 1 show?", "Which method has the lowest error?")
PAPER = "cbam-eccv2018.pdf"


def client(url: str, **options: Any) -> Client:
    from gradio_client import Client

    return Client(url, verbose=False, ssl_verify=False, httpx_kwargs={"timeout": CLIENT_TIMEOUT_S}, **options)


def ask(visitor: Client, question: str, backend: str = "none", base_url: str = "") -> str:
    chat, _ = visitor.predict(question, "cot", backend, "m" if backend != "none" else "", base_url, 8, 0, True, "",
                              api_name="/ask")
    return str(chat)


def load(visitor: Client, pdf: Path) -> tuple[float, str]:
    """Seconds from upload to ready to ask, and the status."""
    from gradio_client import handle_file

    started = time.monotonic()
    status, *_ = visitor.predict(handle_file(str(pdf)), api_name="/load_pdf")
    return time.monotonic() - started, str(status)


def retrieval_latencies(visitor: Client) -> list[float]:
    seconds = []
    for question in QUESTIONS:
        started = time.monotonic()
        ask(visitor, question)
        seconds.append(time.monotonic() - started)
    return seconds


def fresh_pdf(folder: Path, tag: str) -> Path:
    from evalsuite.pdf_factory import Caption, LinePlot, PaperWriter, Prose

    w, prose = PaperWriter(columns=2), Prose(11)
    w.title(f"A Fresh Paper {tag}", "Grace Hopper")
    w.paragraph(prose.sentences(12) + ["Figure 1 shows the accuracy over training."] + prose.sentences(12))
    w.figure(LinePlot(seed=7), Caption("figure", "1", "Accuracy over training.", "Figure {n}:"), case="curves")
    w.paragraph(prose.sentences(40))
    return w.save(folder / f"fresh-{tag}.pdf").path


def copies(source: Path, folder: Path, count: int, stem: str) -> list[Path]:
    """`count` copies of `source` with distinct bytes after its end: every one is read anew."""
    out = []
    for i in range(count):
        target = folder / f"{stem}-{i}.pdf"
        target.write_bytes(source.read_bytes() + f"\n%copy {i}\n".encode())
        out.append(target)
    return out


def hung_model_calls(url: str, hung_url: str, pdf: Path) -> None:
    holders = [client(url) for _ in range(HUNG_SESSIONS)]
    for visitor in holders:
        load(visitor, pdf)
    jobs = [v.submit(QUESTIONS[0], "cot", "openai", "m", hung_url, 8, 0, True, "", api_name="/ask") for v in holders]
    deadline = time.monotonic() + 120
    while not all(job.status().code.name == "PROCESSING" for job in jobs) and time.monotonic() < deadline:
        time.sleep(0.2)
    quick = client(url)
    load(quick, pdf)
    seconds = retrieval_latencies(quick)
    held = sum(not job.done() for job in jobs)
    print(f"1. retrieval-only answers while {held} of {HUNG_SESSIONS} sessions hold a call to a server that never "
          f"replies: median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s (bar {RETRIEVAL_BAR_S:.0f} s; "
          f"the issue: 404 s): ratio {max(seconds) / RETRIEVAL_BAR_S:.2f}")
    for visitor in holders:
        visitor.close()


def flood(url: str, pdfs: list[Path], name: str, scratch: Path, idle_ready: float, reader: Client) -> None:
    flooder = RawVisitor(url)
    events = [flooder.join("load_pdf", flooder.upload(pdf)) for pdf in pdfs]
    deadline = time.monotonic() + 120  # the flood settles first: one load reading, one waiting, the rest answered
    while sum(flooder.completed(e) is not None for e in events) < FLOOD - 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    victim = client(url)
    answers: list[float] = []
    asking = threading.Thread(target=lambda: answers.extend(retrieval_latencies(reader)))
    asking.start()
    ready, status = load(victim, fresh_pdf(scratch, name))
    asking.join()
    settled = sum(flooder.completed(e) is not None for e in events)
    flooder.disconnect()
    outcome = "ready" if "A Fresh Paper" in status else f"NOT loaded: {status[:120]}"
    print(f"2. {name}: a fresh 2-page PDF {outcome} in {ready:.2f} s while one session floods {FLOOD} loads "
          f"({settled} of them already answered: refused or replaced) (bar {READY_BAR_S:.0f} s; the issue: 43.7 s): "
          f"ratio {ready / READY_BAR_S:.2f}; on an idle app {idle_ready:.2f} s. Retrieval-only answers meanwhile: "
          f"max {max(answers):.2f} s (the issue: 25-34 s)")
    flooder.close()


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6




def uploads_never_loaded(url: str, pdf: Path, ui_folder: Path, scratch: Path) -> None:
    victim = client(url, download_files=False)
    from gradio_client import handle_file

    _, gallery, *_ = victim.predict(handle_file(str(pdf)), api_name="/load_pdf")
    with closing(RawVisitor(url, victim.session_hash)) as browser:
        selected = browser.wait(browser.join(browser.trigger("gallery", "select"),
                                             event_data={"index": 0, "value": None, "selected": True}))
    page = selected["output"]["data"][0]["value"]["image"]["path"]
    shown = [f"{url}gradio_api/file={item['image']['path']}" for item in gallery] + [f"{url}gradio_api/file={page}"]
    before = [status_of(u) for u in shown]
    largest, refused = folder_mb(ui_folder), 0
    with closing(RawVisitor(url)) as hostile:
        junk = scratch / "junk.pdf"
        for i in range(UPLOADS):
            junk.write_bytes(b"%PDF-1.4\n" + f"%{i}\n".encode() + os.urandom(UPLOAD_MB * 1_000_000 - 16))
            try:
                hostile.upload(junk, name=f"junk-{i}.pdf")
            except Exception:  # a 413: no room without deleting what live sessions show
                refused += 1
            largest = max(largest, folder_mb(ui_folder))
        junk.unlink()
    after = [status_of(u) for u in shown]
    left = len(list((ui_folder / "gradio").rglob("junk-*.pdf")))
    print(f"3. {UPLOADS} uploads of {UPLOAD_MB} MB never loaded ({refused} refused, {left} still kept): the UI folder "
          f"peaked at {largest:.0f} MB against its limit of 1024 MB (ratio {largest / 1024:.2f}; the issue: 1253 MB); "
          f"the victim's {len(shown) - 1} crops and page image: HTTP {sorted(set(before))} before, {sorted(set(after))} after")


def main() -> None:
    pdf = SHARED / "papers" / PAPER
    if not pdf.is_file():
        raise SystemExit(f"{pdf} not found; set SPIQA_SHARED")
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory(prefix="spiqa-hostile-") as cache, openai_listener(answer_first=0, silent=True) as hung:
        scratch = Path(cache) / "scratch"
        scratch.mkdir()
        env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "SPIQA_CACHE_DIR": cache, "HF_HUB_OFFLINE": "1",
               "SPIQA_BACKEND": "openai", "GRADIO_TEMP_DIR": str(Path(cache) / "ui" / "gradio"),
               "SPIQA_BASE_URL": hung.url, "SPIQA_MODEL": "m"}
        log = Path(cache) / "app.log"
        with server_process([sys.executable, "app.py"], log, cwd=REPO, env=env) as process:
            served(url, process, log)
            warm = client(url)
            load(warm, fresh_pdf(scratch, "warm-up"))  # waits for the readers to start
            hung_model_calls(url, hung.url, pdf)
            idle_ready, _ = load(client(url), fresh_pdf(scratch, "idle"))
            reader = client(url)
            load(reader, pdf)
            bombs = [huge_image_pdf(scratch / f"bomb-{i}.pdf", title=f"Bomb {i}") for i in range(FLOOD)]
            flood(url, bombs, "the issue's PDFs (40000 x 40000 images)", scratch, idle_ready, reader)
            from evalsuite.pdf_factory import long_paper

            long = long_paper(scratch / "long.pdf", pages=LONG_PAGES).path
            flood(url, copies(long, scratch, FLOOD, "long"), f"{LONG_PAGES}-page papers", scratch, idle_ready, reader)
            uploads_never_loaded(url, pdf, Path(cache) / "ui", scratch)
            hung.go.set()
            tracebacks = log.read_text(errors="replace").count("Traceback")
            print(f"tracebacks in the app's log: {tracebacks}; machine: {os.cpu_count()} cores, load average "
                  + ", ".join(f"{v:.1f}" for v in os.getloadavg()))


if __name__ == "__main__":
    main()
