"""A start on a paper just loaded: what it is, and questions worth asking it, drawn from the paper itself.

Without a model, the overview is the paper's title, its abstract's first sentences (with the page)
and its counts of figures and tables; with one, `summary_stream` asks it for a three-sentence
summary that cites pages (`summary_messages`), streamed as it is written. The suggested questions each name what they ask about, so the reader's
flow finds it: the figure the text discusses most ("What does Figure 3 show?"), the table with the
most numbers (what it reports: asking a table for its "best" row needs to know which columns are
measures, which its headings do not tell reliably), each with its caption's gist; and a section the
paper gives to its settings, data, hardware, baselines or metrics (`sections`), asked in the words
such a section answers, offered only when the passages the reader's flow shortlists for it include
that section's. None is offered that the paper cannot answer from itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from spiqa_demo.conversation.evidence import first_passages
from spiqa_demo.conversation.sections import headings, named_words
from spiqa_demo.conversation.table_lookup import cell_value
from spiqa_demo.models.base import Message, closed_after
from spiqa_demo.paper_text import split_sentences, strip_caption_label
from spiqa_demo.settings import QASettings, RetrievalSettings
from spiqa_demo.types import Figure, Paper, Passage

if TYPE_CHECKING:
    from spiqa_demo.models.base import ModelBackend

MAX_SUGGESTIONS = 4
OPENING_SENTENCES = 2
OPENING_CHARS = 400  # the abstract's opening is cut at a sentence end within this
MIN_ABSTRACT_WORDS = 40  # a shorter first paragraph is a title block or an affiliation
SHOWN_CHARS = 60  # a question, or a caption's gist beside it, as the app shows it (Gradio cuts a longer sample)
SUMMARY_CHARS = 6000  # the paper text a summary request holds: the abstract, the captions, the conclusion
SUMMARY_TOKENS = 256  # three sentences, each with its page: a model that goes on is cut here
# What a section about each of `sections`' topics answers, asked in that section's words (each within `SHOWN_CHARS`).
TOPIC_QUESTIONS = (
    "Which learning rate, batch size and optimizer for training?",
    "Which datasets are used?",
    "What hardware is used for training?",
    "Which baselines is the method compared with?",
    "Which evaluation metrics are used?",
)
SUMMARY_INSTRUCTIONS = (
    "Summarise this scientific paper for a reader in exactly three sentences: the problem it addresses, "
    "what it proposes, and what it finds. End each sentence with the page it rests on, as [p. 3]. Use only "
    "the text below; leave out what it does not say."
)
_END_MATTER = ("references", "bibliography", "acknowledgments", "acknowledgements", "appendix")
_ABSTRACT_HEADING = re.compile(r"^abstract\b[\s.:—-]*", re.IGNORECASE)  # "Abstract", "ABSTRACT:" opening the paragraph
_PANEL = re.compile(r"^\(?[a-zA-Z]\)\s+")  # "(a) " opening a caption with no title sentence


@dataclass(frozen=True)
class Suggestion:
    """A question to offer, what it asks about (`about`: "Table 3", or the section's heading), its page
    and a few words of what that is (`hint`: a caption's gist)."""

    question: str
    about: str
    kind: Literal["figure", "table", "section"]
    page: int
    hint: str = ""


@dataclass(frozen=True)
class Overview:
    """The paper at a glance: title, the abstract's opening and its page, the counts, and suggestions."""

    title: str
    opening: str
    opening_page: int
    counts: str
    suggestions: tuple[Suggestion, ...]


def overview(paper: Paper, settings: QASettings | None = None, retrieval: RetrievalSettings | None = None,
             limit: int = MAX_SUGGESTIONS) -> Overview:
    """`paper`'s overview without a model (see the module docstring)."""
    abstract = _abstract(paper)
    opening = _opening(abstract.text) if abstract is not None else ""
    return Overview(
        title=" ".join((paper.title or paper.source).split()),
        opening=opening,
        opening_page=abstract.page if abstract is not None else 0,
        counts=paper.summary(),
        suggestions=tuple(suggestions(paper, settings, retrieval, limit)),
    )


def suggestions(paper: Paper, settings: QASettings | None = None, retrieval: RetrievalSettings | None = None,
                limit: int = MAX_SUGGESTIONS) -> list[Suggestion]:
    """Up to `limit` questions: the most discussed figure, the table with the most numbers, sections on
    the paper's settings, data, hardware, baselines or metrics; then more figures and tables."""
    figures = sorted(paper.figures, key=lambda f: (-len(f.mentions), f.page))
    tables = sorted(paper.tables, key=lambda t: (-_numbers(t), t.page))
    labelled = [i for i in (figures[:1] + tables[:1]) if i.number]
    found = [_item_question(i) for i in labelled] + _section_questions(paper, settings or QASettings(), retrieval)
    spare = [i for i in _alternate(figures[1:], tables[1:]) if i.number]
    found += [_item_question(i) for i in spare]
    return found[:limit]


def summary_messages(paper: Paper) -> list[Message]:
    """A request for a model's three-sentence summary that cites pages: the abstract, the figures'
    and tables' captions and the closing section, each with its page, up to `SUMMARY_CHARS`."""
    abstract = _abstract(paper)
    parts = [f"[p. {abstract.page}] {_flat(abstract.text)}"] if abstract is not None else []
    parts += [f"[p. {i.page}] {_flat(i.caption)}" for i in paper.items if i.caption]
    parts += [f"[p. {p.page}] {_flat(p.text)}" for p in _closing(paper)]
    text, used = [], 0
    for part in parts:
        if used + len(part) > SUMMARY_CHARS:
            break
        text.append(part)
        used += len(part)
    body = "\n".join(text)
    return [Message("user", [f"{SUMMARY_INSTRUCTIONS}\n\nTitle: {_flat(paper.title)}\n\n{body}\n\nSummary:"])]


@dataclass(frozen=True)
class Summary:
    """A model's three-sentence summary of a paper, each sentence ending with its page ("[p. 3]")."""

    text: str


def summary_stream(paper: Paper, backend: ModelBackend) -> Iterator[str | Summary]:
    """`backend`'s summary of `paper` as it writes it (text pieces), then the whole `Summary`. Closing this
    generator closes the model's request."""
    written = []
    with closed_after(backend.stream(summary_messages(paper), max_new_tokens=SUMMARY_TOKENS)) as pieces:
        for piece in pieces:
            written.append(piece)
            yield piece
    yield Summary("".join(written).strip())


# -- the parts


def _flat(text: str) -> str:
    return " ".join(text.split())


def _abstract(paper: Paper) -> Passage | None:
    """The paragraph under an "Abstract" heading, else the first long paragraph of the first page
    with text (a title block and the authors' addresses are short)."""
    under = headings(paper)
    for passage, heading in zip(paper.passages, under):
        if heading.lower() == "abstract" and len(passage.text.split()) >= MIN_ABSTRACT_WORDS:
            return passage
    first_page = min((p.page for p in paper.passages), default=0)
    return next((p for p in paper.passages if p.page == first_page and len(p.text.split()) >= MIN_ABSTRACT_WORDS), None)


def _opening(text: str) -> str:
    """The first sentences of `text`, ended at a sentence within `OPENING_CHARS` (the first one whole)."""
    sentences = split_sentences(_ABSTRACT_HEADING.sub("", _flat(text)))
    kept: list[str] = []
    for sentence in sentences[:OPENING_SENTENCES]:
        if kept and len(" ".join([*kept, sentence])) > OPENING_CHARS:
            break
        kept.append(sentence)
    return " ".join(kept)


def _hint(item: Figure) -> str:
    """The caption's first sentence (its title, in most papers; after a first panel's mark, "(a)"), whole when it
    fits in `SHOWN_CHARS`, else its longest opening within them that ends where a phrase does (`_phrase`): a gist
    cut mid-phrase ("Origin of eukaryotic EF-1A within A...") reads as text cut off."""
    sentences = split_sentences(_PANEL.sub("", strip_caption_label(_flat(item.caption))))
    words = (sentences[0] if sentences else "").rstrip(".").split()
    fitting = next((n for n in range(len(words), 0, -1) if len(" ".join(words[:n])) <= SHOWN_CHARS), 0)
    return " ".join(words) if fitting == len(words) else _phrase(words[:fitting + 1])


# Words that open a phrase of their own: a gist ending right before one ends with a phrase ("Origin of eukaryotic
# EF-1A" before "within Asgard archaea").
_PHRASE_OPENERS = frozenset({
    "of", "in", "on", "for", "with", "within", "across", "and", "or", "by", "from", "to", "at", "under", "during",
    "between", "via", "after", "before", "using", "as", "that", "which", "over", "into", "through", "among",
    "versus", "vs.", "without", "upon", "than", "while", "where", "when"
})
_CLAUSE_END = (",", ";", ":")
MIN_HINT_WORDS = 2  # a shorter opening tells nothing of the item


def _phrase(words: list[str]) -> str:
    """The longest opening of `words` less its last word that ends a clause (at a comma, semicolon or colon), else
    the longest that ends before a word opening a phrase (`_PHRASE_OPENERS`, or a bracket); "" when none has
    `MIN_HINT_WORDS`."""
    closed = [e for e in range(len(words) - 1, MIN_HINT_WORDS - 1, -1)  # never inside brackets: "(S-FRMap" reads cut
              if sum(w.count("(") - w.count(")") for w in words[:e]) <= 0]
    end = next((e for e in closed if words[e - 1].endswith(_CLAUSE_END)), None) or next(
        (e for e in closed if (words[e].lower() in _PHRASE_OPENERS or words[e].startswith("("))
         and words[e - 1].lower() not in _PHRASE_OPENERS), None)
    return " ".join(words[:end]).rstrip(",;:") if end else ""


def _numbers(table: Figure) -> int:
    """How many of the table's body cells print a number."""
    if table.table is None:
        return 0
    return sum(1 for row in table.table.body for cell in row[1:] if cell_value(cell) is not None)


def _item_question(item: Figure) -> Suggestion:
    label = item.title
    return Suggestion(f"What does {label} {'show' if item.kind == 'figure' else 'report'}?", label, item.kind, item.page,
                      _hint(item))


def _section_questions(paper: Paper, settings: QASettings, retrieval: RetrievalSettings | None) -> list[Suggestion]:
    """Per topic a section of the body (not the end matter) is given to, its question, when the
    passages the reader's flow shortlists for it include that section's: about the first such section."""
    sections: dict[str, list[tuple[Passage, str]]] = {}
    for passage, heading in _body(paper):
        for question in TOPIC_QUESTIONS:
            if heading and named_words(question, heading):
                sections.setdefault(question, []).append((passage, heading))
    found = []
    for question, under in sections.items():
        shortlisted = {id(e.passage) for e in first_passages(paper, question, settings, retrieval)}
        hit = next(((p, h) for p, h in under if id(p) in shortlisted), None)
        if hit is not None:
            found.append(Suggestion(question, hit[1], "section", hit[0].page))
    return found


def _body(paper: Paper) -> list[tuple[Passage, str]]:
    """The paragraphs before the end matter (references, acknowledgements, appendix), each with its heading."""
    body: list[tuple[Passage, str]] = []
    for passage, heading in zip(paper.passages, headings(paper)):
        if heading.lower().startswith(_END_MATTER):
            break
        body.append((passage, heading))
    return body


def _closing(paper: Paper) -> list[Passage]:
    """The paragraphs under the last heading before the end matter that names a conclusion or discussion."""
    closing = [p for p, h in _body(paper) if h.lower().startswith(("conclusion", "discussion", "summary"))]
    return closing[-2:]


def _alternate(figures: list[Figure], tables: list[Figure]) -> list[Figure]:
    out: list[Figure] = []
    for n in range(max(len(figures), len(tables))):
        out += [kind[n] for kind in (figures, tables) if n < len(kind)]
    return out
