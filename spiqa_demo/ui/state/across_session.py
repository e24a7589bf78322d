"""What one visitor's "Across papers" flow holds (a `gr.State`, never shared between visitors).

Its `PaperLibrary` is built around the paper loaded in the Paper tab and starts again when another
paper is loaded there: cited papers belong to the anchor that cites them. Cited PDFs are kept
under the app's upload folder (never served), so only this session's library holds them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from spiqa_demo.ui.state.session import Chat, Session

if TYPE_CHECKING:
    from spiqa_demo.library import PaperLibrary
    from spiqa_demo.types import Figure
    from spiqa_demo.ui.serving.work.cited_loading import CitedLoad


@dataclass(frozen=True)
class FollowUpContext:
    """What a follow-up reads on from: the previous question as it was read, and the figure or table it was about."""

    read_as: str
    figure: Figure | None


@dataclass
class AcrossSession(Chat):
    """The library of the anchor and its cited papers, the cross-paper chat, and the papers being added."""

    library: PaperLibrary | None = None
    add_job: CitedLoad | None = None
    last: FollowUpContext | None = None

    def sync(self, session: Session) -> PaperLibrary | None:
        """The library around the session's loaded paper: a new one (and a new chat) when the paper changed."""
        from spiqa_demo.library import PaperLibrary
        from spiqa_demo.ui.serving.app_settings import app_settings

        paper = session.paper
        if paper is None:
            return self.library
        if self.library is None or self.library.anchor.sha256 != paper.sha256:
            from spiqa_demo.ui.serving.files import storage
            from spiqa_demo.ui.serving.work.cited_loading import CITED

            storage.live.release(id(session), CITED)  # the previous paper's cited PDFs are no longer shown
            self.stop_turn()
            self.library = PaperLibrary(paper, app_settings(), str(session.pdf or paper.source))
            self.history, self.add_job, self.last = [], None, None
        return self.library

