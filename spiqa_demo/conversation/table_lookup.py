"""A question answered by the cells of a table whose structure was read (`TableStructure`).

"What is ResNet-101's top-1 error?" names a row (a method) and a column (a metric); "which dataset
has the most users?" and "the best method on Yelp2018 in ndcg@20" name a column and pick its row by
a superlative. The question's words are matched against each column's heading path and each row's
name (stemmed as BM25 reads them; a heading word that begins a question word matches it, so
"err." is "error" and "#Users" is "users"); the column holding the most of them is the one asked
about, and of equals the one whose own words (its unit aside) the question holds most exactly
("Km (µM)", not "kcat/Km"), a change ("∆Clip@1") only when a change is asked, a column of
values before a column of words that names rows. A row is named by the columns of words nearest
left of that column (`row_names`: the right-hand one of two tables printed side by side has its
own; a group's name printed once heads the rows under it or around it), and a question names it by writing its name as a name or one of its cells
whole ("the proposed method"); in a matrix ("mCTRP6 and mCTRP1") one name is the column's, the
other the row's; "which gene has the highest ..." is picked by the values, whatever name the
question also holds. A superlative compares the column's numbers as printed ("19.87", "1,234", "85.3%", "1.2M";
what follows a "±" is a spread, not the value). "Best" and "worst" depend on the column: its heading
says whether lower is better (an error, a loss, a perplexity, a time; an arrow "↓" when printed).

Tables are read as readers name their parts: a row that adds to the model above it ("+ SE") is
that model's ("MobileNetV2-0.5 + SE"); a row named in prose ("the coordinate attention model")
or with a count written out ("one block") is named; a setting the question writes ("at output
stride 8") picks one of the rows named alike, and its column is not the one asked; headings
abbreviated ("Avg") or glued ("APmask") are read whole; a row of headings read as the body's
first is a header row. Of several tables, the one that holds most of the question's words, its
caption included, answers, and none whose headings, rows and caption hold nothing of what the
question asks for ("top-1 accuracy" is no "R50-C4 AP" column): no cell beats a wrong one.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace

from spiqa_demo.conversation.types import Cell
from spiqa_demo.crosspaper.rows import lower_is_better
from spiqa_demo.extraction.tables import is_number_cell
from spiqa_demo.types import TableStructure

MIN_PREFIX = 3  # a heading word this long that begins a question word matches it ("err" of "error")
MIN_STEM, MAX_ENDING = 5, 2  # words sharing this long a beginning, each ending in at most this many more letters, are one stem
MAX_HEADING_WORDS = 6  # a longer heading path is a row of headings read as one cell: it names no column
MAX_CELLS = 3  # a question matching more columns equally well is answered with at most this many cells
SERIES = 0.7  # two captions sharing this share of their words are of one series of tables (`same_series`)

_WORD = re.compile(r"[a-z]+|\d+(?:\.\d+)?")
# Words of a question that say what kind of answer it wants, never which column or row.
_STOP = frozenset(
    ["a", "an", "and", "are", "at", "be", "by", "did", "do", "does", "for", "from", "has", "have", "how", "in", "is", "it", "its", "of", "on", "or", "than", "that", "the", "their", "this", "to", "was", "were", "what", "which", "who", "with", "whose"]
)
_SAME_AS = {"ours": "proposed", "without": "no"}
# A count written out names a row printed with its digit ("one block" of "+1 NL", "four blocks" of
# "4 @ Conv3&4"); never a column ("which one has the highest top-5" is no "top-1").
_NUMBERS = {w: str(n) for n, w in enumerate(("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"), 1)}
_POSSESSIVE = re.compile(r"['\u2019]s\b")  # "pol η's Km": the "s" is no word (it met "s" in "kcat (s−1)")
# A symbol's subscript printed apart ("K m", "k cat", "V max" as PDFs extract them) is one word
# with its letter, as a reader writes it ("Km", "kcat").
_SUBSCRIPT = re.compile(r"(?<![\w.])([A-Za-z]) ([a-z]{1,3})\b")
_HIGHER = re.compile(r"\b(?:highest|largest|most|biggest|greatest|maximum|max|longest)\b", re.IGNORECASE)
_LOWER = re.compile(r"\b(?:lowest|smallest|fewest|least|minimum|min|shortest|closest|nearest)\b", re.IGNORECASE)
_BEST = re.compile(r"\b(?:best|top-performing|strongest|fastest|quickest|outperforms? all)\b", re.IGNORECASE)
_WORST = re.compile(r"\b(?:worst|weakest|slowest)\b", re.IGNORECASE)
# Any other superlative of an adjective ("stiffest", "heaviest"): its stem names the column it is
# taken over ("Nuclei stiffness"), the highest value wins. Words ending so that are no superlative:
_EST = re.compile(r"([a-z]{4,}?)(i?)est")
_NOT_SUPERLATIVE = frozenset(["interest", "request", "suggest", "harvest", "protest", "contest", "manifest", "honest", "modest", "digest", "arrest", "invest", "forest"])
# Two words printed as one, a capital abbreviation before a word: "APmask" is "AP mask", "APbox" "AP box".
_GLUED = re.compile(r"(?<=[A-Z]{2})(?=[a-z]{3})")
# A number as printed: sign, thousands separators, decimals, and a K/k/M/B/G magnitude right after it.
_NUMBER = re.compile(r"(?<![\w.])([-+\u2212]?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s?([KkMBG](?![a-z]))?")
# A citation printed after a row's name ("Akata'16 [1]", "DMaP-I'17 [24, 25]"): no word of its name.
_CITATION = re.compile(r"\[\d+(?:\s*[,\u2013-]\s*\d+)*\]")
# A unit or a footnote in brackets after a heading's own words: "(µM)", "(%)", "[s-1]".
_UNIT = re.compile(r"[(\[][^()\[\]]*[)\]]")
# A question asking which row ("Which gene has ...", "What model gives ..."): a superlative in it
# picks the row by its values, and a name it also holds qualifies the column ("ratio of WT to csrA").
_ASKS_ROW = re.compile(r"\s*(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:has|have|had|is|was|gives?|gave|reach(?:es)?|achieves?|shows?|gets?|performs?|yields?)\b", re.IGNORECASE)
# What a question asks for, before its verb: "What top-1 accuracy does ...", "What is the mean IoU
# of ...", "How many parameters does ...", "At what concentration was ...".
_ASKED_FOR = (
    re.compile(r"^\s*(?:what|which)\s+(?:is|are|was|were)\s+(?:the\s+|a\s+|an\s+)?(?P<asked>.+?)\s+(?:of|for|on|in|at|with|when|that|by|from|between)\b", re.IGNORECASE),
    re.compile(r"^\s*(?:at\s+|in\s+|to\s+)?(?:what|which)\s+(?P<asked>.+?)\s+(?:does|do|did|is|are|was|were|has|have|had|can)\b", re.IGNORECASE),
    re.compile(r"^\s*how\s+(?:many|much)\s+(?P<asked>.+?)\s+(?:does|do|did|is|are|was|were|has|have|had)\b", re.IGNORECASE),
)
# A heading that is a change over a baseline, and a question that asks for one.
_DELTAS = ("\u0394", "\u2206", "\u03b4")
_CHANGE = re.compile(r"[\u0394\u2206\u03b4]|\b(?:gains?|improve(?:s|d|ment)?|increases?|decreases?|drops?|changes?|differences?|delta)\b", re.IGNORECASE)
_MAGNITUDE = {"K": 1e3, "k": 1e3, "M": 1e6, "B": 1e9, "G": 1e9}


def cell_value(cell: str) -> float | None:
    """The value a cell prints ("19.87", "1,234", "85.3%", "**91.2**", "12.3 ± 0.4" -> 12.3, "1.2M"),
    or None when it prints no number ("-", "n/a")."""
    found = _NUMBER.search(cell.replace("**", ""))
    if found is None:
        return None
    sign, whole, decimals, magnitude = found.groups()
    value = float(whole.replace(",", "") + (decimals or ""))
    value *= _MAGNITUDE.get(magnitude or "", 1.0)
    return -value if sign in ("-", "\u2212") else value


@dataclass(frozen=True)
class Lookup:
    """The cells that answer a question, the superlative that chose them ("lowest"; "" when the
    question named the row), and how exactly the question names them."""

    cells: tuple[Cell, ...]
    superlative: str = ""
    # How exactly the question names them: the question's words the row's name and the column's
    # heading hold, then how the heading fits (`_column_score`).
    strength: tuple[int, bool, float, int] = (0, False, 0.0, 0)
    whole_row: bool = False  # the question named the row and no column: all its cells (`whole_row`)


def _words(text: str, counts: bool = False) -> frozenset[str]:
    """Lower-case words and numbers, the "1" of "top-1" included (it tells top-1 from top-5);
    ligatures unfolded, as a reader reads them ("pdﬁmages" is "pdfimages"); a table's "Ours" is
    the paper's own method, which a reader asks about as "the proposed" one, "without" is the "No"
    of an ablation's "No NSP"; with `counts`, a count written out is its digit (`_NUMBERS`)."""
    text = _POSSESSIVE.sub("", unicodedata.normalize("NFKC", text))
    text = _GLUED.sub(" ", text)
    text = _SUBSCRIPT.sub(lambda m: m[1] + m[2] if (m[1].lower() + m[2]) not in _STOP and m[2] not in _STOP else m[0], text)
    same = _SAME_AS | _NUMBERS if counts else _SAME_AS
    words = {same.get(w, w) for w in _WORD.findall(text.lower()) if w not in _STOP}
    return frozenset(words | {stem for w in words if (stem := _superlative_stem(w))})


