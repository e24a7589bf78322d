"""The answer without a model, chosen for what was asked.

- A question that names a figure or table ("What does Figure 3 show?") is answered by that item's
  caption, then the sentences of the text that cite it.
- A lookup in a table whose structure was read ("What is ResNet-101's top-1 error?", "which dataset
  has the most users?") is answered by the cells (`table_lookup`), stated as a sentence, and the
  table's evidence carries them so the app can box them on its crop. A reason ("why ...?") or a
  difference between two things ("How much does A improve the error over B?", "... in A than in
  B?") is no one cell's, and is answered from the text (`_BEYOND_A_CELL`).
- Otherwise the answer quotes the sentence or the two adjacent sentences of the shortlisted passages
  that best answer the question, or of the passages ranked next (`more`; the quoted one then joins
  the evidence). BM25 with the whole paper's word weights (`retrieval.sentence_index`, so that a
  sentence scores the same whatever passages are read beside it) ranks every sentence and every
  adjacent pair of one paragraph against the question (its length normalisation keeps a pair from
  winning on length alone), the passage's own rank breaks near ties, and the few best are reranked
  by their MiniLM similarity to the question. What is no answer is never quoted: a heading (short, or a
  lead-in ending in ":", or one in title case), a list of research questions ("RQ1: ..."), a question, another item's
  caption, a line of names such as a reference's authors (`is_no_answer`), a passage that is a
  heading or the article's title line with its journal's kicker (`_heading_passage`). A question asking for a quantity ("how many", "what learning rate",
  `asks_quantity`) is answered by a candidate that states a number (`states_number`: a citation, a
  figure's or section's number, a footnote's mark or a name's digits state none) in each of its
  sentences, so that a pair does not join one thing's number to the words of another; of those, by
  one in a paragraph that holds enough of the question to be said (`support`), where there is one,
  so that a number about something else does not answer; a short sentence stating a number
  ("We used warmup_steps = 4000.") may answer it. Where the question names the kind of quantity
  ("At what temperature ...?", "How long ...?", "What dose ...?"), of those by one printing a number
  in that kind's unit ("52.9 °C"), where there is one: another number beside the question's names
  ("a probability >0.92") is no temperature. "Which hyperparameters ...?" asks for their values. "How large" is how such a question asks, not what it is
  about: "large" is not searched for ("too large"). A candidate holding more of the question's distinct
  words, each weighted by its rarity in the paper, is preferred (`_coverage`): BM25 alone lets a
  sentence repeating one word beat one that holds all that was asked. The candidate's paragraph
  holding the question counts as well (`support`): an answer often leaves what it is about to the
  paragraph's other sentences ("We fine-tune the model ... with a learning rate of 2e-5" in the
  paragraph on SWAG, beside the same sentence in a paragraph on another task), or to its section's
  heading and the paragraph before it (`_contexts`), which count in ranking. A one-sentence answer to a
  "why" question comes with the adjacent sentence that gives the reason (`_with_reason`): papers
  restate the claim asked about ("... are comparable.") and give the reason beside it ("This is
  because ..."). The quote chosen comes with the adjacent sentences it needs (`_completed`): the one
  before a sentence opening on what it names ("These residues are conserved in all CTRPs."), and
  after an aim ("We next determined the sites of ...") the sentences up to its finding; a reader
  asked "Which lysine ...?" needs the finding, not what was set out to find. A paragraph cut at a page's or
  column's end is read on into the paragraph that holds the rest of its sentence (`_read_sentences`):
  the cut sentence is a candidate whole, the sentences after it are its paragraph's, and a quote is
  shown on the page that prints its first sentence. A section's heading glued to a sentence
  ("Results Construction of ...") is cut off it (`without_heading`), and a lead-in ending in ":" is
  read with what it introduces (`_with_lists`). A paragraph under a heading that names what the question
  asks about ("Which hyperparameters ...?" and "Parameter Settings", `sections.heading_matches`) is
  read with the question's words that name it, as if it printed them: the heading says what the
  paragraph is about, as rare a word of the question weighs in BM25, and the paragraph is a
  candidate even when the shortlist left it out.
- The passage the answer quotes is shown first of the passages (it takes the place of the first one,
  which takes its place; figures and tables keep theirs, so a follow-up keeps the same items): the
  evidence a reader sees first is what the answer rests on.
- When the best quote holds too little of what was asked (`support`: the share of the question's
  rarer words, weighted by how rare they are in the paper, found in the quoted paragraph), the answer
  says the paper does not seem to say, and still shows that quote as the best evidence; so it does
  when a quantity is asked and the best quote states none (a software's version, "GraphPad Prism
  version 9.1.0", or a catalogue number is no quantity). Unless the first figure or table's own
  legend holds as much of the question (and a number, where a quantity is asked): a result the
  paper shows only in a figure is answered by that figure's legend and the sentences citing it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np

from spiqa_demo.conversation.evidence import figure_evidence, passage_evidence, sentence_index, sentences_of
from spiqa_demo.conversation.per_paper import per_paper
from spiqa_demo.conversation.sections import heading_matches, headings
from spiqa_demo.conversation.table_lookup import Lookup, best_lookup, cell_sentence, holds_what_is_asked, lookup, same_series
from spiqa_demo.conversation.types import Evidence
from spiqa_demo.paper_text import find_label_refs, parse_caption_label, strip_caption_label
from spiqa_demo.settings import RetrievalSettings
from spiqa_demo.types import Figure, Paper, Passage

PASSAGE_WEIGHT = 0.2  # share of a candidate's score that comes from its passage's rescaled score
MIN_QUOTE_WORDS = 6  # shorter candidates are headings or fragments, quoted only when nothing longer is left
NUMBER_BONUS = 0.3  # added to the (rescaled) lexical score of a candidate with a number, for a quantity question
HEADING_BONUS = 0.3  # added likewise to a candidate under a heading the question names
COVERAGE_WEIGHT = 0.5  # added likewise times the share of the question's rarity-weighted words a candidate holds
PARAGRAPH_WEIGHT = 0.3  # added likewise times the `support` of the candidate's paragraph
MIN_SUPPORT = 0.35  # a best quote whose paragraph holds less of the question is no answer (see `support`; calibrated in benchmarks/extractive_calibration.py)
MAX_MENTIONS = 2  # citing sentences quoted after a caption
TABLE_CANDIDATES = 2  # the best tables of the shortlist a lookup is tried in (the named one first)
NOT_FOUND = "The paper does not seem to say."
_HOW = "many|much|large|big|long|fast|deep|wide|often|small|old"  # "how <this>" asks for a quantity
_QUANTITY = re.compile(
    rf"\b(?:how (?:{_HOW})|"
    r"(?:what|which) (?:\w+ )?(?:values?|sizes?|numbers?|rates?|ratios?|betas?|dimensions?|percentage|amount|"
    r"fraction|proportion|share|temperature|age|concentration|dose|duration)|"
    r"learning rates?|batch sizes?|weight decay|momentum|dropout|epochs?|iterations|steps|hyper-?parameters?)\b",
    re.IGNORECASE,
)
# What no quantity is, though it prints digits: a citation ("[18]", "[5, 6]", "Zhu et al., 2015)", a
# journal's superscript marks glued to a word, "materials16,17", "cells18–20"), a figure's, table's,
# section's or equation's number, a list's marker ("(1)"), a software's version ("Prism version 9.1.0",
# "v2.3", "R 4.1.2") or a catalogue number ("cat. no. 43-688-14").
_NOT_QUANTITY = re.compile(
    r"\[[\d,;\s\u2013-]+\]|\(\d{1,3}(?:\s?[,;\u2013-]\s?\d{1,3})*\)|\b(?:19|20)\d{2}[a-z]?(?=[;)])|"
    r"(?<=[a-z])\d{1,3}(?:[,\u2013-]\d{1,3})+\b|"
    r"\b(?:version|ver\.|release)\s?\d+(?:\.\d+)*|\bv\d+(?:\.\d+)*|\b\d+\.\d+\.\d+\b|"
    r"\bcat(?:alog(?:ue)?)?\.?\s*(?:no\.?|number|#)\s*[\w-]+|"
    r"\b(?:Fig(?:ure)?s?|Tables?|Sec(?:tion)?s?|Eqn?s?|Appendix|Alg(?:orithm)?|Step)\.?\s*[A-Z]?\d+(?:\.\d+)*",
    re.IGNORECASE,
)
# A number on its own, not a footnote's mark glued to a word ("results3") or part of a name ("ResNet-50"),
# or written in words ("In humans, there are six GSDM genes"; not "one", which is mostly no count: "one of").
_NUMBER = re.compile(r"(?<![\w\-./\u2013])\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                     r"(?:thir|four|fif|six|seven|eigh|nine)teen|(?:twen|thir|for|fif|six|seven|eigh|nine)ty|"
                     r"hundreds?|thousands?|millions?|billions?|dozens?|twice|half)\b", re.IGNORECASE)
# "How large is X?" asks for X's size: "large" is how it asks, not what it is about ("too large").
_HOW_MUCH = re.compile(rf"\bhow (?:{_HOW})\b", re.IGNORECASE)
# A question that names a setting but asks where, why or how it is done asks for no quantity.
_ASKS_ELSE = re.compile(rf"\s*(?:where|why|how (?!{_HOW})\w+)\b", re.IGNORECASE)
_WHY = re.compile(r"\bwhy\b|\bwhat (?:is|was) the reason\b", re.IGNORECASE)
# The units a kind of quantity asked for is printed in, each after a number: "52.9 °C", "2 h", "5 mg/mL".
_NUMBER_THEN = r"\d(?:[\d.,]*)[\s-]?"  # "52.9 °C", "2 h", "31-year-old"
_UNITS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(kind, re.IGNORECASE), re.compile(_NUMBER_THEN + unit))
    for kind, unit in (
        (r"\btemperatures?\b", r"(?:°\s?[CFK]|℃|degrees?\b)"),
        (r"\bhow long\b|\bduration\b|\bhow much time\b",
         r"(?:s|sec|seconds?|min|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?)\b"),
        (r"\bhow old\b|\bage\b", r"(?:years?|yrs?|months?|weeks?|days?)\b"),
        (r"\bdoses?\b|\bconcentrations?\b", r"(?:[mµμnp]?g\b|[mµμnp]M\b|[mµμ][lL]\b|%|IU\b|[mµμnp]?g/)"),
    )
)
# What one table cell cannot answer: a reason, or a difference between two things ("How much does A
# improve the error over B?", "How many proteins were less abundant in A than in B?"; "lower than 20?" a cell answers).
_BEYOND_A_CELL = re.compile(
    r"\bwhy\b|\bthan\b(?!\s*[-+\u2212]?\d)|\bcompare\b|\bcompared (?:to|with)\b|\b(?:improve|reduce|increase|decrease|gain)s?\b.*\bover\b",
    re.IGNORECASE,
)
_CONSEQUENCE = re.compile(r"^(?:So|Thus|Hence|Therefore|Consequently|As a result)\b")
# A sentence saying what was set out to be found, not what was: "We next determined the sites of
# PARP1 UFMylation using ...", "To determine if this increase is due to ..., we analyzed ...",
# "Next, we tested whether ... could treat established tumors." ("we determined that ..." is a finding).
_AIM = re.compile(
    r"^To (?:\w+ )?(?:determine|test|examine|investigate|assess|explore|evaluate|address|understand|identify|"
    r"confirm|verify|characteri[sz]e|check|study|measure|quantify|compare|see|find out|gain insights?)\b|"
    r"\bwe (?:\w+ )?(?:tested|asked|examined|investigated|determined(?! that)|assessed|explored|evaluated|sought|"
    r"wanted|wished|set out|checked|wondered|hypothesi[sz]ed|reasoned)\b",
    re.IGNORECASE,
)
_FINDING = re.compile(r"\b(?:found|finds?|observed?|saw|showed?|shown|shows|revealed?|indicat\w*|demonstrat\w*|suggest\w*|confirmed)\b", re.IGNORECASE)
_STEP = re.compile(r"^(?:We|Then|Next)\b")  # a further step of the method after an aim ("We waited 5 days to ...")
# A sentence that opens on what the one before it named: "These residues are conserved in all CTRPs."
_ANAPHOR = re.compile(r"^(?:These|Those|This|Such|They)\b")
# The words no sentence ends on: a sentence ending on one was cut ("..., indicating that").
_CUT = re.compile(r"(?:,|\b(?:that|the|of|and|or|to|in|a|an|with|by|for|from|as|which|is|are|was|were|at|on))$")
RUN_ON_PASSAGES = 3  # a cut sentence is read on from the first paragraph among this many after it that is no running head or foot
MAX_SENTENCES = 3  # an answer completed with the sentences it needs (`_completed`) quotes at most this many
_RESEARCH_QUESTION = re.compile(r"\bRQ\s?\d")
# A section heading printed as a sentence: "3.2 Training Details", "A.5 Illustrations of Fine-tuning".
_NUMBERED_HEADING = re.compile(r"^(?:\d+|[A-Z])(?:\.\d+)*\.?\s+[A-Z][^.!?]*$")
_SECTION_NUMBER = re.compile(r"\d+(?:\.\d+)*\.?\s+[A-Z]")  # a short line led by a number is a section's heading ("4.2 Results.")
HEADING_WORDS = 5  # a run of words this short without a sentence's end is a heading ("Parameter Settings")
TITLE_WORDS = 20  # a heading in title case is no longer than this
TITLE_SHARE = 0.8  # ... and this share of its longer words open with a capital
PHRASE_WORDS = 3  # ... and this short, even with a period ("Implementation details.")
_SENTENCE_ENDS = (".", "!", ")", "”", '"')  # how a sentence (not a heading) may end
# A section's heading glued to the sentence after it, the extraction having read them as one line:
# a standard section's name ("Results Construction of ...", "Abstract Accurate chromosome ..."), or
# a heading of a few words without a comma, a bracket or a sentence's end before a capitalised word
# that opens a sentence ("CWC15 promotes the degradation of SE proteins To understand how ...").
_SECTION_NAME = re.compile(r"^(?:Abstract|Introduction|Background|Discussion|Conclusions?|Summary|Methods|"
                           r"Materials? and [Mm]ethods|Results(?: and [Dd]iscussion)?)[.:]?\s+(?=[A-Z])")
_OPENER = re.compile(r"(?<=[\w\u2019'])\s+(?=(?:We|Here|To|In|The|This|These|Our|Using|When|Although|Because|Since|After|"
                     r"Next|First|Finally|However|Moreover|Given|Following|Unless|For|All|Each)\s)")
GLUED_HEADING_WORDS = 20  # a heading glued to a sentence is no longer than this


def is_no_answer(sentence: str) -> bool:
    """Whether a sentence is no answer whatever was asked: a lead-in ending in ":" (a heading glued
    to it, "Task Description We now formulate ...:"), a heading (numbered, or a few words without a
    sentence's end, or set in title case), a list of research questions, a question, a figure's or
    table's caption, or a line of names (a reference's authors, an affiliation, a journal's name:
    mostly capitals, as a title-case heading is)."""
    text = sentence.strip()
    if not text or text.endswith((":", "?")) or _RESEARCH_QUESTION.search(text) or _NUMBERED_HEADING.match(text):
        return True
    words = len(text.split())
    if words <= PHRASE_WORDS or (words <= HEADING_WORDS and not text.endswith(_SENTENCE_ENDS)):
        return True
    if _title_case(text):
        return True
    label = parse_caption_label(text)
    return label is not None and not label.is_running_text


def _title_case(text: str) -> bool:
    """A heading set in title case, printed as a sentence ("mCTRP2 Induces AMPK, ACC, and MAPK
    Phosphorylation in C2C12 Myotubes."), or a line of names ("[1] Jimmy Lei Ba, Jamie Ryan Kiros,
    and Geoffrey E Hinton.", "Department of Biomedical Engineering, Johns Hopkins University"): of
    its longer words past the first, nearly all open with a capital (a sentence's content words are
    lower-case, but for names)."""
    words = [w for w in re.findall(r"[^\W\d_][\w'-]*", text)[1:] if len(w) > 3]
    return len(text.split()) <= TITLE_WORDS and len(words) >= 3 and sum(w[0].isupper() for w in words) >= TITLE_SHARE * len(words)


def _heading_passage(sentences: Sequence[str], title: str) -> bool:
    """Whether a passage is a heading or the paper's title line rather than a paragraph: one
    sentence without a sentence's end, no longer than a title (a result heading, "A. baumannii is
    more virulent than A. lwoffii in vivo and in vitro", or a journal's kicker before the title,
    "CANCER IMMUNOLOGY Engineered skin bacteria ..."), or holding the whole title (a kicker set
    letter-spaced, "HE ALTH AN D M E DI CI NE Peptide-guided ..."). A paragraph cut at a page's
    end runs longer, or its cut sentence follows others; an abstract may say the title's words in
    a sentence, and ends it."""
    if len(sentences) != 1 or sentences[0].endswith(_SENTENCE_ENDS):
        return False
    return len(sentences[0].split()) <= TITLE_WORDS or (len(title.split()) >= PHRASE_WORDS and _letters(title) in _letters(sentences[0]))


def _letters(text: str) -> str:
    """`text`'s letters and digits, case folded: a title compared whatever its spacing and hyphens."""
    return "".join(c for c in text.casefold() if c.isalnum())


