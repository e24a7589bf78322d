"""Which result file each session is reading now, so that a dropdown's input event repeated while the
first is still reading (a dropdown repeats its input event when it loses focus) changes nothing.

Reading a file waits without holding a slot, so the repeat runs beside the first one; it would read
the file again and, finishing last, reset the filters the visitor set meanwhile.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager

_reading: set[tuple[Hashable, str, str]] = set()
_lock = threading.Lock()


@contextmanager
def first_reading(owner: Hashable, role: str, source: str) -> Iterator[bool]:
    """True for the first reading of `source` as `role` ("a", "b") by session `owner` while none is
    under way; False for a repeat, which should change nothing."""
    key = (owner, role, source)
    with _lock:
        first = key not in _reading
        _reading.add(key)
    try:
        yield first
    finally:
        if first:
            with _lock:
                _reading.discard(key)