def _superlative_stem(word: str) -> str:
    """The adjective a superlative is of ("stiff" of "stiffest", "heavy" of "heaviest"), else "";
    none for the superlatives that name no column ("highest", "longest")."""
    found = _EST.fullmatch(word)
    if found is None or word in _NOT_SUPERLATIVE or any(p.fullmatch(word) for p in (_HIGHER, _LOWER, _BEST, _WORST)):
        return ""
    return found[1] + ("y" if found[2] else "")


def _same(a: str, b: str) -> bool:
    """One word, or one begins the other: "err" and "error", "user" and "users"; or one stem with
    other endings: "nuclei" and "nuclear", "trained" and "training"; or one abbreviates the other,
    keeping its first two letters and some of its other consonants in order: "avg" and "average",
    "std" and "standard" (a word that keeps vowels is a word of its own: "mean" is not "mechanism")."""
    if a == b or (min(len(a), len(b)) >= MIN_PREFIX and (a.startswith(b) or b.startswith(a))):
        return True
    short, long = sorted((a, b), key=len)
    if (len(short) >= MIN_PREFIX and short.isalpha() and short[:2] == long[:2] and not set(short[2:]) & set("aeiouy")
            and _in_order(short[2:], long[2:])):
        return True
    stem = len(os.path.commonprefix([a, b]))
    return stem >= MIN_STEM and stem >= min(len(a), len(b)) - MAX_ENDING