def without_heading(sentence: str) -> str:
    """`sentence` without the section's heading glued before it (see `_SECTION_NAME`, `_OPENER`):
    the heading is no part of what the sentence says, and a reader shown "Results Construction of
    ..." reads a heading in the quote."""
    text = _SECTION_NAME.sub("", sentence)
    glued = _OPENER.search(text)
    if glued is None:
        return text
    heading = text[: glued.start()]
    if len(heading.split()) > GLUED_HEADING_WORDS or not heading[:1].isupper() or re.search(r"[,;:()\[\]]|[.!?]\s", heading):
        return text
    return text[glued.end():]


def _read_sentences(passage: Passage, paper: Paper | None) -> list[str]:
    """The sentences of `passage` as an answer reads them: a heading glued to one cut off
    (`without_heading`), and, where its last sentence was cut at the paragraph's end (a page's or a
    column's end: "..., indicating that"), that sentence said whole and followed by the rest of the
    paragraph it runs on into (`_runs_on`): half a sentence is no answer, and the sentence after it
    ("We chose this biopolymer because ...") may be the one that answers. A paragraph that opens
    with the rest of such a sentence leaves it out: it is read with its head."""
    sentences = _run_on_sentences(passage, paper)
    return sentences[1:] if paper is not None and _position(passage, paper) in _heads(paper) else sentences


