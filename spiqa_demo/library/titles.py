"""Title similarity between a reference as printed and a provided paper's extracted title.

Both sides are normalised first (Unicode ligatures and accents folded, case ignored, punctuation
and line-break hyphens dropped), then compared with `rapidfuzz.fuzz.ratio`, the normalised Indel
similarity (0-100): 100 * (1 - edits / total length), where an edit inserts or deletes a character.
"""

from __future__ import annotations

from rapidfuzz import fuzz

from spiqa_demo.paper_text import normalise_title

# A provided paper is the referenced one when their titles are at least this similar. At 90 two
# titles of about equal length may differ in about one character in ten: enough for what
# extraction and citation styles change in one title (a ligature or a hyphenation break, a dropped
# article or plural "s", a misread accent, an "x" for "×"), while different papers of one field
# that share most words differ in whole content words ("Residual attention network for image
# classification" against "Residual networks for image classification": 88; different papers
# among the shared test papers: at most 72). Titles that differ by one short word only ("Attention
# is all you need" / "Attention is not all you need": 93) are beyond a string measure; a printed
# arXiv id decides before titles, and when both papers are provided the more similar one wins.
TITLE_THRESHOLD = 90.0

# A title's part after its first colon ("CBAM: Convolutional block attention module") is compared
# too, since some citations print the acronym prefix and some title pages set it apart; only when
# that part has this many words, as a short tail ("a survey") names no paper on its own.
MIN_SUBTITLE_WORDS = 3


def _variants(title: str) -> set[str]:
    whole = normalise_title(title)
    variants = {whole} if whole else set()
    head, colon, tail = (title or "").partition(":")
    tail_words = normalise_title(tail)
    if colon and head.strip() and len(tail_words.split()) >= MIN_SUBTITLE_WORDS:
        variants.add(tail_words)
    return variants


def title_similarity(a: str, b: str) -> float:
    """How alike two titles are, 0-100 (0 when either is empty); see the module docstring."""
    return max((fuzz.ratio(x, y) for x in _variants(a) for y in _variants(b)), default=0.0)
