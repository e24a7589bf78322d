"""The rows of a table as its printed lines give them, and the row a question singles out.

A table prints one method (or dataset) per row: its name, then its values ("TFN* 34.9 - 0.901").
A question about a table usually points at one row without naming it (`pointed_rows`):
- by a value the row prints: "a score of 34.9", "12M updated parameters";
- by its place: "the first row", "placed fourth", "the penultimate line";
- by its rank in a column the header names: "the highest Acc-5 on MOSI", "the second best on BBBP",
  "the lowest ResNet-101 top-1 error" (among the cited methods: a row named "Ours" is the citing
  paper's own, and so is a row that adds an uncited part to a cited one, "ResNet101 [5] + CBAM", or
  that prints no citation where most rows print one).
  A name the question prints that some rows print and others do not ("ResNet-101") keeps the rows
  of that block: those that print it, or that stand under a line printing it. "best" and "worst"
  read the column's heading: an error, a loss, a cost or a size is better low (`lower_is_better`);
- by its neighbours: "directly above PHA", "below TransferNet but above UniKGQA", "lower than
  Doc2Graph and higher than GNN+MLP" (results tables are mostly ordered, so a value between two
  rows' values is in a row between them).
Each cue that finds rows shares a weight of 1 among them; the names in the pointed rows then
score the candidates that define them (`ranking`), and the citation a pointed row prints
(`TableRow.cites`) names its paper outright. A table may print its methods as columns and
its datasets as rows: a value asked about in a row the question names itself points at the
header over the value (`pointed_names`). The rows come from printed lines: OCR words with their
boxes, where a column is the cells under its header word, or plain text (vector text), where it
is the cells at the header word's place, or a parsed `TableStructure`, whose column headings are known.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from spiqa_demo.crosspaper.names import normalise, printed_forms
from spiqa_demo.extraction.ocr import OcrWord
from spiqa_demo.types import TableStructure

# A value cell: a number with its decorations ("84.55/86.43", "-", "0.809*", "12M", "+1.2%").
_VALUE = re.compile(r"^[-+~(]?(?:\d[\d.,]*[%KMBGTkmbg]?(?:[±/]\d[\d.,]*%?)?|[-–—]|-/-?|-/\d[\d.,]*)[)*†‡]*$")
# A number the question prints on its own (not the "7" of "Acc-7" or "MPT-7B"); "12M", "638K" too.
_QUESTION_NUMBER = re.compile(r"(?<![\w\-.])(\d+(?:\.\d+)?)([KMB]?)(?![\w\-]|\.\d)")
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "top": 1, "last": -1, "bottom": -1, "final": -1, "penultimate": -2,
}
_ORDINAL = "|".join(_ORDINALS)
_PLACE = re.compile(
    rf"\b(?:(?P<second>second)[- ](?:to[- ])?(?:last|bottom)|(?P<word>{_ORDINAL})(?:\s+\w+)?\s+(?:row|line|entry)|"
    rf"(?:placed|listed|ranked|shown)\s+(?P<placed>{_ORDINAL})|(?:row|line)\s+(?P<number>\d+))\b",
    re.IGNORECASE,
)
# A citation after a row's name: "(Zhu et al., 2021)", "(Zhang and Song, 2022)", cut off by a value.
_CITATION = re.compile(r"\s*\((?=[^()]*(?:et al|,|\d{4}))[^()]*\)?")
_ABOVE = re.compile(r"\b(?:above|before|preceding|over)\b", re.IGNORECASE)
_BELOW = re.compile(r"\b(?:below|after|following|under|beneath)\b", re.IGNORECASE)
_BETWEEN = re.compile(r"\b(?:between|than|above|below)\b", re.IGNORECASE)
# "the highest", "the second best", "the fewest": the row that ranks so in the column the question names.
_EXTREME = re.compile(
    r"\b(?:(?P<nth>second|third)[- ]?)?(?P<way>highest|best|largest|most|greatest|lowest|worst|smallest|fewest|least|shortest|longest)\b",
    re.IGNORECASE,
)
_DESCENDING = {"highest", "best", "largest", "most", "greatest", "longest"}
# Heading words of columns where a lower value is the better one ("the best MAE", "the best top-1
# err."): errors and losses, distances, and what a method costs (time, memory, size, operations).
_LOWER_WORDS = re.compile(
    r"^(?:err\w*|loss\w*|mae|mse|rmse|ppl|perplexity|wer|cer|ter|fid|eer|nll|distance|latency|time|runtime|"
    r"seconds?|cost|memory|flops?|gflops|madds|params?\w*|parameters|size|rank)$",
    re.IGNORECASE,
)
# Citations a row prints: "[28]", "[42, 43]", "(Zhu et al., 2021)".
_MARKER = re.compile(r"\[(?P<numbers>\d+(?:\s*[,;–-]\s*\d+)*)\]|\((?P<author>[A-Z][^()]*?\d{4}[a-z]?)\)")
# Words of a question that name no block of rows.
_NOT_BLOCKS = {"table", "tab", "figure", "fig", "which", "what", "who", "how", "ours", "in", "the"}


@dataclass(frozen=True)
class Token:
    """A word of a printed line, with its horizontal extent in the image when known (OCR boxes)."""

    text: str
    left: float | None = None
    right: float | None = None


@dataclass(frozen=True)
class TableRow:
    """A printed line that reads as a table row: its name (the words before its first value) and values."""

    name: str
    cells: tuple[Token, ...]
    section: str = ""  # the line above the row that prints a name and no values ("ResNet-101"), if any

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(cell.text for cell in self.cells)

    @property
    def own(self) -> bool:
        """The citing paper's own method ("Ours", "PHA (ours)"): never one of the papers it cites."""
        return bool(re.search(r"\bours", self.name, re.IGNORECASE))

    @property
    def cites(self) -> tuple[str, ...]:
        """The citation keys (normalised: "28", "zhuetal2021") of the paper the row stands for: its
        last citation, unless the name goes on to add an uncited part ("ResNet101 [5] + CBAM" is the
        citing paper's CBAM on a cited backbone); none without a citation."""
        markers = list(_MARKER.finditer(self.name))
        if not markers or "+" in self.name[markers[-1].end():]:
            return ()
        last = markers[-1]
        if last.group("numbers"):
            return tuple(re.findall(r"\d+", last.group("numbers")))
        return (normalise(last.group("author")),)

    @property
    def label(self) -> str:
        """The name without the citation a row often prints after it ("CSN-word (Zhu et al., 2021)"),
        its marks ("TFN*", "MISA†"), and with its hyphenated parts apart ("CSN-word" -> "CSN word"):
        the name the question and the cited paper print."""
        bare = _CITATION.sub("", self.name).strip().rstrip("*†‡").strip() or self.name
        return bare.replace("-", " ")


