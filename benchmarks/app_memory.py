"""Memory per visitor under hostile inputs, against the bound the docs state (docs/benchmarks.md).

Launches `app.py` (retrieval only) and reads the server process's resident set (psutil when
installed, else /proc/<pid>/status VmRSS), after a warm-up (a paper loaded and asked about, a small
result file read) so that imports and the embedder are not counted:

1. One session asks ten questions of 10 MB each about a loaded paper: the growth, how much of each
   question the chat keeps, and the size of the chat sent back with the last reply.
2. Four sessions each upload a 40 MB result file (an official SPIQA response file repeated): the
   message, seconds per refusal and the growth.
3. Four sessions each load the largest file the bounds accept (`SPIQA_UI_MAX_RESULTS_ROWS` answers):
   a session's cost at the bound.
4. A request body over the app's limit: refused unread (HTTP 413).
5. After `SPIQA_UI_SESSION_TTL_S` idle (short here): whether the sessions were forgotten, and the RSS.

Usage, from the repository root: `python -m benchmarks.app_memory [--ttl 90]` (reads the shared
papers and result files from SPIQA_SHARED, default ../shared).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.app_startup import served
from evalsuite.local_servers import free_port, server_process
from evalsuite.paths import REPO, SHARED
from spiqa_demo.ui.serving.guards.request_size import max_request_bytes
from spiqa_demo.ui.serving.guards.session_expiry import SWEEP_S

PAPER = "non-local-nn-cvpr2018-1711.07971.pdf"
OFFICIAL = "test-C_GPT4_QA__gpt4o_cot_image+caption_size_full.json"
QUESTION = "Which table compares the non-local block with the baseline on Kinetics? "
QUESTION_MB = 10
QUESTIONS = 10
RESULT_MB = 40
SESSIONS = 4
# The docs' bounds (docs/benchmarks.md): what the issue's inputs (ten 10 MB questions, 40 MB result files) may add to the
# server's memory, and what a session holding a result file at the bounds costs.
BOUND_MB = 100
SESSION_FILE_MB = 40
CLIENT_TIMEOUT_S = 300.0
MODEL = ("cot", "none", "", "", 8, 0, True, "")  # the settings panel's inputs: retrieval only


def resident_mb(pid: int) -> float:
    """The process's resident set in MB (psutil when installed, else /proc)."""
    try:
        import psutil
    except ImportError:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")
    return float(psutil.Process(pid).memory_info().rss) / 2**20


def peak_mb(pid: int) -> float:
    """The process's peak resident set in MB (VmHWM; NaN where /proc has none)."""
    status = Path(f"/proc/{pid}/status")
    for line in status.read_text().splitlines() if status.is_file() else []:
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def repeated_results(target: Path, rows: int | None = None, megabytes: float | None = None) -> Path:
    """The official response file repeated (question keys made distinct) to `rows` answers or `megabytes`."""
    official: dict[str, dict[str, Any]] = json.loads((SHARED / "spiqa" / "test-C-responses" / OFFICIAL).read_text())
    entries = [(paper, key, entry) for paper, questions in official.items() for key, entry in questions.items()]
    repeated: dict[str, dict[str, Any]] = {}
    size, count, copy = 2, 0, 0
    while (rows is None or count < rows) and (megabytes is None or size < megabytes * 1_000_000):
        for paper, key, entry in entries:
            if (rows is not None and count >= rows) or (megabytes is not None and size >= megabytes * 1_000_000):
                break
            repeated.setdefault(paper, {})[f"{key}-{copy}"] = entry
            size += len(json.dumps(entry)) + len(key) + 12
            count += 1
        copy += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(repeated))
    return target


def client(url: str) -> Any:
    from gradio_client import Client

    return Client(url, verbose=False, download_files=False, ssl_verify=False, httpx_kwargs={"timeout": CLIENT_TIMEOUT_S})


