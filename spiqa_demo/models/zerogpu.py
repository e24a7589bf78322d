"""`spaces.GPU` on Hugging Face ZeroGPU Spaces, a no-op everywhere else.

ZeroGPU lends a GPU only inside functions decorated with `spaces.GPU(duration=...)`. A visitor's
quota must cover the requested duration and shorter requests queue ahead, so the decorator wraps
only the model calls themselves (weights load at startup, see `spiqa_demo.ui.app.preload`) and each call asks for the
time its own request needs: a fixed overhead, the images it encodes and the tokens it may generate.
The `spaces` package exists only on Spaces; it stays an optional import.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from spiqa_demo.settings import ModelSettings

F = TypeVar("F", bound=Callable[..., Any])


def on_zerogpu(settings: ModelSettings) -> bool:
    """True on a ZeroGPU Space (the `spaces` package is installed and the Space says so)."""
    return settings.spaces_zero_gpu and importlib.util.find_spec("spaces") is not None


@dataclass(frozen=True)
class GpuWork:
    """What one model call does: the chats in its batch, their images, and the most tokens each may generate."""

    new_tokens: int
    images: int = 0
    rows: int = 1


@dataclass(frozen=True)
class GpuBudget:
    """Seconds of GPU time requested for a call: overhead + per image + per generated token, capped."""

    base_s: float
    per_image_s: float
    per_token_s: float
    max_s: int
    zero_gpu: bool = False  # whether calls run on a ZeroGPU Space (under `spaces.GPU`)

    @classmethod
    def from_settings(cls, settings: ModelSettings) -> GpuBudget:
        return cls(settings.gpu_base_s, settings.gpu_s_per_image, settings.gpu_s_per_token, settings.gpu_duration_s,
                   on_zerogpu(settings))

    def seconds(self, work: GpuWork) -> int:
        # A batch decodes its rows together: each step costs a tenth more per extra row.
        steps = work.new_tokens * (9 + work.rows) / 10
        wanted = self.base_s + self.per_image_s * work.images + self.per_token_s * steps
        # Rounded first so that float noise (5.000000001) does not ask for a whole extra second.
        return max(1, min(self.max_s, math.ceil(round(wanted, 3))))


def gpu(fn: F, budget: GpuBudget) -> F:
    """`fn` under `spaces.GPU` on ZeroGPU, identity elsewhere; `fn`'s last argument is its `GpuWork`.

    The duration is computed per call from that `GpuWork` (ZeroGPU passes the call's arguments to a
    callable duration).
    """
    if not budget.zero_gpu:
        return fn
    import spaces

    def duration(*args: Any, **kwargs: Any) -> int:
        work = kwargs["work"] if "work" in kwargs else args[-1]
        return budget.seconds(work)

    wrapped: F = spaces.GPU(duration=duration)(fn)
    return wrapped