def _spells(asked: str, word: str) -> bool:
    """The asked word spells `word` out (`_same`), not only its beginning: "coordinate" spells
    "coord.", "bert" does not spell "bertbase"."""
    return _same(asked, word) and not (len(asked) < len(word) and word.startswith(asked))


def _in_order(letters: str, word: str) -> bool:
    """Every one of `letters` is in `word`, in that order."""
    rest = iter(word)
    return all(c in rest for c in letters)


def _matched(words: frozenset[str], question: frozenset[str]) -> int:
    """How many of `words` the question holds (`_same`)."""
    return sum(1 for w in words if any(_same(w, q) for q in question))


def superlative(question: str, heading: str) -> tuple[str, bool] | None:
    """(the word, whether the highest value wins) for a question that picks a row by a superlative
    over the column `heading`; None when it asks none. A word of the heading itself is none (the
    "maximum" of "Maximum Path Length"); another adjective's superlative is one when its stem is a
    word of the heading ("stiffest" of "Nuclei stiffness": the highest)."""
    lower_better = lower_is_better(heading)
    own = _words(heading)
    for pattern, highest in ((_HIGHER, True), (_LOWER, False), (_BEST, not lower_better), (_WORST, lower_better)):
        for found in pattern.finditer(question):
            if found[0].lower() not in own:
                return found[0].lower(), highest
    for word in _WORD.findall(question.lower()):
        stem = _superlative_stem(word)
        if stem and any(_same(stem, w) for w in own):
            return word, True
    return None


