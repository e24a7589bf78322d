"""`spaces.GPU` on Hugging Face ZeroGPU Spaces, a no-op everywhere else.

ZeroGPU lends a GPU only inside functions decorated with `spaces.GPU(duration=...)`; the quota is
charged on the requested duration, so the decorator wraps only the model calls themselves.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable)


def on_zerogpu() -> bool:
    """True on a ZeroGPU Space (the `spaces` package is installed and the Space says so)."""
    return bool(os.environ.get("SPACES_ZERO_GPU")) and importlib.util.find_spec("spaces") is not None


def gpu(duration: int) -> Callable[[F], F]:
    """Decorate a model call with `spaces.GPU(duration=duration)` on ZeroGPU; identity otherwise."""

    def decorate(fn: F) -> F:
        if not on_zerogpu():
            return fn
        import spaces

        return spaces.GPU(duration=duration)(fn)

    return decorate