def _run_on_sentences(passage: Passage, paper: Paper | None) -> list[str]:
    """The passage's sentences, a glued heading cut off, its cut last one read on into the paragraphs after it."""
    sentences = _with_lists([s for s in (without_heading(s) for s in sentences_of(passage)) if s])
    after = _continuation(passage, paper)
    rest = [] if after is None or not sentences else _run_on_sentences(after, paper)  # it may run on in turn
    return [*sentences[:-1], f"{sentences[-1]} {rest[0]}", *rest[1:]] if rest else sentences


def _with_lists(sentences: list[str]) -> list[str]:
    """`sentences` with a lead-in ending in ":" joined to what it introduces ("In humans, there are
    six GSDM genes:" "GSDMA, GSDMB, ..."): the lead-in alone is no answer, and the two are one statement."""
    joined: list[str] = []
    for sentence in sentences:
        if joined and joined[-1].endswith(":"):
            joined[-1] = f"{joined[-1]} {sentence}"
        else:
            joined.append(sentence)
    return joined


def _continuation(passage: Passage, paper: Paper | None) -> Passage | None:
    """The paragraph `passage`'s cut last sentence runs on into (`_runs_on`), if any."""
    if paper is None:
        return None
    at = _position(passage, paper)
    after = None if at is None else _runs_on(paper).get(at)
    return None if after is None else paper.passages[after]


