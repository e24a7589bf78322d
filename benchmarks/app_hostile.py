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
4. Bombs: work that could cost anything, each run while another visitor asks retrieval-only
   questions and fetches `/config` (bar 2 s; beside the same visitor's idle figures of this run),
   with the bomb's own outcome (its message and seconds) and the server's RSS growth (bar 100 MB):
   a page that paints nested full-page transparency groups opened in the viewer (and zoomed to 250
   %); a cited PDF whose figure sits on such a page; a result file whose answers are long enough
   for ROUGE-L to run for minutes yet under the tokens an answer is scored with, during which
   another visitor also loads a small result file (bar 3 s); the issue's own result file (30
   answers of 2,000 tokens).
5. Ten sessions load one paper at once (bar 10 of 10).

Usage, from the repository root: `python -m benchmarks.app_hostile [--only-bombs]` (reads the
shared papers from SPIQA_SHARED, default ../shared; `--only-bombs`: cases 4 and 5 only). Uses about
1.5 GB of temporary disk.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.app_memory import resident_mb
from benchmarks.app_startup import served
from evalsuite.hostile_pdfs import huge_image_pdf, nested_groups_pdf
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


RSS_BAR_MB, SMALL_FILE_BAR_S = 100.0, 3.0
ROUGE_ROWS, ROUGE_TOKENS = 700, 900  # under the 1,000 tokens an answer is scored with and the 10 MB a file may take: minutes of ROUGE-L
OFFICIAL = "test-C_GPT4_QA__gpt4o_cot_image+caption_size_full.json"


def config_seconds(url: str) -> float:
    started = time.monotonic()
    urllib.request.urlopen(f"{url}config", timeout=CLIENT_TIMEOUT_S).read()
    return time.monotonic() - started


@dataclass
class Beside:
    """Another visitor's latencies: retrieval-only answers, `/config`, and (when timed) a small result file."""

    answers: list[float]
    config: list[float]
    small_file: float | None = None

    def line(self) -> str:
        text = f"answers max {max(self.answers):.2f} s, /config max {max(self.config):.2f} s"
        return text + (f", small result file {self.small_file:.2f} s" if self.small_file is not None else "")


def beside(url: str, reader: Client, small_file: Path | None = None) -> Beside:
    config = [config_seconds(url) for _ in range(3)]
    measured = Beside(retrieval_latencies(reader), config + [config_seconds(url)])
    if small_file is not None:
        from gradio_client import handle_file

        started = time.monotonic()
        client(url).predict(handle_file(str(small_file)), None, api_name="/load_results")
        measured.small_file = time.monotonic() - started
    return measured


def during(name: str, url: str, reader: Client, pid: int, idle: Beside, bomb: Callable[[], str],
           small_file: Path | None = None) -> None:
    """`bomb()` (its visitor set up already) run in a thread while another visitor is timed, once the
    bomb has had a second to start."""
    rss = resident_mb(pid)
    outcome: list[str] = []
    started = time.monotonic()
    running = threading.Thread(target=lambda: outcome.append(bomb()))
    running.start()
    time.sleep(1.0)
    measured = beside(url, reader, small_file)
    overlapped = running.is_alive()
    running.join()
    seconds = time.monotonic() - started
    worst = max(max(measured.answers), max(measured.config))
    small = (f"; small result file ratio {measured.small_file / SMALL_FILE_BAR_S:.2f} (bar {SMALL_FILE_BAR_S:.0f} s)"
             if measured.small_file is not None else "")
    print(f"4. {name}: another visitor's {measured.line()} (idle: {idle.line()}; bar {RETRIEVAL_BAR_S:.0f} s: ratio "
          f"{worst / RETRIEVAL_BAR_S:.2f}{small}){'' if overlapped else ' [the bomb ended before the timing did]'}; "
          f"the bomb: {seconds:.1f} s, \"{' '.join(outcome[0].split())[:220] if outcome else 'no outcome'}\"; server RSS "
          f"{resident_mb(pid) - rss:+.0f} MB (bar {RSS_BAR_MB:.0f} MB)")


def render_bomb(url: str, scratch: Path) -> Callable[[], str]:
    """A visitor who loaded a paper and opened its figure on page 1: the bomb opens page 2 (nested
    transparency groups), then zooms to 250 %."""
    from gradio_client import handle_file

    bomb = nested_groups_pdf(scratch / "paint-bomb.pdf", fresh_pdf(scratch, "paint-bomb"))
    visitor = client(url)
    visitor.predict(handle_file(str(bomb)), api_name="/load_pdf")
    browser = RawVisitor(url, visitor.session_hash)
    browser.wait(browser.join(browser.trigger("gallery", "select"), event_data={"index": 0, "value": None, "selected": True}))

    def opened() -> str:
        with closing(browser):
            shown = browser.wait(browser.join("next_page"), CLIENT_TIMEOUT_S)["output"]["data"][1]
            started = time.monotonic()
            for _ in range(4):  # 125, 150, 200, 250 %
                zoomed = browser.wait(browser.join("zoom_in"), CLIENT_TIMEOUT_S)["output"]["data"]
            return f"{shown} | at {zoomed[6]} {time.monotonic() - started:.2f} s later: {zoomed[1][:80]}"

    return opened