@dataclass(frozen=True)
class Table:
    """The rows of a printed table, and the lines above its first row (its header)."""

    header: tuple[tuple[Token, ...], ...]
    rows: tuple[TableRow, ...]
    headings: tuple[str, ...] = ()  # per column, its heading path, when read from a `TableStructure`

    def column(self, forms: set[str]) -> tuple[Token, list[Token | None]] | None:
        """The header word that prints one of `forms` and, per row, its cell in that word's column
        (None where a row has no cell there); None when no header names a column of numbers. With
        OCR boxes a cell is the one under the header word; the header line nearest the rows wins,
        and of its named words those under a named word of a line above first ("Acc-5" under
        "MOSI"). Without boxes, a header line whose words line up with the values of most rows (as
        many, or one more: "Method") gives the cell at the same place. A named word over no numbers
        ("Model" over the row names) is passed over."""
        named = [[t for t in line if len(normalise(t.text)) >= 2 and normalise(t.text) in forms] for line in self.header]
        for depth in range(len(self.header) - 1, -1, -1):
            above = [t for line in named[:depth] for t in line]
            for word in sorted(named[depth], key=lambda w: not any(_overlap(w, t) > 0 for t in above)):
                cells = self._cells(depth, word)
                if any(cell is not None and _first_number(cell.text) is not None for cell in cells):
                    return word, cells
        return None

    def header_over(self, cell: Token) -> Token | None:
        """The word of the header line nearest the rows that stands over `cell` (OCR boxes only)."""
        for line in reversed(self.header):
            over = [t for t in line if _overlap(t, cell) > 0]
            if over:
                return max(over, key=lambda t: _overlap(t, cell))
        return None

    def _cells(self, depth: int, word: Token) -> list[Token | None]:
        if word.left is not None:
            return [max(row.cells, key=lambda cell: _overlap(word, cell)) if any(_overlap(word, c) > 0 for c in row.cells) else None
                    for row in self.rows]
        line = self.header[depth]
        width = Counter(len(row.cells) for row in self.rows).most_common(1)[0][0]
        place = line.index(word) - (len(line) - width)
        if len(line) not in (width, width + 1) or place < 0:
            return [None] * len(self.rows)
        return [row.cells[place] if len(row.cells) == width else None for row in self.rows]


