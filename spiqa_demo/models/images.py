"""Images as models receive them: opened, converted to RGB, resized per the resolution setting.

SPIQA ran its open models at 224 x 224 px (`image.resize((224, 224))`, aspect ratio not kept) and
the API models at full size; `size` reproduces both (0 = full), trading accuracy for cost.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from spiqa_demo.errors import PaperError
from spiqa_demo.models.base import ImageLike


def load_image(image: ImageLike | str, size: int = 0) -> Image.Image:
    """An RGB PIL image, resized to `size` x `size` px when `size` > 0."""
    if isinstance(image, Image.Image):
        img = image
    else:
        path = Path(image)
        try:
            with Image.open(path) as opened:
                img = opened.convert("RGB")
        except (FileNotFoundError, IsADirectoryError) as exc:
            raise PaperError(f"figure image not found: {path}") from exc
        except (UnidentifiedImageError, OSError) as exc:
            raise PaperError(f"figure image cannot be read: {path} ({exc})") from exc
    if img.mode != "RGB":
        img = img.convert("RGB")
    if size > 0 and img.size != (size, size):
        img = img.resize((size, size), Image.Resampling.BICUBIC)
    return img


def data_url(image: ImageLike | str, size: int = 0) -> str:
    """The image as a base64 PNG data URL (what OpenAI-compatible chat APIs accept)."""
    buffer = io.BytesIO()
    load_image(image, size).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
