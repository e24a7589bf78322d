"""A BERT sentence encoder in numpy: what sentence-transformers computes for a plain BERT folder
with mean pooling (all-MiniLM-L6-v2), without importing torch.

A paper reader is a process of its own; importing torch and sentence-transformers there costs
seconds of processor time before the first paper can be indexed, while numpy, `tokenizers` and
`safetensors` load in a fraction of a second. The forward pass is the same arithmetic in float32
(the same tokens and truncation, exact GELU, the folder's LayerNorm epsilon, each text attending to
and pooling over its own tokens only), so its vectors equal sentence-transformers' fp32 ones up to
rounding. Texts are packed end to end rather than padded to a batch's longest, so no work is spent
on padding.

`NumpyBert.supports(folder)` says whether a folder is such a model (anything else stays with
sentence-transformers); `NumpyBert(folder, max_tokens)` reads it; `.encode(texts)` gives
L2-normalised float32 rows.
"""

from __future__ import annotations

import json
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController, ThreadpoolLimiter

WEIGHTS = "model.safetensors"
_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"
_MEAN_ONLY = {"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False, "pooling_mode_max_tokens": False,
              "pooling_mode_mean_sqrt_len_tokens": False}
_READABLE_DTYPES = {"F32", "F16", "I64"}  # numpy reads these (I64: position ids); bf16 weights stay with torch
# erf(z) = z P(z^2) / Q(z^2) on [-4, 4] (beyond, erf is +-1 in float32); coefficients highest first
_ERF_P = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05,
          -7.34990630326855e-04, -2.95459980854025e-03)
_ERF_LAST_P = -1.60960333262415e-02
_ERF_Q = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03)
_ERF_LAST_Q = -1.42647390514189e-02
PACKED_TOKENS = 2048  # tokens per forward pass: big enough for efficient matrix products, small in memory
FFN_ROWS = 128  # token rows per feed-forward block: their (rows, intermediate) activations fit in L2 cache


def _json(path: Path) -> object:
    return json.loads(path.read_text(encoding="utf-8"))


def _weight_dtypes(path: Path) -> set[str]:
    """The tensor dtypes named in a safetensors file's header (read without loading the tensors)."""
    with path.open("rb") as fh:
        (size,) = struct.unpack("<Q", fh.read(8))
        header = json.loads(fh.read(size))
    return {entry["dtype"] for name, entry in header.items() if name != "__metadata__"}


def _supports(folder: Path) -> bool:
    modules = _json(folder / "modules.json")
    assert isinstance(modules, list)
    kinds = [m.get("type", "") for m in modules]
    if kinds not in ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE]) or modules[0].get("path") != "":
        return False
    pooling = _json(folder / modules[1]["path"] / "config.json")
    config = _json(folder / "config.json")
    assert isinstance(pooling, dict) and isinstance(config, dict)
    return (
        all(pooling.get(key, False) == value for key, value in _MEAN_ONLY.items())
        and config.get("model_type") == "bert"
        and config.get("hidden_act") == "gelu"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and (folder / "tokenizer.json").is_file()
        and _weight_dtypes(folder / WEIGHTS) <= _READABLE_DTYPES
    )


_blas_lock = threading.Lock()
_blas_users = [0]  # encodes running now
_blas_limits: list[ThreadpoolLimiter] = []  # threadpoolctl's limit while any runs


@cache
def _blas_controller() -> ThreadpoolController:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """numpy's BLAS on one thread while any encode runs: the products of a few hundred tokens gain
    little from a second thread and lose much when the other core is busy (the workers run on one
    anyway). The limit is process-wide, so the first encode sets it and the last restores it."""
    with _blas_lock:
        if _blas_users[0] == 0:
            _blas_limits.append(_blas_controller().limit(limits=1, user_api="blas"))
        _blas_users[0] += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users[0] -= 1
            if _blas_users[0] == 0:
                _blas_limits.pop().restore_original_limits()


def _gelu(x: np.ndarray) -> np.ndarray:
    """x * Phi(x), in place: the exact (erf) GELU BERT uses. numpy has no erf and scipy would cost the
    import this module exists to avoid, so erf is the float32 rational approximation of Eigen and XLA,
    as close to the true GELU as torch's own float32 result."""
    z = x * np.float32(1 / np.sqrt(2))
    np.clip(z, -4.0, 4.0, out=z)
    z2 = z * z
    p = z2 * np.float32(_ERF_P[0])
    for c in _ERF_P[1:]:
        p += np.float32(c)
        p *= z2
    p += np.float32(_ERF_LAST_P)
    p *= z
    q = z2 * np.float32(_ERF_Q[0])
    for c in _ERF_Q[1:]:
        q += np.float32(c)
        q *= z2
    q += np.float32(_ERF_LAST_Q)
    p /= q  # erf(x / sqrt 2)
    p += 1.0
    p *= 0.5
    x *= p
    return x


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    x = x - mean
    var = np.mean(x * x, axis=-1, keepdims=True)
    x *= 1.0 / np.sqrt(var + np.float32(eps))
    x *= weight
    x += bias
    return x


@dataclass(frozen=True)
class _Layer:
    qkv: np.ndarray  # (hidden, 3 * hidden): query, key and value projections side by side
    qkv_bias: np.ndarray
    out: np.ndarray
    out_bias: np.ndarray
    norm1: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_bias: np.ndarray
    down: np.ndarray
    down_bias: np.ndarray
    norm2: tuple[np.ndarray, np.ndarray]


