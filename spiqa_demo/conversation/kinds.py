"""Terms of the same kind, as the paper prints them: "morphine" is of DAMGO's kind, "GloVe" of
word2vec's, "BERT-Base" of BERT-Large's.

A follow-up that brings one term ("and for morphine?") replaces the previous question's term of the
same kind, whatever preposition either is said with. What kind a term is, nothing here knows; the
paper says it by where it prints terms side by side: the row names of one table, the cells of one
header row (but the heading of the row names) or of one body column, the items of one list in a
sentence ("responded to DAMGO and morphine", "word2vec [30] and GloVe [35]", "FM, NFM, CKE and
CFKG"). A term of the question in parentheses is an aside, never the one replaced. A cell or list item must be the
term itself, not merely hold it: "ResNet-50" and "ResNet-50 + SE" are not of one kind with "SE".
Terms are compared with case, spaces, hyphens and sub-script joins folded ("BERT-Large" is the
"BERTLARGE" a PDF prints).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from spiqa_demo.conversation.per_paper import per_paper
from spiqa_demo.paper_text import split_sentences
from spiqa_demo.types import Paper

MAX_TERM_WORDS = 4  # a list item or a term of a question longer than this is a clause, not a name
# Citations, footnote marks and asides inside a list ("word2vec [30] and GloVe [35]", "Na-azide (3 mmol/l)").
_ASIDE = re.compile(r"\s*(?:\[[^\[\]]{0,40}\]|\([^()]{0,40}\))|[*†‡§¶]+")
# What separates the items of a list.
_SEPARATOR = re.compile(r"\s*(?:,|;|/)\s*(?:and\s+|or\s+)?|\s+(?:and|or|nor|vs\.?|versus)\s+", re.IGNORECASE)
_WORD = re.compile(r"\S+")
# Words that are no term on their own: a term of the previous question never starts or ends with one.
_FUNCTION = frozenset(
    ["a", "an", "the", "of", "for", "on", "in", "with", "at", "to", "from", "by", "and", "or", "than", "as", "is", "are", "was", "were", "be", "been", "does", "do", "did", "what", "which", "who", "how", "why", "when", "where", "this", "that", "these", "those", "its", "their", "it", "they", "them"]
)


def key(term: str) -> str:
    """`term` as compared: letters and digits only, case folded."""
    return re.sub(r"[\W_]+", "", term.casefold())


@dataclass(frozen=True)
class Span:
    """Where `previous[start:end]` names a term of the kind of the follow-up's; `together`: in how
    many of the paper's lists and table groups the two are printed side by side."""

    start: int
    end: int
    together: int


def same_kind_span(term: str, previous: str, paper: Paper) -> Span | None:
    """The term of `previous` that the paper prints side by side with `term` most often (ties: the
    longer, then the later), or None when it prints none of them beside it."""
    wanted = key(term)
    if not wanted:
        return None
    groups = [g for g in per_paper("term-groups", paper, _groups) if wanted in g]  # every follow-up of a chat reads them
    if not groups:
        return None
    best: Span | None = None
    asides = [(m.start(), m.end()) for m in re.finditer(r"\([^()]*\)", previous)]
    for start, end in _terms(previous):
        if any(a <= start and end <= b for a, b in asides):
            continue  # "(PaSC2)" of "on the PaSC dataset ... (PaSC2)" names again what a phrase says: the phrase is replaced
        other = key(previous[start:end])
        if not other or other == wanted or wanted in other or other in wanted:
            continue
        together = sum(other in g for g in groups)
        if together and (best is None or (together, end - start, start) > (best.together, best.end - best.start, best.start)):
            best = Span(start, end, together)
    return best


def _terms(text: str) -> Iterator[tuple[int, int]]:
    """Each run of up to `MAX_TERM_WORDS` words of `text` (punctuation and a possessive "'s" trimmed)
    that neither starts nor ends with a function word, as (start, end)."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    for i in range(len(words)):
        for j in range(i, min(i + MAX_TERM_WORDS, len(words))):
            piece = text[words[i][0]:words[j][1]]
            trimmed = re.sub(r"(?:'s|’s)?[?.,;:!)\]\"”]*$", "", piece)
            start = words[i][0] + len(trimmed) - len(trimmed.lstrip("([\"'“"))
            end = words[i][0] + len(trimmed)
            said = text[start:end].lower().split()
            if said and said[0] not in _FUNCTION and said[-1] not in _FUNCTION:
                yield start, end


def _groups(paper: Paper) -> list[frozenset[str]]:
    """The paper's sets of terms printed side by side (the module docstring), as compared (`key`)."""
    groups: list[frozenset[str]] = []
    for item in paper.items:
        table = item.table
        if table is None:
            continue
        columns = max((len(r) for r in table.body), default=0)
        # a header row without its first cell: "Method" heads the row names, it is not of the datasets' kind
        cells = [*(row[1:] for row in table.header), table.row_names, *([r[j] for r in table.body if j < len(r)] for j in range(1, columns))]
        groups += [frozenset(k for c in group if (k := key(_ASIDE.sub("", c))) and len(c.split()) <= MAX_TERM_WORDS) for group in cells]
    for passage in paper.passages:
        for sentence in split_sentences(passage.text):
            groups += _lists(_ASIDE.sub("", " ".join(sentence.split())))  # one space between words: `_SEPARATOR` scans no long runs
    return [g for g in groups if len(g) >= 2]


def _lists(sentence: str) -> list[frozenset[str]]:
    """The lists of `sentence`: runs of parts between separators whose inner parts are items: short
    (up to `MAX_TERM_WORDS` words) and without a function word. The first part ends with an item and the last begins with one;
    where those items start is not known, so they take as many words as the inner items do ("ImageNet
    detection, ImageNet localization, COCO detection" holds no "COCO" beside "detection"), or any
    number up to `MAX_TERM_WORDS` in a list of two ("DAMGO and morphine")."""
    found: list[frozenset[str]] = []
    run: list[list[str]] = []
    for part in _SEPARATOR.split(sentence):
        words = part.split()
        if not words:
            found += _items(run)
            run = []
            continue
        run.append(words)
        if (len(words) > MAX_TERM_WORDS or any(w.lower() in _FUNCTION for w in words)) and len(run) > 1:
            # a clause ("CFKG on Amazon-Book") ends one list and begins the next
            found += _items(run)
            run = [words]
    return found + _items(run)


def _items(run: list[list[str]]) -> list[frozenset[str]]:
    """The items of one list (`_lists`) as compared, in a list of its own; none for a single part."""
    if len(run) < 2:
        return []
    inner = run[1:-1]
    lengths = {len(w) for w in inner} or set(range(1, MAX_TERM_WORDS + 1))
    items = [key(" ".join(run[0][-n:])) for n in lengths if n <= len(run[0])]
    items += [key(" ".join(w)) for w in inner]
    items += [key(" ".join(run[-1][:n])) for n in lengths if n <= len(run[-1])]
    return [frozenset(items)]