def _overlap(a: Token, b: Token) -> float:
    if a.left is None or a.right is None or b.left is None or b.right is None:
        return 0.0
    return min(a.right, b.right) - max(a.left, b.left)


def is_value(token: str) -> bool:
    return bool(_VALUE.match(token))


def _lines(text: str, words: list[OcrWord]) -> list[list[Token]]:
    """The printed lines as tokens: from OCR words (with their extent) when given, else from text.
    Words "±" and "/" join the numbers beside them into one value ("80.0 ± 0.5", "-/ 82.5")."""
    if words:
        grouped: dict[int, list[Token]] = {}
        for w in words:
            grouped.setdefault(w.line, []).append(Token(w.text, w.bbox[0], w.bbox[2]))
        lines = [sorted(line, key=lambda t: t.left or 0.0) for _, line in sorted(grouped.items())]
    else:
        lines = [[Token(t) for t in line.split()] for line in text.splitlines()]
    out = []
    for line in lines:
        joined: list[Token] = []
        for token in line:
            if joined and (token.text[0] in "±/" or joined[-1].text[-1] in "±/"):
                last = joined.pop()
                right = token.right if token.right is not None else last.right
                token = Token(last.text + token.text, last.left, right)
            joined.append(token)
        out.append(joined)
    return out


def _open_citation(tokens: list[Token]) -> bool:
    """Whether a row name so far opens a parenthesis it has not closed: "(Zhu et al., 2021)" is
    part of the name, its year not a value."""
    name = " ".join(t.text for t in tokens)
    return name.count("(") > name.count(")")


def parse_table(text: str, words: list[OcrWord] | None = None) -> Table:
    """The lines that start with a name holding letters and go on with values (at least one number,
    values at least half its words), top to bottom; header lines, captions and legends print no
    values after a name. `words` (OCR words with boxes, numbered by line) give the lines instead of
    `text` when known."""
    rows: list[TableRow] = []
    header: list[tuple[Token, ...]] = []
    section = last = ""
    for tokens in _lines(text, words or []):
        lead = 0
        while lead < len(tokens) and (not is_value(tokens[lead].text) or _open_citation(tokens[:lead])):
            lead += 1
        name = " ".join(t.text for t in tokens[:lead])
        values = tokens[lead:]
        cells = [v.text for v in values if is_value(v.text)]
        if re.search(r"[A-Za-z]{2}", name) and 2 * len(cells) >= len(values) and any(re.search(r"\d", v) for v in cells):
            section = last or section  # the line just above a row that prints no value names its block
            rows.append(TableRow(name, tuple(values), section))
            last = ""
            continue
        if not rows and tokens:
            header.append(tuple(tokens))
        last = name if tokens and not values else ""
    return Table(tuple(header), tuple(rows))