def _column_score(heading: str, asked: frozenset[str], asks_change: bool, plain: frozenset[frozenset[str]]) -> tuple[int, bool, float, int]:
    """How well the question names the column `heading`: the heading's words it holds, whether it
    asks for a change exactly when the heading is one ("∆Clip@1", "ΔAP" beside "Clip@1", "AP" in
    `plain`, the other headings' words: the gain over a baseline, not the value; "ΔpelA" alone
    is a strain), the share of the heading's own words (its unit in
    brackets aside) it holds, and how many it holds as written rather than by a shared beginning.
    Of "Km (µM)" and "kcat/Km (M-1 s-1)" a question about "the Km" names the first: both hold
    "Km", but it is all of the first heading."""
    words = _words(heading)
    matched = _matched(words, asked)
    if not matched:
        return 0, False, 0.0, 0
    own = _words(_UNIT.sub(" ", heading)) or words
    is_change = heading.lstrip("+ ").startswith(_DELTAS) and words in plain
    return matched, is_change == asks_change, _matched(own, asked) / len(own), len(words & asked)


def lookup(question: str, table: TableStructure) -> Lookup | None:
    """The cells of `table` that answer `question` (see the module docstring), or None when its
    words name no column, or neither a row nor a superlative. A first body row that is a row of
    headings (`_is_heading_row`) is read as the last header row."""
    if len(table.body) < 2 or not _is_heading_row(table.body[0], headed=any(table.column_headings())):
        return _lookup(question, table)
    found = _lookup(question, TableStructure(header=(*table.header, table.body[0]), body=table.body[1:], boxes=table.boxes))
    return None if found is None else replace(found, cells=tuple(replace(c, row=c.row + 1) for c in found.cells))


def _is_heading_row(row: Sequence[str], headed: bool) -> bool:
    """A row of headings read as the body's first: in a table read with no header at all, any row
    of two cells or more ("Attention Method", "128", "256", ...); under headings, a row of words
    with no row name ("", "EM", "F1", "EM", "F1" under "Dev" and "Test")."""
    cells = [c for c in row if c]
    if len(cells) < 2:
        return False
    return not headed or (not row[0] and all(c.lstrip()[:1].isalpha() for c in cells))


def _lookup(question: str, table: TableStructure) -> Lookup | None:
    asked = _words(question)
    headings = table.column_headings()
    asks_change = _CHANGE.search(question) is not None
    plain = frozenset(_words(h) for h in headings if not h.lstrip("+ ").startswith(_DELTAS))
    column_scores = [_column_score(h, asked, asks_change, plain) if j > 0 and len(_words(h)) <= MAX_HEADING_WORDS else (0, False, 0.0, 0)
                     for j, h in enumerate(headings)]
    # A column of words the asked words also meet names the rows of a column of values the question
    # also names ("+ 1 Block" of "one block at Conv2" beside "FLOPs"): the value is the cell asked.
    value_scores = [(0, False, 0.0, 0) if _is_name_column(table, j) else score for j, score in enumerate(column_scores)]
    if max(value_scores, default=(0, False, 0.0, 0))[0] > 0:
        column_scores = value_scores
    # A column the question names with one of its values ("at context length 4k", "at output stride
    # 8") says which row, beside another column it names: that one is asked.
    asked_scores = [(0, False, 0.0, 0) if score[0] and any(_qualifies(row[j], question) for row in table.body if j < len(row)) else score
                    for j, score in enumerate(column_scores)]
    if max(asked_scores, default=(0, False, 0.0, 0))[0] > 0:
        column_scores = asked_scores
    best_column = max(column_scores, default=(0, False, 0.0, 0))
    if best_column[0] == 0:
        return None
    columns = [j for j, s in enumerate(column_scores) if s == best_column][:MAX_CELLS]
    picked = {j: superlative(question, headings[j]) for j in columns}
    asks_row = _ASKS_ROW.match(question) is not None
    chosen: list[Cell] = []
    named_words = 0
    for j in columns:
        if asks_row and picked[j] is not None:
            continue  # "which gene has the highest ...": the values pick the row, whatever names the question also holds
        names, own = _named_as(table, j)
        for named in _named_rows(question, table, names, j, _words(headings[j]), asks_superlative=picked[j] is not None, own=own):
            chosen.append(Cell(named, j, names[named], headings[j], table.body[named][j]))
            named_words = max(named_words, _matched(_words(names[named]), asked - _words(headings[j])))
    if chosen:
        return Lookup(tuple(chosen[:MAX_CELLS]), strength=(best_column[0] + named_words, *best_column[1:]))
    for j in columns:
        found = picked[j]
        if found is None:
            return None
        word, highest = found
        names = _named_as(table, j)[0]
        values = [(v, i) for i, row in enumerate(table.body) if j < len(row) and names[i] and (v := cell_value(row[j])) is not None]
        if not values:
            continue
        value = max(v for v, _ in values) if highest else min(v for v, _ in values)
        chosen += [Cell(i, j, names[i], headings[j], table.body[i][j]) for v, i in values if v == value]
    return Lookup(tuple(chosen[:MAX_CELLS]), word, best_column) if chosen else None


