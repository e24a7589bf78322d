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

When a reader names the paper they mean ("the paper that proposed ResNet"), two more kinds of
evidence count (`NameMatcher.defined_scores`): a name the abstract introduces ("we propose ... the
Transformer", `introduced_names`), and a name the candidate only spells out (`spelled_out`): one made
of word starts, its capitals marking where each word begins ("ResNet" for "residual nets", "CBAM"
for "Convolutional Block Attention Module").
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


# Small words a name's spelled-out form may skip ("Embeddings from Language Models" -> ELMo).
_SKIPPABLE = {"a", "an", "and", "for", "from", "in", "of", "on", "the", "to", "via", "with"}


def name_parts(name: str) -> list[str] | None:
    """The word starts a name is made of, lower-cased: a capital with the small letters after it is
    one start ("ResNet" -> res, net), capitals without small letters are initials ("SENet" -> s, e,
    net). None for a name with no capital after its first letter, or with digits: it does not say
    where its words begin."""
    letters = name.replace("-", "")
    if not letters.isalpha() or not any(ch.isupper() for ch in letters[1:]):
        return None
    parts = re.findall(r"[A-Z][a-z]*|[a-z]+", letters)
    return [part.lower() for part in parts] if len(parts) >= 2 else None


def spelled_out(name: str, text: str) -> bool:
    """Whether `text` has consecutive words that begin with `name`'s parts in order (see `name_parts`),
    skipping only small words ("of", "for")."""
    parts = name_parts(name)
    if parts is None:
        return False
    words = re.findall(r"[a-z0-9]+", text.lower())
    for start, word in enumerate(words):
        if not word.startswith(parts[0]):
            continue
        position, matched = start + 1, 1
        while matched < len(parts) and position < len(words):
            if words[position].startswith(parts[matched]):
                matched += 1
            elif words[position] not in _SKIPPABLE:
                break
            position += 1
        if matched == len(parts):
            return True
    return False


_INTRODUCES = re.compile(
    r"\b(?:[Ww]e\s+(?:propose|introduce|present|develop)\s+(?P<what>[^.;:()]{0,80})|(?:called|named|dubbed|termed)\s+(?P<name>[A-Z][\w\-]*))"
)
# Where the thing a sentence introduces ends and what it is used for or compared with begins.
_INTRODUCED_END = re.compile(r"\s(?:on|in|for|to|with|using|based|that|which|by|of|from|and)\s.*$")


def introduced_names(text: str) -> set[str]:
    """Normalised names a text introduces: "We propose a new simple network architecture, the
    Transformer, based ..." -> transformer; "a new model called BERT" -> bert. A capitalised word
    after "we propose/introduce/present/develop" and before the clause says what it is for, or the
    word after "called"/"named". Capitalised words in a row are one name: the run whole, and its first
    word, which sets it apart ("Non-local Neural Networks" -> nonlocal); the words after it are the kind
    of thing it is, no name ("Convolutional Block Attention Module" is no paper's "Block": a reader's
    "non-local block" must not name it)."""
    out: set[str] = set()
    for match in _INTRODUCES.finditer(text):
        name, what = match.group("name"), match.group("what")
        for words in [[name]] if name else _capitalised_runs(_WORD.findall(_INTRODUCED_END.sub("", what))):
            for key in {normalise(words[0]), normalise("".join(words))}:
                if len(key) >= MIN_NAME and key not in _COMMON:
                    out.add(key)
    return out


def _capitalised_runs(words: list[str]) -> list[list[str]]:
    """The runs of consecutive capitalised words among `words`."""
    runs: list[list[str]] = []
    run: list[str] = []
    for word in [*words, "."]:
        if word[0].isupper():
            run.append(word)
            continue
        if run:
            runs.append(run)
        run = []
    return runs


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
    """Names of a set of candidates, with how many candidates share each name; the candidates' texts
    and the names each introduces, for a question that names the paper it means."""

    names: tuple[dict[str, float], ...]
    shared: Counter
    texts: tuple[str, ...]
    introduced: tuple[frozenset[str], ...]

    @classmethod
    def build(cls, candidates: list[CitedCandidate]) -> NameMatcher:
        names = tuple(candidate_names(c) for c in candidates)
        return cls(
            names=names,
            shared=Counter(n for per in names for n in per),
            texts=tuple(c.text for c in candidates),
            introduced=tuple(frozenset(introduced_names(c.text)) for c in candidates),
        )

    def defined_scores(self, text: str) -> list[float]:
        """Per candidate: the evidence that it is the paper whose name `text` prints. A name the
        candidate defines rather than merely mentions (weight at least `DEFINED`) or introduces
        (`introduced_names`, weight 1); for a name no candidate defines, its spelled-out form in a
        title or abstract (`spelled_out`, the weight of title initials: the same kind of evidence, and
        weaker than a definition, as "Wide residual networks" spells ResNet out too). Each weight is
        divided by how many candidates share that evidence."""
        forms = _stems(printed_forms(text))
        defined = [
            {**{n: w for n, w in per.items() if n in forms and w >= DEFINED}, **{n: 1.0 for n in introduced if n in forms}}
            for per, introduced in zip(self.names, self.introduced)
        ]
        named = {n for found in defined for n in found}
        for word in {w for w in _WORD.findall(text) if name_parts(w) and normalise(w) not in named}:
            for candidate_text, found in zip(self.texts, defined):
                if spelled_out(word, candidate_text):
                    found[normalise(word)] = DEFINED
        sharers = Counter(n for found in defined for n in found)
        return [sum(w / sharers[n] for n, w in found.items()) for found in defined]

    def scores(self, text: str) -> list[float]:
        """Per candidate: the sum of weight / sharers over its names that `text` prints."""
        forms = _stems(printed_forms(text))
        return [sum(w / self.shared[n] for n, w in per.items() if n in forms) for per in self.names]