def structure_table(structure: TableStructure) -> Table:
    """The rows of a parsed table: a row's name is its cells that hold no value ("SSDLite320
    MobileNetV2 [34]" beside its number), its cells the rest, placed at their column (as OCR boxes
    are, so a column is the cells under its heading); a row printing no value names the block below."""
    rows: list[TableRow] = []
    section = ""
    for body in structure.body:
        value = [bool(c) and is_value(c.replace(" ", "")) for c in body]  # "82.3 %", "38.5 G"
        named = [c for c, v in zip(body, value) if c and not v]
        cells = tuple(Token(c, float(j), float(j) + 1) for j, (c, v) in enumerate(zip(body, value)) if v)
        if not any(re.search(r"\d", c.text) for c in cells):
            section = " ".join(named) or section
            continue
        rows.append(TableRow(" ".join(named), cells, section))
    header = tuple(tuple(Token(word, float(j), float(j) + 1) for j, cell in enumerate(line) for word in cell.split()) for line in structure.header)
    return Table(header, tuple(rows), structure.column_headings())


def _numbers(values: tuple[str, ...]) -> set[str]:
    out = set()
    for value in values:
        for part in re.split(r"[/,±]", value):
            number = _QUESTION_NUMBER.search(part.strip("()*†‡±~+"))
            if number:
                out.add(_number_key(number.group(1), number.group(2)))
    return out


def _number_key(digits: str, unit: str) -> str:
    return f"{float(digits):g}{unit.upper()}"


def _share(weights: list[float], chosen: list[int]) -> None:
    for i in chosen:
        weights[i] += 1.0 / len(chosen)


def _asked(question: str) -> set[str]:
    return {_number_key(m.group(1), m.group(2)) for m in _QUESTION_NUMBER.finditer(question)}


def _value_rows(question: str, rows: list[TableRow]) -> list[int]:
    asked = _asked(question)
    if not asked:
        return []
    return [i for i, row in enumerate(rows) if asked & _numbers(row.values)]


def _place_rows(question: str, rows: list[TableRow]) -> list[int]:
    match = _PLACE.search(question)
    if match is None or not rows:
        return []
    if match.group("second"):
        place = -2
    elif match.group("number"):
        place = int(match.group("number"))
    else:
        place = _ORDINALS[(match.group("word") or match.group("placed")).lower()]
    index = place - 1 if place > 0 else len(rows) + place
    return [index] if 0 <= index < len(rows) else []


def _named_rows(question: str, rows: list[TableRow]) -> list[tuple[int, int]]:
    """(row, where the question prints its name) for the rows the question names, by the place of the name."""
    forms = printed_forms(question.replace("-", " "))
    found = []
    lowered = question.lower()
    for i, row in enumerate(rows):
        key = normalise(row.label)
        if len(key) >= 2 and key in forms:
            found.append((lowered.find(row.label.split()[0].lower()), i))
    return [(i, at) for at, i in sorted(found)]


def _neighbour_rows(question: str, rows: list[TableRow]) -> list[int]:
    named = _named_rows(question, rows)
    if len(named) >= 2 and _BETWEEN.search(question):
        (first, _), (second, _) = named[0], named[1]
        low, high = sorted((first, second))
        return list(range(low + 1, high))
    if len(named) == 1:
        row, at = named[0]
        before = question[:at]
        if _ABOVE.search(before[-30:]):
            return [row - 1] if row > 0 else []
        if _BELOW.search(before[-30:]):
            return [row + 1] if row + 1 < len(rows) else []
    return []


def _first_number(value: str) -> float | None:
    match = re.search(r"\d+(?:\.\d+)?", value.replace(",", ""))
    return float(match.group()) if match and not value.startswith("-/") else None


def lower_is_better(heading: str) -> bool:
    """Whether a column's heading names something better low ("top-1 err.", "MAE ↓", "Params (M)"):
    an arrow says so outright, else a word of the heading does (`_LOWER_WORDS`)."""
    if "↑" in heading:
        return False
    return "↓" in heading or any(_LOWER_WORDS.match(w) for w in re.findall(r"[A-Za-z]+", heading))


def _heading_matches(heading: str, asked: set[str]) -> int:
    """How many words of a column's heading the question prints, whole ("top-1") or as the start of
    one of its words ("err." of "error", "Param." and "Params" of "parameters")."""
    found = 0
    for word in {normalise(w) for w in re.split(r"[\s/()]+", heading)} - {""}:
        start = word[:-1] if word.endswith("s") and len(word) > 4 else word  # "Params" starts "parameters"
        found += word in asked or (len(start) >= 3 and not start.isdigit() and any(a.startswith(start) for a in asked))
    return found


