"""Names a cited paper goes by (method, model, dataset), and whether a text prints them.

Figures and tables print short names ("TFN", "LLaMA-30B", "MolXPT"); titles and abstracts define
them. A candidate's names come from:
- the names the anchor paper prints just before citing it ("VGG-16 [41]"), weight 1;
- the title's lead before a colon ("MolXPT: Wrapping Molecules ..." -> MolXPT), weight 1;
- acronyms its abstract defines in parentheses ("Tensor Fusion Network (TFN)"), weight 1;
- initials of capitalised runs in the title ("Tensor Fusion Network" -> TFN), weight 0.7;
- distinctive words of the title or abstract: mixed case or with digits ("LLaMA", "GPT-3"), 0.5.
Names are compared normalised (lower case, letters and digits only); a printed token matches a
name when equal, or when it extends the name by a version or size ("llama30b" for "llama",
"gpt35turbo" for "gpt3"). A name many candidates share counts for less (divided by how many).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise

from spiqa_demo.crosspaper.types import CitedCandidate

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-\.']*[A-Za-z0-9]|[A-Za-z0-9]")
_PAREN = re.compile(r"\(([A-Za-z][A-Za-z0-9\-\.]{1,15})(?:[,;][^)]*)?\)")
# Short names that are ordinary words: never treated as a paper's name.
_COMMON = {
    "a", "an", "and", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on", "or", "the", "to", "we",
    "with", "all", "are", "can", "do", "does", "how", "its", "large", "language", "model", "models", "learning",
    "deep", "neural", "network", "networks", "data", "dataset", "towards", "toward", "what", "when", "you", "your",
    "need", "not", "new", "one", "two", "via", "using", "attention", "improving", "beyond", "making",
}
MIN_NAME = 2
# Names a candidate defines (alias, title lead, acronym, initials) rather than merely mentions.
DEFINED = 0.7


def normalise(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def distinctive(word: str) -> bool:
    """Mixed case after the first letter ("LLaMA", "RoBERTa", "XLNet"), or letters with digits ("T5")."""
    letters = re.sub(r"[^A-Za-z]", "", word)
    if not letters:
        return False
    inner_upper = any(ch.isupper() for ch in letters[1:])
    return inner_upper or (bool(re.search(r"\d", word)) and len(letters) >= 1 and word[0].isalpha())


def _initials(title: str) -> list[str]:
    """Initials of each run of two or more capitalised words (hyphenated words give each part);
    runs are cut at lower-case words ("Tensor Fusion Network for ..." -> TFN)."""
    out: list[str] = []
    run: list[str] = []
    for word in re.findall(r"[A-Za-z][A-Za-z\-]*", title) + ["."]:
        if word[0].isupper():
            run.extend(part[0].upper() for part in word.split("-") if part)
            continue
        if len(run) >= 2:
            out.append("".join(run))
        run = []
    return out


def candidate_names(candidate: CitedCandidate) -> dict[str, float]:
    """Normalised name -> weight (see module docstring)."""
    names: dict[str, float] = {}

    def add(name: str, weight: float) -> None:
        key = normalise(name)
        if len(key) >= MIN_NAME and key not in _COMMON and not key.isdigit():
            names[key] = max(names.get(key, 0.0), weight)

    title, abstract = candidate.title, candidate.abstract
    for alias in candidate.aliases:
        add(alias, 1.0)
    if ":" in title:
        lead = title.split(":", 1)[0].strip()
        if 0 < len(lead.split()) <= 3:
            add(lead, 1.0)
    for match in _PAREN.finditer(f"{title} {abstract}"):
        word = match.group(1)
        if any(ch.isupper() for ch in word):
            add(word, 1.0)
    for acronym in _initials(title):
        if len(acronym) <= 6:
            add(acronym, 0.7)
    for word in _WORD.findall(f"{title} {abstract}"):
        if distinctive(word):
            add(word, 0.5)
    return names


def printed_forms(text: str) -> set[str]:
    """Normalised single tokens and adjacent pairs of `text` ("Llama 2" -> "llama2")."""
    tokens = [normalise(t) for t in re.split(r"[\s/|,;()\[\]{}]+", text)]
    tokens = [t for t in tokens if t]
    return set(tokens) | {a + b for a, b in pairwise(tokens)}


def _stems(forms: set[str]) -> set[str]:
    """The forms and each form cut before a digit ("llama30b" -> "llama", "gpt35turbo" -> "gpt3", "gpt")."""
    out = set(forms)
    for form in forms:
        out.update(form[:i] for i in range(3, len(form)) if form[i].isdigit())
    return out


@dataclass(frozen=True)
class NameMatcher:
    """Names of a set of candidates, with how many candidates share each name."""

    names: tuple[dict[str, float], ...]
    shared: Counter

    @classmethod
    def build(cls, candidates: list[CitedCandidate]) -> NameMatcher:
        names = tuple(candidate_names(c) for c in candidates)
        return cls(names=names, shared=Counter(n for per in names for n in per))

    def scores(self, text: str, min_weight: float = 0.0) -> list[float]:
        """Per candidate: the sum of weight / sharers over its names of at least `min_weight` that `text` prints."""
        forms = _stems(printed_forms(text))
        return [sum(w / self.shared[n] for n, w in per.items() if n in forms and w >= min_weight) for per in self.names]
