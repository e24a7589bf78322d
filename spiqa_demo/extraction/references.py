"""The bibliography of a paper: where it starts and ends, how it splits into entries, what each says.

The stage works on text rows already read by the layout pass (no second parse of the PDF):
`page_rows` keeps each page's printed lines in reading order, column by column, with the pieces
PyMuPDF splits off one baseline joined ("[1]" and its text, "Everingham, et al." and "2010.").
`find_references` then

- finds the section: a "References" / "Bibliography" heading (numbered, upper case, letter-spaced
  small capitals), or, with no heading, a run of "[1]", "[2]" labels; it ends at the next heading
  (an appendix) or the end of the paper, so entries that run across columns and pages stay whole;
- splits it into entries by the style it is printed in: numbered ("[12]", "12."), alphabetic keys
  ("[DCLT19]"), or author-year with no label, where an entry starts at the column's left edge under
  a hanging indent, or after a wider gap between rows when there is no indent;
- parses each entry (`parse_entry`): authors, year, title, venue, arXiv id, DOI and URL, from the
  common layouts: "Authors. Title. Venue, year." (CVPR, NeurIPS), "Authors. Year. Title. Venue."
  (ACL, ACM, AAAI), 'Authors, "Title," in Venue, year.' (IEEE) and "Authors: Title. In: Venue
  (year)" (Springer LNCS).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise

from spiqa_demo.extraction.layout import ClassifiedPage, DocumentLayout, Line, join_lines
from spiqa_demo.paper_text import find_arxiv_id
from spiqa_demo.types import Reference

_HEADING_WORDS = {"references", "bibliography", "literaturecited", "workscited", "referencesandnotes"}
_HEADING_NUMBER = re.compile(r"^(?:\d{1,2}\.?|[IVX]{1,5}\.)\s*")
_APPENDIX_HEADING = re.compile(r"^(?:Appendix|APPENDIX|Appendices|APPENDICES|Supplementary|SUPPLEMENTARY)\b")
_BRACKET_NUMBER = re.compile(r"^\[(\d{1,4})\]\s*")
_DOTTED_NUMBER = re.compile(r"^(\d{1,4})\.\s+(?=\S)")
_BRACKET_KEY = re.compile(r"^\[([A-Za-z][\w+\-.]{0,14}\d{2}[a-z]?)\]\s*")
_YEAR = re.compile(r"(?<![\d/.:\-\u2013])((?:19|20)\d\d)([a-z])?(?![\d\-\u2013])")
_TRAILING_YEAR = re.compile(r"^(?P<head>.*?)[,.]?\s+\(?(?P<year>(?:19|20)\d\d[a-z]?)\)?$")
_BACK_REFERENCES = re.compile(r"\s+\d{1,3}(?:,\s*\d{1,3})*$")
_LONE_YEAR = re.compile(r"^\(?(?:19|20)\d\d[a-z]?\)?$")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s,;]+)")
_URL = re.compile(r"\bhttps?://[^\s,;]+|\bwww\.[^\s,;]+")
_QUOTED = re.compile(r"[\u201c\u201d\"](?P<title>[^\u201c\u201d\"]{4,}?)[,.]?[\u201d\"]")
# An author list printed "Surname, I.: Title" (Springer LNCS).
_LNCS_AUTHORS = re.compile(r"^(?P<authors>[^:\u201c\"]{2,600}?(?:\b[A-Z]\.|et al\.)):\s+(?P<rest>.+)$")
# A token that ends an author's name without ending the author list: an initial ("J.", "L.J.",
# "J.-M."), or an abbreviation a venue uses.
_NO_BREAK_BEFORE = re.compile(
    r"(?:^|[\s(\-.])(?:[A-Z]|[A-Z][a-z]?\.-?[A-Z]|Proc|Conf|Int|Intl|Trans|Comput|Vol|vol|No|no|pp|Jr|Sr|St|Dr|Eds?|eds?|Inc|Univ|Dept|Symp|Mach|Intell|Anal|Vis|Res|Lett|Rev|Sci|Stat|Math|Phys|Appl|Eng|Assoc|Ling|Process|Syst|Netw|Learn|Mag|J|e\.g|i\.e|cf|vs|Fig|Sec|Eq)\.$"
)
_INITIALS = re.compile(r"^(?:[A-Z]\.?[\s\-]*){1,4}$")
_NOT_NAMES = re.compile(r"\b(?:and others|et al\.?)\s*$")
_AUTHOR_SPLIT = re.compile(r"\s*;\s*(?:and\s+)?|\s*,\s*(?:and\s+|&\s+)?|\s+and\s+|\s+&\s+")
_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"})
# Spacing accents PyMuPDF leaves next to the letter they belong to ("G\u00a8uler" for "Güler").
_SPACING_ACCENTS = {"\u00b4": "\u0301", "\u00a8": "\u0308", "`": "\u0300", "\u02c6": "\u0302", "\u02dc": "\u0303", "\u02c7": "\u030c"}
_ACCENTED = re.compile(f"([{''.join(_SPACING_ACCENTS)}])\\s?([A-Za-z\u0131])")  # "\u0131": a dotless i under the accent
_PARTICLES = {"van", "von", "de", "del", "della", "der", "den", "di", "da", "dos", "du", "le", "la"}

# -- rows (`page_rows`) --------------------------------------------------------------------------
# A row reaching this far (pt) into the running header's or footer's bound is part of it.
_MARGIN_SLACK = 0.5
# A row starting this far (pt) left of a column's edge is still in that column.
_COLUMN_SLACK = 10
# Pieces of one row overlap vertically by more than this share of the shorter piece.
_SAME_ROW = 0.5

# -- the section (`find_references`) -------------------------------------------------------------
# A bibliography heading is at most this many characters.
_MAX_HEADING_CHARS = 40
# The section's font size is the most common over its first this many rows; a row more than this
# many points off it is not an entry's, and a bold row of at most this many words without a label
# is the next heading.
_SIZE_SAMPLE_ROWS = 40
_SIZE_SLACK = 1.5
_HEADING_MAX_WORDS = 12

# -- entries (`_split_entries`) ------------------------------------------------------------------
# A label style is the section's when at least this many rows, and this share of them, open with it.
_MIN_LABELS = 2
_MIN_LABEL_SHARE = 0.1
# Continuation rows of labelled entries start within this many points of where most do.
_CONTINUATION_SLACK = 3
# Numbered entries run in order: the next may skip at most this many numbers, and the first one
# found is numbered at most this.
_MAX_SKIPPED = 2
_MAX_FIRST_NUMBER = 3
# A hanging indent (pt, the range it is looked for in) set on at least this share of rows; rows at
# the column's edge or at the indent, give or take this many points, belong to entries.
_HANGING_INDENT = (4, 30)
_MIN_HANGING_SHARE = 0.15
_INDENT_SLACK = 2
# With neither labels nor indent, the line pitch is the smallest of the most common few pitches
# (compared in steps of 1 / `_PITCH_STEPS` pt, up to this many font sizes), and a gap over this many
# pitches starts an entry.
_PITCH_STEPS = 2
_PITCH_CANDIDATES = 3
_MAX_PITCH = 3
_ENTRY_GAP = 1.12

# -- one entry (`parse_entry`) -------------------------------------------------------------------
# Bounds on what is parsed: an entry's characters, an author list's characters, a name's words
# (longer text is not an entry or not names: a paragraph swallowed by the section).
_MAX_ENTRY_CHARS = 2000
_MAX_AUTHORS_CHARS = 1500
_MAX_NAME_WORDS = 6
# An author-year citation names this many authors or more as "First et al.".
_ET_AL_AUTHORS = 3


@dataclass(frozen=True)
class Row:
    """One printed line of a page (pieces on one baseline joined), as the bibliography reads it."""

    page: int
    column: int
    text: str
    x0: float
    y0: float
    y1: float
    size: float
    bold: bool


def page_rows(page: ClassifiedPage, doc: DocumentLayout) -> list[Row]:
    """The page's text rows between its running header and footer, in reading order; rows keep no
    glyph runs, so the page itself can be dropped after this."""
    lefts = [left for left, _ in doc.columns]
    pieces: list[tuple[int, Line]] = []
    for line in page.lines:
        if line.y1 <= page.header_bottom + _MARGIN_SLACK or line.y0 >= page.footer_top - _MARGIN_SLACK:
            continue
        column = max(0, sum(1 for left in lefts if line.x0 >= left - _COLUMN_SLACK) - 1)
        pieces.append((column, line))
    pieces.sort(key=lambda p: (p[0], p[1].y0, p[1].x0))
    rows: list[Row] = []
    group: list[tuple[int, Line]] = []
    for column, line in pieces:
        if group and (group[0][0] != column or not _same_row(group[0][1], line)):
            rows.append(_row(page.number, group))
            group = []
        group.append((column, line))
    if group:
        rows.append(_row(page.number, group))
    return rows


def _same_row(a: Line, b: Line) -> bool:
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    return overlap > _SAME_ROW * min(a.y1 - a.y0, b.y1 - b.y0)


def _row(page: int, group: list[tuple[int, Line]]) -> Row:
    lines = sorted((line for _, line in group), key=lambda ln: ln.x0)
    main = max(lines, key=lambda ln: len(ln.text))
    return Row(
        page=page,
        column=group[0][0],
        text=" ".join(ln.text for ln in lines),
        x0=lines[0].x0,
        y0=min(ln.y0 for ln in lines),
        y1=max(ln.y1 for ln in lines),
        size=main.size,
        bold=all(s.bold for ln in lines for s in ln.spans) and any(ln.spans for ln in lines),
    )


def find_references(rows: list[Row]) -> list[Reference]:
    """The bibliography's entries, parsed; empty when the paper prints none."""
    starts = [i + 1 for i, row in enumerate(rows) if _is_bibliography_heading(row.text)]
    if not starts:
        starts = _unheaded_starts(rows)
    best: list[Reference] = []
    for start in starts:
        references = _parse_section(_section(rows, start))
        if len(references) > len(best):
            best = references
    return best


