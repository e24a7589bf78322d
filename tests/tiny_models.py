"""Tiny model fixtures shared by the whole test session (the models come from `evalsuite.tiny_models`).

Built once per run, in a folder the pytest-xdist workers share (`tiny_model`); import the fixtures
you need into a test module (`from tiny_models import tiny_llava`). `served_cot_vlm` runs a real
OpenAI-compatible server (`transformers serve`) on 127.0.0.1.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from evalsuite.local_servers import ServerDidNotStart, free_port, server_process, wait_until_answering
from evalsuite.tiny_models import COT_REPLY, tiny_model_dir

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def tiny_model(factory: pytest.TempPathFactory, arch: str, reply: str | None = None, steps: int = 60) -> Path:
    """`evalsuite.tiny_models.tiny_model_dir` in the run's folder, which parallel workers share (the
    models are seeded, so each would build the same one): a worker asking for a model another one is
    building waits for it under its lock and reads it, instead of training it again."""
    base = factory.getbasetemp()
    base = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    base.joinpath("tiny-models").mkdir(parents=True, exist_ok=True)
    key = hashlib.sha1(f"{arch}|{reply}|{steps}".encode()).hexdigest()[:10]
    with open(base / "tiny-models" / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        return tiny_model_dir(base, arch, reply, steps)


@pytest.fixture(scope="session")
def tiny_llava(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """LLaVA with random weights (single-image architecture)."""
    return tiny_model(tmp_path_factory, "llava")


@pytest.fixture(scope="session")
def tiny_llava_yes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """LLaVA trained to answer "Yes" (SPIQA's one-image protocol: every figure looks helpful)."""
    return tiny_model(tmp_path_factory, "llava", reply="Yes", steps=20)


@pytest.fixture(scope="session")
def tiny_idefics3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Idefics3 (SmolVLM-style, many images per prompt) with random weights."""
    return tiny_model(tmp_path_factory, "idefics3")


@pytest.fixture(scope="session")
def tiny_qwen2_5_vl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Qwen2.5-VL with random weights (its processor saved without the video processor)."""
    return tiny_model(tmp_path_factory, "qwen2_5_vl")


@pytest.fixture(scope="session")
def tiny_qwen3_vl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Qwen3-VL with random weights (its processor saved without the video processor)."""
    return tiny_model(tmp_path_factory, "qwen3_vl")


@pytest.fixture(scope="session")
def tiny_smolvlm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SmolVLM2 with random weights (its processor saved without the video processor)."""
    return tiny_model(tmp_path_factory, "smolvlm")


@pytest.fixture(scope="session")
def tiny_cot_vlm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Idefics3 trained to reply `COT_REPLY` (SPIQA's CoT format, picking Image 1) to any prompt."""
    return tiny_model(tmp_path_factory, "idefics3", reply=COT_REPLY, steps=40)


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A text-only Llama with random weights."""
    return tiny_model(tmp_path_factory, "llama")


@dataclass
class Server:
    """A running OpenAI-compatible server: `base_url` ends in /v1, `model` is the name to request."""

    base_url: str
    model: str
    log: Path


# Servers already running, by model folder: a fixture imported into several test modules is a
# separate fixture in each, and all of them share one server process.
_SERVERS: dict[Path, Server] = {}


@contextmanager
def _serving(model: Path, log: Path) -> Iterator[Server]:
    """`transformers serve MODEL` on a free loopback port, once /health answers."""
    port = free_port()
    command = [str(Path(sys.executable).parent / "transformers"), "serve", str(model),
               "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"]
    with server_process(command, log) as process:
        try:
            wait_until_answering(f"http://127.0.0.1:{port}/health", process, log)
        except ServerDidNotStart as exc:
            pytest.fail(f"transformers serve did not start: {exc}")
        yield Server(base_url=f"http://127.0.0.1:{port}/v1", model=str(model), log=log)


@pytest.fixture(scope="session")
def served_cot_vlm(tiny_cot_vlm: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`transformers serve` on 127.0.0.1 with the CoT-trained Idefics3 (a real server, CPU)."""
    if tiny_cot_vlm in _SERVERS:
        yield _SERVERS[tiny_cot_vlm]
        return
    with _serving(tiny_cot_vlm, tmp_path_factory.getbasetemp() / "transformers-serve.log") as server:
        _SERVERS[tiny_cot_vlm] = server
        try:
            yield server
        finally:
            del _SERVERS[tiny_cot_vlm]