def _position(passage: Passage, paper: Paper) -> int | None:
    """The passage's place in `paper.passages` (found by identity: kept per paper, a map of `id()`s
    would outlive the objects it names)."""
    return next((i for i, p in enumerate(paper.passages) if p is passage), None)


def _runs_on(paper: Paper) -> dict[int, int]:
    """Per paragraph whose last sentence was cut (no sentence's end), the paragraph it runs on into:
    the first among the `RUN_ON_PASSAGES` after it that is no running head or foot ("e2 Current
    Biology 34, ..."), when that one opens mid-sentence ("is a prominent site.") or the cut one
    ends on a word no sentence ends on ("that")."""
    return per_paper("run-on-paragraphs", paper, _find_runs_on)


def _find_runs_on(paper: Paper) -> dict[int, int]:
    read = [[s for s in sentences_of(p) if s] for p in paper.passages]
    found: dict[int, int] = {}
    for i, sentences in enumerate(read):
        if not sentences or sentences[-1].endswith((*_SENTENCE_ENDS, ":")) or _heading_passage(sentences, paper.title):
            continue
        after = next((j for j in range(i + 1, min(len(read), i + 1 + RUN_ON_PASSAGES))
                      if read[j] and not _heading_passage(read[j], paper.title)), None)
        if after is not None and (read[after][0][:1].islower() or _CUT.search(sentences[-1])):
            found[i] = after
    return found


def _heads(paper: Paper) -> dict[int, int]:
    """Per paragraph that another's cut last sentence runs on into, that other one (`_runs_on` reversed)."""
    return per_paper("run-on-heads", paper, lambda p: {after: at for at, after in _runs_on(p).items()})


