"""What the no-model answer reads off a whole paper (its headings, its words' paragraph counts), kept
for the few papers being asked about, since every question of a conversation asks it again.

Kept by the paper's paragraphs themselves, not its id: two papers with the same name or hash but
other text (a paper edited and extracted again) never share an entry. Several visitors ask about
several papers at once, so the store is bounded and locked, and a computed value is returned as
computed (never read back after another thread may have evicted it).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar, cast

from spiqa_demo.types import Paper

T = TypeVar("T")
KEPT = 16  # papers remembered per kind of value: the papers live sessions are asking about

_stores: dict[str, OrderedDict[int, object]] = {}
_lock = threading.Lock()


def per_paper(kind: str, paper: Paper, compute: Callable[[Paper], T]) -> T:
    """`compute(paper)`, remembered under `kind` for this paper's paragraphs."""
    key = hash(tuple(p.text for p in paper.passages))
    with _lock:
        store = _stores.setdefault(kind, OrderedDict())
        if key in store:
            store.move_to_end(key)
            return cast(T, store[key])
    value = compute(paper)
    with _lock:
        store[key] = value
        while len(store) > KEPT:
            store.popitem(last=False)
    return value