def _is_bibliography_heading(text: str) -> bool:
    if len(text) > _MAX_HEADING_CHARS:
        return False
    bare = re.sub(r"\s+", "", _HEADING_NUMBER.sub("", text.strip())).lower()
    return bare in _HEADING_WORDS


def _unheaded_starts(rows: list[Row]) -> list[int]:
    """Where a bibliography printed without a heading starts: a "[1]" row followed by a "[2]" row."""
    labels = [(i, m.group(1)) for i, row in enumerate(rows) if (m := _BRACKET_NUMBER.match(row.text))]
    return [i for (i, n), (_, following) in pairwise(labels) if n == "1" and following == "2"]


def _section(rows: list[Row], start: int) -> list[Row]:
    """The rows from `start` up to the next heading, in the section's own font size."""
    head = rows[start : start + _SIZE_SAMPLE_ROWS]
    if not head:
        return []
    size = Counter(round(r.size) for r in head).most_common(1)[0][0]
    out: list[Row] = []
    for row in rows[start:]:
        if row.size > size + _SIZE_SLACK or _APPENDIX_HEADING.match(row.text) or _is_bibliography_heading(row.text):
            break
        if row.bold and len(row.text.split()) <= _HEADING_MAX_WORDS and not _label(row.text) and out:
            break
        if abs(row.size - size) <= _SIZE_SLACK:
            out.append(row)
    return out