def _at_its_page(quote: Quote, evidence: Sequence[Evidence], paper: Paper | None) -> Quote:
    """`quote` as a quote of the paragraph its first sentence is printed in: a sentence read on past a
    page's end (`_read_sentences`) is shown on the page that prints it."""
    owner = quote.evidence.passage
    if paper is None or owner is None:
        return quote
    while (after := _continuation(owner, paper)) is not None and quote.sentences[0] in _read_sentences(after, paper):
        owner = after
    if owner is quote.evidence.passage:
        return quote
    shown = next((e for e in evidence if e.item is owner), None) or passage_evidence(owner, quote.evidence.score)
    return replace(quote, evidence=shown, position=_read_sentences(owner, paper).index(quote.sentences[0]))


def _with_heads(paper: Paper, evidence: Sequence[Evidence]) -> list[Evidence]:
    """The paragraphs whose cut last sentence runs on into one of `evidence`'s and that `evidence`
    leaves out, scored as that one: the sentence a page's end split is read whole from its head."""
    held = {id(e.item) for e in evidence}
    heads = _heads(paper)
    added: dict[int, Evidence] = {}
    for e in evidence:
        at = None if e.passage is None else heads.get(_position(e.passage, paper) or -1)
        if e.passage is not None and at is not None and id(paper.passages[at]) not in held and at not in added:
            added[at] = passage_evidence(paper.passages[at], e.score)
    return list(added.values())


@dataclass(frozen=True)
class Quote:
    """One or two adjacent sentences of a shortlisted passage (`evidence`), with their rank score."""

    evidence: Evidence
    sentences: tuple[str, ...]
    position: int
    score: float = 0.0

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


@dataclass(frozen=True)
class ExtractiveAnswer:
    """The answer's text, the evidence with what it cites marked (`cited`, a passage's `quotes`, a
    table's `cells`), whether it says the paper does not seem to say, and whether it rests on no
    sentence of the text at all (`unquoted`: no quote, no cell read, no named item's caption)."""

    text: str
    evidence: list[Evidence]
    not_found: bool = False
    unquoted: bool = False


def _candidates(evidence: Sequence[Evidence], quantity: bool = False, paper: Paper | None = None) -> list[Quote]:
    """Every sentence and adjacent pair of the shortlisted passages that may answer, as an answer
    reads them (`_read_sentences`); shorter ones than `MIN_QUOTE_WORDS` only when nothing longer is
    left, or, when a `quantity` is asked, when they state a number ("We used warmup_steps = 4000.").
    A passage that is a heading or the paper's title line (`_heading_passage`) gives none, nor does
    one whose head (the paragraph whose cut sentence runs on into it) is read: its sentences are."""
    title = paper.title if paper is not None else ""
    continued = {id(c) for e in evidence if e.passage is not None and (c := _continuation(e.passage, paper)) is not None}
    quotes: list[Quote] = []
    for e in evidence:
        if e.passage is None or id(e.passage) in continued:
            continue
        if _heading_passage([s for s in sentences_of(e.passage) if s], title):
            continue
        sentences = _read_sentences(e.passage, paper)
        quotes += [Quote(e, (s,), i) for i, s in enumerate(sentences) if not is_no_answer(s)]
        quotes += [Quote(e, (a, b), i) for i, (a, b) in enumerate(pairwise(sentences)) if not (is_no_answer(a) or is_no_answer(b))]
    long_enough = [q for q in quotes if len(q.text.split()) >= MIN_QUOTE_WORDS
                   or (quantity and _states_quantity(q) and not _SECTION_NUMBER.match(q.text))]
    return long_enough or quotes


def best_quote(
    question: str, evidence: Sequence[Evidence], focus: str = "", paper: Paper | None = None, retrieval: RetrievalSettings | None = None,
) -> Quote | None:
    """The sentence or adjacent pair of sentences that best answers `question` (see the module
    docstring), a follow-up's `focus` weighing as much as the whole question (as in retrieval);
    `paper` lets the paragraphs' headings count, and its sentences' statistics score them (`retrieval`'s
    encoder reranks the best). None without passages or when no sentence shares
    a word with the question."""
    from retrieval.sentence_index import SentenceIndex

    quantity = asks_quantity(question)
    quotes = _candidates(evidence, quantity, paper)
    if not quotes:
        return None
    headed = heading_matches(paper, question) if paper is not None else {}
    texts = [f"{q.text} {headed.get(id(q.evidence.item), '')}" for q in quotes]
    index = sentence_index(paper, retrieval) if paper is not None else SentenceIndex([e.passage for e in evidence if e.passage is not None])
    lexical = np.zeros(len(quotes))
    asked = _HOW_MUCH.sub("how", question)
    for query in (asked, focus) if focus.strip() else (asked,):
        lexical += index.scores(query, texts)
    if float(lexical.max()) <= 0:
        return None
    if quantity:
        numbered = _quantity_quotes(quotes, f"{question} {focus}", paper)
        if numbered.any():  # a quantity asked is answered by a sentence that states one
            lexical = np.where(numbered, lexical, 0.0)
        lexical += NUMBER_BONUS * numbered
    lexical += HEADING_BONUS * np.array([id(q.evidence.item) in headed for q in quotes])
    if paper is not None:
        lexical += COVERAGE_WEIGHT * _coverage(f"{asked} {focus}", [q.text for q in quotes], paper)
        lexical += PARAGRAPH_WEIGHT * _paragraph_support(f"{asked} {focus}", quotes, paper)
    top = float(lexical.max())
    scored = [replace(q, score=(1 - PASSAGE_WEIGHT) * float(s) / top + PASSAGE_WEIGHT * q.evidence.score) for q, s in zip(quotes, lexical)]
    reranked = index.reranked(f"{question} {focus}".strip(), [q.text for q in scored], np.array([q.score for q in scored]))
    scored = [replace(q, score=float(s)) for q, s in zip(scored, reranked)]
    best = _at_its_page(max(scored, key=lambda q: (q.score, -len(q.sentences), q.evidence.score, -q.evidence.page, -q.position)),
                        evidence, paper)
    if _WHY.search(f"{question} {focus}") and len(best.sentences) == 1:
        return _with_reason(best, paper)
    return best


