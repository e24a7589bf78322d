"""Reading a follow-up without a model: "and on Last-FM?" after "Which method is best on Yelp2018 in
ndcg@20?" is read as "Which method is best on Last-FM in ndcg@20?".

A question needs the history when it opens like a continuation ("and ...", "what about ...", "why?"),
is a bare fragment, or points back ("it", "the larger one"). It is then completed from the previous
standalone question, by the first rule that applies:
1. the follow-up's preposition phrase replaces the previous question's phrase with the same
   preposition ("and on Last-FM?": "on Yelp2018" -> "on Last-FM");
2. the follow-up's entity (a capitalised, ALLCAPS or digit-bearing word) replaces the previous
   question's entity of the same type: the one printed beside it in the paper most often (names of
   datasets share table headers and sentences; a metric shares them with metrics), then the one of
   the most similar shape;
3. otherwise the follow-up is read together with the previous question, and the previous answer's
   evidence is kept in the shortlist ("why?", "what about the larger one?").
Nothing here knows a paper: the rules read the wording of the questions and the paper's own text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from spiqa_demo.paper_text import split_sentences
from spiqa_demo.types import Paper

How = Literal["standalone", "phrase", "entity", "pronoun", "joined"]

PREPOSITIONS = ("on", "for", "in", "with", "at", "of", "under", "over", "using", "to", "from", "against", "vs", "versus", "without", "by", "across", "between", "during", "after", "before")
_CONTINUATION = re.compile(
    r"^\s*(?:and|but|or|also|then|so|same|what about|how about|and what about|and how about|what of|and for|"
    r"and on|and in|and with|and the|and its|and their|compared to|versus|vs\.?)\b",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^\s*(?:and\s+)?(?:(?:what|how)\s+about|what\s+of|same\s+(?:for|on|with)|also|but|or|and|then|so)\s*[,:]?\s*",
    re.IGNORECASE,
)
# Words that point back at the previous question's subject when the question is short.
_POINTER = re.compile(r"\b(?:it|its|this|that|these|those|the (?:larger|smaller|bigger|other|same|first|second|last|latter|former|deeper|shallower|best|worst) ones?|the latter|the former)\b", re.IGNORECASE)
_WH_ONLY = re.compile(r"^\s*(?:why|how|how so|where|when|which one|what else|really|explain|details?|more)\s*\??\s*$", re.IGNORECASE)
# A word that names something: ALLCAPS, digit-bearing, capitalised inside the sentence, or joined
# by "-", "@", "." to such a part ("Last-FM", "ndcg@20", "ResNet-152", "WMT'14").
_TOKEN = re.compile(r"[A-Za-z0-9][\w@'.+/-]*[\w+]|[A-Za-z0-9]")
_QUESTION_WORDS = {"what", "which", "who", "how", "why", "where", "when", "does", "do", "did", "is", "are", "was",
                   "were", "can", "could", "would", "should", "will", "and", "the", "a", "an", "in", "on", "i"}
SHORT_WORDS = 6  # a question of at most this many words that points back is a follow-up


@dataclass(frozen=True)
class Reading:
    """How a question was read: `text` is the standalone question; `how` the rule that made it;
    `focus` the words the follow-up brought in place of the previous question's ("Last-FM"), which
    retrieval weighs on their own too; `keep_previous` asks retrieval to keep the previous turn's
    evidence in the shortlist."""

    text: str
    how: How = "standalone"
    focus: str = ""
    keep_previous: bool = False


def needs_history(question: str) -> bool:
    """The question cannot stand alone (see the module docstring)."""
    words = question.split()
    if _CONTINUATION.match(question) or _WH_ONLY.match(question):
        return True
    if len(words) <= SHORT_WORDS and _POINTER.search(question):
        return True
    if len(words) <= 2 and not any(w.lower().strip("?.!,") in _QUESTION_WORDS for w in words[:1]):
        return True  # a bare fragment: "Last-FM?", "CIFAR-10 too?"
    return bool(re.search(r"\bthe (?:larger|smaller|bigger|other|deeper|shallower) ones?\b|\bthe latter\b|\bthe former\b", question, re.IGNORECASE))


def read_question(question: str, previous: str | None, paper: Paper | None = None) -> Reading:
    """The standalone question for `question` after the previous standalone question `previous`."""
    question = " ".join(question.split())
    if not previous or not needs_history(question):
        return Reading(question)
    previous = " ".join(previous.split())
    rest = _LEAD.sub("", question).strip().rstrip("?.! ").strip()
    phrase = _by_phrase(rest, previous)
    if phrase:
        return Reading(phrase, "phrase", focus=rest.split(maxsplit=1)[1])
    new = entities(rest, sentence_start=False) or ([rest] if rest and len(rest.split()) <= 3 and not _POINTER.search(rest) and not _WH_ONLY.match(question) else [])
    old = entities(previous)
    if new and old:
        target = _most_alike(new[0], old, paper)
        return Reading(_replace(previous, target, new[0]), "entity", focus=new[0])
    pronoun = _by_pronoun(question, old)
    if pronoun:
        return Reading(pronoun, "pronoun", keep_previous=True)
    return Reading(f"{_sentence(previous)} {_capitalise(question)}", "joined", keep_previous=True)


def entities(text: str, sentence_start: bool = True) -> list[str]:
    """The words of `text` that name something (ALLCAPS, digit-bearing, capitalised past the first
    word, or joined by "-"/"@"), adjacent capitalised words kept together, in order."""
    found: list[str] = []
    previous_end = -2
    for m in _TOKEN.finditer(text):
        word = m.group().rstrip(".'")
        first = m.start() == len(text) - len(text.lstrip()) and sentence_start
        if not _names_something(word, first):
            continue
        if found and text[previous_end:m.start()] == " " and word[:1].isupper() and found[-1][:1].isupper():
            found[-1] = f"{found[-1]} {word}"
        else:
            found.append(word)
        previous_end = m.start() + len(word)
    return found


def _names_something(word: str, first: bool) -> bool:
    if word.lower() in _QUESTION_WORDS and not word.isupper():
        return False
    if any(c.isdigit() for c in word) and any(c.isalpha() for c in word):
        return True
    if "@" in word:
        return True
    if len(word) >= 2 and sum(c.isupper() for c in word) >= 2:
        return True  # ALLCAPS or inner capitals: "BLEU", "ResNet", "Last-FM"
    return word[:1].isupper() and not first and len(word) > 1


def _by_phrase(rest: str, previous: str) -> str:
    """"on Last-FM" replaces the previous question's "on ..." phrase (up to the next preposition)."""
    words = rest.split()
    if len(words) < 2 or words[0].lower() not in PREPOSITIONS:
        return ""
    preposition = words[0].lower()
    found = list(re.finditer(rf"\b{preposition}\b\s+", previous, re.IGNORECASE))
    if len(found) != 1:
        return ""
    start = found[0].end()
    stop = re.compile(rf"\s+(?:{'|'.join(PREPOSITIONS)}|and|when|while|compared|than|if)\b|[?,;:.](?:\s|$)|\?$|$", re.IGNORECASE)
    end = stop.search(previous, start)
    end_at = end.start() if end else len(previous)
    return previous[:start] + " ".join(words[1:]) + previous[end_at:]