def whole_row(question: str, table: TableStructure) -> Lookup | None:
    """The cells of the one row the question names (`_named_rows`) in a table of at most
    `MAX_CELLS` columns beside its row names, when it names none of them: the row says all the
    table says of it ("What does the FN 1-3 region do to neurons?" beside "Ligands/cells/activities",
    "... without any positional embedding?" of "No Pos. Emb." under three settings). Not a
    superlative, whose column must be named."""
    if not 1 < table.width <= MAX_CELLS + 1 or any(p.search(question) for p in (_HIGHER, _LOWER, _BEST, _WORST)):
        return None
    names = _named_as(table, 1)[0]
    named = _named_rows(question, table, names, 1)
    if len(named) != 1:
        return None
    i, headings = named[0], table.column_headings()
    cells = tuple(Cell(i, j, names[i], headings[j], value) for j, value in enumerate(table.body[i]) if j and value)
    return Lookup(cells, whole_row=True) if cells else None


def best_lookup(question: str, tables: Sequence[TableStructure], captions: Sequence[str] = ()) -> tuple[int, Lookup] | None:
    """Of `tables` (best ranked first, with their `captions`), the one that holds most of the
    question's words in the cells' row names and headings and its caption, then whose row and
    column the question names most exactly (`Lookup.strength`), and its cells; the better ranked of
    equals. A word only another table holds tells the tables apart: "on the GLUE test set" is the
    table captioned "GLUE Test results", not the SWAG table with a "Test" column and the same row.
    The first table that answers at all may answer from a neighbouring column or row the question
    shares one word with. A caption word the question rules out ("without dropout or masking")
    holds nothing; of tables of one series answering alike ("Forward pass runtime ..., with
    masking", "..., with dropout", "...") the one whose caption says least that the question does not
    ask (`_unasked`) answers "... with masking only"."""
    found = [(i, answer) for i, table in enumerate(tables) if (answer := lookup(question, table) or whole_row(question, table)) is not None
             and holds_what_is_asked(question, answer, captions[i] if i < len(captions) else "")]
    if not found:
        return None
    asked, ruled_out = _words(question), _ruled_out(question)
    caption_words = [_words(captions[i]) if i < len(captions) else frozenset() for i in range(len(tables))]

    def held(i: int, answer: Lookup) -> int:
        words = {w for w in caption_words[i] if not any(_same(w, r) for r in ruled_out)}
        headings = tables[i].column_headings()
        for cell in answer.cells:
            # the heading over the row names says what they are ("Model (pre-norm)" over "Transformer (Big)")
            over = " ".join(headings[j] for j in _name_block(tables[i], cell.column) if j < len(headings))
            words |= _words(cell.heading) | _words(cell.row_name) | _words(over)
        return _matched(asked, frozenset(words))

    ranks = {i: (held(i, answer), answer.strength) for i, answer in found}
    leader = max(found, key=lambda pair: (*ranks[pair[0]], -pair[0]))
    # the same cell of tables alike: a series, told apart by what their captions say beyond it
    alike = [pair for pair in found if ranks[pair[0]] == ranks[leader[0]] and _cells_named(pair[1]) == _cells_named(leader[1])]
    shared = frozenset.intersection(*(caption_words[i] for i, _ in alike))
    return max(alike, key=lambda pair: (-_unasked(caption_words[pair[0]] - shared, asked - ruled_out), -pair[0]))