def _paragraph_support(question: str, quotes: Sequence[Quote], paper: Paper) -> np.ndarray:
    """Per candidate, how much of the question its paragraph holds (`support`, 0 outside a
    paragraph): an answer often leaves to its paragraph's other sentences what it is about ("We
    fine-tune the model ... with a learning rate of 2e-5" in the paragraph on SWAG)."""
    held: dict[int, float] = {}
    contexts = dict(zip((id(p) for p in paper.passages), _contexts(paper), strict=True))
    named = heading_matches(paper, question)
    for q in quotes:
        passage = q.evidence.passage
        if passage is not None and id(passage) not in held:
            read = f"{_paragraph_text(passage, paper)} {named.get(id(passage), '')} {contexts.get(id(passage), '')}"
            held[id(passage)] = float(_coverage(question, [read], paper)[0])
    return np.array([held.get(id(q.evidence.passage), 0.0) for q in quotes])


def _contexts(paper: Paper) -> list[str]:
    """Per paragraph, what it is read under: its section's heading and the paragraph
    before it in the same section ("CIFAR-10 and Analysis" over "We use a weight decay of 0.0001
    ..."; "When fine-tuning on the SWAG dataset, ..." before "We fine-tune the model for 3 epochs
    ..."): a paragraph leaves to them what it is about."""
    return per_paper("paragraph-contexts", paper, _read_under)


def _read_under(paper: Paper) -> list[str]:
    under = headings(paper)
    return [f"{under[i]} {paper.passages[i - 1].text if i > 0 and under[i] and under[i - 1] == under[i] else ''}" for i in range(len(under))]


def _unit_of(question: str) -> re.Pattern[str] | None:
    """A number in the unit the kind of quantity asked for takes ("At what temperature ...?": "52.9 °C"), if the question names one."""
    return next((unit for kind, unit in _UNITS if kind.search(question)), None)


def _states_quantity(quote: Quote) -> bool:
    """Every sentence of `quote` states a number: a pair whose other sentence states none pairs the
    number of one thing with the words of another ("... 315,731 training images ... For testing,
    the zero-shot setting ...")."""
    return all(states_number(s) for s in quote.sentences)


def _quantity_quotes(quotes: Sequence[Quote], question: str, paper: Paper | None) -> np.ndarray:
    """Which `quotes` may answer a question asking for a quantity: those stating one
    (`_states_quantity`), and of them those in a paragraph that holds enough of the question to be
    said (`support`, the not-found threshold) when there are any: a number in a paragraph about
    something else answers nothing."""
    numbered = np.array([_states_quantity(q) for q in quotes])
    if paper is None or not numbered.any():
        return numbered
    held = numbered & (_paragraph_support(question, quotes, paper) >= MIN_SUPPORT)
    numbered = held if held.any() else numbered
    units = _unit_of(question)
    if units is None:
        return numbered
    in_unit = numbered & np.array([units.search(q.text) is not None for q in quotes])
    return in_unit if in_unit.any() else numbered


def asks_quantity(question: str) -> bool:
    """Whether `question` asks for a quantity: "How many ...?", "What learning rate ...?"; not "Where
    is dropout applied?" nor "Why ... a warm-up learning rate?", which name a setting but ask something else."""
    return _QUANTITY.search(question) is not None and not _ASKS_ELSE.match(question)


def states_number(text: str) -> bool:
    """Whether `text` states a number (see `_NOT_QUANTITY`): what a question asking for a quantity needs."""
    return _NUMBER.search(_NOT_QUANTITY.sub(" ", text)) is not None


def _with_reason(quote: Quote, paper: Paper | None) -> Quote:
    """A one-sentence answer to a "why" question with the adjacent sentence that gives the reason:
    the one before a conclusion ("So these schemes are free."), else the one after a claim
    ("... comparable." "This is because ...")."""
    assert quote.evidence.passage is not None
    sentences = _read_sentences(quote.evidence.passage, paper)
    i = quote.position
    if _CONSEQUENCE.match(quote.sentences[0]) and i > 0 and not is_no_answer(sentences[i - 1]):
        return replace(quote, sentences=(sentences[i - 1], quote.sentences[0]), position=i - 1)
    if i + 1 < len(sentences) and not is_no_answer(sentences[i + 1]):
        return replace(quote, sentences=(quote.sentences[0], sentences[i + 1]))
    return quote


def _completed(quote: Quote, paper: Paper | None) -> Quote:
    """The quote with the adjacent sentences it needs to answer, up to `MAX_SENTENCES`: the one
    before a sentence that opens on what it names ("These residues are conserved in all CTRPs."
    after the one naming the residues), and the ones after an aim ("We next determined the sites of
    UFMylation using ...") up to the first that is no further step of the method: the finding
    follows the aim ("From here, we found that the K548R mutation eliminated ...")."""
    assert quote.evidence.passage is not None
    sentences = _read_sentences(quote.evidence.passage, paper)
    start, end = quote.position, quote.position + len(quote.sentences)
    if sentences[start:end] != list(quote.sentences):
        return quote
    if _ANAPHOR.match(sentences[start]) and start > 0 and not is_no_answer(sentences[start - 1]):
        start -= 1
    aim = _AIM.search(sentences[end - 1]) is not None and not _FINDING.search(sentences[end - 1])
    while aim and end < len(sentences) and end - start < MAX_SENTENCES and not is_no_answer(sentences[end]):
        end += 1
        aim = _STEP.match(sentences[end - 1]) is not None and not _FINDING.search(sentences[end - 1])
    return replace(quote, sentences=tuple(sentences[start:end]), position=start)


