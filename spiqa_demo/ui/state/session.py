"""What one visitor's browser session holds (a `gr.State`): never shared between visitors.

The API key is deliberately absent: it travels with each request from its password field and is
never kept, logged or written. A session left idle is forgotten (`session_expiry`).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from spiqa_demo.conversation import Conversation, Evidence
from spiqa_demo.conversation import Turn as ReaderTurn
from spiqa_demo.types import Figure, Paper
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.chat_messages import History, Message
from spiqa_demo.ui.state.chat_history import keep_recent
from spiqa_demo.ui.state.uploads import Uploads

if TYPE_CHECKING:
    from gradio.components.chatbot import MetadataDict

    from spiqa_demo.evaluation.spiqa import SpiqaPaper
    from spiqa_demo.qa import Answer
    from spiqa_demo.ui.serving.work.loading import PaperLoad

STOPPED = "*(stopped)*"
DEFAULT_ZOOM = 100  # the page viewer's zoom, in percent, for a paper just loaded: the page fitted to its frame
_evidence_ids = itertools.count(1)  # ids of cited messages (`Session.cite`), unique in this process


@dataclass
class Answering:
    """One question's answer while it streams: the messages it owns in the chat, and whether it was stopped."""

    thought: Message
    reply: Message | None = None
    stopped: bool = False
    finished: bool = False
    waiting_for_paper: bool = False  # asked while a paper loads: it is about that paper
    written: str = ""  # the reply's text as streamed so far (what a stopped answer keeps)
    # Told once, when the answer is stopped, whoever stops it (the Stop button, a cancelled or
    # closed request, a newer question, a new paper): the reader's export keeps the stopped question
    # at that moment, not when the closed stream's code gets to run.
    on_stop: Callable[[Answering], None] | None = None

    def think(self, content: str, metadata: MetadataDict | None = None) -> None:
        """Show `content` in the answer's thought message (what it waits for, what it rests on), under
        `metadata`'s title and status when given (Gradio's metadata of a thought)."""
        self.thought["content"] = content
        if metadata is not None:
            self.thought["metadata"] = metadata

    def stop(self) -> None:
        """Keep what was written, marked stopped (the Stop button, a cancelled request, a newer question)."""
        if self.finished or self.stopped:
            return
        self.stopped = True
        if self.on_stop is not None:
            self.on_stop(self)
        said = ("Stopped before the answer was complete; what was written so far is kept." if self.reply is not None
                else "Stopped before any answer was written.")
        self.think(said, {"title": "Stopped", "status": "done"})
        if self.reply is not None:
            self.reply["content"] = f"{self.reply['content']}\n\n{STOPPED}".strip()


@dataclass(frozen=True)
class Asked:
    """A reader's question as the chat's export keeps it: its turn; a stopped one's holds what was
    written before Stop (the conversation's copy holds none: it is no evidence for a follow-up)."""

    turn: ReaderTurn

    @property
    def stopped(self) -> bool:
        return self.turn.stopped


@dataclass(frozen=True)
class PreviousChat:
    """The chat about the paper loaded before this one, kept for its export when a new paper starts a new chat."""

    paper: Paper
    asked: tuple[Asked, ...]


@dataclass(frozen=True)
class PageShown:
    """The page the viewer shows (1-based), and the evidence boxed when that page is the evidence's."""

    page: int
    evidence: Evidence | Figure | None = None


# Starting a turn checks and sets `Chat.turn` in one step (a lock for all sessions: it is held for no time).
_TURNS = threading.RLock()


@dataclass
class Chat:
    """A chat with its history and at most one answer being written (`turn`)."""

    history: History = field(default_factory=list)
    turn: Answering | None = None  # the answer being written
    told_retrieval_only: bool = False  # the "no model" notice is said once per chat

    def add_question(self, *messages: Message) -> None:
        """Add a new question's first messages (the question, the thought); turns beyond the chat's
        bound (`SPIQA_UI_CHAT_MAX_TURNS`) are dropped, oldest first (`chat_history`)."""
        self.history.extend(messages)
        keep_recent(self.history, app_settings().ui.ui_chat_max_turns)

    def start_turn(self, thought: Message) -> Answering:
        """A new answer; an older one still marked as being written was abandoned, so it is stopped."""
        with _TURNS:
            self.stop_turn()
            self.turn = Answering(thought)
            return self.turn

    def stop_turn(self) -> None:
        if self.turn is not None:
            self.turn.stop()
            self.turn = None