def _label(text: str) -> tuple[str, str] | None:
    """The printed label a row opens with: ("number", "12"), ("dotted", "12") or ("key", "DCLT19")."""
    for style, pattern in (("number", _BRACKET_NUMBER), ("dotted", _DOTTED_NUMBER), ("key", _BRACKET_KEY)):
        m = pattern.match(text)
        if m:
            return style, m.group(1)
    return None


def _parse_section(rows: list[Row]) -> list[Reference]:
    if not rows:
        return []
    references = [(key, parse_entry(text, key, page)) for key, text, page in _split_entries(rows) if text]
    # An author-year entry always prints its year (it is how the paper cites it); text without one
    # is not an entry (a caption or table that follows the bibliography on its last page).
    return [ref for key, ref in references if key or ref.year is not None]


def _split_entries(rows: list[Row]) -> list[tuple[str, str, int]]:
    """(printed key, text, page) of each entry, by the labelled style the section uses, else by layout.

    Rows indented unlike the entries' own rows (an author's biography beside a photo, a table on the
    last page) are left out: an entry's rows start at the column's left edge (or with its label) and
    continue at one indent.
    """
    labels = Counter(label[0] for row in rows if (label := _label(row.text)))
    style = next((s for s in ("number", "dotted", "key") if labels[s] >= max(_MIN_LABELS, _MIN_LABEL_SHARE * len(rows))), None)
    if style is not None:
        starts = [(label := _label(row.text)) is not None and label[0] == style for row in rows]
        # Continuation rows sit where the row after a label row does (labels may be right-aligned,
        # so the label's own position says little).
        follow: dict[tuple[int, int], Counter[int]] = {}
        for (a, a_start), (b, b_start) in zip(zip(rows, starts), zip(rows[1:], starts[1:])):
            if a_start and not b_start and (a.page, a.column) == (b.page, b.column):
                follow.setdefault((b.page, b.column), Counter())[round(b.x0)] += 1
        keep = [
            start or (run := follow.get((row.page, row.column))) is None or abs(row.x0 - run.most_common(1)[0][0]) <= _CONTINUATION_SLACK
            for row, start in zip(rows, starts)
        ]
        return _split_labelled([r for r, k in zip(rows, keep) if k], style)
    lefts = _run_lefts(rows)
    indents = [round(row.x0 - lefts[(row.page, row.column)]) for row in rows]
    least, most = _HANGING_INDENT
    hanging = Counter(d for d in indents if least <= d <= most).most_common(1)
    if hanging and hanging[0][1] >= _MIN_HANGING_SHARE * len(rows):
        indent = hanging[0][0]
        kept = [(r, d <= _INDENT_SLACK) for r, d in zip(rows, indents) if d <= _INDENT_SLACK or abs(d - indent) <= _INDENT_SLACK]
        return _group([r for r, _ in kept], [start for _, start in kept])
    return _group(rows, _gap_starts(rows))


