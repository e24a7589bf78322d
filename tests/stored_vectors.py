"""The real embedder with its vectors kept on disk between test runs, as the product keeps a paper's
index: the retrieval benchmark embeds the same few thousand SPIQA captions and questions every run,
and encoding them is most of its time.

A text's vector does not depend on what it is encoded with (`NumpyBert` packs texts without
padding), so a stored vector is the one the encoder would give. The store is keyed by the embedder's
signature and its weights file; each run also encodes a random sample of the stored texts again and
drops the whole store if one differs, so a changed encoder is caught even when its signature is not.
"""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

import numpy as np

from retrieval import Embedder
from retrieval.embedder import MemoEmbedder

CHECKED = 24  # stored texts encoded again per run
ATOL = 1e-5


def store_folder() -> Path:
    """Beside the user's caches, never inside the product's own (`SPIQA_CACHE_DIR`)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "spiqa-demo-tests" / "vectors"


def _weights(model_name: str) -> str:
    """The model folder's files by content: the same model installed again (a fresh clone's new
    environment) reads the store its earlier install wrote (by size and mtime, every fresh clone
    encoded test-A again), and changed weights or tokenizer files start a new store."""
    folder = Path(model_name)
    if not folder.is_dir():
        return ""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(folder)}\0".encode())
        with path.open("rb") as fh:
            digest.update(hashlib.file_digest(fh, "sha256").digest())
    return digest.hexdigest()


class StoredEmbedder(MemoEmbedder):
    """`base`'s vectors, from `folder` where a run stored them, else encoded by `base` (then `save`)."""

    def __init__(self, base: Embedder, name: str, folder: Path | None = None) -> None:
        super().__init__(base)
        key = hashlib.sha256(f"{base.signature}|{_weights(base.model_name)}".encode()).hexdigest()[:16]
        self._path = (folder or store_folder()) / f"{name}-{key}.npz"
        self._memo.update(self._stored())
        self._read = len(self._memo)

    def _stored(self) -> dict[str, np.ndarray]:
        try:
            with np.load(self._path) as stored:
                texts, vectors = [str(t) for t in stored["texts"]], stored["vectors"]
        except (OSError, ValueError, KeyError):
            return {}
        memo = dict(zip(texts, vectors))
        sample = random.Random().sample(texts, min(CHECKED, len(texts)))
        if sample and not np.allclose(self._base.encode(sample), np.stack([memo[t] for t in sample]), atol=ATOL):
            return {}  # the encoder changed: every stored vector is suspect
        return memo

    def save(self) -> None:
        """Store what was encoded (written beside, then renamed: a parallel run reads a whole store or none)."""
        if len(self._memo) == self._read:
            return
        self._path.parent.mkdir(parents=True, exist_ok=True)
        texts = list(self._memo)
        partial = self._path.with_name(f"{self._path.stem}.{os.getpid()}.partial.npz")
        np.savez(partial, texts=np.array(texts, dtype=str), vectors=np.stack([self._memo[t] for t in texts]).astype(np.float32))
        os.replace(partial, self._path)
