"""The conventions of paper text: figure/table labels, sentences, arXiv ids and titles, written once.

Extraction (captions and the sentences that cite an item), SPIQA figure-file matching, retrieval
(labels a question names) and the UI (captions shown without their label) all read the same
printed conventions; they agree on what a label means only because they all parse it here.

Labels come in many printed styles: "Figure 3", "Fig. 3", "FIGURE 3", "Figs. 2 and 3", "Table IV"
(IEEE roman numerals), "Table A.1" / "Table A1" (appendix), "Figure S2" (supplementary),
"Figure 3b" / "Fig. 3(b)" (a panel of figure 3). Every style reduces to one canonical
`(kind, number)` key (`canonical_number`): roman numerals become arabic ("IV" -> "4"), an appendix
or supplementary letter is upper case and joined to its number ("A.1", "A 1", "a1" -> "A1"), a
sub-figure letter is dropped (a question about "Figure 3b" is about figure 3), and plain numbers
stay as printed ("3", "3.2").

Titles are compared as `normalise_title` gives them: what PDFs and bibliographies print differently
(ligatures, accents, case, punctuation, line-break hyphens) folded away. Text quoted where space is
short is cut by `one_line`.

This module is a leaf: it imports nothing from the rest of `spiqa_demo`, so `retrieval` may use it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Container
from dataclasses import dataclass
from typing import Literal

Kind = Literal["figure", "table"]
LabelKey = tuple[Kind, str]  # (kind, canonical number), as in `spiqa_demo.types.Figure`

# A printed number: appendix/supplementary ("A.1", "S2", "a1"), arabic ("3", "3.2") or roman
# ("IV"; upper case only: a lower-case "i" after "table" is running text far more often).
NUMBER = r"(?:[A-Z]\.?\s?\d+(?:\.\d+)?|[a-z]\d+|\d+(?:\.\d+)?|[IVXLC]+\b)"
# A sub-figure letter attached to the number: "3b", "3(b)", "3 (b)" (not the "a" of "and").
SUBFIGURE = r"(?:\s?\([a-z]\)|[a-z](?![A-Za-z]))"
# The words a caption opens with. Case matters: captions are typeset "Figure", "FIG." or "TABLE"
# ("FIG 1" without a period in the ASM journals), while a lower-case "figure 3 ..." opening a line is
# running text. A caption's number stands alone: "Figure 3b: ..." labels a panel, and in
# "Figure 3 (b) ..." the panel letter is caption text.
CAPTION_WORD = r"Figure|FIGURE|Fig\.|FIG\.|Fig|FIG|Table|TABLE|Tab\."
# The words that cite an item in running text or a question, any case, singular or plural.
_REFERENCE_WORD = r"(?i:fig(?:ure)?s?\.?|tab(?:le)?s?\.?|tbl\.?)"
_SEPARATOR = r"(?:,|and|&|or|to|\u2013|\u2014|-)"
_RANGE_DASH = r"(?:\u2013|\u2014|-|to)"
# The widest "Figures 2-N" range read as naming every item in it; wider spans are rarely labels.
MAX_RANGE = 19

_CAPTION_RE = re.compile(
    rf"^(?P<word>{CAPTION_WORD})\s*(?P<num>{NUMBER})(?=\W|$)\s*(?P<delim>[:.|\u2013\u2014-])?\s*(?P<rest>.*)$",
    re.DOTALL,
)
_REFERENCE_RE = re.compile(
    rf"\b(?P<word>{_REFERENCE_WORD})\s*"
    rf"(?P<numbers>{NUMBER}{SUBFIGURE}?(?:\s*{_SEPARATOR}\s*{NUMBER}{SUBFIGURE}?)*)"
)
_ONE_NUMBER = re.compile(NUMBER)
_RANGE = re.compile(rf"({NUMBER}){SUBFIGURE}?\s*{_RANGE_DASH}\s*({NUMBER})")
_SUBFIGURE_SUFFIX = re.compile(r"(?:\s?\([a-z]\)|(?<=\d)[a-z])$")
# A part bound after the paper that numbers from 1 again; its items' numbers take this prefix.
PART_PREFIX = "S"
_PART_WORD = re.compile(r"\b(?:supplement\w*|appendix|appendices)\b", re.IGNORECASE)
# A part word this many characters before a reference ("supplementary Table 3") or after it
# ("Table 3 in the supplementary material") qualifies it.
_PART_BEFORE = 20
_PART_AFTER = 30
_APPENDIX = re.compile(r"^([A-Za-z])\.?\s?(\d+(?:\.\d+)?)$")
# Up to 89: a lone "C" after "Table" is an appendix letter, not table 100.
_ROMAN = re.compile(r"^(?=[IVXL])(?:XL|L?X{0,3})(?:IX|IV|V?I{0,3})$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50}


def roman_to_int(text: str) -> int | None:
    """`"IV"` -> 4, `"XIV"` -> 14; None when `text` is not a well-formed upper-case roman numeral below 90."""
    if not _ROMAN.match(text):
        return None
    total = 0
    for char, following in zip(text, text[1:] + " "):
        value = _ROMAN_VALUES[char]
        total += -value if _ROMAN_VALUES.get(following, 0) > value else value
    return total


def canonical_number(printed: str) -> str:
    """A printed number in its one canonical form: "IV" -> "4", "A.1" -> "A1", "3(b)" -> "3"."""
    text = _SUBFIGURE_SUFFIX.sub("", printed.strip().rstrip("."))
    roman = roman_to_int(text)
    if roman is not None:
        return str(roman)
    appendix = _APPENDIX.match(text)
    return appendix[1].upper() + appendix[2] if appendix else text


def label_kind(word: str) -> Kind:
    """The kind a label word names: "Fig." / "FIGURES" -> figure, "Tab." / "tbl" -> table."""
    return "table" if word.lower().startswith("t") else "figure"


@dataclass(frozen=True)
class CaptionLabel:
    """The label a caption opens with, and the caption text after it."""

    kind: Kind
    word: str  # as printed: "Fig.", "TABLE"
    label: str  # as printed: "Fig. 3", "TABLE IV"
    printed_number: str  # as printed: "IV", "A.1"
    number: str  # canonical
    delimiter: str  # ":", ".", "|", a dash, or "" when none follows the label
    rest: str

    @property
    def is_running_text(self) -> bool:
        """"Figure 3 shows ..." reads on as a sentence: no delimiter, then a lower-case word."""
        return not self.delimiter and self.rest[:1].islower()


def parse_caption_label(text: str) -> CaptionLabel | None:
    """The label `text` opens with ("Figure 3:", "TABLE IV", "Table A.1."), or None."""
    m = _CAPTION_RE.match(text)
    if not m:
        return None
    return CaptionLabel(
        kind=label_kind(m["word"]),
        word=m["word"],
        label=text[: m.end("num")].strip(),
        printed_number=m["num"],
        number=canonical_number(m["num"]),
        delimiter=m["delim"] or "",
        rest=m["rest"],
    )


def strip_caption_label(caption: str) -> str:
    """The caption without its opening label ("Figure 3: Results" -> "Results").

    A caption that opens like running text ("Figure 3 shows ...") is returned whole.
    """
    caption = caption.strip()
    found = parse_caption_label(caption)
    return caption if found is None or found.is_running_text else found.rest.strip()


def part_name(text: str) -> str | None:
    """The part of a paper `text` names: "supplement" ("Supplementary Material"), "appendix", or None."""
    found = _PART_WORD.search(text or "")
    if found is None:
        return None
    return "appendix" if found[0].lower().startswith("append") else "supplement"


def part_qualified(refs: list[LabelKey], present: Container[LabelKey]) -> list[LabelKey]:
    """`refs` without the paper's item where the same reference names a part's item that exists
    ("Table 3 in the supplement" names S3, not also the paper's Table 3, when the supplement has one)."""
    return [(kind, n) for kind, n in refs if not (n.isdigit() and (kind, PART_PREFIX + n) in refs and (kind, PART_PREFIX + n) in present)]


def find_label_refs(text: str) -> list[LabelKey]:
    """The (kind, number) items a sentence or question names, in order of appearance, no duplicates.

    "Figs. 2 and 3(b)" -> figures 2 and 3; "Tables II-IV" -> tables 2, 3 and 4. A number qualified
    by a part ("Table 3 in the supplement", "supplementary Table 3") names that part's item first
    ("S3", see `PART_PREFIX`), then the paper's, which is what it names when numbering does not
    restart in the part.
    """
    found: dict[LabelKey, None] = {}
    for match in _REFERENCE_RE.finditer(text or ""):
        kind = label_kind(match["word"])
        numbers = match["numbers"]
        raws = _ONE_NUMBER.findall(numbers)
        around = text[max(0, match.start() - _PART_BEFORE) : match.end() + _PART_AFTER]
        if _PART_WORD.search(around):
            found.update(((kind, PART_PREFIX + n), None) for raw in raws if (n := canonical_number(raw)).isdigit())
        roman_style = raws[0].isalpha()
        for start, end in _RANGE.findall(numbers):
            a, b = canonical_number(start), canonical_number(end)
            if a.isdigit() and b.isdigit() and 0 < int(b) - int(a) <= MAX_RANGE:
                found.update(((kind, str(n)), None) for n in range(int(a), int(b) + 1))
        for raw in raws:
            # "Table 2 and I think" is not table 1: roman numerals only in a list that starts with one.
            if raw.isalpha() and not roman_style:
                continue
            found[(kind, canonical_number(raw))] = None
    return list(found)


# Clauses after ";" and ":" count as sentences: a caption's "Figure 3: Overview" then stands apart
# from its description, and a citing clause from the rest of a long sentence.
_SENTENCE_END = re.compile(r"(?<=[.;:!?])\s+(?=[A-Z(\[])")
# "Fig." / "e.g." / "et al." end with a period but not a sentence.
_ABBREVIATION = re.compile(
    r"(?:Figs?|Tabs?|Eqs?|Secs?|e\.g|i\.e|et al|cf|vs|resp|approx|No)\.$", re.IGNORECASE
)


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph or caption, not split after abbreviations such as "Fig." or "e.g."."""
    sentences: list[str] = []
    for part in _SENTENCE_END.split(text.strip()):
        if sentences and _ABBREVIATION.search(sentences[-1]):
            sentences[-1] = f"{sentences[-1]} {part}"
        elif part:
            sentences.append(part)
    return sentences


# New-style ids (0704.0001 onwards) and old-style ids (hep-th/9901001), optional version.
_ARXIV_ID = r"(?P<id>\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?P<version>v\d+)?(?!\d)"
_ARXIV_ANYWHERE = re.compile(rf"(?<![\w.]){_ARXIV_ID}", re.IGNORECASE)
_ARXIV_STAMP = re.compile(rf"arXiv:\s*{_ARXIV_ID}", re.IGNORECASE)
_ARXIV_ALONE = re.compile(rf"(?:arXiv:\s*)?{_ARXIV_ID}", re.IGNORECASE)


@dataclass(frozen=True)
class ArxivId:
    """An arXiv identifier: `id` without version ("1611.05742") and `version` ("v3" or "")."""

    id: str
    version: str

    def __str__(self) -> str:
        return self.id + self.version


def find_arxiv_id(text: str | None, *, stamped: bool = False, whole: bool = False) -> ArxivId | None:
    """The first arXiv id in `text` ("arXiv:1611.05742v3", an arxiv.org link, a file name).

    `stamped=True` accepts only an id written after "arXiv:" (the stamp on a paper's first page),
    since a page's text holds other number pairs that look like ids. `whole=True` accepts only text
    that is an id (after "arXiv:" or not) or an arxiv.org link: what a person types to mean a paper,
    so a file name that holds an id is not one.
    """
    text = (text or "").strip()
    if whole and "arxiv.org/" not in text.lower():
        m = _ARXIV_ALONE.fullmatch(text)
    else:
        m = (_ARXIV_STAMP if stamped else _ARXIV_ANYWHERE).search(text)
    return ArxivId(m["id"], m["version"] or "") if m else None


def normalise_arxiv_id(text: str | None) -> str | None:
    """`"arXiv:1611.05742v3"`, `"https://arxiv.org/abs/1611.05742"` -> `"1611.05742"`; None if absent."""
    found = find_arxiv_id(text)
    return found.id if found else None


def normalise_title(text: str | None) -> str:
    """Lower-case ASCII-folded words separated by single spaces ("Aˆ2-Nets:" -> "a 2 nets")."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text or "")).casefold()
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    folded = re.sub(r"(\w)-\s+(\w)", r"\1\2", folded)  # "convolu- tional" broken across lines
    return " ".join(re.sub(r"[^0-9a-z]+", " ", folded).split())


def one_line(text: str | None, limit: int) -> str:
    """`text` on one line (whitespace runs collapsed) and at most `limit` characters, an ellipsis
    marking a cut: how a caption, passage or reply is quoted where space is short."""
    line = " ".join((text or "").split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