def _cells_named(found: Lookup) -> list[tuple[str, str]]:
    return [(cell.row_name, cell.heading) for cell in found.cells]


# What a question rules out: the words after "without" or "w/o", a list joined by "or", "and", commas.
_RULED_OUT = re.compile(r"\b(?:without|w/o)\s+(?:any\s+)?([\w-]+(?:\s*(?:,|\bor\b|\band\b|\bnor\b)\s*[\w-]+)*)", re.IGNORECASE)


def _ruled_out(question: str) -> frozenset[str]:
    """The words a question rules out ("dropout", "masking" of "without dropout or masking")."""
    return frozenset().union(*(_words(m[1]) for m in _RULED_OUT.finditer(question)))


def same_series(caption: str, other: str) -> bool:
    """Two captions of one series of tables, the same but for a few words ("Forward pass runtime
    (ms) ..., with masking." and "Backward pass runtime (ms) ..., with dropout."): at least
    `SERIES` of their words (numbers aside) shared."""
    a, b = (frozenset(w for w in _words(c) if not w[0].isdigit()) for c in (caption, other))
    return bool(a | b) and len(a & b) >= SERIES * len(a | b)


def _unasked(words: frozenset[str], asked: frozenset[str]) -> int:
    """How many of `words` (what a caption says that the other candidates' captions do not all say)
    the question does not ask for."""
    return sum(1 for w in words if not any(_same(w, q) for q in asked))


def holds_what_is_asked(question: str, found: Lookup, caption: str) -> bool:
    """Whether the cells' headings or rows ("Macro-F1" over its rows) or the table's caption hold a
    word of what the question asks for (`_ASKED_FOR`: "top-1 accuracy" of "What top-1 accuracy
    does MoCo get with R50?"); a column named by other words of the question ("R50-C4 AP" by "R50") reads another quantity. A row
    picked by a superlative, a column whose heading the question writes whole, or a question whose
    quantity is not written that way, passes; a whole row (`whole_row`) only when its table holds
    what is asked, which no heading names."""
    if found.superlative:
        return True
    # read with its white space collapsed: a run of spaces lets `_ASKED_FOR`'s lazy group and the
    # `\s+` around it split it every way, minutes on a 2000-character question
    spaced = " ".join(question.split())
    match = next((m for pattern in _ASKED_FOR if (m := pattern.match(spaced))), None)
    wanted = _words(match["asked"]) if match else frozenset()
    wanted = frozenset(w for w in wanted if not w[0].isdigit()) or wanted  # the "1" of "top-1" is in "IN-1M" too
    if not wanted:
        return not found.whole_row
    held = _words(caption).union(*(_words(f"{cell.heading} {cell.row_name}") for cell in found.cells))
    if _matched(wanted, held) > 0:
        return True
    # A heading the question writes whole is a name (a matrix's "Acrp30" beside its row "mCTRP4"),
    # no other quantity: its table may print what is asked only in a note.
    asked = _words(question)
    return not found.whole_row and all(_matched(_words(cell.heading), asked) == len(_words(cell.heading)) for cell in found.cells)


def _is_name_column(table: TableStructure, j: int) -> bool:
    """The first column, or one whose body cells are mostly words (methods, genes, a group's name).
    A dash printed where a run had no result ("-", "–") is neither a word nor a number: a column of
    numbers and dashes names no row."""
    cells = [row[j] for row in table.body if j < len(row) and any(c.isalnum() for c in row[j])]
    return j == 0 or 2 * sum(is_number_cell(c) for c in cells) < len(cells)


