"""Stage 2: answer a question from the text of the cited papers stage 1 ranked first.

M3SciQA's protocol (KIT-NOTES §4.2, restated; its prompt wording is not reproduced because the
source has no licence): the top-k papers' texts are joined and cut into chunks of `chunk_chars`
characters with a 50-character overlap; each chunk is asked the question, with the instruction to
answer in short form and to reply "I don't know" when the chunk cannot answer; the answers that
are not "I don't know" are merged by one more call. The shared data has titles and abstracts only
(no full text), and the prompt says so, so the model knows how little it is given. With k = 3
abstracts the context is one chunk, one call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spiqa_demo.crosspaper.replies import IDK, clean_answer, is_abstention
from spiqa_demo.crosspaper.types import CitedCandidate
from spiqa_demo.evaluation.prompts import M3SCIQA_ANSWER_PROMPT, M3SCIQA_MERGE_PROMPT
from spiqa_demo.models.base import Message, ModelBackend

CHUNK_CHARS = 10_000  # M3SciQA's default chunk length
CHUNK_OVERLAP = 50
MAX_NEW_TOKENS = 256



@dataclass(frozen=True)
class ContextPaper:
    """One cited paper as the model sees it; `abstract` is None in the title-only setting."""

    id: str
    title: str
    abstract: str | None

    @classmethod
    def of(cls, candidate: CitedCandidate, with_abstract: bool = True) -> ContextPaper:
        return cls(candidate.id, candidate.title, candidate.abstract if with_abstract else None)

    def text(self, number: int) -> str:
        head = f"Paper {number}: {self.title or '(untitled)'}"
        if self.abstract is None:
            return head
        return f"{head}\nAbstract: {self.abstract or '(no abstract available)'}"


@dataclass
class PapersAnswer:
    """An answer from given papers' texts (M3SciQA's chunk-and-merge): whether it abstained, and every
    raw reply (one per chunk, then the merge). The app's cross-paper answer is `cited_answer.CitedAnswer`."""

    answer: str
    abstained: bool
    replies: list[str] = field(default_factory=list)
    chunks: int = 1


def chunks(text: str, size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[str]:
    """`text` cut into pieces of `size` characters, each starting `overlap` characters before the last ended."""
    if size <= overlap:
        raise ValueError("the chunk size must exceed the overlap")
    if len(text) <= size:
        return [text]
    return [text[start:start + size] for start in range(0, len(text) - overlap, size - overlap)]


def answer_from_papers(
    backend: ModelBackend, question: str, papers: list[ContextPaper], chunk_chars: int = CHUNK_CHARS
) -> PapersAnswer:
    """The model's answer from `papers` (M3SciQA's chunk-then-merge protocol; see the module docstring)."""
    if not papers:
        return PapersAnswer(IDK, abstained=True, chunks=0)
    what = "titles and abstracts" if any(p.abstract is not None for p in papers) else "titles only"
    context = "\n\n".join(p.text(i) for i, p in enumerate(papers, 1))
    replies, answers = [], []
    pieces = chunks(context, chunk_chars)
    for piece in pieces:
        prompt = M3SCIQA_ANSWER_PROMPT.format(what=what, count=len(papers), context=piece, question=question)
        reply = backend.generate([Message("user", [prompt])], max_new_tokens=MAX_NEW_TOKENS)
        replies.append(reply)
        if not is_abstention(reply) and clean_answer(reply):
            answers.append(clean_answer(reply))
    if not answers:
        # Every chunk abstained (or replied nothing): the reply of a single chunk is kept as written.
        final = clean_answer(replies[0]) if len(replies) == 1 else IDK
        return PapersAnswer(final, abstained=is_abstention(final), replies=replies, chunks=len(pieces))
    if len(answers) == 1:
        return PapersAnswer(answers[0], abstained=False, replies=replies, chunks=len(pieces))
    listed = "\n".join(f"Answer {i}: {a}" for i, a in enumerate(answers, 1))
    merged = backend.generate([Message("user", [M3SCIQA_MERGE_PROMPT.format(question=question, answers=listed)])],
                              max_new_tokens=MAX_NEW_TOKENS)
    replies.append(merged)
    final = clean_answer(merged)
    return PapersAnswer(final, abstained=is_abstention(final), replies=replies, chunks=len(pieces))
