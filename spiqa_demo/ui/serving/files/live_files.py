"""Which of the app's files live sessions show or are about to read, so cleanup never deletes them.

A session holds files under names of its own choosing ("paper": the loaded paper's PDF, crops
folder and page images; one entry per load in progress; "cited": the cited papers' PDFs and
pages). An entry is a file, a folder (everything under it) or a name prefix (the page images of a
PDF are named `<prefix>-p<page>-...`). A session unused for `SPIQA_UI_SESSION_TTL_S` is forgotten:
its files become ordinary old files, deleted first once the folder is full.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable, Iterable
from pathlib import Path


class LiveFiles:
    """Sessions' held files by session and name, with when each session was last used."""

    def __init__(self) -> None:
        self._held: dict[Hashable, dict[Hashable, frozenset[str]]] = {}
        self._used: dict[Hashable, float] = {}
        self._lock = threading.Lock()

    def hold(self, owner: Hashable, name: Hashable, paths: Iterable[Path]) -> None:
        """`owner` now holds `paths` under `name` (replacing what it held there)."""
        with self._lock:
            self._held.setdefault(owner, {})[name] = frozenset(str(p) for p in paths)
            self._used[owner] = time.monotonic()

    def add(self, owner: Hashable, name: Hashable, paths: Iterable[Path]) -> None:
        """`owner` holds `paths` under `name` besides what it holds there already."""
        with self._lock:
            held = self._held.setdefault(owner, {})
            held[name] = held.get(name, frozenset()) | {str(p) for p in paths}
            self._used[owner] = time.monotonic()

    def let_go(self, owner: Hashable, name: Hashable, paths: Iterable[Path]) -> None:
        """`owner` no longer holds `paths` under `name` (the rest it holds there stays)."""
        with self._lock:
            held = self._held.get(owner, {})
            if name in held:
                held[name] = held[name] - {str(p) for p in paths}

    def release(self, owner: Hashable, name: Hashable) -> None:
        with self._lock:
            self._held.get(owner, {}).pop(name, None)

    def touch(self, owner: Hashable) -> None:
        """The session was used now (its files stay held for another `ttl_s`)."""
        with self._lock:
            if owner in self._held:
                self._used[owner] = time.monotonic()

    def expire(self, ttl_s: float) -> None:
        """Forget the sessions unused for `ttl_s` seconds."""
        cutoff = time.monotonic() - ttl_s
        with self._lock:
            for owner in [o for o, used in self._used.items() if used < cutoff]:
                self._held.pop(owner, None)
                del self._used[owner]

    def entries(self, owner: Hashable | None = None, leave_out: Hashable | None = None) -> set[str]:
        """Every held entry (of `owner` only when given, without its entry `leave_out`)."""
        with self._lock:
            owners = [owner] if owner is not None else list(self._held)
            return {entry for o in owners for name, held in self._held.get(o, {}).items() if name != leave_out
                    for entry in held}


def is_held(path: Path, entries: set[str]) -> bool:
    """Whether `path` is a held file, lies in a held folder, or has a held name prefix (`<prefix>-...`)."""
    return (str(path) in entries or any(str(parent) in entries for parent in path.parents)
            or str(path.with_name(path.name.split("-", 1)[0])) in entries)
