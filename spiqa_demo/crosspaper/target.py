"""The cited paper a question names as the one it means: "the paper that proposed CBAM".

Stage 1 counts the names a question spells out against a candidate, since benchmark questions name
comparison points ("better than X"). A reader who knows which paper they mean says so instead:
"In the paper that proposed CBAM, ...", "in CBAM's paper", "the original ResNet paper", "the paper
introducing the non-local block". `named_target` returns that phrase, so its names count for the
candidate and not against it. Only a phrase that reads as a name counts (a capitalised or
hyphenated word, an acronym, a word with digits): "the paper that proposed the method with the best
score" names nothing, so the question ranks as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_VERB = r"(?:first\s+)?(?:propos|introduc|present|describ|defin|develop|inven)(?:ed|es|e|ing)"
_PAPER = r"(?:paper|work|article|study|publication)"
_PHRASE = r"(?P<target>[^,.;:?!()]{1,80})"
_PATTERNS = (
    re.compile(rf"\b{_PAPER}\s+(?:that|which|who)\s+(?:has\s+|had\s+)?{_VERB}\s+{_PHRASE}", re.IGNORECASE),
    re.compile(rf"\b{_PAPER}\s+{_VERB}\s+{_PHRASE}", re.IGNORECASE),
    re.compile(rf"\b{_PAPER}\s+(?:on|of|about|behind)\s+{_PHRASE}", re.IGNORECASE),
    re.compile(r"\b(?:the\s+)?(?:original\s+)?(?P<target>[\w\-+.]+)(?:'s|’s)?\s+paper\b", re.IGNORECASE),
)
# Where a named target ends: a clause or a comparison begins.
_END = re.compile(
    r"\s+(?:that|which|who|where|when|with|in|on|for|to|and|or|is|are|was|were|do|does|did|has|have|"
    r"achiev\w*|perform\w*|show\w*|report\w*|us(?:e|es|ed|ing))\b.*$",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^(?:the|a|an|its|their|this|that)\s+", re.IGNORECASE)
_NOT_NAMES = {"the", "a", "an", "this", "that", "which", "cited", "original", "same", "first", "second", "third", "last"}


@dataclass(frozen=True)
class NamedTarget:
    """The phrase naming the paper meant, and its place in the question (`start`, `end`)."""

    text: str
    start: int
    end: int

    @property
    def names(self) -> str:
        """The phrase's words that read as names ("non-local" of "the non-local block"): what
        identifies the paper, where "block" or "network" would match any title."""
        return " ".join(w for w in self.text.split() if w.lower() not in _NOT_NAMES and _reads_as_name(w))


def _reads_as_name(word: str) -> bool:
    letters = re.sub(r"[^A-Za-z]", "", word)
    if len(letters) < 2 and not re.search(r"\d", word):
        return False
    return word[0].isupper() or "-" in word.strip("-") or any(ch.isdigit() for ch in word) or letters.isupper()


def named_target(question: str) -> NamedTarget | None:
    """The first phrase that names the paper the question means, when it reads as a name."""
    for pattern in _PATTERNS:
        for match in pattern.finditer(question):
            raw = _END.sub("", match.group("target")).strip()
            phrase = _LEAD.sub("", raw).strip()
            words = [w for w in phrase.split() if w.lower() not in _NOT_NAMES]
            if words and any(_reads_as_name(w) for w in words):
                start = match.start("target") + match.group("target").find(phrase)
                return NamedTarget(phrase, start, start + len(phrase))
    return None


def without_target(question: str, target: NamedTarget | None) -> str:
    """The question without the named target, wherever it prints it ("In Table 2, CBAM ... the paper
    that proposed CBAM"): the names it still prints are comparison points."""
    if target is None:
        return question
    return re.sub(rf"(?<!\w){re.escape(target.text)}(?!\w)", " ", question, flags=re.IGNORECASE)
