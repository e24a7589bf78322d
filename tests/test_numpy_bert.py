"""The torch-free sentence encoder (`retrieval.numpy_bert`): which folders it takes, its tokens, that a
text's vector does not depend on its batch, that it equals sentence-transformers' vectors (when
torch is installed), and that a warmed paper reader never imports torch."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from retrieval.embedder import Embedder, TorchEncoder, cpu_has_native_bf16, default_model, use_bf16
from retrieval.numpy_bert import NumpyBert
from spiqa_demo.settings import RetrievalSettings

TEXTS = [
    "Figure 3: Training loss against the learning rate.",
    "Table 2: Top-1 accuracy on ImageNet for ResNet-50 and ViT-B/16 (%).",
    "We use a dropout of 0.1 and the Adam optimiser with β1 = 0.9, β2 = 0.98 and ϵ = 10−9.",
    "这篇论文中哪种方法的准确率最高？",
    "?!",
    "attention " * 200,  # truncated to the token limit
]
HEAVY = ("torch", "sentence_transformers", "transformers")
INDEXING = ("faiss", "bm25s")  # what building a paper's index imports on first use


@pytest.fixture(scope="module")
def encoder() -> NumpyBert:
    return NumpyBert(Path(default_model()), 128)


def test_the_default_minilm_is_computed_in_numpy_and_other_folders_are_not(tmp_path: Path) -> None:
    folder = Path(default_model())
    assert NumpyBert.supports(str(folder)) and Embedder().numpy and not Embedder(backend="torch").numpy
    assert not NumpyBert.supports("sentence-transformers/all-MiniLM-L6-v2") and not NumpyBert.supports(str(tmp_path))
    cls_pooled = tmp_path / "cls"
    shutil.copytree(folder, cls_pooled, ignore=shutil.ignore_patterns("model.safetensors"))
    (cls_pooled / "model.safetensors").symlink_to(folder / "model.safetensors")
    assert NumpyBert.supports(str(cls_pooled))
    pooling = cls_pooled / "1_Pooling" / "config.json"
    pooling.write_text(json.dumps({**json.loads(pooling.read_text()), "pooling_mode_cls_token": True,
                                   "pooling_mode_mean_tokens": False}))
    assert not NumpyBert.supports(str(cls_pooled))


def test_tokens_are_sentence_transformers_own(encoder: NumpyBert) -> None:
    ids = encoder.token_ids(["Accuracy on ImageNet.", "word " * 500])
    assert ids[0][0] == 101 and ids[0][-1] == 102 and len(ids[0]) < 10  # [CLS] ... [SEP], lower-cased word pieces
    assert len(ids[1]) == encoder.max_seq_length == 128 and ids[1][-1] == 102


def test_a_texts_vector_is_the_same_alone_or_with_others(encoder: NumpyBert) -> None:
    together = encoder.encode(TEXTS)
    alone = np.stack([encoder.encode([text])[0] for text in TEXTS])
    assert together.shape == (len(TEXTS), 384) and together.dtype == np.float32
    assert np.abs(together - alone).max() < 1e-5
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_the_embedder_gives_empty_texts_zero_vectors_without_loading_torch() -> None:
    embedder = Embedder()
    vectors = embedder.encode(["", "a figure", "   "])
    assert vectors.shape == (3, 384) and not vectors[[0, 2]].any() and embedder.signature.endswith("(max 128 tokens)")
    assert Embedder(bf16=True).signature == embedder.signature  # bf16 is sentence-transformers' alone


@pytest.fixture(scope="module")
def torch_encoder() -> TorchEncoder:
    pytest.importorskip("sentence_transformers")
    model = Embedder(backend="torch").model
    assert isinstance(model, TorchEncoder)
    return model


def test_numpy_vectors_equal_sentence_transformers_fp32(encoder: NumpyBert, torch_encoder: TorchEncoder) -> None:
    mine, theirs = encoder.encode(TEXTS), torch_encoder.encode(TEXTS)
    assert np.abs(mine - theirs).max() < 1e-5 and (mine * theirs).sum(axis=1).min() > 0.99999


def test_bf16_vectors_match_fp32(torch_encoder: TorchEncoder) -> None:
    bf16 = TorchEncoder(torch_encoder.model, 8, "cpu", bf16=True)
    cosines = (torch_encoder.encode(TEXTS[:2]) * bf16.encode(TEXTS[:2])).sum(axis=1)
    assert cosines.min() > 0.999 and Embedder(backend="torch", bf16=True).signature != Embedder(backend="torch").signature
    assert use_bf16("1", "cuda") and not use_bf16("off", "cpu") and use_bf16("auto", "cpu") == cpu_has_native_bf16()
    assert not use_bf16("auto", "cuda")


def _encoder_and_modules(report: object, settings: RetrievalSettings) -> tuple[bool, list[str], list[str]]:
    """(In a worker) whether its encoder is loaded, in numpy, the heavy libraries it has imported and
    the indexing libraries it has not."""
    from retrieval.embedder import get_embedder

    embedder = get_embedder(settings)
    return (embedder._model is not None and embedder.numpy, [name for name in HEAVY if name in sys.modules],
            [name for name in INDEXING if name not in sys.modules])


def test_a_warmed_paper_reader_has_its_encoder_and_index_libraries_without_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Warmed, a reader's first paper imports nothing for its index (and nothing ever imports torch)."""
    from spiqa_demo.ui.serving.work.workers import Worker

    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))  # the worker unpickles the task by name
    worker, settings = Worker(), RetrievalSettings()
    try:
        worker.warm(settings)
        assert worker.run(_encoder_and_modules, (settings,), "checking imports") == (True, [], [])
    finally:
        process = worker._process  # closing its requests ends a worker
        if process is not None and process.stdin is not None:
            process.stdin.close()
            process.wait(timeout=60)