def _by_pronoun(question: str, old: Sequence[str]) -> str:
    """"what is its computational cost?" -> "what is KGAT's computational cost?" (the previous
    question's first entity), when the question points back with "it"/"its"."""
    if not old or not re.search(r"\b(?:it|its)\b", question, re.IGNORECASE):
        return ""
    subject = old[0]
    text = re.sub(r"\bits\b", f"{subject}'s", question, count=1, flags=re.IGNORECASE)
    text = re.sub(r"\bit\b", subject, text, count=1, flags=re.IGNORECASE)
    return _capitalise(_LEAD.sub("", text).strip())


def _most_alike(new: str, old: Sequence[str], paper: Paper | None) -> str:
    """The previous entity `new` stands for: printed beside it most often in the paper, then the
    most similar in shape (ties: the later one, usually the question's object)."""
    together = _cooccurrence(new, old, paper) if paper is not None else [0] * len(old)
    shapes = [_shape_similarity(new, o) for o in old]
    best = max(range(len(old)), key=lambda i: (together[i], shapes[i], i))
    return old[best]


def _cooccurrence(new: str, old: Sequence[str], paper: Paper) -> list[int]:
    units: list[str] = [s for p in paper.passages for s in split_sentences(p.text)]
    units += [f"{f.caption} {f.text}" for f in paper.items]
    low_new = new.lower()
    counts = [0] * len(old)
    for unit in units:
        low = unit.lower()
        if low_new not in low:
            continue
        for i, o in enumerate(old):
            if o.lower() != low_new and o.lower() in low:
                counts[i] += 1
    return counts


def _shape(word: str) -> tuple[bool, bool, bool, bool, bool]:
    return (
        any(c.isdigit() for c in word),
        word.isupper(),
        "-" in word,
        "@" in word,
        word[:1].isupper(),
    )


def _shape_similarity(a: str, b: str) -> int:
    return sum(x == y for x, y in zip(_shape(a), _shape(b)))


def _replace(text: str, old: str, new: str) -> str:
    return re.sub(re.escape(old), new.replace("\\", r"\\"), text, count=1)


def _sentence(text: str) -> str:
    return text if text[-1:] in "?.!" else f"{text}?"


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