def questions(visitor: Any, pid: int) -> float:
    """Ten 10 MB questions in the session of `visitor` (a paper loaded); returns the growth in MB."""
    before = resident_mb(pid)
    huge = (QUESTION * (QUESTION_MB * 1_000_000 // len(QUESTION) + 1))[:QUESTION_MB * 1_000_000]
    started = time.monotonic()
    for _ in range(QUESTIONS):
        chat, _box = visitor.predict(huge, *MODEL, api_name="/ask")
    seconds = time.monotonic() - started
    growth = resident_mb(pid) - before
    kept = max(len(part.get("text", "").split("\n\n")[0]) for message in chat if message["role"] == "user"
               for part in message["content"] if part.get("type") == "text")  # the question, without the note
    cut = any("cut to its first" in part.get("text", "") for message in chat for part in message["content"])
    print(f"{QUESTIONS} questions of {QUESTION_MB} MB in one session ({seconds / QUESTIONS:.2f} s each): "
          f"server RSS {growth:+.1f} MB; the chat keeps {kept} characters of each question "
          f"(cut note shown: {cut}); the chat sent with the last reply: {len(json.dumps(chat)) / 1000:.0f} kB, "
          f"{sum(1 for m in chat if m['role'] == 'user')} questions")
    return growth


def result_files(url: str, pid: int, path: Path, what: str) -> tuple[float, list[Any]]:
    """Each of SESSIONS sessions loads `path`; returns the growth in MB and the sessions."""
    from gradio_client import handle_file

    before = resident_mb(pid)
    visitors, seconds, summary = [], [], ""
    for _ in range(SESSIONS):
        visitor = client(url)
        started = time.monotonic()
        summary, *_ = visitor.predict(handle_file(str(path)), None, api_name="/load_results")
        seconds.append(time.monotonic() - started)
        visitors.append(visitor)
    growth = resident_mb(pid) - before
    print(f"{SESSIONS} sessions each load {what} ({path.stat().st_size / 1_000_000:.1f} MB): "
          f"{sum(seconds) / len(seconds):.2f} s each, server RSS {growth:+.1f} MB "
          f"({growth / SESSIONS:+.1f} MB per session)\n  the tab says: {summary.splitlines()[0][:220]}")
    return growth, visitors


def oversized_request(url: str, limit_bytes: int) -> None:
    """A request body over the app's limit is refused unread."""
    import httpx

    body = b" " * (limit_bytes + 1)
    started = time.monotonic()
    reply = httpx.post(url + "gradio_api/queue/join", content=body, headers={"content-type": "application/json"},
                       timeout=CLIENT_TIMEOUT_S)
    print(f"a {len(body) / 1_000_000:.0f} MB request: HTTP {reply.status_code} in {time.monotonic() - started:.2f} s "
          f"({reply.json().get('detail', '')})")


def expiry(pid: int, visitors: list[Any], ttl: float) -> None:
    """Once idle for the TTL, the sessions are forgotten: their result files are gone (the tab asks for one again)."""
    before = resident_mb(pid)
    time.sleep(ttl + SWEEP_S + 2)
    _table, count = visitors[0].predict("(all)", "(all)", "(all)", "(all)", "(all)", "(all)", 0, 1, "", api_name="/filter_results")
    print(f"after {ttl:.0f} s idle (SPIQA_UI_SESSION_TTL_S): a session's result file is "
          f"{'freed' if 'Load a result file first' in count else 'still kept'}; server RSS {before:.0f} -> "
          f"{resident_mb(pid):.0f} MB (the allocator need not return freed memory to the system)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ttl", type=float, default=90.0, help="SPIQA_UI_SESSION_TTL_S for this run (seconds)")
    args = parser.parse_args()
    from gradio_client import handle_file

    from spiqa_demo.settings import read_settings

    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory(prefix="spiqa-memory-") as folder:
        scratch = Path(folder)
        env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "SPIQA_CACHE_DIR": str(scratch / "cache"),
               "HF_HUB_OFFLINE": "1", "SPIQA_BACKEND": "none", "SPIQA_UI_SESSION_TTL_S": str(args.ttl),
               "GRADIO_TEMP_DIR": str(scratch / "cache" / "ui" / "gradio")}
        bounds = read_settings(env).ui
        huge = repeated_results(scratch / "40mb" / OFFICIAL, megabytes=RESULT_MB)
        largest = repeated_results(scratch / "largest" / OFFICIAL, rows=bounds.ui_max_results_rows)
        small = repeated_results(scratch / "small" / OFFICIAL, rows=100)
        log = scratch / "app.log"
        with server_process([sys.executable, "app.py"], log, cwd=REPO, env=env) as process:
            served(url, process, log)
            asker = client(url)  # warm-up: the paper read and indexed, pandas and the metrics imported
            asker.predict(handle_file(str(SHARED / "papers" / PAPER)), api_name="/load_pdf")
            asker.predict("What does Figure 1 show?", *MODEL, api_name="/ask")
            client(url).predict(handle_file(str(small)), None, api_name="/load_results")
            start = resident_mb(process.pid)
            print(f"server RSS after warm-up: {start:.0f} MB (bounds: question {read_settings(env).qa.max_question_chars} "
                  f"characters, {bounds.ui_chat_max_turns} turns per chat, result files {bounds.ui_max_results_mb:g} MB "
                  f"and {bounds.ui_max_results_rows} answers, session TTL {bounds.ui_session_ttl_s:g} s)")
            questions(asker, process.pid)
            oversized_request(url, max_request_bytes(read_settings(env)))
            result_files(url, process.pid, huge, f"a {RESULT_MB} MB result file")
            hostile = resident_mb(process.pid) - start
            accepted, visitors = result_files(url, process.pid, largest, "the largest result file accepted")
            print(f"growth from the issue's inputs (ten {QUESTION_MB} MB questions, {SESSIONS} sessions' {RESULT_MB} MB "
                  f"files): {hostile:+.1f} MB, bound stated in the docs {BOUND_MB} MB: ratio {hostile / BOUND_MB:.2f}")
            print(f"a session holding a result file at the bounds: {accepted / SESSIONS:+.1f} MB, bound stated in the "
                  f"docs {SESSION_FILE_MB} MB: ratio {accepted / SESSIONS / SESSION_FILE_MB:.2f}; over all of the above "
                  f"{resident_mb(process.pid) - start:+.1f} MB, the server's peak {peak_mb(process.pid):.0f} MB")
            expiry(process.pid, visitors, args.ttl)
            tracebacks = log.read_text(errors="replace").count("Traceback")
            print(f"tracebacks in the app's log: {tracebacks}; machine: {os.cpu_count()} cores, "
                  f"load average {', '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
