"""A VLM checkpoint's processor, built without its video processor when that needs torchvision.

Qwen2-VL, Qwen2.5-VL, Qwen3-VL and SmolVLM(2) processors take an image processor, a tokenizer and a
video processor; transformers' video processors need torchvision, which this project keeps out of
its environment (it pins a torch build of its own), so `AutoProcessor` refuses these checkpoints.
Papers have no videos: the processor is built from the checkpoint's image processor, tokenizer,
chat template and processor options alone, and reads images exactly as the full one does.
"""

from __future__ import annotations

import functools
import types
from typing import Any

VIDEO_PROCESSOR = "video_processor"


def load_processor(name: str, config: Any) -> Any:
    """The processor of checkpoint `name` (hub id or folder) whose model config is `config`."""
    from transformers import AutoProcessor
    from transformers.utils import is_torchvision_available

    processor_class = _mapped_processor_class(config)
    if processor_class is not None and VIDEO_PROCESSOR in processor_class.get_attributes() and not is_torchvision_available():
        return without_video(processor_class).from_pretrained(name)
    return AutoProcessor.from_pretrained(name)


def _mapped_processor_class(config: Any) -> Any:
    """The processor class transformers maps this config's type to, or None."""
    from transformers.models.auto.processing_auto import PROCESSOR_MAPPING

    return PROCESSOR_MAPPING.get(type(config), None)


class _NoVideos:
    """Stands in for the video processor where a processor reads its defaults (SmolVLM's frame count and rate)."""

    num_frames = None
    fps = None


@functools.cache
def without_video(processor_class: type[Any]) -> type[Any]:
    """`processor_class` with no video processor among its parts (same name, so it saves as the original).

    A processor's parts are `get_attributes()`; this one's are the image processor and the
    tokenizer, so loading and saving never touch a video processor. Its `__init__` is the original
    one with the video processor defaulting to None: transformers reads a processor's options
    (SmolVLM's `image_seq_len`, ...) from that function's own parameters, so it must stay the original.
    Video defaults read while formatting a chat are unset.
    """
    original: Any = processor_class.__init__  # a plain function: its code and defaults are reused below
    code = original.__code__
    positional = code.co_varnames[1 : code.co_argcount]
    defaults = original.__defaults__ or ()
    needed = len(positional) - positional.index(VIDEO_PROCESSOR)  # the video processor and the parameters after it
    init = types.FunctionType(code, original.__globals__, original.__name__,
                              (None,) * max(0, needed - len(defaults)) + defaults, original.__closure__)
    init.__kwdefaults__ = original.__kwdefaults__

    def get_attributes(cls: type[Any]) -> list[str]:
        return [name for name in processor_class.get_attributes() if name != VIDEO_PROCESSOR]

    attributes = {
        "__init__": init,
        "__module__": __name__,
        "get_attributes": classmethod(get_attributes),
        VIDEO_PROCESSOR: _NoVideos(),
    }
    return type(processor_class.__name__, (processor_class,), attributes)