def row_names(table: TableStructure, column: int) -> list[str]:
    """Per body row, its name for a cell of `column`: the columns of words nearest left of it, past
    its block's numbers ("Algorithm" of the right-hand of two tables side by side, "Gene" and "Gene
    name" together), a group's name (`_groups`) when that block's first column names at most half
    the rows and another column names them all ("SDR" over "Oracle", "Proposed", ...); "" for a
    row with none."""
    block = _name_block(table, column)
    first = [row[block[0]] if block[0] < len(row) else "" for row in table.body]
    inner = [row[block[1]] if len(block) > 1 and block[1] < len(row) else "" for row in table.body]
    grouped = len(block) > 1 and 2 * sum(1 for c in first if c) <= len(first)  # a group's name, then the rows'
    if grouped:
        groups = _groups(first, inner)
    else:
        # A group's name on a row of its own ("NL I3D [ours]" between its "ResNet-50" and
        # "ResNet-101" rows) names the rows with no name of their own in that column.
        labels = [c if c and not any(row[block[0] + 1:]) else "" for c, row in zip(first, table.body, strict=True)]
        groups = _groups(labels, inner) if len(block) > 1 and any(labels) else labels
        groups = [c or g for c, g in zip(first, groups, strict=True)]
    names = []
    for row, group in zip(table.body, groups, strict=True):
        cells = [group, *(row[j] for j in block[1:] if j < len(row))]
        names.append(" ".join(c for c in cells if c))
    return names


def _name_block(table: TableStructure, column: int) -> list[int]:
    """The columns of words nearest left of `column`, past its block's numbers, that name its rows
    (`row_names`); the first column when there are none."""
    block: list[int] = []
    for j in range(column - 1, -1, -1):
        if _is_name_column(table, j):
            block.insert(0, j)
        elif block:
            break
    return block or [0]


def _named_as(table: TableStructure, column: int) -> tuple[list[str], list[str]]:
    """Per body row, its name (`row_names`), each name that adds to or takes from the model above
    after that model's name (`_with_bases`), then its name alone."""
    names = row_names(table, column)
    return _with_bases(names), names


# A row that adds to or takes from the row above ("+ SE", "+1 NL", "w/o BN", "- layer norm."), not a
# number ("-0.5").
_ADDED = re.compile(r"^(?:[+\u2212\u2013-]\s*(?![\d.]+$)|w/o?\s)")


def _with_bases(names: list[str]) -> list[str]:
    """Each name that adds to or takes from a model (`_ADDED`: "+ SE" under "MobileNetV2-0.5")
    after the name of the nearest row above that does not ("MobileNetV2-0.5 + SE")."""
    out, base = [], ""
    for name in names:
        added = _ADDED.match(name) is not None
        out.append(f"{base} {name}" if added and base else name)
        base = base if added or not name else name
    return out


def _groups(first: list[str], inner: list[str]) -> list[str]:
    """Per row, the group name of the first column that heads it: carried down from above, or
    printed mid-group (a name centred on its rows: "ResNet-26 + NL" beside the second of its rows
    "@ Conv2", "@ Conv3", "@ Conv4"), then each row takes the nearest name, a tie going below or
    above. Of these readings the one whose groups repeat the fewest different runs of `inner`
    names wins, carried down on a tie."""
    leads = [i for i, c in enumerate(first) if c]

    def owner(i: int, reading: str) -> int | None:
        above = max((j for j in leads if j <= i), default=None)
        below = min((j for j in leads if j >= i), default=None)
        if reading == "down" or below is None or above == i:
            return above
        if above is None:
            return below
        return above if i - above < below - i or (i - above == below - i and reading == "up") else below

    readings = []
    for reading in ("down", "near, ties below", "up"):
        owners = [owner(i, reading) for i in range(len(first))]
        runs = {tuple(inner[i] for i, o in enumerate(owners) if o == lead) for lead in leads}
        readings.append((len(runs), owners))
    owners = min(readings, key=lambda r: r[0])[1]
    return [first[o] if o is not None else "" for o in owners]


def is_name(word: str, first: bool) -> bool:
    """A capital past the first letter or a digit ("ResNet-101", "BERT", "VGG-16"), or a capital
    first letter anywhere but at the start of the question ("Gowalla", not "Which")."""
    return any(c.isupper() or c.isdigit() for c in word[1:]) or word[:1].isdigit() or (not first and word[:1].isupper())


def _written_whole(cell: str, question: str) -> bool:
    """The question writes the cell whole, on its own (“pdfimages”, “the proposed method”,
    “metapath2vec++” but not “metapath2vec” in it)."""
    text = unicodedata.normalize("NFKC", cell).casefold().strip()
    return bool(text) and re.search(rf"(?<![\w+\-]){re.escape(text)}(?![\w+\-])", unicodedata.normalize("NFKC", question).casefold()) is not None


