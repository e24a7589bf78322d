"""Reading a follow-up without a model: "and on Last-FM?" after "Which method is best on Yelp2018 in
ndcg@20?" is read as "Which method is best on Last-FM in ndcg@20?".

A question needs the history when it opens like a continuation ("and ...", "what about ...", "why?"),
is a bare fragment, or points back ("it", "the larger one"; in a question of up to ten words also
"them", "is that", "the other ...", "are they <done>"); "this paper", "this work" point at the paper,
not back. Only the first kind cannot stand alone at all (`cannot_stand_alone`), and not when its
connective opens a whole question ("So what is the main result?"): a first question that says "it"
or "this" is about the paper and is searched as asked. A follow-up is completed from the previous
standalone question, keeping its subject and changing only what the follow-up changes, by the first
rule that applies:
1. a follow-up made of preposition phrases, maybe after a name ("and with SE on CIFAR-10?",
   "and the mIoU on Cityscapes?"): each phrase replaces the previous question's phrase with the
   same preposition ("on Yelp2018" -> "on Last-FM"), a phrase whose preposition the previous
   question lacks is added before the replaced ones (or at the end), and the leading name replaces
   the previous question's name of the same type (as in rule 2), or the measure it asks for ("What
   mAP does ...") when it is a measure: a definite phrase the paper's tables print as a column
   heading more often than in row names ("the mIoU"; "the proposed method" is a row);
2. the follow-up's entity (a capitalised, ALLCAPS or digit-bearing word) replaces the previous
   question's entity of the same type: the one printed beside it in the paper most often (names of
   datasets share table headers and sentences; a metric shares them with metrics), then the one of
   the most similar shape; a name never replaces an item's label: after "What does Figure 1
   show?", "and the daughter cells?" asks "What does Figure 1 show about the daughter cells?";
3. otherwise "it" becomes the previous question's only name, or the follow-up is read together
   with the previous question; either way the previous answer's evidence is kept in the shortlist
   ("why?", "which figure shows that?") and the follow-up's own words ("memory usage" of "and its
   memory usage?") are searched on their own too, since they may ask for another figure.
   "it" is an item's label only when the follow-up asks what the item shows ("what does it show in
   panel d?"): "Does it work in human cells?" after "What does Fig. 2 show?" is about what the paper
   studies. A follow-up whose "it" does something ("does it work", "can it detect") and that asks a
   whole question once "it" is read so is read as itself, as a first question would be: joined to an
   earlier reading it would pile turns up ("Q1? Why? Does it ...?"). "it" that a copula says
   something of ("is it the same for ...?") is the previous answer and stays joined.
In rule 1 a phrase's object replaces the previous question's term of the same kind (`kinds`: printed
beside it in one of the paper's lists or table groups) when the phrase with the same preposition
holds no such term: "and for morphine?" after "What is the EC50 of DAMGO for the biosensor?" asks
about morphine for the biosensor. A continuation that asks a whole question naming something of its
own ("and which other protein does DIP1 bind?") is read with the previous question, never by
putting its name in place of one of the previous question's.
A subject change after a question about one item stays with the item only where the item prints the
new subject (its caption, its words, its table's headings and rows); else the reader asks where the
subject is shown ("and in mice?" -> "What does the paper show in mice?"), and the item, no longer
named (a named item comes first whatever it holds), is kept among the evidence.
Nothing here knows a paper: the rules read the wording of the questions and the paper's own text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from spiqa_demo.conversation.kinds import same_kind_span
from spiqa_demo.conversation.meeting import printed_words
from spiqa_demo.paper_text import find_label_refs, split_sentences
from spiqa_demo.types import Paper

How = Literal["standalone", "phrase", "entity", "about", "pronoun", "itself", "joined"]

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
# "this paper", "this work": the paper itself, in a first question as in a follow-up.
_DOCUMENT = r"(?!\s+(?:paper|work|article|study|manuscript|publication|report|thesis)\b)"
# Words that point back at the previous question's subject when the question is short.
_POINTER = re.compile(rf"\b(?:it|its|(?:this|that|these|those){_DOCUMENT}|the (?:larger|smaller|bigger|other|same|first|second|last|latter|former|deeper|shallower|best|worst) ones?|the latter|the former)\b", re.IGNORECASE)
# Words that point back in a longer question too: "it", "its", "them", "those", "that" as an object
# ("is that better than humans?", "which figure shows that?"), "the other <noun>", and "they" as
# what is done to or where something is ("how are they trained?", "which layer are they in?"); "they"
# who do something is left out: "What optimizer do they use?" asks about the authors.
_BACK_REFERENCE = re.compile(
    rf"\b(?:it|its|them|(?:these|those){_DOCUMENT})\b|\b(?:are|were)\s+they\b|\b(?:is|does|was|shows?|about|explains?|behind|of)\s+(?:that|this)\b{_DOCUMENT}|"
    r"\b(?:that|this)\s*[?.!]?\s*$|\bthe other\b",
    re.IGNORECASE,
)
_OTHER = re.compile(r"\b(?:the other|another)\b", re.IGNORECASE)
LONG_WORDS = 10  # a question of at most this many words that refers back and names nothing is a follow-up
# Words of a follow-up that say what the reader wants shown, not what about: left out of its focus.
_GENERIC = re.compile(
    r"\b(?:which|what|where|how|why|is|are|was|were|does|do|did|the|a|an|and|of|to|in|on|for|with|that|this|"
    r"it|its|them|they|their|these|those|one|ones|figure|figures|fig|table|tables|shows?|shown|look|like|"
    r"about|also|then|other|much|many|from|than|each|there)\b",
    re.IGNORECASE,
)
_WH_ONLY = re.compile(r"^\s*(?:why|how|how so|where|when|which one|what else|really|explain|details?|more)\s*\??\s*$", re.IGNORECASE)
# A word that names something: ALLCAPS, digit-bearing, capitalised inside the sentence, or joined
# by "-", "@", "." to such a part ("Last-FM", "ndcg@20", "ResNet-152", "WMT'14").
# An item's label ("Fig. 4", "Figure 3b", "Table II") is one name: its number is what a follow-up
# ("and Fig. 4?") changes, so it must not be read as the bare word "Fig".
_LABEL = r"\b(?i:fig(?:ure)?s?\.?|tab(?:le)?s?\.?)\s*(?:[A-Z]?\d+[a-z]?|[IVXL]+)\b"
_IS_LABEL = re.compile(_LABEL)
_TOKEN = re.compile(rf"{_LABEL}|[A-Za-z0-9][\w@'.+/-]*[\w+]|[A-Za-z0-9]")
_QUESTION_WORDS = {"what", "which", "who", "how", "why", "where", "when", "does", "do", "did", "is", "are", "was",
                   "were", "can", "could", "would", "should", "will", "and", "the", "a", "an", "in", "on", "i"}
SHORT_WORDS = 6  # a question of at most this many words that points back is a follow-up


@dataclass(frozen=True)
class Reading:
    """How a question was read: `text` is the standalone question; `how` the rule that made it;
    `focus` the words the follow-up brought in place of the previous question's ("Last-FM"), which
    retrieval weighs on their own too; `keep_previous` asks retrieval to keep the previous turn's
    evidence in the shortlist, `avoid_previous` to lower it ("and on the other dataset?" asks for
    another figure or table than the one just shown); `meet`: the focus stands for part of the
    previous question ("and on Last-FM?"), so the item where it meets the rest is raised, and the one
    where the words it `replaced` ("Yelp2018") meet the rest without it is lowered: that item answered
    the previous question."""

    text: str
    how: How = "standalone"
    focus: str = ""
    keep_previous: bool = False
    avoid_previous: bool = False
    meet: bool = False
    replaced: str = ""


_COMPARATIVE = re.compile(r"\bthe (?:larger|smaller|bigger|other|deeper|shallower) ones?\b|\bthe latter\b|\bthe former\b", re.IGNORECASE)


def needs_history(question: str) -> bool:
    """The question is read with the previous one when there is one (see the module docstring); one
    that opens like a continuation is, even when the rest asks a whole question ("and does the size
    of the model matter?" is about the model just discussed)."""
    words = question.split()
    if _CONTINUATION.match(question) or _WH_ONLY.match(question) or cannot_stand_alone(question):
        return True
    if len(words) <= SHORT_WORDS and _POINTER.search(question):
        return True
    return len(words) <= LONG_WORDS and bool(_BACK_REFERENCE.search(question))


def cannot_stand_alone(question: str) -> bool:
    """The question means nothing without an earlier one: it continues one ("and on X?"), is a bare
    "why?" or fragment ("Last-FM?"), or compares with something not said ("the larger one"). A
    question that only says "it" or "this" may be about the paper ("What problem does it solve?"),
    and so may one whose connective opens a whole question ("So what is the main result?"), a bare
    request for the paper's gist ("Summarize.") or a comparison of two things it names itself ("How
    does the larger model compare with the smaller one?")."""
    words = question.split()
    if _WH_ONLY.match(question):
        return True
    if _CONTINUATION.match(question):
        return not _whole_question(_LEAD.sub("", question))
    if len(words) <= 2 and not _GIST.match(question) and not any(w.lower().strip("?.!,") in _QUESTION_WORDS for w in words[:1]):
        return True  # a bare fragment: "Last-FM?", "CIFAR-10 too?"
    return bool(_COMPARATIVE.search(question)) and len(_CONTRAST.findall(question)) < 2


# A bare request for the paper's gist.
_GIST = re.compile(r"^\s*(?:summari[sz]e|summary|overview|tl;?dr)\b", re.IGNORECASE)
# "the larger model ... the smaller one": a comparison whose two sides the question names itself.
_CONTRAST = re.compile(r"\bthe (?:larger|smaller|bigger|deeper|shallower)\b", re.IGNORECASE)


def _whole_question(text: str) -> bool:
    """`text` asks a question of its own: it opens with a question word, has a verb's worth of words
    and points back at nothing ("what is the main result", not "on CIFAR-10" or "is it the encoder")."""
    return bool(_ASKS.match(text)) and len(text.split()) >= 4 and not _POINTER.search(text) and not _BACK_REFERENCE.search(text)


def read_question(question: str, previous: str | None, paper: Paper | None = None) -> Reading:
    """The standalone question for `question` after the previous standalone question `previous`."""
    question = " ".join(question.split())
    if not previous or not needs_history(question):
        return Reading(question)
    previous = " ".join(previous.split())
    rest = _LEAD.sub("", question).strip().rstrip("?.! ").strip()
    reading = _complete(question, rest, previous, paper)
    if paper is not None:
        reading = _in_the_item(reading, rest, previous, paper)
    if _OTHER.search(rest):
        return replace(reading, keep_previous=False, avoid_previous=True)
    return reading


def _complete(question: str, rest: str, previous: str, paper: Paper | None) -> Reading:
    phrase, replaced = _by_phrases(rest, previous, paper)
    if phrase:
        return Reading(phrase, "phrase", focus=_own_words(rest) or rest, meet=True, replaced=replaced)
    if _whole_question(rest) and entities(rest, sentence_start=False):
        # "and which other protein does DIP1 bind?": a question of its own whose name must not replace
        # one of the previous question's; "and" keeps it in the conversation, so both are read
        return Reading(f"{_sentence(previous)} {_capitalise(question)}", "joined", focus=_own_words(rest), keep_previous=True)
    refers_back = bool(_BACK_REFERENCE.search(rest)) or len(rest.split()) > SHORT_WORDS
    new = [] if refers_back else entities(rest, sentence_start=False) or ([rest] if rest and len(rest.split()) <= 3 and not _POINTER.search(rest) and not _WH_ONLY.match(question) else [])
    old = entities(previous)
    slot = _measure_slot(rest, previous, paper) if new == [rest] else None
    if slot is not None:  # "and the generation speed?" after "How does BLEU change with depth?"
        return Reading(previous[:slot[0]] + _DETERMINER.sub("", rest) + previous[slot[1]:], "entity", focus=_own_words(rest) or rest,
                       meet=True, replaced=previous[slot[0]:slot[1]])
    if new and old and all(_IS_LABEL.fullmatch(o) for o in old) and not _IS_LABEL.fullmatch(new[0]):
        # "and the daughter cells?" after "What does Figure 1 show?": the item's subject changes, not the item
        asked = _ABOUT.sub("", previous.rstrip().rstrip("?.!").rstrip())  # "... show about X?" then "and Y?": about Y
        return Reading(f"{asked} about {rest}?", "about", focus=_own_words(rest) or rest, keep_previous=True)
    if new and old:
        target = _most_alike(new[0], old, paper)
        return Reading(_replace(previous, target, new[0]), "entity", focus=new[0], meet=True, replaced=target)
    focus = _own_words(rest)
    pronoun = _by_pronoun(question, previous, old)
    if pronoun:
        return Reading(pronoun, "pronoun", focus=focus, keep_previous=True)
    if _IT_DOES.search(rest) and _whole_question(_IT.sub("the paper", rest)):
        # "Does it work in human cells?" after "What does Fig. 2 show?": "it" is the paper's subject, as in a first question
        return Reading(_capitalise(_sentence(_LEAD.sub("", question).strip())), "itself", focus=focus)
    # "and the anti-HA antibody?" after a question naming nothing: its words meet the question's where it is answered
    return Reading(f"{_sentence(previous)} {_capitalise(question)}", "joined", focus=focus, keep_previous=True, meet=bool(new))


# Where a question names the measure it asks for: "What mAP does", "What is the top-1 error of", "How does BLEU change".
# Each named group ends on a printed character, so a run of spaces after it is split one way only
# (the lazy group and the `\s+` after it once tried every split of it).
_QUANTITY = re.compile(
    r"^\s*(?:what|which)\s+(?:is|are|was|were)\s+the\s+(?P<a>[^?]*?[^?\s])\s+(?:of|for|on|in)\b"
    r"|^\s*what\s+(?:is|are)\s+[^?\s]+'s\s+(?P<b>[^?]*?[^?\s])\s+(?:on|in|for|at)\b"
    r"|^\s*(?:what|which)\s+(?P<c>(?!is\b|are\b|was\b|were\b|do\b|does\b|did\b)[^?]*?[^?\s])\s+(?:does|do|did|is|are|was|were)\b"
    r"|^\s*how\s+(?:does|do)\s+(?P<d>[^?]*?[^?\s])\s+(?:change|vary|scale|evolve|grow|depend)\b",
    re.IGNORECASE,
)
_ABOUT = re.compile(r"\s+about\s+.*$", re.IGNORECASE)
_DETERMINER = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


def _measure_slot(phrase: str, previous: str, paper: Paper | None) -> tuple[int, int] | None:
    """Where `previous` names the measure it asks for, as (start, end), when `phrase` names another
    measure in its place; None otherwise. A phrase whose last word the previous question says outside
    its measure ("the proposed method" after "Durrieu's method") names its subject instead."""
    match = _QUANTITY.match(previous)
    if match is None or paper is None or not _is_quantity(phrase, paper):
        return None
    group = next(g for g in "abcd" if match.group(g) is not None)
    start, end = match.start(group), match.end(group)
    outside = f"{previous[:start]} {previous[end:]}".lower().split()
    return None if phrase.split()[-1].lower() in outside else (start, end)


def _is_quantity(phrase: str, paper: Paper) -> bool:
    """`phrase` ("the mIoU", "the video accuracy") names a measure: a definite phrase whose last word
    the paper's parsed tables print as a column heading more often than in row names (a method, a
    strain or a cell line is a row; "the proposed method" is no measure)."""
    words = phrase.split()
    if len(words) < 2 or not _DETERMINER.match(phrase):
        return False
    last = words[-1].lower()
    tables = [i.table for i in paper.items if i.table is not None]
    in_headings = sum(last in h.lower().split() for t in tables for h in t.column_headings())
    in_rows = sum(last in r.lower().split() for t in tables for r in t.row_names)
    return in_headings > in_rows


def _in_the_item(reading: Reading, rest: str, previous: str, paper: Paper) -> Reading:
    """A follow-up that changes the subject of a question about one item ("and in mice?" after "What
    does Figure 1 show?") asks about that item when the item prints the new subject; when it does
    not, the reader asks where the subject is shown: the item is no longer named (a named item comes
    first whatever it holds) but kept among the evidence."""
    named = find_label_refs(previous)
    if reading.how not in ("phrase", "about") or len(named) != 1 or find_label_refs(rest) or named[0] not in find_label_refs(reading.text):
        return reading
    items = [i for i in paper.items if (i.kind, i.number) == named[0]]
    subject = _content_words(reading.focus or rest)
    if not items or not subject or any(subject <= _content_words(f"{i.caption} {printed_words(i)}") for i in items):
        return reading
    label = next((m for m in _IS_LABEL.finditer(reading.text) if find_label_refs(m.group()) == named), None)
    if label is None:
        return reading
    text = f"{reading.text[:label.start()]}the paper{reading.text[label.end():]}"
    return replace(reading, text=text, keep_previous=True)


def _content_words(text: str) -> set[str]:
    """The words of `text` that say what it is about, plural "s" dropped: "mice" and "frogs" of "in frogs"."""
    return {w.removesuffix("s") for w in re.findall(r"[a-z0-9]+", _GENERIC.sub(" ", text).lower())
            if len(w) >= 3 and w not in PREPOSITIONS}


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


# Where a phrase of the previous question ends: another preposition, a clause, or the verb after a
# phrase placed before it ("with CBAM reach on COCO").
_VERBS = r"(?:is|are|was|were|do|does|did|reach(?:es)?|gets?|achieves?|performs?|scores?|obtains?|yields?|gives?|has|have|compares?|uses?|shows?)"
_PHRASE_END = re.compile(
    rf"\s+(?:{'|'.join(PREPOSITIONS)}|and|when|while|compared|than|if|{_VERBS})\b|[?,;:](?:\s|$)|(?<!\b[A-Z])\.(?:\s|$)|\?$|$", re.IGNORECASE
)
_ASKS = re.compile(r"^(?:what|which|who|whom|whose|how|why|where|when|is|are|was|were|does|do|did|can|could|would|should|will)\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Edit:
    """Text put in place of `previous[start:end]` (an insertion where they are equal)."""

    start: int
    end: int
    text: str


def _parts(rest: str, previous: str) -> tuple[str, list[tuple[str, str]]]:
    """The words before the first preposition ("the mIoU" of "the mIoU on Cityscapes") and each
    (preposition, its object) after it, in order. A preposition the previous question lacks, after
    a phrase whose preposition it has, belongs to that phrase's object: "after infection with an RNA
    virus" replaces "after insulin stimulation" whole."""
    head: list[str] = []
    phrases: list[tuple[str, list[str]]] = []
    for word in rest.split():
        said = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
        if word.lower() in PREPOSITIONS and not (phrases and said.search(previous) is None and re.search(rf"\b{phrases[-1][0]}\b", previous, re.IGNORECASE)):
            phrases.append((word.lower(), []))
        elif phrases:
            phrases[-1][1].append(word)
        else:
            head.append(word)
    return " ".join(head), [(p, " ".join(words)) for p, words in phrases if words]


def _by_phrases(rest: str, previous: str, paper: Paper | None) -> tuple[str, str]:
    """Rule 1 of the module docstring, and the words of `previous` it replaced; ("", "") when the
    follow-up is not made of preposition phrases (it asks something of its own, points back, or names
    its change without a preposition)."""
    head, phrases = _parts(rest, previous)
    own = _OTHER.sub(" ", rest)  # "on the other dataset" replaces a phrase too (and avoids the previous evidence)
    if not phrases or _ASKS.match(rest) or _BACK_REFERENCE.search(own) or _POINTER.search(own):
        return "", ""
    edits: list[_Edit] = []
    added: list[str] = []
    replaced: list[int] = []  # where the replaced phrases' prepositions begin
    for preposition, words in phrases:
        found = list(re.finditer(rf"\b{preposition}\b\s+", previous, re.IGNORECASE))
        start = found[0].end() if len(found) == 1 else 0
        stop = _PHRASE_END.search(previous, start) if len(found) == 1 else None
        end = stop.start() if stop else len(previous)
        term = _DETERMINER.sub("", words)
        kind = same_kind_span(term, previous, paper) if paper is not None else None
        if kind is not None and not (len(found) == 1 and start <= kind.start and kind.end <= end) and not _overlaps(kind.start, kind.end, edits):
            # "and for morphine?" after "What is the EC50 of DAMGO for the biosensor?": the drug changes, not what "for" said
            edits.append(_Edit(kind.start, kind.end, term))
        elif len(found) == 1 and not _overlaps(found[0].start(), found[0].end(), edits):
            edits.append(_Edit(start, end, words))
            replaced.append(found[0].start())
        elif not found:
            added.append(f"{preposition} {words}")
        else:
            return "", ""  # which of its phrases the follow-up replaces is a guess: read it otherwise
    names = entities(head, sentence_start=False)
    slot = _measure_slot(head, previous, paper)
    if slot is not None and not _overlaps(slot[0], slot[1], edits):
        edits.append(_Edit(slot[0], slot[1], _DETERMINER.sub("", head)))  # "the mIoU on Cityscapes": the measure changes
        names = []
    elif head and not names and len(head.split()) > 2:
        return "", ""  # a head of plain words says more than which name changes
    if names:
        old = [(m.start(), m.end(), m.group()) for o in entities(previous) for m in [re.search(re.escape(o), previous)] if m]
        free = [o for o in old if not _overlaps(o[0], o[1], edits)]
        if free and not _IS_LABEL.fullmatch(names[0]) and all(_IS_LABEL.fullmatch(o[2]) for o in free):
            return "", ""  # "and the top-5 error on CIFAR-10?" after "What does Figure 4 show?" asks about the item
        if free:
            target = _most_alike(names[0], [o[2] for o in free], paper)
            at, until, _ = next(o for o in free if o[2] == target)
            edits.append(_Edit(at, until, names[0]))
    if added:
        at = min(replaced) if replaced else len(previous.rstrip().rstrip("?.!").rstrip())
        joined = " ".join(added)
        edits.append(_Edit(at, at, f"{joined} " if replaced else f" {joined}"))
    text = previous
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[:edit.start] + edit.text + text[edit.end:]
    return text, " ".join(previous[e.start:e.end] for e in sorted(edits, key=lambda e: e.start) if e.end > e.start)


def _overlaps(start: int, end: int, edits: Sequence[_Edit]) -> bool:
    return any(start < e.end and e.start < end for e in edits)


def _own_words(rest: str) -> str:
    """What a follow-up that points back asks about in its own words ("memory usage" of "and its
    memory usage?"), searched on its own beside the completed question; "" when it brings no word of
    its own ("why?", "which figure shows that?"), whose answer is the previous turn's evidence."""
    words = _GENERIC.sub(" ", rest)
    words = " ".join(w for w in words.split() if len(w) > 1 or w.isdigit())
    return words if len(words.split()) >= 1 and len(words) >= 4 else ""


def _by_pronoun(question: str, previous: str, old: Sequence[str]) -> str:
    """"what is its computational cost?" -> "what is KGAT's computational cost?" when the question
    points back with "it"/"its" and the previous question names one thing only ("top-1" or
    "34-layer" are no names), or names a subject without capitals right after its verb ("How well
    does metapath2vec++ classify venues in AMiner?": metapath2vec++, not AMiner); with several
    ("ResNet-101 on PASCAL VOC", "How does KGAT compare with NFM?") which one "it" means is a guess,
    so the question is read together with the previous one instead. A follow-up that is a noun
    phrase ("and the attention inside it?") takes the place of the previous question's subject
    ("What does the attention inside the Transformer look like?")."""
    names = {o.removesuffix("'s") for o in old if any(c.isupper() for c in o) and (not _IS_LABEL.fullmatch(o) or _ITEM_SENSE.search(question))}
    said = _SUBJECT.match(previous)
    measure = _QUANTITY.match(previous)
    if said is not None and said.group("s") in old and not any(c.isupper() for c in said.group("s")) \
            and not (measure and measure.group("d")):  # "How does BLEU change": a measure
        names = {said.group("s").removesuffix("'s")}
    if len(names) != 1 or not re.search(r"\b(?:it|its)\b", question, re.IGNORECASE):
        return ""
    subject = names.pop()
    text = re.sub(r"\bits\b", f"{subject}'s", question, count=1, flags=re.IGNORECASE)
    text = re.sub(r"\bit\b", subject, text, count=1, flags=re.IGNORECASE)
    text = _LEAD.sub("", text).strip()
    frame = _FRAME.match(previous)
    if not _ASKS.match(text) and frame is not None:
        return previous[:frame.start("s")] + text.rstrip("?.! ") + previous[frame.end("s"):]
    return _capitalise(text)


# "it" as what does something ("does it work", "can it detect", "it fails"): the subject of a verb,
# not an object ("which figure shows it"), an owner ("its training curves") or what a copula says
# something of ("is it the same for the forward pass?" asks about the previous answer).
_IT = re.compile(r"\bit\b", re.IGNORECASE)
_IT_DOES = re.compile(r"\b(?:does|do|did|can|could|would|will|should|might|may)\s+it\s+(?!be\b)\w+|^\s*it\s+(?!is\b|was\b)\w+", re.IGNORECASE)
# What a question asks of a figure or table itself: what it shows, its panels, axes, marks.
_ITEM_SENSE = re.compile(
    r"\b(?:show(?:s|n|ing)?|depict(?:s|ed)?|illustrat\w*|display(?:s|ed)?|plot(?:s|ted)?|represent\w*|mean(?:s|t)?|"
    r"panels?|ax[ie]s|legend|colou?rs?|bars?|arrows?|insets?|curves?|caption|labell?ed|heatmap|shaded|asterisks?)\b",
    re.IGNORECASE,
)
# The previous question's subject right after its verb: "How well does <metapath2vec++> classify ...".
_SUBJECT = re.compile(r"^\s*(?:how(?:\s+\w+)?|what|which|why|where|when)\s+(?:does|do|did|is|are|was|were|can)\s+(?P<s>[^\s?]+)", re.IGNORECASE)
# A question asking what its subject is like: "What does <the baseline model> look like?".
_FRAME = re.compile(r"^\s*(?:what|how)\s+(?:does|do|did)\s+(?P<s>.*?\S)\s+(?:look\s+like|work|show|compare)\b", re.IGNORECASE)


def _most_alike(new: str, old: Sequence[str], paper: Paper | None) -> str:
    """The previous entity `new` stands for: printed beside it most often in the paper, then the
    most similar in shape (ties: the later one, usually the question's object). A label stands for
    a label of the previous question when it has one ("and Table 2?" after "What does Fig. 3 show?")."""
    labels = [o for o in old if _IS_LABEL.fullmatch(o)]
    if labels and _IS_LABEL.fullmatch(new):
        old = labels
    elif labels and len(labels) < len(old):
        old = [o for o in old if o not in labels]  # "and CIFAR-10?" changes a name, not which item is asked about
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
    """`text` with its first `old` replaced by `new`, without doubling the words around it that `new`
    says too: "the katE mutant" for "ABUW_2433" in "the ABUW_2433 mutant" gives "the katE mutant"."""
    at = text.find(old)
    if at < 0:
        return text
    start, end = at, at + len(old)
    words = new.split()
    before = re.search(r"(\S+)\s+$", text[:start])
    if len(words) > 1 and before and before.group(1).lower() == words[0].lower():
        start = before.start(1)
    after = re.match(r"\s+([\w-]+)", text[end:])
    if len(words) > 1 and after and after.group(1).lower() == words[-1].lower():
        end += after.end(1)
    return text[:start] + new + text[end:]


def _sentence(text: str) -> str:
    return text if text[-1:] in "?.!" else f"{text}?"


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