class NumpyBert:
    """A loaded BERT + mean pooling + normalisation sentence encoder (weights as float32 numpy arrays)."""

    def __init__(self, folder: Path, max_tokens: int) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = _json(folder / "config.json")
        st_config = _json(folder / "sentence_bert_config.json") if (folder / "sentence_bert_config.json").is_file() else {}
        assert isinstance(config, dict) and isinstance(st_config, dict)
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.lowercase = bool(st_config.get("do_lower_case", False))
        # sentence-transformers' own limit, then the caller's; positions beyond the table do not exist
        self.max_seq_length = min(int(st_config.get("max_seq_length") or max_tokens), max_tokens,
                                  int(config["max_position_embeddings"]))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_seq_length)
        raw = load_file(str(folder / WEIGHTS))
        w = {name.removeprefix("bert."): array.astype(np.float32, copy=False) for name, array in raw.items()}
        self.words = w["embeddings.word_embeddings.weight"]
        self.positions = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.embed_norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = [self._layer(w, f"encoder.layer.{i}.") for i in range(int(config["num_hidden_layers"]))]

    @staticmethod
    def supports(model: str) -> bool:
        """Whether `model` is a local sentence-transformers folder this encoder computes exactly: a BERT
        (absolute positions, erf GELU, float weights in model.safetensors) with mean pooling, then
        optionally Normalize (vectors are normalised either way, as `Embedder` asks sentence-transformers)."""
        folder = Path(model)
        try:
            return _supports(folder)
        except (OSError, ValueError, KeyError, IndexError, AssertionError, struct.error, AttributeError):
            return False

    @staticmethod
    def _layer(w: dict[str, np.ndarray], p: str) -> _Layer:
        def t(name: str) -> np.ndarray:
            return np.ascontiguousarray(w[p + name + ".weight"].T)

        attention = p + "attention.self."
        return _Layer(
            qkv=np.ascontiguousarray(np.concatenate([w[attention + n + ".weight"].T for n in ("query", "key", "value")], axis=1)),
            qkv_bias=np.concatenate([w[attention + n + ".bias"] for n in ("query", "key", "value")]),
            out=t("attention.output.dense"), out_bias=w[p + "attention.output.dense.bias"],
            norm1=(w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"]),
            up=t("intermediate.dense"), up_bias=w[p + "intermediate.dense.bias"],
            down=t("output.dense"), down_bias=w[p + "output.dense.bias"],
            norm2=(w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
        )

    @property
    def dim(self) -> int:
        return int(self.words.shape[1])

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's token ids as sentence-transformers makes them: [CLS] ... [SEP], truncated to
        `max_seq_length` tokens (special tokens included)."""
        texts = [t.lower() for t in texts] if self.lowercase else texts
        return [e.ids for e in self.tokenizer.encode_batch(texts)]

    def encode(self, texts: list[str]) -> np.ndarray:
        """`(len(texts), dim)` float32 unit rows, in the order of `texts`. Texts are packed end to end
        into runs of about `PACKED_TOKENS` tokens: no padding is computed or masked, and each text
        attends only to itself, so a text's vector does not depend on what it is encoded with."""
        ids = self.token_ids(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        run: list[int] = []
        tokens = 0
        with _one_blas_thread():
            for i, text_ids in enumerate(ids):
                run.append(i)
                tokens += len(text_ids)
                if tokens >= PACKED_TOKENS or i == len(ids) - 1:
                    out[run] = self._forward([ids[j] for j in run])
                    run, tokens = [], 0
        return out

    def _forward(self, run: list[list[int]]) -> np.ndarray:
        lengths = np.array([len(ids) for ids in run])
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        tokens = np.concatenate([np.asarray(ids, dtype=np.int64) for ids in run])
        positions = np.concatenate([np.arange(n) for n in lengths])
        hidden = self.words[tokens] + self.positions[positions] + self.token_type
        hidden = _layer_norm(hidden, *self.embed_norm, self.eps)
        spans = [(int(s), int(s + n)) for s, n in zip(starts, lengths)]
        for layer in self.layers:
            hidden = self._layer_forward(layer, hidden, spans)
        pooled = np.add.reduceat(hidden, starts, axis=0) / lengths[:, None].astype(np.float32)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32)

    def _layer_forward(self, layer: _Layer, hidden: np.ndarray, spans: list[tuple[int, int]]) -> np.ndarray:
        """One encoder layer over packed tokens `(n, width)`; `spans` are the texts' rows."""
        width = hidden.shape[1]
        head = width // self.heads
        qkv = hidden @ layer.qkv
        qkv += layer.qkv_bias
        qkv[:, :width] *= np.float32(1 / np.sqrt(head))  # the scores' scale, applied to the (smaller) queries
        context = np.empty_like(hidden)
        for start, end in spans:
            q, k, v = qkv[start:end].reshape(end - start, 3, self.heads, head).transpose(1, 2, 0, 3)  # each (h, l, d)
            scores = q @ k.transpose(0, 2, 1)
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context[start:end] = (scores @ v).transpose(1, 0, 2).reshape(end - start, width)
        attended = context @ layer.out
        attended += layer.out_bias
        attended += hidden
        hidden = _layer_norm(attended, *layer.norm1, self.eps)
        out = np.empty_like(hidden)
        for start in range(0, len(hidden), FFN_ROWS):  # the wide intermediate stays in cache, a few rows at a time
            up = hidden[start:start + FFN_ROWS] @ layer.up
            up += layer.up_bias
            np.matmul(_gelu(up), layer.down, out=out[start:start + FFN_ROWS])
        out += layer.down_bias
        out += hidden
        return _layer_norm(out, *layer.norm2, self.eps)
