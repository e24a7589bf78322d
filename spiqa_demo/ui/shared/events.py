"""The events one tab hands another: the Paper tab's loads and answers, which the SPIQA check and the
Across papers tab chain their own steps on (`app.layout` passes them), so no tab imports another."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradio.events import Dependency


@dataclass(frozen=True)
class Load:
    """One way of loading a paper (its event and API name), for the steps that follow every load."""

    event: Dependency
    api_name: str


@dataclass(frozen=True)
class PaperEvents:
    """What other panels chain on: the loads, and the chat's answers to a typed question (`typed`) and
    to one picked from the SPIQA check's list (`picked`)."""

    loads: tuple[Load, ...]
    typed: Dependency
    picked: Dependency
