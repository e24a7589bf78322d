"""The heading a paragraph is printed under, and the paragraphs under a heading that names what a
question asks about ("Which hyperparameters ...?" and "Parameter Settings", "Which datasets ...?" and
"Datasets").

A paragraph's heading is its run-in heading ("Implementation details. We train ...", "Parameter
Settings We set ...") or else the last standalone heading before it (a paragraph too short to be
body text, its section number dropped). A question names a heading when both speak of one of the
few things papers give a section of their own: the settings (hyperparameters, learning rate,
batch size, optimizer, ...), the data, the hardware, the baselines, the evaluation metrics. Any
shared word would not do: a dataset's or a method's name heads many sections ("ImageNet
Classification", "Object Detection on ImageNet") that are about everything else.
"""

from __future__ import annotations

import re

from spiqa_demo.conversation.per_paper import per_paper
from spiqa_demo.conversation.table_lookup import is_name
from spiqa_demo.paper_text import split_sentences
from spiqa_demo.types import Paper

MAX_HEADING_WORDS = 6  # a longer first sentence or paragraph is body text, not a heading
_RUN_IN = re.compile(r"^([A-Z][\w-]*(?:\s+[\w-]+){0,4}?)\.?\s+(?=(?:We|In|The|Our|For|To|This|All|Each|Following|Unless)\s)")
_NUMBERING = re.compile(r"^(?:\d+|[A-Z])(?:\.\d+)*\.?\s+")
# Things a question asks about that papers give a section: (words of the question, words of the heading).
_TOPICS = (
    (re.compile(r"hyper-?parameters?|learning rates?|batch sizes?|optimi[sz]er|epochs?|momentum|weight decay|dropout|warm-?up|"
                r"embedding (?:size|dimension)|how (?:is|was|were|are) \w+ trained|training (?:details|setup|procedure)", re.IGNORECASE),
     re.compile(r"setting|setup|implementation|hyper-?parameter|parameter|training|optimi[sz]ation", re.IGNORECASE)),
    (re.compile(r"\bdata(?:sets?)?\b|\bcorp(?:us|ora)\b|\bbenchmarks?\b", re.IGNORECASE),
     re.compile(r"\bdata(?:sets?)?\b|\bcorp(?:us|ora)\b|\bbenchmarks?\b", re.IGNORECASE)),
    (re.compile(r"\bhardware\b|\bGPUs?\b|\bTPUs?\b", re.IGNORECASE), re.compile(r"\bhardware\b", re.IGNORECASE)),
    (re.compile(r"\bbaselines?\b|compared? (?:with|to|against)", re.IGNORECASE), re.compile(r"\bbaselines?\b", re.IGNORECASE)),
    (re.compile(r"\bmetrics?\b|\bevaluat", re.IGNORECASE), re.compile(r"\bmetrics?\b|\bevaluation protocol", re.IGNORECASE)),
)


def _heading(text: str) -> str:
    """`text` as a heading without its number, or "" when it is body text."""
    line = _NUMBERING.sub("", " ".join(text.split()))
    return line.rstrip(".:") if 0 < len(line.split()) <= MAX_HEADING_WORDS and line[:1].isupper() else ""


def _run_in(text: str) -> str:
    sentences = split_sentences(text)
    first = _heading(sentences[0]) if len(sentences) > 1 else ""
    if first:
        return first
    found = _RUN_IN.match(_NUMBERING.sub("", " ".join(text.split())))
    return found[1] if found else ""


def headings(paper: Paper) -> list[str]:
    """Per passage of `paper`, the heading it is printed under ("" when none was found)."""
    return per_paper("headings", paper, _headings)


def _headings(paper: Paper) -> list[str]:
    out, section = [], ""
    for passage in paper.passages:
        standalone = _heading(passage.text)
        if standalone:
            section = standalone
            out.append("")  # a heading is under no heading of its own
            continue
        out.append(_run_in(passage.text) or section)
    return out


def named_words(question: str, heading: str) -> str:
    """The words of `question` that name `heading` ("hyperparameters" for "Parameter Settings",
    "datasets" for "Datasets"), space-separated; "" when it names none of it."""
    return " ".join(m[0] for asked, printed in _TOPICS if printed.search(heading) for m in asked.finditer(question))


def heading_matches(paper: Paper, question: str) -> dict[int, str]:
    """The passages of `paper` under a heading that `question` names, by `id()`, with the question's
    words that name it (`named_words`); none for a question that names a dataset, a model or a
    setting ("What learning rate is used on Charades?"): the paragraph that names it answers, more
    often than the paper's general settings."""
    if any(is_name(w, first=i == 0) for i, w in enumerate(question.split())):
        return {}
    matches = {id(p): named_words(question, h) for p, h in zip(paper.passages, headings(paper)) if h}
    return {key: words for key, words in matches.items() if words}