@dataclass
class Session(Chat):
    """The loaded paper, its SPIQA match, the chat, and the last answer (what the SPIQA check scores).

    The chat lives here rather than in the browser's copy, so a client cannot send back a
    history with files of its choosing. A paper being loaded (`load_job`) runs in the background:
    a cancelled or closed request does not stop it, and questions wait for it.
    """

    paper: Paper | None = None
    pdf: Path | None = None  # the app's own copy of the PDF, for page images
    spiqa: SpiqaPaper | None = None
    # SPIQA figure file -> the extracted item it is (None: not found in the extraction).
    spiqa_figures: dict[str, Figure | None] = field(default_factory=dict)
    last_answer: Answer | None = None
    load_job: PaperLoad | None = None
    uploads: Uploads = field(default_factory=Uploads)  # the browser's uploads of a PDF (`upload_watch`)
    # Crops of the next paper loaded and page images show the reader's highlights and notes.
    annotations: bool = field(default_factory=lambda: app_settings().extraction.crop_annotations)
    # The reader's conversation about the paper, and what each of its chat messages rests on (by the id
    # the message carries, `cite`: selecting the message opens that evidence on its page).
    conversation: Conversation = field(default_factory=Conversation)
    evidence_of: dict[str, Evidence] = field(default_factory=dict)
    asked: list[Asked] = field(default_factory=list)  # every reader's question of the chat, stopped ones too
    previous_chat: PreviousChat | None = None
    viewing: PageShown | None = None  # the page viewer's page and the evidence boxed on it
    zoom: int = DEFAULT_ZOOM  # the page viewer's zoom, in percent of the page fitted to its frame; kept across pages

    def start_turn_when_idle(self, thought: Message) -> Answering | None:
        """A turn nobody asked for (the summary on load), started only while no answer is being written
        and no question has been asked of this chat: None otherwise (a question asked meanwhile goes
        first, and one answered meanwhile leaves the summary out: it would follow the answer). Checked
        and started at once, as a question's `start_turn` may run in another thread at the same moment."""
        with _TURNS:
            if self.turn is not None or self.asked:
                return None
            self.turn = Answering(thought)
            return self.turn

    def cite(self, message: Message, evidence: Evidence) -> None:
        """Remember that `message` shows `evidence`, under an id the message carries (Gradio's `metadata.id`,
        which shows nothing without a title): the id stays the message's while the chat drops older turns,
        and is never another message's."""
        key = f"evidence-{next(_evidence_ids)}"
        message["metadata"] = {"id": key}
        self.evidence_of[key] = evidence

    def evidence_in(self, message: Message) -> Evidence | None:
        """The evidence `message` shows (`cite`), if any."""
        key = message.get("metadata", {}).get("id")
        return self.evidence_of.get(key) if isinstance(key, str) else None

    def clear_chat(self) -> None:
        """Forget the chat and the conversation (the trash button); the paper stays loaded."""
        self.stop_turn()
        self.history = []
        self.conversation.clear()
        self.evidence_of.clear()
        self.asked.clear()

    @property
    def loading(self) -> bool:
        return self.load_job is not None and not self.load_job.done

    @property
    def uploading(self) -> bool:
        """The browser is uploading a PDF whose load has not begun."""
        return self.uploads.on_the_way

    def load(self, paper: Paper, pdf: Path) -> Session:
        """Switch to a newly extracted paper, in place (a handler still running holds this same object).

        The chat starts again (an answer about the previous paper is stopped), the previous one kept
        for its export; the once-per-session notice flag is kept.
        """
        if self.turn is not None and not self.turn.waiting_for_paper:
            self.stop_turn()
        self.previous_chat = PreviousChat(self.paper, tuple(self.asked)) if self.paper is not None and self.asked else None
        self.paper, self.pdf = paper, pdf
        self.spiqa, self.spiqa_figures, self.last_answer = None, {}, None
        self.history = []
        self.conversation = Conversation(paper_key=paper.sha256)
        self.evidence_of = {}
        self.asked = []
        # A new paper starts at the page's fitted size: a zoom chosen for the previous paper's small print is no
        # choice about this one's pages.
        self.viewing, self.zoom = None, DEFAULT_ZOOM
        return self