def cited_bomb(url: str, scratch: Path, pdf: Path) -> Callable[[], str]:
    """An anchored visitor: the bomb adds a cited PDF whose figure lies on a page of nested transparency groups."""
    from gradio_client import handle_file

    bomb = nested_groups_pdf(scratch / "cited-bomb.pdf", fresh_pdf(scratch, "cited-bomb"), depth=6, bomb_page=1)
    visitor = client(url)
    visitor.predict(handle_file(str(pdf)), api_name="/load_pdf")
    return lambda: str(visitor.predict([handle_file(str(bomb))], api_name="/add_cited")[1])


def result_file(path: Path, records: list[Any]) -> Path:
    path.write_text("\n".join(r.to_json() for r in records), encoding="utf-8")
    return path


def rouge_bomb(url: str, bomb: Path) -> Callable[[], str]:
    from gradio_client import handle_file

    visitor = client(url)
    return lambda: str(visitor.predict(handle_file(str(bomb)), None, api_name="/load_results")[0])


def long_answers(scratch: Path, name: str, rows: int, tokens: int) -> Path:
    """`rows` answers of `tokens` distinct words each, against ground truths as long: ROUGE-L's worst case."""
    from spiqa_demo.evaluation.records import ResultRecord

    def words(seed: int) -> str:
        return " ".join(f"w{(seed * 7919 + i * 104729) % 50_000}" for i in range(tokens))

    return result_file(scratch / name, [ResultRecord("p", str(i), "Why?", words(i), words(i + 1), figure_category="plot")
                                        for i in range(rows)])


def same_paper_at_once(url: str, pdf: Path) -> None:
    from gradio_client import handle_file

    jobs = [client(url).submit(handle_file(str(pdf)), api_name="/load_pdf") for _ in range(10)]
    statuses = [str(job.result(timeout=CLIENT_TIMEOUT_S)[0]) for job in jobs]
    loaded = sum("Error" not in s and "not loaded" not in s and "###" in s for s in statuses)
    print(f"5. ten sessions load one paper at once: {loaded} of 10 loaded (bar 10; the issue: 2)")


def bombs(url: str, pid: int, pdf: Path, scratch: Path) -> None:
    from spiqa_demo.evaluation import read_results

    reader = client(url)
    load(reader, pdf)
    small = result_file(scratch / "small.jsonl", read_results(SHARED / "spiqa" / "test-C-responses" / OFFICIAL).records[:30])
    idle = beside(url, reader, small)
    during("a page painting nested transparency groups, opened and zoomed", url, reader, pid, idle,
           render_bomb(url, scratch))
    during("a cited PDF whose figure lies on such a page", url, reader, pid, idle, cited_bomb(url, scratch, pdf))
    under = long_answers(scratch, "rouge-bomb.jsonl", ROUGE_ROWS, ROUGE_TOKENS)
    during(f"a result file of {ROUGE_ROWS} answers of {ROUGE_TOKENS} tokens ({under.stat().st_size / 1e6:.1f} MB)", url,
           reader, pid, idle, rouge_bomb(url, under), small)
    issue = long_answers(scratch, "rouge-issue.jsonl", 30, 2000)
    during(f"the issue's result file (30 answers of 2,000 tokens, {issue.stat().st_size / 1e6:.2f} MB)", url, reader, pid,
           idle, rouge_bomb(url, issue), small)
    same_paper_at_once(url, copies(pdf, scratch, 1, "same-paper")[0])


def main() -> None:
    only_bombs = "--only-bombs" in sys.argv[1:]
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
            if not only_bombs:
                hung_model_calls(url, hung.url, pdf)
                idle_ready, _ = load(client(url), fresh_pdf(scratch, "idle"))
                reader = client(url)
                load(reader, pdf)
                huge = [huge_image_pdf(scratch / f"bomb-{i}.pdf", title=f"Bomb {i}") for i in range(FLOOD)]
                flood(url, huge, "the issue's PDFs (40000 x 40000 images)", scratch, idle_ready, reader)
                from evalsuite.pdf_factory import long_paper

                long = long_paper(scratch / "long.pdf", pages=LONG_PAGES).path
                flood(url, copies(long, scratch, FLOOD, "long"), f"{LONG_PAGES}-page papers", scratch, idle_ready, reader)
                uploads_never_loaded(url, pdf, Path(cache) / "ui", scratch)
            bombs(url, process.pid, pdf, scratch)
            hung.go.set()
            tracebacks = log.read_text(errors="replace").count("Traceback")
            print(f"tracebacks in the app's log: {tracebacks}; machine: {os.cpu_count()} cores, load average "
                  + ", ".join(f"{v:.1f}" for v in os.getloadavg()))


if __name__ == "__main__":
    main()