def _split_labelled(rows: list[Row], style: str) -> list[tuple[str, str, int]]:
    """Entries start at rows that open with a label of `style`; numbers must run in order, so a
    continuation row that opens with a number ("2018. Contextual ...") stays in its entry."""
    entries: list[tuple[str, list[str], int]] = []
    expected = 1
    for row in rows:
        label = _label(row.text)
        starts = label is not None and label[0] == style
        if starts and style != "key" and label is not None:
            number = int(label[1])
            starts = expected <= number <= expected + _MAX_SKIPPED or (not entries and number <= _MAX_FIRST_NUMBER)
            if starts:
                expected = number + 1
        if starts:
            printed = row.text[: _match_end(row.text, style)].strip()
            entries.append((printed, [row.text[len(printed) :].strip()], row.page))
        elif entries:
            entries[-1][1].append(row.text)
    return [(key, join_rows(lines), page) for key, lines, page in entries]


def _match_end(text: str, style: str) -> int:
    pattern = {"number": _BRACKET_NUMBER, "dotted": _DOTTED_NUMBER, "key": _BRACKET_KEY}[style]
    m = pattern.match(text)
    return m.end() if m else 0


def _gap_starts(rows: list[Row]) -> list[bool]:
    """With no label and no hanging indent, entries are set apart by a wider gap than the line pitch
    inside one; a new column or page starts an entry when the previous row ended a sentence."""
    pitches = Counter(
        round(_PITCH_STEPS * (b.y0 - a.y0)) / _PITCH_STEPS
        for a, b in pairwise(rows)
        if (a.page, a.column) == (b.page, b.column) and 0 < b.y0 - a.y0 < _MAX_PITCH * a.size
    )
    pitch = min(p for p, _ in pitches.most_common(_PITCH_CANDIDATES)) if pitches else 0.0
    starts = []
    for i, row in enumerate(rows):
        previous = rows[i - 1] if i else None
        if previous is None:
            starts.append(True)
        elif (previous.page, previous.column) == (row.page, row.column):
            starts.append(row.y0 - previous.y0 > _ENTRY_GAP * pitch)
        else:
            starts.append(previous.text.rstrip().endswith("."))
    return starts