def _coverage(question: str, texts: Sequence[str], paper: Paper) -> np.ndarray:
    """Per text, the share of the question's words it holds, each weighted by its rarity in the paper
    (as `support` weighs them): BM25 rewards a word said twice; a reader, every word asked about."""
    from retrieval.lexical import tokenize

    weight = _rarity(question, paper)
    total = sum(weight.values())
    if not total:
        return np.zeros(len(texts))
    return np.array([sum(weight.get(t, 0.0) for t in set(tokens)) / total for tokens in tokenize(list(texts))])


def _rarity(question: str, paper: Paper) -> dict[str, float]:
    """The question's words, each weighted by how rare it is among the paper's paragraphs (a word
    the paper never prints weighs most)."""
    from retrieval.lexical import tokenize

    frequency = _document_frequency(paper)
    n = len(paper.passages)
    return {t: math.log(1 + (n + 1) / (frequency.get(t, 0) + 0.5)) for t in tokenize([question])[0] if " " not in t}


def support(question: str, passage: Passage, paper: Paper) -> float:
    """The share of the question's words found in `passage`, each weighted by how rare it is among
    the paper's paragraphs (a word the paper never prints weighs most: the paper is not about it);
    the words that name the passage's heading count as found ("hyperparameters" under "Parameter
    Settings")."""
    named = heading_matches(paper, question).get(id(passage), "")
    return float(_coverage(question, [f"{_paragraph_text(passage, paper)} {named}"], paper)[0])


def _paragraph_text(passage: Passage, paper: Paper) -> str:
    """The passage's text, and that of the paragraphs its cut last sentence runs on into (`_read_sentences`):
    one paragraph split by a page's end."""
    after = _continuation(passage, paper)
    return passage.text if after is None else f"{passage.text} {_paragraph_text(after, paper)}"


def _document_frequency(paper: Paper) -> dict[str, int]:
    """How many of the paper's paragraphs hold each word (kept per paper: it is asked about again)."""
    return per_paper("document-frequency", paper, _count_paragraphs)


def _count_paragraphs(paper: Paper) -> dict[str, int]:
    from retrieval.lexical import tokenize

    counts: dict[str, int] = {}
    for tokens in tokenize([p.text for p in paper.passages]):
        for t in {t for t in tokens if " " not in t}:
            counts[t] = counts.get(t, 0) + 1
    return counts


def _headed_passages(paper: Paper, question: str, evidence: Sequence[Evidence]) -> list[Evidence]:
    """The paragraphs under a heading the question names that the shortlist left out (scored 0)."""
    shortlisted = {id(e.item) for e in evidence}
    named = heading_matches(paper, question)
    return [passage_evidence(p, 0.0) for p in paper.passages if id(p) in named and id(p) not in shortlisted]


def _named_item(question: str, evidence: Sequence[Evidence]) -> Evidence | None:
    """The shortlisted figure or table the question names ("Figure 3", "Table II"), if any."""
    for key in find_label_refs(question):
        for e in evidence:
            if e.figure is not None and (e.figure.kind, e.figure.number) == key:
                return e
    return None


def _table_lookup(question: str, evidence: Sequence[Evidence], named: Evidence | None, paper: Paper | None) -> tuple[Evidence, Lookup] | None:
    """The cells that answer the question in the named table, else in the one of the best tables
    that holds most of its words and whose row and column it names most exactly (`best_lookup`), else
    in the one table of the paper whose row and column the question names (the shortlist ranks
    items by caption and text, and a figure plotting the same measure may take the table's place:
    "What is the nuclear stiffness of U87 cells?" over a plot of nuclear stiffness)."""
    tables = [e for e in evidence if e.figure is not None and e.figure.table is not None]
    candidates = [named] if named is not None and named in tables else tables[:TABLE_CANDIDATES]
    if named is None and paper is not None:
        candidates += _series(candidates, evidence, paper)
    items = [e.figure for e in candidates if e.figure is not None and e.figure.table is not None]
    best = best_lookup(question, [f.table for f in items if f.table is not None], [f.caption for f in items])
    if best is not None:
        return candidates[best[0]], best[1]
    if named is not None or paper is None:
        return None
    tried = {e.figure.id for e in candidates if e.figure is not None}
    answering = [
        (item, found) for item in paper.items
        if item.table is not None and item.id not in tried and (found := lookup(question, item.table)) is not None and not found.superlative
        and holds_what_is_asked(question, found, item.caption)
    ]  # fmt: skip
    if len(answering) != 1:
        return None
    item, found = answering[0]
    shown = next((e for e in evidence if e.figure is not None and e.figure.id == item.id), None)
    return shown or figure_evidence(item, max((e.score for e in evidence), default=0.0)), found


