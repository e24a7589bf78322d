"""Asking one question of a conversation: read it in context, shortlist evidence, answer, cite.

1. The question is read as a standalone question: a follow-up (`followup.needs_history`) by the
   model (one short call with the history) when one is configured, else by `followup.read_question`;
   a question that stands alone is searched as asked.
2. The standalone question ranks the paper's figures, tables and passages together (`evidence`).
3. With a model: the earlier turns (as many as fit its context, oldest dropped first, with a note)
   and the evidence go in one request; the reply's citations mark the evidence it rests on, and an
   "I don't know" marks the turn abstained (no evidence shown as supporting). Without a model, or
   when the model fails, the answer is chosen for what was asked (`extractive`): a named item's
   caption, a table's cells, or the best sentence(s) with their page; or it says the paper does not
   seem to say (`Turn.not_found`), the best evidence still shown.
The turn is appended to the conversation. A question the reader stopped enters it too (`stopped_turn`):
a follow-up is read against it, but nothing of its unfinished answer is evidence.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace

from spiqa_demo.conversation import prompts
from spiqa_demo.conversation.citations import Citations, name_images, parse_citations
from spiqa_demo.conversation.evidence import more_passages, rank_evidence
from spiqa_demo.conversation.extractive import best_quote, extractive_answer
from spiqa_demo.conversation.followup import Reading, cannot_stand_alone, needs_history, read_question
from spiqa_demo.conversation.types import Conversation, Evidence, Turn
from spiqa_demo.crosspaper.replies import clean_answer, is_abstention
from spiqa_demo.errors import PaperError
from spiqa_demo.models.base import Message, ModelBackend, closed_after
from spiqa_demo.models.stopping import Stopped
from spiqa_demo.qa.flows import CONTEXT_MARGIN_TOKENS
from spiqa_demo.questions import check_question
from spiqa_demo.settings import QASettings, RetrievalSettings
from spiqa_demo.types import Paper

REWRITE_GROWTH = 4  # a standalone question longer than this many times the follow-up plus the last question is no rewrite
_WORD = re.compile(r"\w+")
REWRITE_MIN_WORDS = 3  # fewer words ("Yes", "Sure.") answer the rewrite request instead of doing it
STOPPED_ANSWER = "(the reader stopped this answer before it was complete)"  # a stopped turn's answer in the history


@dataclass(frozen=True)
class Status:
    """A step the reader is told about while the answer is prepared ("Reading the question in context")."""

    text: str


Event = Status | str | Turn  # what the stream yields: steps, the answer's text as it comes, then the turn


def ask_turn(
    paper: Paper,
    conversation: Conversation,
    question: str,
    backend: ModelBackend | None,
    settings: QASettings | None = None,
    *,
    retrieval: RetrievalSettings | None = None,
    notice: str = "",
) -> Turn:
    """Answer `question` in the context of `conversation` (appended to it); see the module docstring."""
    turn = None
    for event in ask_turn_stream(paper, conversation, question, backend, settings, retrieval=retrieval, notice=notice):
        turn = event
    assert isinstance(turn, Turn)
    return turn


def ask_turn_stream(
    paper: Paper,
    conversation: Conversation,
    question: str,
    backend: ModelBackend | None,
    settings: QASettings | None = None,
    *,
    retrieval: RetrievalSettings | None = None,
    notice: str = "",
) -> Generator[Event, None, None]:
    """Like `ask_turn`, yielding `Status` steps and the answer's text chunks, then the `Turn`.

    An empty question raises `InputError` before anything is asked; what goes wrong with the model
    ends up in the turn's messages, with the extractive answer in its place. The steps are the
    module docstring's, one named call each: read in context, shortlist, answer (the model's, else
    quoted from the paper); the answer's citations are marked as it is read.
    """
    settings = settings or QASettings()
    checked = check_question(question, settings)
    messages = [*checked.notes, *([notice] if notice else [])]
    history = _history(conversation, settings)
    reading = yield from _read_in_context(paper, conversation, checked.text, backend, history, settings, messages)
    yield Status("Searching the paper's figures, tables and passages")
    evidence = _shortlist(paper, conversation.last, reading, settings, retrieval, messages)
    reply = None
    if backend is not None and evidence:
        reply = yield from _model_answer(backend, history, reading.text, evidence, settings, messages)
    elif backend is None and not notice:
        messages.append("no model is configured: the answer quotes the paper's most relevant sentences")
    if reply is None:
        more = more_passages(paper, reading.text, reading.focus, evidence, settings, retrieval)
        reply = yield from _quoted_answer(paper, reading, evidence, more, retrieval, messages)
    turn = Turn(
        question=checked.text,
        read_as=reading.text,
        answer=reply.text,
        evidence=tuple(reply.evidence),
        messages=tuple(messages),
        abstained=reply.abstained,
        not_found=reply.not_found,
        model=reply.model,
    )
    conversation.append(turn)
    yield turn


def stopped_turn(paper: Paper, conversation: Conversation, question: str, settings: QASettings | None = None) -> Turn:
    """Append `question`, whose answer the reader stopped, to `conversation`, and return its turn.

    The reader asked it, so the next follow-up ("and ResNet-101?") is read against its subject as if
    it had been answered. It is read by the rules alone (a stopped question costs no model call) and
    holds no answer and no evidence: what was written before Stop, if anything, is unfinished and
    never quoted or kept as the next question's evidence.
    """
    checked = check_question(question, settings)
    previous = conversation.last
    turn = Turn(question=checked.text, read_as=read_question(checked.text, previous.read_as if previous else None, paper).text,
                answer="", stopped=True)
    conversation.append(turn)
    return turn


@dataclass(frozen=True)
class _InContext:
    """The standalone question (`text`: the model's rewrite when it made one) and how the rules read it."""

    text: str
    rules: Reading

    @property
    def focus(self) -> str:
        """The words a follow-up brought in, when the rules' reading is the one asked (a model's rewrite has none)."""
        return self.rules.focus if self.text == self.rules.text else ""


@dataclass(frozen=True)
class _Reply:
    """An answer's text, its evidence (what it cites marked) and how it came: `model` None when quoted."""

    text: str
    evidence: Sequence[Evidence]
    abstained: bool = False
    not_found: bool = False
    model: str | None = None


def _history(conversation: Conversation, settings: QASettings) -> list[tuple[str, str]]:
    """The earlier turns sent with a question, as (question, answer) pairs, oldest first."""
    turns = conversation.turns[-settings.reader_history_turns:] if settings.reader_history_turns else []
    return [(t.question, STOPPED_ANSWER if t.stopped else t.answer) for t in turns]


def _read_in_context(
    paper: Paper,
    conversation: Conversation,
    question: str,
    backend: ModelBackend | None,
    history: Sequence[tuple[str, str]],
    settings: QASettings,
    messages: list[str],
) -> Generator[Status, None, _InContext]:
    """Step 1: the standalone question, by the rules and, once the conversation has turns, by the model."""
    previous = conversation.last
    reading = read_question(question, previous.read_as if previous else None, paper)
    read_as = reading.text
    if previous is None and cannot_stand_alone(question):
        messages.append("this reads as a follow-up, but there is no earlier question in this conversation: "
                        "it was searched as asked; ask the whole question for a better answer")
    if backend is not None and conversation.turns and needs_history(question):  # a question that stands alone is asked as it is
        yield Status("Reading the question in the context of the conversation")
        try:
            rewritten = _model_reading(backend, history, question, settings)
            if not rewritten:
                messages.append(f"the model's reading of the follow-up was no question: read it as “{read_as}”")
            read_as = rewritten or read_as
        except PaperError as exc:
            messages.append(f"the model could not rewrite the follow-up ({exc}): read it as “{read_as}”")
    return _InContext(read_as, reading)


def _shortlist(
    paper: Paper,
    previous: Turn | None,
    reading: _InContext,
    settings: QASettings,
    retrieval: RetrievalSettings | None,
    messages: list[str],
) -> list[Evidence]:
    """Step 2: the paper's figures, tables and passages ranked for the standalone question; a follow-up
    that points back keeps the previous turn's evidence, and "the other ..." lowers its figure."""
    rules = reading.rules
    keep = previous.evidence[:3] if previous is not None and rules.keep_previous else ()
    avoid = [e for e in previous.evidence if e.figure is not None][:1] if previous is not None and rules.avoid_previous else ()
    evidence = rank_evidence(paper, reading.text, settings, retrieval, keep=keep, focus=reading.focus, avoid=avoid,
                             meet=rules.meet, replaced=rules.replaced)
    if not evidence:
        messages.append("no figures, tables or text were found in this paper")
    return evidence


def _model_answer(
    backend: ModelBackend,
    history: Sequence[tuple[str, str]],
    question: str,
    evidence: list[Evidence],
    settings: QASettings,
    messages: list[str],
) -> Generator[Status | str, None, _Reply | None]:
    """Step 3 with a model: its reply streamed, then read for citations; None when the model failed."""
    yield Status(f"Asking {backend.name}")
    try:
        request = _request(backend, history, question, evidence, settings, messages)
        pieces: list[str] = []
        with closed_after(backend.stream(request, settings.max_new_tokens)) as stream:
            for piece in stream:
                pieces.append(piece)
                yield piece
        answer, marked, abstained = _read_reply("".join(pieces), evidence, messages)
    except Stopped:
        raise  # nobody waits for this answer: no quoted one in its place
    except PaperError as exc:
        messages.append(f"the model could not answer: {exc}; the answer quotes the paper instead")
        return None
    return _Reply(answer, marked, abstained=abstained, model=backend.name)


def _quoted_answer(
    paper: Paper, reading: _InContext, evidence: Sequence[Evidence], more: Sequence[Evidence], retrieval: RetrievalSettings | None,
    messages: list[str],
) -> Generator[str, None, _Reply]:
    """Step 3 without a model (or when it failed): the answer chosen from the paper for what was
    asked; its sentence may come from `more` passages than the shortlist's."""
    quoted = extractive_answer(reading.text, evidence, reading.focus, paper, more, retrieval)
    if quoted.unquoted:  # a table's cell or a named item's caption and citing sentences do answer
        messages.append("no sentence of the paper's text matches the question")
    if quoted.text:
        yield quoted.text
    return _Reply(quoted.text, quoted.evidence, not_found=quoted.not_found)


def _model_reading(backend: ModelBackend, history: Sequence[tuple[str, str]], question: str, settings: QASettings) -> str:
    """The model's standalone question, or "" when its reply is no question: empty, a paragraph, a
    reply to the request ("Yes") rather than a question, or words that share none with the follow-up
    and the question before it."""
    turns = list(history)
    request = prompts.rewrite_messages(turns, question)
    while turns and backend.count_tokens(request) + settings.reader_rewrite_tokens + CONTEXT_MARGIN_TOKENS > backend.context_tokens:
        turns.pop(0)  # the oldest first, as in the answer's request
        request = prompts.rewrite_messages(turns, question)
    reply = backend.generate(request, settings.reader_rewrite_tokens)
    text = clean_answer(reply).splitlines()[0].strip().strip("\"'“”*`").strip() if reply.strip() else ""
    last = history[-1][0] if history else ""
    limit = REWRITE_GROWTH * (len(question) + len(last))
    words = set(_WORD.findall(text.lower()))
    asked = set(_WORD.findall(f"{question} {last}".lower()))
    return text if len(words) >= REWRITE_MIN_WORDS and words & asked and len(text) <= limit else ""


def _fits(backend: ModelBackend, request: list[Message], settings: QASettings) -> bool:
    return backend.count_tokens(request) + settings.max_new_tokens + CONTEXT_MARGIN_TOKENS <= backend.context_tokens


def _request(
    backend: ModelBackend,
    history: Sequence[tuple[str, str]],
    question: str,
    evidence: Sequence[Evidence],
    settings: QASettings,
    messages: list[str],
) -> list[Message]:
    """Earlier turns and the evidence, fitted to the model's context: the oldest turns go first,
    then the least relevant evidence; a note says what was left out."""
    images = 0 if not backend.supports_images else (backend.max_images if backend.max_images is not None else len(evidence))
    if not backend.supports_images and any(e.figure is not None for e in evidence):
        messages.append(f"model {backend.name!r} reads no images: figures and tables were given as captions")
    shown = list(evidence)
    turns = list(history)
    request = [*prompts.history_messages(turns), prompts.answer_message(question, shown, images)]
    while not _fits(backend, request, settings):
        if turns:
            turns.pop(0)
        elif len(shown) > 1:
            shown.pop()
        else:
            raise PaperError(f"the question does not fit the model's context of {backend.context_tokens} tokens")
        request = [*prompts.history_messages(turns), prompts.answer_message(question, shown, images)]
    if len(turns) < len(history):
        dropped = len(history) - len(turns)
        messages.append(
            f"{dropped} earlier turn{'s were' if dropped > 1 else ' was'} left out to fit the model's "
            f"context of {backend.context_tokens} tokens (the oldest first)"
        )
    if len(shown) < len(evidence):
        messages.append(f"only {len(shown)} of {len(evidence)} pieces of evidence fit the model's context")
    return request


def _read_reply(raw: str, evidence: list[Evidence], messages: list[str]) -> tuple[str, list[Evidence], bool]:
    """The answer with "Image i" named, the evidence with its citations marked, and whether it abstained."""
    items = [e for e in evidence if e.figure is not None]
    answer = name_images(clean_answer(raw), [e.label for e in items])
    if not answer:
        raise PaperError("the model returned an empty reply")
    if is_abstention(answer):
        messages.append("the model found no answer in the shown figures, tables and passages")
        return answer, evidence, True
    cited = parse_citations(answer)
    marked = [_mark(e, cited, items, answer) for e in evidence]
    if not any(e.cited for e in marked):
        messages.append("the answer cites none of the shown evidence: the best retrieved evidence is shown beside it")
    return answer, marked, False


def _mark(e: Evidence, cited: Citations, items: Sequence[Evidence], answer: str) -> Evidence:
    figure = e.figure
    if figure is not None:
        named = bool(figure.number) and (figure.kind, figure.number) in cited.labels
        by_image = any(0 <= i < len(items) and items[i] is e for i in cited.images)
        return replace(e, cited=True) if named or by_image else e
    if e.page in cited.pages:
        quote = best_quote(answer, [e])
        return replace(e, cited=True, quotes=quote.sentences if quote is not None else ())
    return e