def _group(rows: list[Row], starts: list[bool]) -> list[tuple[str, str, int]]:
    entries: list[tuple[list[str], int]] = []
    for row, start in zip(rows, starts):
        if start or not entries:
            entries.append(([row.text], row.page))
        else:
            entries[-1][0].append(row.text)
    return [("", join_rows(lines), page) for lines, page in entries]


def _run_lefts(rows: list[Row]) -> dict[tuple[int, int], float]:
    """The left edge of each (page, column) the section runs through."""
    lefts: dict[tuple[int, int], float] = {}
    for row in rows:
        key = (row.page, row.column)
        lefts[key] = min(lefts.get(key, row.x0), row.x0)
    return lefts


def join_rows(rows: list[str]) -> str:
    """An entry's rows as one string (`layout.join_lines`), accents joined to their letters and
    ligatures spelled out, as names and titles are compared letter by letter."""
    return _fix_accents(join_lines(rows)).translate(_LIGATURES)


def _fix_accents(text: str) -> str:
    """Join spacing accents to their letter: "G\u00a8uler" -> "Güler", "Mart\u00b4\u0131n" -> "Martín"."""
    if not any(ch in text for ch in _SPACING_ACCENTS):
        return text
    return _ACCENTED.sub(
        lambda m: unicodedata.normalize("NFC", ("i" if m.group(2) == "\u0131" else m.group(2)) + _SPACING_ACCENTS[m.group(1)]),
        text,
    )


# -- one entry -----------------------------------------------------------------------------------


def parse_entry(text: str, key: str = "", page: int = 0) -> Reference:
    """A `Reference` from an entry's text; `key` is its printed label ("" for author-year entries,
    whose key is formed from the first authors and the year)."""
    text = " ".join(text.split())[:_MAX_ENTRY_CHARS]
    doi_match = _DOI.search(text)
    doi = doi_match.group(1).rstrip(".") if doi_match else None
    url_match = _URL.search(text)
    url = url_match.group(0).rstrip(".") if url_match else None
    plain = _DOI.sub(" ", _URL.sub(" ", text))
    arxiv = find_arxiv_id(plain)
    if arxiv is not None:
        plain = plain.replace(str(arxiv), " ")
    authors_text, printed_year, title, venue = _fields(text)
    year_token = printed_year or _last_year(plain)
    authors = _authors(authors_text)
    et_al = bool(_NOT_NAMES.search(authors_text))
    return Reference(
        key=key or _author_year_key(authors, et_al, year_token),
        text=text,
        title=title,
        authors=tuple(authors),
        year=int(year_token[:4]) if year_token else None,
        venue=venue,
        arxiv_id=str(arxiv) if arxiv else None,
        doi=doi,
        url=url,
        page=page,
    )


def _fields(text: str) -> tuple[str, str, str, str]:
    """(authors, year printed after the authors or "", title, venue) of an entry."""
    quoted = _QUOTED.search(text)
    if quoted and quoted.start() > 0:
        authors = text[: quoted.start()].strip().rstrip(",")
        return authors, "", _clean_title(quoted.group("title")), _venue(text[quoted.end() :])
    lncs = _LNCS_AUTHORS.match(text)
    if lncs and "," in lncs.group("authors"):
        segments = _segments(lncs.group("rest"))
        return lncs.group("authors"), "", _title(segments), _venue(" ".join(segments[1:2]))
    segments = _segments(text)
    authors, year = segments[0], ""
    trailing = _TRAILING_YEAR.match(authors)
    if trailing and len(segments) > 1:
        authors, year = trailing.group("head"), trailing.group("year")
    rest = segments[1:]
    if rest and _LONE_YEAR.match(rest[0]):
        year, rest = rest[0].strip("()"), rest[1:]
    return authors, year, _title(rest), _venue(" ".join(rest[1:2]))