def _series(candidates: Sequence[Evidence], evidence: Sequence[Evidence], paper: Paper) -> list[Evidence]:
    """The other tables of the paper of one series with a candidate (`same_series`: an appendix's
    runtimes with masking, with dropout, with neither), which the shortlist ranks alike and cuts
    anywhere: which of them answers is for their captions to tell."""
    ids = {e.figure.id for e in candidates if e.figure is not None}
    captions = [e.figure.caption for e in candidates if e.figure is not None]
    top = max((e.score for e in evidence), default=0.0)
    return [
        next((e for e in evidence if e.figure is item), None) or figure_evidence(item, top) for item in paper.items
        if item.table is not None and item.id not in ids and any(same_series(item.caption, c) for c in captions)
    ]  # fmt: skip


def _caption_answer(item: Figure, paper: Paper | None) -> str:
    """The item's caption, then the first sentences of the text that cite it, with their pages."""
    caption = strip_caption_label(item.caption)
    parts = [f"{item.title}: {caption} [p. {item.page}]" if caption else ""]
    for mention in item.mentions[:MAX_MENTIONS]:
        page = paper.passages[mention.passage].page if paper is not None and 0 <= mention.passage < len(paper.passages) else None
        parts.append(f"“{' '.join(mention.sentence.split())}”" + (f" [p. {page}]" if page else ""))
    return " ".join(p for p in parts if p)


def extractive_answer(
    question: str, evidence: Sequence[Evidence], focus: str = "", paper: Paper | None = None, more: Sequence[Evidence] = (),
    retrieval: RetrievalSettings | None = None,
) -> ExtractiveAnswer:
    """The answer for what was asked (see the module docstring) and the evidence with what it cites
    marked; the quote may come from `more` passages, ranked below the shortlist's."""
    named = _named_item(question, evidence)
    marked = list(evidence)
    cells = None if _BEYOND_A_CELL.search(question) else _table_lookup(question, evidence, named, paper)
    if cells is not None:
        table, found = cells
        text = f"{cell_sentence(table.label, found)} [p. {table.page}]"
        marked = marked if table in marked else [table, *marked]  # the table the answer reads is shown first
        return ExtractiveAnswer(text, [replace(e, cited=True, cells=found.cells) if e is table else e for e in marked])
    if named is not None and named.figure is not None and (named.figure.caption or named.figure.mentions):
        return ExtractiveAnswer(_caption_answer(named.figure, paper), _cite(marked, named))
    headed = [] if paper is None else _headed_passages(paper, question, evidence)
    extra = [*headed, *(e for e in more if id(e.item) not in {id(h.item) for h in headed})]
    extra += [] if paper is None else _with_heads(paper, [*evidence, *extra])
    quote = best_quote(question, [*evidence, *extra], focus, paper, retrieval)
    if quote is not None and quote.evidence not in marked:  # shown first of the passages, the others keep their order
        marked.insert(next((i for i, e in enumerate(marked) if e.passage is not None), len(marked)), quote.evidence)
    best_item = next((e for e in evidence if e.figure is not None), None)
    not_found = False
    if quote is not None:
        passage = quote.evidence.passage
        assert passage is not None
        not_found = paper is not None and support(f"{question} {focus}", passage, paper) < MIN_SUPPORT
        # a quantity asked and no number stated: no answer ("GraphPad Prism version 9.1.0" for "How many samples ...?")
        not_found = not_found or (asks_quantity(question) and not _states_quantity(quote))
    elif paper is not None and evidence:
        not_found = True
    quote = None if quote is None else _completed(quote, paper)
    if not_found and best_item is not None and paper is not None and _legend_answers(question, focus, best_item, paper):
        # no sentence of the text answers, but the first item's own legend holds the question: that
        # item is the answer (a result shown only in a figure), not "the paper does not seem to say"
        assert best_item.figure is not None
        return ExtractiveAnswer(_caption_answer(best_item.figure, paper), _cite(marked, best_item))
    parts: list[str] = []
    if quote is not None:
        said = f"“{quote.text}” [p. {quote.evidence.page}]"
        parts.append(f"{NOT_FOUND} The closest passage: {said}" if not_found else said)
        marked = [replace(e, cited=True, quotes=quote.sentences) if e is quote.evidence else e for e in marked]
        if not not_found:  # the passage the answer quotes is shown first of the passages
            marked = _quoted_first(marked)
    elif not_found:
        parts.append(NOT_FOUND)
    if best_item is not None:
        parts.append(f"See also {best_item.citation()} (page {best_item.page}).")
        marked = _cite(marked, best_item)
    return ExtractiveAnswer(" ".join(parts), marked, not_found, unquoted=quote is None and bool(evidence))


def _cite(evidence: list[Evidence], item: Evidence) -> list[Evidence]:
    """`evidence` with `item` marked as what the answer cites."""
    return [replace(e, cited=True) if e is item else e for e in evidence]


def _legend_answers(question: str, focus: str, item: Evidence, paper: Paper) -> bool:
    """Whether the item's legend holds as much of the question as a quoted paragraph must (`support`),
    and states a number where a quantity is asked (as a quote must)."""
    assert item.figure is not None
    legend = item.figure.caption
    if not legend or (asks_quantity(question) and not states_number(legend)):
        return False
    return float(_coverage(f"{question} {focus}", [legend], paper)[0]) >= MIN_SUPPORT


def _quoted_first(evidence: list[Evidence]) -> list[Evidence]:
    """The quoted passage swapped with the first passage: figures and tables keep their places."""
    passages = [i for i, e in enumerate(evidence) if e.passage is not None]
    quoted = next((i for i in passages if evidence[i].cited and evidence[i].quotes), None)
    if quoted is None or quoted == passages[0]:
        return evidence
    swapped = list(evidence)
    swapped[passages[0]], swapped[quoted] = evidence[quoted], evidence[passages[0]]
    return swapped
