"""In-text citations linked to the bibliography: which references a passage, a sentence, a caption
or a table row cites.

Two printed forms are read:
- brackets: "[12]", "[3, 5–7]", "[DCLT19; Vas+17]", "[12, Sec. 3]" (parts that are no key of this
  bibliography are ignored; a bracket with a number that no reference has, such as the interval
  "[0, 1]", is not a citation);
- author-year: "(Devlin et al., 2019; Liu et al., 2019a)", "Devlin et al. (2019)", "Dai and Le
  (2015)", "Peters et al. (2018a,b)", matched on the first author's surname and the printed year.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace

from spiqa_demo.extraction.references import surname
from spiqa_demo.types import Figure, Passage, Reference

_BRACKET = re.compile(r"\[([^\[\]]{1,160})\]")
_RANGE = re.compile(r"^(\d{1,4})\s*[\u2013\u2014\-]\s*(\d{1,4})$")
_NAME = r"[A-Z][\w\u2019'\-]*[a-z][\w\u2019'\-]*"
_YEARS = r"(?:19|20)\d\d[a-z]?(?:\s*,\s*(?:(?:19|20)\d\d[a-z]?|[a-z])(?!\w))*"
_AUTHOR_YEAR = re.compile(
    rf"(?P<name>{_NAME})(?:\s+(?:and|&)\s+{_NAME}|\s+et\s+al\.?)?(?:\u2019s|'s)?\s*,?\s*\(?\s*(?P<years>{_YEARS})"
)
# The widest "[3-40]" range read as citing every reference in it.
_MAX_RANGE = 40


@dataclass(frozen=True)
class Marker:
    """One printed citation: its span in the text and the references it cites (indices)."""

    start: int
    end: int
    references: tuple[int, ...]


@dataclass(frozen=True)
class CitationIndex:
    """How the paper's citations name its references: printed labels ("12", "DCLT19") and
    (folded surname, year as printed) pairs, each to indices in `Paper.references`."""

    labels: dict[str, int]
    numbers: int  # the highest printed reference number
    author_years: dict[tuple[str, str], tuple[int, ...]]

    @classmethod
    def of(cls, references: list[Reference]) -> CitationIndex:
        labels: dict[str, int] = {}
        author_years: dict[tuple[str, str], list[int]] = {}
        for index, ref in enumerate(references):
            label = ref.key.strip().strip("[].").strip()
            if label and (label.isdigit() or not ref.key[:1].isalpha()):
                labels.setdefault(label, index)
                continue  # a labelled bibliography is cited by its labels
            year = _printed_year(ref)
            if ref.authors and year:
                author_years.setdefault((_fold(surname(ref.authors[0])), year), []).append(index)
        numbers = max((int(k) for k in labels if k.isdigit()), default=0)
        return cls(labels, numbers, {k: tuple(v) for k, v in author_years.items()})

    def cited(self, text: str) -> tuple[int, ...]:
        """The references `text` cites, in order of first citation."""
        found: dict[int, None] = {}
        for marker in self.markers(text):
            found.update(dict.fromkeys(marker.references))
        return tuple(found)

    def markers(self, text: str) -> list[Marker]:
        """Each citation printed in `text` that names references of this bibliography, with where it
        stands (the words just before a marker often name the cited method: "VGG-16 [41]")."""
        found: list[Marker] = []
        if self.labels and "[" in text:
            for m in _BRACKET.finditer(text):
                cited = tuple(dict.fromkeys(self._bracket(m.group(1))))
                if cited:
                    found.append(Marker(m.start(), m.end(), cited))
        if self.author_years:
            for m in _AUTHOR_YEAR.finditer(text):
                name = _fold(m.group("name"))
                years = [i for year in _years(m.group("years")) for i in self.author_years.get((name, year), ())]
                if years:
                    found.append(Marker(m.start(), m.end(), tuple(dict.fromkeys(years))))
        return found

    def _bracket(self, inside: str) -> list[int]:
        out: list[int] = []
        for part in re.split(r"[,;]", inside):
            part = part.strip()
            span = _RANGE.match(part)
            if span:
                lo, hi = int(span.group(1)), int(span.group(2))
                if not 0 < hi - lo <= _MAX_RANGE:
                    continue
                numbers = [str(n) for n in range(lo, hi + 1)]
            else:
                numbers = [part]
            for number in numbers:
                if number.isdigit() and number not in self.labels:
                    return []  # "[0, 1]", "[256]": a number no reference has, so not a citation
                if number in self.labels:
                    out.append(self.labels[number])
        return out


def link_citations(
    passages: list[Passage], items: list[Figure], references: list[Reference]
) -> tuple[list[Passage], list[Figure]]:
    """Copies of `passages` and `items` with their `citations` (and their mentions') filled in."""
    if not references:
        return passages, items
    index = CitationIndex.of(references)
    linked_passages = [replace(p, citations=index.cited(p.text)) for p in passages]
    linked_items = [
        replace(
            item,
            citations=index.cited(f"{item.caption}\n{item.text}"),
            mentions=[replace(m, citations=index.cited(m.sentence)) for m in item.mentions],
        )
        for item in items
    ]
    return linked_passages, linked_items


def _printed_year(ref: Reference) -> str:
    """The year as an author-year citation prints it ("2019a"), read from the key when it has one."""
    m = re.search(r"((?:19|20)\d\d[a-z]?)$", ref.key)
    if m:
        return m.group(1)
    return str(ref.year) if ref.year else ""


def _years(text: str) -> list[str]:
    """"2018a, b, 2019" -> ["2018a", "2018b", "2019"]."""
    out: list[str] = []
    for part in re.split(r"\s*,\s*", text):
        if len(part) == 1 and out:
            out.append(out[-1][:4] + part)
        elif part:
            out.append(part)
    return out


def _fold(name: str) -> str:
    """A surname compared without case and accents: "Güler" and "Guler" match."""
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower().replace("\u2019", "'")