def _segments(text: str) -> list[str]:
    """The entry cut at sentence ends: ". " not after an initial or abbreviation, and "? " or "! "
    before a capital or "arXiv" (a title may ask a question: "Quo vadis, action recognition? a new
    model ...")."""
    out: list[str] = []
    start = 0
    for m in re.finditer(r"[.?!]\s+", text):
        end = m.start() + 1
        head = text[start:end]
        following = text[m.end() :]
        if m.group(0)[0] == ".":
            if _NO_BREAK_BEFORE.search(head) or (head.endswith("al.") and not following[:1].isupper()):
                continue
        elif not (following[:1].isupper() or following.lower().startswith("arxiv")):
            continue
        out.append(head.strip().rstrip(".").strip())
        start = m.end()
    tail = text[start:].strip().rstrip(".").strip()
    if tail:
        out.append(tail)
    return out or [text]


def _title(segments: list[str]) -> str:
    """The first segment; when it runs to the end of the entry, without the page numbers some
    styles print there for where the paper cites the entry ("... from tiny images 1")."""
    if not segments:
        return ""
    if len(segments) == 1:
        return _clean_title(_BACK_REFERENCES.sub("", segments[0]))
    return _clean_title(segments[0])


def _clean_title(title: str) -> str:
    """The title without surrounding punctuation or a year printed after it ("Detectron, 2018")."""
    return re.sub(r",\s*(?:19|20)\d\d[a-z]?$", "", title.strip().strip(",.").strip())


def _venue(text: str) -> str:
    """The venue: the text after the title, without "In"/"in", editors, year and pages."""
    venue = re.sub(r"^\s*(?:[Ii]n:?\s+)", "", text.strip().lstrip(",").strip())
    venue = re.split(r",?\s*(?:pp\.|pages\s|\(?(?:19|20)\d\d\b)", venue)[0]
    return venue.strip().strip(",.").strip()


def _last_year(text: str) -> str:
    """The last year printed in an entry ("2019", or "2019a" with the letter that tells apart one
    author's papers of one year), ignoring page ranges."""
    years = [m.group(1) + (m.group(2) or "") for m in _YEAR.finditer(text)]
    return years[-1] if years else ""


def _authors(text: str) -> list[str]:
    """Names from an author list: "A. Smith, B. Jones, and C. Lee", "Smith, A., Jones, B.",
    "Smith, A.; Jones, B.; and Lee, C."; empty when the text does not read as names."""
    text = _NOT_NAMES.sub("", text).strip().rstrip(",;.")
    if not text or len(text) > _MAX_AUTHORS_CHARS:
        return []
    names: list[str] = []
    for token in _AUTHOR_SPLIT.split(text):
        token = token.strip().rstrip(".") if not _INITIALS.match(token.strip()) else token.strip()
        if not token:
            continue
        if names and _INITIALS.match(token) and "," not in names[-1]:
            names[-1] = f"{names[-1]}, {token}"  # "Deng, J." printed surname first
        else:
            names.append(token)
    if any(len(name.split()) > _MAX_NAME_WORDS or not (name[:1].isupper() or name.split()[0] in _PARTICLES) for name in names):
        return []
    return names


def surname(name: str) -> str:
    """The family name of an author as printed: "Smith, J." -> "Smith", "Jacob Devlin" -> "Devlin"."""
    if "," in name:
        return name.split(",")[0].strip()
    words = [w for w in name.split() if w.rstrip(".") not in ("Jr", "Sr", "II", "III")]
    return words[-1] if words else ""


def _author_year_key(authors: list[str], et_al: bool, year: str) -> str:
    """The citation an author-year paper prints for this entry: "Devlin et al., 2019"."""
    names = [surname(a) for a in authors[:_ET_AL_AUTHORS]]
    if not names or not year:
        return ""
    if len(authors) >= _ET_AL_AUTHORS or et_al:
        who = f"{names[0]} et al."
    elif len(authors) == 2:
        who = f"{names[0]} and {names[1]}"
    else:
        who = names[0]
    return f"{who}, {year}"
