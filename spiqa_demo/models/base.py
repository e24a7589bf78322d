"""The one interface every model backend implements (local transformers, OpenAI-compatible APIs).

Messages are provider-neutral: a `Message` holds an ordered list of parts, each a text string or an
image (a `Path` to an image file, or a PIL image; a `str` is always text), so interleaved "Image 0: <img> caption" prompts keep their
order on every backend. Everything above this module (QA flows, L3Score judges, the UI) talks to a
`ModelBackend` only. Backends raise `BackendError` with a message for people (bad key, server down,
text-only model given images) that says whether retrying can help; any other exception is a bug.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, Union, runtime_checkable

if TYPE_CHECKING:
    from PIL import Image as PILImage

ImageLike = Union[Path, "PILImage.Image"]
Part = str | ImageLike
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


def count_images(messages: list[Message]) -> int:
    """How many images a conversation carries."""
    return sum(len(m.images) for m in messages)


@dataclass
class Usage:
    """Token counts of one call; a backend fills the `Usage` it is given (None: unknown)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass
class TokenLogprob:
    """A candidate next token and its natural-log probability."""

    token: str
    logprob: float


@dataclass
class NextTokenLogprobs:
    """The first generated token's distribution.

    `top` is the top-k list (what APIs return as `top_logprobs`); it is empty when the backend
    cannot say (a server that returns no log-probs), and `note` then says why in words.
    `candidates` maps requested candidate strings to the exact log-probability that the reply
    starts with them: every candidate on local models (full vocabulary; a multi-token candidate gets
    the sum over its tokens), only those found in `top` on APIs.
    """

    top: list[TokenLogprob]
    candidates: dict[str, float] = field(default_factory=dict)
    model: str = ""
    note: str = ""


@runtime_checkable
class ModelBackend(Protocol):
    """A multimodal (or text-only) chat model."""

    name: str
    supports_images: bool
    max_images: int | None  # None: no limit; 1: the SPIQA one-image-per-turn protocol applies
    context_tokens: int  # prompt + reply budget, in tokens

    def generate(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> str:
        """The reply text (greedy); fills `usage`."""
        ...

    def stream(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> Iterator[str]:
        """The same reply as `generate`, as text chunks while it is generated; fills `usage` once it ends."""
        ...

    def next_token_logprobs(
        self, messages: list[Message], candidates: list[str] | None = None, top_k: int = 5
    ) -> NextTokenLogprobs:
        """Log-probabilities of the first reply token (greedy, temperature 0)."""
        ...

    def count_tokens(self, messages: list[Message]) -> int:
        """Prompt tokens of `messages` (exact on local models, an estimate on APIs)."""
        ...


@contextmanager
def closed_after(pieces: Iterator[str]) -> Iterator[Iterator[str]]:
    """A backend's stream, closed when the block ends however it ends: a reader that stops (its own
    generator closed) closes the model request at once, not when the garbage collector gets to it."""
    try:
        yield pieces
    finally:
        if isinstance(pieces, Generator):
            pieces.close()
