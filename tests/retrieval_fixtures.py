"""Retrieval test helpers: the shared embedder fixture, an embedder that counts, a memo of the
vectors a test module encodes (kept between runs), a small hand-built paper."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import numpy as np
import pytest
from stored_vectors import StoredEmbedder

from retrieval import Embedder, get_embedder
from retrieval.embedder import SentenceEncoder
from spiqa_demo.types import Figure, Mention, Paper, Passage

BOX = (0.0, 0.0, 100.0, 100.0)


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real offline MiniLM embedder, loaded once per test session (import it into a test module)."""
    return get_embedder()


@pytest.fixture(scope="module")
def encoded_once(request: pytest.FixtureRequest) -> Iterator[None]:
    """The process's embedder (default settings) remembers every text it encodes while a module runs:
    a module that asks the same questions through several flows (each ranks with its own code, all
    embed with this encoder) encodes each question once. The vectors are the encoder's own, and are
    kept between runs as test-A's are (`stored_vectors`: a sample encoded again each run drops a
    changed encoder's store), so a module that indexes every shared paper encodes only new texts."""
    from spiqa_demo.settings import get_settings

    get_settings.cache_clear()  # the run's settings, not those a test before this module left cached
    shared = get_embedder(get_settings().retrieval)
    shared.load()
    # The copy keeps the class's encode and shares the loaded model; one store per module, so two
    # workers never write the same one.
    memo = StoredEmbedder(copy.copy(shared), request.module.__name__)
    # A caller given no settings gets the default settings' instance: `shared` when the run's
    # settings are the defaults, else another instance of the same model, which reads the same memo
    # (equal signatures, equal vectors).
    instances = (shared, get_embedder())
    with pytest.MonkeyPatch.context() as patch:
        for embedder in {id(e): e for e in instances if e.signature == shared.signature}.values():
            patch.setattr(embedder, "encode", memo.encode)
        yield
    memo.save()


class CountingEmbedder(Embedder):
    """The real embedder, counting the texts it encodes: what a cache hit must leave at zero.
    Its signature is the real one's, so indexes it builds and saved real ones are interchangeable."""

    def __init__(self, base: Embedder) -> None:
        super().__init__(base.model_name, base.batch_size, base.device, base.max_tokens, base.bf16, base.backend)
        self._base = base
        self.encoded = 0

    @property
    def model(self) -> SentenceEncoder:
        return self._base.model

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded += len(texts)
        return self._base.encode(texts)


def item(kind: str, number: str, caption: str, text: str = "", mentions: list[Mention] | None = None, label: str = "") -> Figure:
    if not label and number:
        label = f"{'Figure' if kind == 'figure' else 'Table'} {number}"
    return Figure(kind=kind, label=label, number=number, page=1, bbox=BOX, caption=caption, text=text, mentions=mentions or [])


def small_paper() -> Paper:
    """Eight items of an imaginary vision paper; item 6 is only findable through its citing paragraph."""
    passages = [
        Passage(text="We first describe the model. Figure 1 gives an overview of the encoder and decoder.", page=1, bbox=BOX),
        Passage(
            text="Dropout matters. As Figure 4 shows, adding dropout reduces overfitting on CIFAR-10 "
            "and narrows the gap between training and validation error.",
            page=3,
            bbox=BOX,
        ),
    ]
    items = [
        item("figure", "1", "Figure 1: Overview of the proposed architecture: an encoder, a decoder and an attention module.",
             mentions=[Mention(0, "Figure 1 gives an overview of the encoder and decoder.")]),
        item("table", "1", "Table 1: Statistics of the datasets: number of images, classes and annotators.",
             text="| Dataset | Images | Classes |\n| CIFAR-10 | 60000 | 10 |\n| ImageNet | 1281167 | 1000 |"),
        item("table", "2", "Table 2: Top-1 accuracy of our method and the baselines on ImageNet and CIFAR-10.",
             text="| Method | ImageNet | CIFAR-10 |\n| ResNet-50 | 76.1 | 93.0 |\n| Ours | 79.4 | 95.2 |"),
        item("figure", "2", "Figure 2: Training loss over epochs for three learning rates (0.1, 0.01 and 0.001)."),
        item("figure", "3", "Figure 3: Qualitative examples of generated images for six object classes."),
        item("table", "4", "TABLE IV: Inference latency in milliseconds on a single GPU for each batch size.", label="TABLE IV"),
        item("figure", "4", "Figure 4: Results.",
             mentions=[Mention(1, "As Figure 4 shows, adding dropout reduces overfitting on CIFAR-10 and narrows the gap between training and validation error.")]),
        item("figure", "5", "Figure 5: Attention maps of the decoder for two example sentences."),
    ]
    return Paper(sha256="a" * 64, source="small.pdf", title="An imaginary paper", arxiv_id=None,
                 page_sizes=[(612.0, 792.0)] * 4, passages=passages, items=items)
