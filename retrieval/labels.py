"""Figure/table labels named in a question ("Table 3", "Fig. 2b", "TABLE II", "Figures 4 and 5").

A question that names an item by its printed label is asking about that item, whatever the
captions say, so `FigureIndex.search` ranks exact label hits first. Sub-figure letters map to
their figure ("Fig. 2b" -> figure 2), roman numerals to arabic ("Table II" -> table 2), appendix
numbers stay as printed ("Figure A1", "Table S2").
"""

from __future__ import annotations

import re

LabelKey = tuple[str, str]  # (kind, number) as in `spiqa_demo.types.Figure`

_KIND = r"(?P<kind>fig(?:ure)?s?|tab(?:le)?s?|tbl)\.?"
_NUMBER = r"(?:[A-Z]?\d+(?:\.\d+)?[a-z]?(?:\(\w\))?|[IVXL]+\b)"
_NUMBERS = rf"(?P<numbers>{_NUMBER}(?:\s*(?:,|and|&|or|-|–|to)\s*{_NUMBER})*)"
_LABEL = re.compile(rf"\b{_KIND}\s*{_NUMBERS}", re.IGNORECASE)
_ONE = re.compile(_NUMBER, re.IGNORECASE)
_RANGE = re.compile(rf"({_NUMBER})\s*(?:-|–|to)\s*({_NUMBER})", re.IGNORECASE)
_ROMAN = re.compile(r"^(?=[IVXL])L?X{0,3}(?:IX|IV|V?I{0,3})$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50}


def label_number(raw: str) -> str:
    """A printed number in `Figure.number` form: "2b" -> "2", "2(a)" -> "2", "II" -> "2", "A1" kept."""
    raw = raw.strip().rstrip(".")
    if _ROMAN.match(raw.upper()) and raw.isalpha():
        text, total = raw.upper(), 0
        for i, char in enumerate(text):
            value = _ROMAN_VALUES[char]
            following = _ROMAN_VALUES[text[i + 1]] if i + 1 < len(text) else 0
            total += -value if value < following else value
        return str(total)
    raw = re.sub(r"\(\w\)$", "", raw)
    if re.fullmatch(r"\d+[a-z]", raw):  # sub-figure letter
        raw = raw[:-1]
    return raw.upper() if raw[:1].isalpha() else raw


def find_label_refs(question: str) -> list[LabelKey]:
    """The (kind, number) items a question names, in order of appearance, without duplicates."""
    found: dict[LabelKey, None] = {}
    for match in _LABEL.finditer(question or ""):
        kind = "table" if match["kind"].lower().startswith("t") else "figure"
        numbers = match["numbers"]
        for start, end in _RANGE.findall(numbers):
            a, b = label_number(start), label_number(end)
            if a.isdigit() and b.isdigit() and 0 < int(b) - int(a) < 20:
                for n in range(int(a), int(b) + 1):
                    found[(kind, str(n))] = None
        raws = _ONE.findall(numbers)
        roman_style = raws[0].isalpha()
        for raw in raws:
            # "table i..." in running text is rarely a label; "Table 2 and I think" is not table 1.
            if raw.isalpha() and (not raw.isupper() or not roman_style):
                continue
            found[(kind, label_number(raw))] = None
    return list(found)
