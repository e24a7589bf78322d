"""What one visitor's browser session holds (a `gr.State`): never shared between visitors.

The API key is deliberately absent: it travels with each request from its password field and is
never kept, logged or written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spiqa_demo.types import Figure, Paper

if TYPE_CHECKING:
    from spiqa_demo.qa import Answer
    from spiqa_demo.spiqa import SpiqaPaper


@dataclass
class Session:
    """The loaded paper, its SPIQA match, the chat, and the last answer (what the SPIQA check scores).

    The chat lives here rather than in the browser's copy, so a client cannot send back a
    history with files of its choosing.
    """

    paper: Paper | None = None
    pdf: Path | None = None  # the app's own copy of the PDF, for page images
    spiqa: SpiqaPaper | None = None
    # SPIQA figure file -> the extracted item it is (None: not found in the extraction).
    spiqa_figures: dict[str, Figure | None] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)  # Gradio messages
    last_answer: Answer | None = None
    loading: bool = False  # a paper is being loaded: questions wait
    told_retrieval_only: bool = False  # the "no model" notice is said once per session

    def load(self, paper: Paper, pdf: Path) -> Session:
        """Switch to a newly extracted paper, in place (a handler still running holds this same object).

        The chat starts again; questions wait (`loading`) until the caller has indexed the paper.
        The once-per-session notice flag is kept.
        """
        self.paper, self.pdf, self.loading = paper, pdf, True
        self.spiqa, self.spiqa_figures, self.last_answer = None, {}, None
        self.history = []
        return self
