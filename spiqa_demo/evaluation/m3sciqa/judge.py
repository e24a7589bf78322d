"""M3SciQA's graded judge: does a candidate answer mean the same as the reference answer (1 / 0.5 / 0)?

Restated from KIT-NOTES §4.2 (the source's prompt wording has no licence, so it is not copied): the
judge sees the question, the reference answer and the candidate, and replies with JSON
`{"selection": "1"}` (same meaning), `"0.5"` (partially correct) or `"0"` (irrelevant or wrong);
the score is the mean selection. Any OpenAI-compatible server or local model can judge (greedy,
as the paper's temperature 0). Replies are parsed leniently (the JSON anywhere in the reply,
quoted or not, then a bare 1 / 0.5 / 0); anything else is a `JudgeReplyError` that quotes the reply.
An abstention ("I don't know") or an empty answer scores 0 without asking the judge: it can never
mean the same as a reference answer.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from spiqa_demo.crosspaper.replies import is_abstention
from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.prompts import M3SCIQA_JUDGE_PROMPT
from spiqa_demo.models.base import Message, ModelBackend
from spiqa_demo.paper_text import one_line

SCALE = (0.0, 0.5, 1.0)
MAX_NEW_TOKENS = 64
_SELECTION = re.compile(r"""selection["'\s]*[:=]\s*["']?\s*(\d+(?:\.\d+)?|\.\d+)""", re.IGNORECASE)
_BARE = re.compile(r"""^[\s"'`{(\[]*(\d+(?:\.\d+)?|\.\d+)[\s"'`})\].]*$""")


class JudgeReplyError(PaperError):
    """The judge replied, but not with a selection on the 1 / 0.5 / 0 scale; `reply` is what it said."""

    def __init__(self, message: str, reply: str = "") -> None:
        super().__init__(message)
        self.reply = reply


@dataclass(frozen=True)
class Verdict:
    """One judged answer: `score` on M3SciQA's scale; `judge` is None when no judge was asked."""

    score: float
    judge: str | None
    reply: str = ""
    note: str = ""


@dataclass(frozen=True)
class StoredVerdict:
    """A verdict as a result record keeps it (`details["judge"]`): the judge's model, its reply, the
    selection read from it (None: the reply had none) and the note."""

    model: str | None
    reply: str
    selection: float | None
    note: str = ""

    @classmethod
    def of(cls, verdict: Verdict) -> StoredVerdict:
        return cls(verdict.judge, verdict.reply, verdict.score, verdict.note)

    @classmethod
    def from_details(cls, details: dict[str, Any]) -> StoredVerdict | None:
        """The verdict in a record's `details`, or None when the record holds none."""
        stored = details.get("judge")
        if not isinstance(stored, dict):
            return None
        selection = stored.get("selection")
        return cls(stored.get("model"), str(stored.get("reply", "")), None if selection is None else float(selection),
                   str(stored.get("note", "")))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def judge_prompt(question: str, reference: str, candidate: str) -> str:
    return M3SCIQA_JUDGE_PROMPT.format(question=question, reference=reference, candidate=candidate)


def parse_selection(reply: str) -> float:
    """The selection in a judge reply; `JudgeReplyError` (quoting the reply) when there is none on the scale."""
    found = _SELECTION.search(reply) or _BARE.match(reply)
    if found is not None:
        value = float(found.group(1))
        if value in SCALE:
            return value
        why = f"its selection {found.group(1)} is not 1, 0.5 or 0"
    else:
        why = 'it has no {"selection": ...}'
    raise JudgeReplyError(f"unparseable judge reply ({why}): {one_line(reply, 200)!r}", reply)


class GradedJudge:
    """Scores answers against reference answers with a judge `ModelBackend`."""

    def __init__(self, backend: ModelBackend) -> None:
        self.backend = backend

    @property
    def name(self) -> str:
        return self.backend.name

    def judge(self, question: str, reference: str, candidate: str) -> Verdict:
        """The verdict on `candidate`; raises `JudgeReplyError` (unparseable) or `BackendError` (no reply)."""
        if not candidate.strip():
            return Verdict(0.0, None, note="empty answer: scored 0 without the judge")
        if is_abstention(candidate):
            return Verdict(0.0, None, note="abstained: scored 0 without the judge")
        messages = [Message("user", [judge_prompt(question, reference, candidate)])]
        reply = self.backend.generate(messages, max_new_tokens=MAX_NEW_TOKENS)
        try:
            return Verdict(parse_selection(reply), self.name, reply=reply)
        except JudgeReplyError as exc:
            raise JudgeReplyError(f"{self.name}: {exc}", reply) from None