def _named_rows(question: str, table: TableStructure, names: list[str], column: int,
               column_words: frozenset[str] = frozenset(), asks_superlative: bool = False, own: Sequence[str] = ()) -> list[int]:
    """The body rows with a cell in `column` whose name (`names`) the question holds most of: one,
    or every row printing that same name (one per setting: "MobileNetV2 + SE" at two output
    strides) when the question writes all of that name; none when no row or several equally.

    The question must write a row's name as a name (a capital or a digit in it: "ResNet-101",
    "Amazon-Book", "BERT"): the prose words of a question ("how big is ...") name no row "big";
    or write one of the row's cells whole ("pdfimages", "the proposed method") unless it asks a
    superlative, whose row its values pick. The words that name the asked column (`column_words`)
    name no row: the "5" of "top-5 error" is the metric's, not the row "5 CNNs". Then the more of
    the name's words the question holds, in any form ("cond." of "conditional"), the better, and
    every word of a shorter name beats part of a longer one ("ResNet-101" over "ResNet-101 + SE")."""
    written = _words(" ".join(w for i, w in enumerate(question.split()) if is_name(w, first=i == 0))) - column_words
    asked = _words(question, counts=True) - column_words
    # A group's name printed on another row ("ResNet-26 + A2" beside "@ Conv3") is written whole
    # for every row it names, as its own cells are; each part written whole counts.
    printed = {c for row in table.body for c in row[:column] if c}
    settings = {j for j in range(table.width) if j != column and not _is_name_column(table, j)}
    scored = []
    for i, row in enumerate(table.body):
        if not (column < len(row) and row[column] and names[i]):
            continue
        words = _words(_CITATION.sub(" ", names[i]))  # "[1]" of "Akata'16 [1]" is no "top-1"
        hits = sum(1 for w in words if w in written)
        group = (g for g in printed if names[i].startswith(g + " "))
        whole = 0 if asks_superlative else len({c for c in (*row[:column], names[i], *group)
                                                if c and not is_number_cell(c) and _words(c) - column_words and _written_whole(c, question)})
        loose = _matched(words, asked)
        # Every word of the name, or of its own part ("+ Coord. Attention" under "Baseline"), or of
        # the name less its unit in brackets ("cefotaxime" of "Cefotaxime (μg/mL)"), written in prose
        # ("the coordinate attention model"): named as much as written whole.
        alone = _words(own[i]) if i < len(own) else words
        bare = _words(_UNIT.sub(" ", names[i]))
        prose = any(w - column_words and all(any(_spells(q, n) for q in asked) for n in w) for w in (words, alone, bare))
        whole = whole or int(not asks_superlative and prose and hits < len(words))
        if hits or whole:
            # Of rows named alike, the one printing a setting the question writes ("at output stride 8").
            setting = sum(1 for j, c in enumerate(row) if j in settings and _qualifies(c, question))
            scored.append((hits + whole, setting, loose, loose - len(words), i))
    top = max((score[:4] for score in scored), default=None)
    best = [i for *score, i in scored if tuple(score) == top]
    # Several rows: one name printed once per setting, and the question writes all of it (not
    # "Transformer" of two "Transformer (4 layers)" rows, which its other words do not tell apart).
    return best if len(best) == 1 or (len({names[i] for i in best}) == 1 and top is not None and top[3] == 0) else []


def _qualifies(cell: str, question: str) -> bool:
    """A setting the question writes whole: a cell with a number ("8", "4k", "12")."""
    return any(c.isdigit() for c in cell) and _written_whole(cell, question)


def cell_sentence(label: str, found: Lookup) -> str:
    """The lookup stated as sentences: "In Table 2, ResNet-101 has a top-1 err. of 19.87 (row
    “ResNet-101”, column “top-1 err.”)." or, when a superlative chose the row, "In Table 1, Amazon-Book has
    the most #Users: 52,643 (row ..., column ...)."."""
    sentences = []
    for cell in found.cells:
        where = f"(row “{cell.row_name}”, column “{cell.heading}”)"
        if found.superlative:
            sentences.append(f"In {label}, {cell.row_name} has the {found.superlative} {cell.heading}: {cell.value} {where}.")
        else:
            sentences.append(f"In {label}, {cell.row_name} has a {cell.heading} of {cell.value} {where}.")
    return " ".join(sentences)
