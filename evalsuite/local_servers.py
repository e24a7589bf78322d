"""Servers the tests and benchmarks run on this machine: a free loopback port, a server process
waited for until it answers, and stopped however the work with it ended.

The tests start real servers (`transformers serve`, llama.cpp's server) and the benchmarks start
the app itself; each needs the same steps, and a server left running would outlive the run.
"""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

STOP_GRACE_S = 10.0


class ServerDidNotStart(RuntimeError):
    """The server exited, or did not answer in time; the message ends with the tail of its log."""


def free_port() -> int:
    """A loopback port nothing listens on now (a server started next can take it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def server_process(command: Sequence[str], log: Path, **popen: Any) -> Iterator[subprocess.Popen[bytes]]:
    """`command` running with its output in `log`; on leaving it is terminated (killed if it lingers)."""
    with open(log, "wb") as out:
        process = subprocess.Popen(list(command), stdout=out, stderr=subprocess.STDOUT, **popen)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_until_answering(
    url: str,
    process: subprocess.Popen[bytes],
    log: Path,
    limit_s: float = 120.0,
    ready: Callable[[bytes], bool] = lambda head: True,
) -> float:
    """Seconds until `url` answers 200 with a first 2 KB that `ready` accepts.

    Raises `ServerDidNotStart` when the process exits first or `limit_s` passes.
    """
    started = time.monotonic()
    while True:
        try:
            with urllib.request.urlopen(url, timeout=1) as reply:
                if reply.status == 200 and ready(reply.read(2048)):
                    return time.monotonic() - started
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() - started > limit_s:
            why = f"exited with code {process.returncode}" if process.poll() is not None else f"did not answer in {limit_s:.0f} s"
            tail = log.read_text(errors="replace")[-3000:] if log.is_file() else ""
            raise ServerDidNotStart(f"the server at {url} {why}; its log ends:\n{tail}")
        time.sleep(0.05)
