"""Walking folders that other threads and processes change meanwhile (the caches' evictions), and
writing files into them whole."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path


def files_under(folder: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """Every file under `folder` that is still there when reached, with its `stat`.

    Other loads rename their staging folders into place and evict entries while this walks:
    `os.walk` skips a folder that vanished under it (`Path.rglob` raises), and a file gone
    before its `stat` is skipped.
    """
    for root, _, names in os.walk(folder):
        for name in names:
            path = Path(root, name)
            try:
                yield path, path.stat()
            except OSError:
                continue


def write_whole(target: Path, write: Callable[[Path], object]) -> Path:
    """`target` written by `write(temporary)` and renamed into place: a reader sees all of it or nothing.

    The temporary is unique to this call (`mkstemp`, beside `target` so the rename stays on one
    file system): threads and processes writing the same target at once each rename a whole file,
    and the last one wins, instead of renaming each other's half-written (or already moved) file.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(handle)
    try:
        write(Path(name))
        os.replace(name, target)
    finally:
        if os.path.exists(name):
            os.unlink(name)
    return target