def _structured_column(question: str, table: Table) -> tuple[str, list[Token | None]] | None:
    """The column whose heading holds most of the question's words (at least one), with its cells."""
    asked = printed_forms(question.replace("-", " ")) | printed_forms(question)
    scored = [(_heading_matches(h, asked), j) for j, h in enumerate(table.headings) if h]
    best = max((s for s, _ in scored), default=0)
    for score, j in scored:
        cells = [next((c for c in row.cells if c.left == j), None) for row in table.rows]
        if score == best > 0 and any(c is not None and _first_number(c.text) is not None for c in cells):
            return table.headings[j], cells
    return None


def _block(question: str, table: Table, heading: str) -> set[int]:
    """The rows of the block the question names (module docstring); every row when it names none."""
    every = set(range(len(table.rows)))
    heading_forms = printed_forms(heading.replace("-", " ")) | printed_forms(heading)
    names = [w for w in re.findall(r"[A-Za-z][\w.+-]*\d[\w.+-]*|[A-Za-z]*[A-Z][\w.+-]*", question)
             if w.lower() not in _NOT_BLOCKS and len(normalise(w)) >= 2]
    chosen = every
    for name in names:
        form = normalise(name)
        if form in heading_forms:
            continue
        rows = {i for i, row in enumerate(table.rows)
                if form in printed_forms(f"{row.label} {row.section}".replace("-", " ")) | printed_forms(f"{row.name} {row.section}")}
        if rows and rows != every:
            chosen &= rows
    return chosen


def _extreme_rows(question: str, table: Table) -> list[int]:
    """The row ranking first (second, third) in the column the question names, among the rows of
    the block it names (`_block`) that stand for a cited paper."""
    match = _EXTREME.search(question)
    if match is None or not table.rows:
        return []
    if table.headings:
        found = _structured_column(question, table)
    else:
        column = table.column(printed_forms(question.replace("-", " ")) | printed_forms(question))
        found = (column[0].text, column[1]) if column else None
    if found is None:
        return []
    heading, cells = found
    block = _block(question, table, heading)
    # Where most rows of the block print their citation, a row printing none is the citing paper's own.
    cited = 2 * sum(bool(table.rows[n].cites) for n in block) >= len(block)
    numbers = [(n, v) for n, v in ((n, _first_number(cell.text)) for n, cell in enumerate(cells) if cell)
               if v is not None and n in block and not table.rows[n].own and (table.rows[n].cites or not cited)]
    way = match.group("way").lower()
    descending = way in _DESCENDING
    if way in ("best", "worst") and lower_is_better(heading):
        descending = not descending
    numbers.sort(key=lambda nv: -nv[1] if descending else nv[1])
    nth = {"second": 1, "third": 2}.get((match.group("nth") or "").lower(), 0)
    if nth >= len(numbers):
        return []
    value = numbers[nth][1]
    return [n for n, v in numbers if v == value]


def pointed_rows(question: str, table: Table) -> list[float]:
    """Per row of `table`: how strongly the question points at it (see module docstring)."""
    rows = list(table.rows)
    weights = [0.0] * len(rows)
    for chosen in (_value_rows(question, rows), _place_rows(question, rows), _neighbour_rows(question, rows), _extreme_rows(question, table)):
        if chosen:
            _share(weights, chosen)
    return weights


def pointed_names(question: str, table: Table) -> list[tuple[str, float]]:
    """The names the question points at, with how strongly: the labels of the rows it points at
    (`pointed_rows`); for a value it asks about in a row it names itself ("a score of 61.2 on BoolQ"
    in a table with a dataset per row and a method per column), the header word over that value."""
    asked = _asked(question)
    forms = printed_forms(question.replace("-", " "))
    names = []
    for weight, row in zip(pointed_rows(question, table), table.rows):
        if not weight:
            continue
        heads = [table.header_over(cell) for cell in row.cells if asked & _numbers((cell.text,))] if normalise(row.label) in forms else []
        found = [head for head in heads if head is not None]
        names += [(head.text, weight / len(found)) for head in found] if found else [(row.label, weight)]
    return names
