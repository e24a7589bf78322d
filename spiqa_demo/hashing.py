"""Content hashes of files: a paper is cached and stored under the hash of its bytes, not its name."""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha256_of(path: Path) -> str:
    """The SHA-256 hex digest of the file's bytes, read in chunks (PDFs may be large)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
