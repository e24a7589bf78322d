"""ZeroGPU: `spaces.GPU` wraps only model calls, with durations sized per call, and weights load at startup.

The `spaces` package exists only on Spaces; a fake one is injected into `sys.modules` here. Its
`GPU(duration=...)` records the duration a call asks for, and what the model cache held when the
GPU window opened.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_models_local import figure_prompt
from tiny_models import tiny_idefics3

from spiqa_demo.models import load_backend, local, zerogpu
from spiqa_demo.models.zerogpu import GpuBudget, GpuWork
from spiqa_demo.settings import get_settings
from spiqa_demo.ui.app.preload import preload_on_zerogpu

BUDGET = GpuBudget(base_s=10, per_image_s=1.0, per_token_s=0.05, max_s=60)
ON_ZEROGPU = GpuBudget(base_s=10, per_image_s=1.0, per_token_s=0.05, max_s=60, zero_gpu=True)


class FakeSpaces:
    """`spaces` with a `GPU` decorator that logs each call's requested seconds, then runs it."""

    def __init__(self, log: list[str]) -> None:
        self.log = log
        self.module = types.ModuleType("spaces")
        self.module.__spec__ = importlib.machinery.ModuleSpec("spaces", None)
        self.module.GPU = self.gpu  # type: ignore[attr-defined]  # the module attribute ZeroGPU code calls
        self.durations: list[int] = []

    def gpu(self, duration: Callable[..., int]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
            def on_gpu(*args: Any, **kwargs: Any) -> Any:
                seconds = duration(*args, **kwargs)
                self.durations.append(seconds)
                self.log.append(f"gpu {seconds}s")
                return fn(*args, **kwargs)

            return on_gpu

        return decorate


@pytest.fixture
def events() -> list[str]:
    return []


@pytest.fixture
def spaces(events: list[str], monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSpaces]:
    """A ZeroGPU Space: the fake `spaces` importable, SPACES_ZERO_GPU set, the CPU standing in for the GPU."""
    fake = FakeSpaces(events)
    monkeypatch.setitem(sys.modules, "spaces", fake.module)
    monkeypatch.setenv("SPACES_ZERO_GPU", "true")
    monkeypatch.setenv("SPIQA_DEVICE", "cpu")
    get_settings.cache_clear()
    yield fake
    get_settings.cache_clear()


@pytest.fixture
def fresh_model_cache(events: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty process-wide model cache whose loads are logged."""
    monkeypatch.setattr(local, "_LOADED", {})
    original = local._load

    def logged(name: str, device: str, dtype: Any) -> local.LoadedModel:
        events.append("load")
        return original(name, device, dtype)

    monkeypatch.setattr(local, "_load", logged)


def test_durations_grow_with_images_tokens_and_rows_and_are_capped() -> None:
    assert BUDGET.seconds(GpuWork(new_tokens=0)) == 10
    assert BUDGET.seconds(GpuWork(new_tokens=100)) == 15  # 10 + 100 x 0.05, not 16 from float noise
    assert BUDGET.seconds(GpuWork(new_tokens=128, images=8)) == 25  # 10 + 8 x 1 + 128 x 0.05 = 24.4
    assert BUDGET.seconds(GpuWork(new_tokens=128, images=8, rows=4)) == 27  # rows decode together: +10% each
    assert BUDGET.seconds(GpuWork(new_tokens=4096, images=8)) == 60  # at most max_s
    settings = get_settings().models.with_overrides(gpu_base_s=5, gpu_s_per_image=2, gpu_s_per_token=0.1, gpu_duration_s=30)
    assert GpuBudget.from_settings(settings) == GpuBudget(5, 2, 0.1, 30)


def test_off_zerogpu_the_adapter_is_the_identity(monkeypatch: pytest.MonkeyPatch, events: list[str]) -> None:
    def model_call(work: GpuWork) -> int:
        return work.new_tokens

    monkeypatch.delenv("SPACES_ZERO_GPU", raising=False)
    get_settings.cache_clear()
    off = GpuBudget.from_settings(get_settings().models)
    assert zerogpu.gpu(model_call, off) is model_call  # no `spaces` package here
    fake = FakeSpaces(events)
    monkeypatch.setitem(sys.modules, "spaces", fake.module)
    assert zerogpu.gpu(model_call, GpuBudget.from_settings(get_settings().models)) is model_call  # not a ZeroGPU Space
    assert preload_on_zerogpu(get_settings()) == [] and events == []


def test_on_zerogpu_each_call_asks_for_its_own_duration(spaces: FakeSpaces, tiny_idefics3: Path) -> None:
    assert GpuBudget.from_settings(get_settings().models).zero_gpu
    wrapped = zerogpu.gpu(lambda inputs, work: work.new_tokens, ON_ZEROGPU)
    assert wrapped("inputs", GpuWork(new_tokens=200, images=2)) == 200 and spaces.durations == [22]

    backend = load_backend(get_settings().models, backend="local", model=str(tiny_idefics3), gpu_s_per_token=0.5,
                           gpu_duration_s=100)
    assert isinstance(backend, local.LocalBackend)
    budget = GpuBudget(10, 1.0, 0.5, 100, zero_gpu=True)
    spaces.durations.clear()
    backend.generate(figure_prompt(3), max_new_tokens=20)
    list(backend.stream(figure_prompt(1), max_new_tokens=8))
    backend.generate_batch([figure_prompt(1), figure_prompt(2)], max_new_tokens=40)
    backend.next_token_logprobs(figure_prompt(2), candidates=["Yes", "The answer is"])
    assert spaces.durations == [
        budget.seconds(GpuWork(new_tokens=20, images=3)),  # 10 + 3 + 10
        budget.seconds(GpuWork(new_tokens=8, images=1)),
        budget.seconds(GpuWork(new_tokens=40, images=3, rows=2)),
        budget.seconds(GpuWork(new_tokens=2, images=2)),  # the prompt's pass, then one per multi-token candidate
    ] == [23, 15, 35, 13]


def test_weights_load_at_startup_and_never_inside_a_gpu_call(
    spaces: FakeSpaces, fresh_model_cache: None, events: list[str], tiny_idefics3: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPIQA_MODEL", str(tiny_idefics3))
    monkeypatch.setenv("SPIQA_BACKEND", "local")
    monkeypatch.setenv("SPIQA_MAX_NEW_TOKENS", "12")
    get_settings.cache_clear()
    assert preload_on_zerogpu(get_settings()) == [str(tiny_idefics3)]  # what app.py does at import
    assert events == ["load"]

    backend = load_backend(get_settings().models)  # a visitor's first question
    assert backend is not None
    backend.generate(figure_prompt(2), max_new_tokens=12)
    assert events == ["load", f"gpu {BUDGET.seconds(GpuWork(new_tokens=12, images=2))}s"]


def test_a_model_that_fails_to_load_at_startup_does_not_stop_the_app(
    spaces: FakeSpaces, fresh_model_cache: None, events: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPIQA_MODEL", str(tmp_path / "no-such-model"))
    get_settings.cache_clear()
    assert preload_on_zerogpu(get_settings()) == [] and events == ["load"]
