"""The one interface every model backend implements (local transformers, OpenAI-compatible APIs).

Messages are provider-neutral: a `Message` holds an ordered list of parts, each a text string or an
image (a file path or a PIL image), so interleaved "Image 0: <img> caption" prompts keep their
order on every backend. Everything above this module (QA flows, L3Score judges, the UI) talks to a
`ModelBackend` only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, Union, runtime_checkable

if TYPE_CHECKING:
    from PIL import Image as PILImage

ImageLike = Union[str, Path, "PILImage.Image"]
Part = Union[str, ImageLike]
Role = Literal["system", "user", "assistant"]


@dataclass
class Message:
    """One chat turn; `parts` are strings (text) and images, in order."""

    role: Role
    parts: list[Part] = field(default_factory=list)

    @property
    def images(self) -> list[ImageLike]:
        return [p for p in self.parts if not isinstance(p, str)]

    @property
    def text(self) -> str:
        return "".join(p for p in self.parts if isinstance(p, str))


@dataclass
class TokenLogprob:
    """A candidate next token and its natural-log probability."""

    token: str
    logprob: float


@dataclass
class NextTokenLogprobs:
    """The first generated token's distribution.

    `top` is the top-k list (what APIs return as `top_logprobs`); `candidates` maps each requested
    candidate string to its exact log-probability when the backend knows the full vocabulary
    (local models), else it is empty.
    """

    top: list[TokenLogprob]
    candidates: dict[str, float] = field(default_factory=dict)
    model: str = ""


@runtime_checkable
class ModelBackend(Protocol):
    """A multimodal (or text-only) chat model."""

    name: str
    supports_images: bool
    max_images: int | None  # None: no limit; 1: the SPIQA one-image-per-turn protocol applies

    def generate(
        self, messages: list[Message], max_new_tokens: int = 512, stream: bool = False
    ) -> str | Iterator[str]:
        """The reply text, or an iterator of text chunks when `stream`."""
        ...

    def next_token_logprobs(
        self, messages: list[Message], candidates: list[str] | None = None, top_k: int = 5
    ) -> NextTokenLogprobs:
        """Log-probabilities of the first reply token (greedy, temperature 0)."""
        ...
