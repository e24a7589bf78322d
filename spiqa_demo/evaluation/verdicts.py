"""Is an answer right? One verdict per answer from the best judge available, naming the rule that decided.

With an L3Score verdict stored in the record (a judge with log-probs was configured), that score
decides: right when the judge finds "yes" more likely than "no" (L3Score >= 0.5). Without one, a
deterministic check people trust for short answers decides, in this order:

- `empty`: no answer at all is wrong.
- `exact`: the answer equals the ground truth after normalisation (case, punctuation, articles,
  spacing), as SQuAD's exact match normalises.
- `yes/no`: a ground truth that starts with a bare "Yes" or "No" is a polar question; the answer is
  right when its first word agrees. A long "Yes. The paper reports..." and a curt "Yes." are the
  same verdict. An answer that starts with neither says "no" when its first sentence negates ("The
  model is not state of the art") and "yes" when it asserts ("Table 3 compares DeepER against three
  other approaches"); one that says the context does not tell is wrong.
- `number`: a short ground truth carrying numbers (few words besides them) is right when every one of
  its numbers occurs in the answer as a number: "12" and "11." differ, "0.35" equals "35%",
  "twelve" equals "12", "85.3 ± 0.2" is 85.3, "10k" is 10000, and a value written with fewer
  decimals matches any value that rounds to it.
- `contains`: a short ground truth (a phrase of a few words) is right when the normalised answer
  contains it whole ("The SST-2 dataset has a larger drop..." for "SST-2 dataset"), the
  "has answer" check of open-domain QA; a verbose answer would otherwise lose on overlap alone.
- `token-F1`: otherwise SQuAD's token F1 between answer and ground truth; right from 0.5, the
  convention of QA papers that count partial overlap as an answer.

The rules only look at the texts, never at the order of questions or files.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from spiqa_demo.evaluation.records import ResultRecord

Rule = Literal["L3Score", "empty", "exact", "yes/no", "number", "contains", "token-F1"]
RULES: tuple[Rule, ...] = ("L3Score", "empty", "exact", "yes/no", "number", "contains", "token-F1")
L3_RIGHT = 0.5  # p(yes) >= p(no)
F1_RIGHT = 0.5
NUMBER_CONTEXT_WORDS = 6  # a ground truth with more words besides its numbers is prose: token-F1 judges it
PHRASE_WORDS = 6  # a ground truth up to this long is a phrase an answer can contain whole

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans(dict.fromkeys(string.punctuation + "“”‘’–—", " "))
_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
}
_SCALES = {"k": 1e3, "m": 1e6, "b": 1e9}
# A number (not the "2" of a name like "SST-2"): an optional sign, digits with thousands commas and decimals, an optional scale letter and percent sign;
# a "± x" after it is its uncertainty, not a value of its own.
_NUMBER = re.compile(
    r"(?<![\w.\-−])([-−])?(\d{1,3}(?:,\d{3})+|\d*\.\d+|\d+)([kKmMbB](?![a-zA-Z]))?(\s*(?:%|percent\b|per cent\b))?"
    r"(?:\s*(?:±|\+/-|\+-)\s*\d*\.?\d+\s*%?)?"
)
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.I)
_POLAR = re.compile(r"^\W*(yes|no)\b(?!\s+[a-z])|^\W*(yes)\b", re.I)
_NEGATION = re.compile(r"\b(not|no|never|none|neither|nor|cannot|without)\b|n't\b", re.I)
_ABSTENTION = re.compile(
    r"\b(provided|given) (context|images?|captions?|information|document|data)\b|\bnot (explicitly )?(mentioned|specified|stated|"
    r"provided|given|clear)\b|\b(does|do|did)(n't| not) (explicitly )?(state|mention|specify|say|indicate)\b|\bunclear\b|\b(un|not )answerable\b|"
    r"\bcannot be (determined|answered|inferred|told)\b|\b(cannot|can't|unable to) (answer|determine|tell)\b|"
    r"\bnot possible to (answer|determine|tell)\b|\b(no|not enough|insufficient) information\b",
    re.I,
)

# A negated sentence about what the sources say ("does not provide information", "does not answer the question").
_ABOUT_THE_CONTEXT = re.compile(r"\binformation\b|\banswer (the|this) question\b|\bdefinitively\b", re.I)


@dataclass(frozen=True)
class Verdict:
    """Whether an answer is right, which rule said so, and the rule's own value (a score, or 1/0)."""

    right: bool
    rule: Rule
    value: float
    why: str

    @property
    def label(self) -> str:
        """"right (number)", as tables show it."""
        return f"{'right' if self.right else 'wrong'} ({self.rule})"


def clean_answer(text: str) -> str:
    """An answer as people should read it: without the stray ": " the official CoT replies keep
    after "The answer is" (scoring keeps the text as SPIQA's scripts cut it)."""
    return re.sub(r"^[\s:]+", "", text or "").strip()


def normalise(text: str) -> str:
    """SQuAD's normalisation: lower case, no punctuation, no articles, single spaces."""
    return " ".join(_ARTICLES.sub(" ", (text or "").lower().translate(_PUNCTUATION)).split())


def token_f1(answer: str, truth: str) -> float:
    """SQuAD's token F1 of two texts after `normalise`."""
    predicted, expected = normalise(answer).split(), normalise(truth).split()
    common = sum((Counter(predicted) & Counter(expected)).values())
    if not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def implied_polarity(text: str) -> str | None:
    """What an answer without a leading yes/no says: "no" when its first sentence negates, "yes" when it
    asserts, None when it says the context does not tell."""
    first = re.split(r"(?<=[.!?])\s", clean_answer(text), maxsplit=1)[0]
    negated = _NEGATION.search(first)
    if _ABSTENTION.search(first) or (negated and _ABOUT_THE_CONTEXT.search(first)):
        return None
    return "no" if negated else "yes"


def polarity(text: str) -> str | None:
    """"yes" or "no" when the text starts with one as its answer ("No." / "No, the data..." but not "No one..."), else None."""
    found = _POLAR.match(text or "")
    return (found.group(1) or found.group(2)).lower() if found else None


@dataclass(frozen=True)
class Number:
    """A number as written: its readings (value, decimal places); a percentage is also read as its fraction."""

    readings: tuple[tuple[float, int], ...]

    def matches(self, other: Number) -> bool:
        """Equal once the more precise reading is rounded to the other's places ("88" is not "88.7", "0.35" is "35%")."""
        return any(_rounded(a, min(p, q)) == _rounded(b, min(p, q)) for a, p in self.readings for b, q in other.readings)


def _rounded(value: float, places: int) -> int:
    """`value` in units of its last place, rounded half up (so 88.5 rounds to 89 as people round)."""
    return math.floor(value * 10**places + 0.5 + 1e-9)


def numbers(text: str) -> list[Number]:
    """The numbers in a text, number words ("twelve") included."""
    found = []
    for match in _NUMBER.finditer(text or ""):
        sign, digits, scale, percent = match.groups()
        value = (-1.0 if sign else 1.0) * float(digits.replace(",", "")) * (_SCALES[scale.lower()] if scale else 1.0)
        places = len(digits.split(".")[1]) if "." in digits and not scale else 0
        readings = ((value, places), (value / 100, places + 2)) if percent else ((value, places),)
        found.append(Number(readings))
    found += [Number(((float(_NUMBER_WORDS[w.lower()]), 0),)) for w in _NUMBER_WORD.findall(text or "")]
    return found


def _number_verdict(answer: str, truth: str) -> Verdict | None:
    """The `number` rule, when the ground truth is a short one carrying numbers."""
    expected = numbers(truth)
    words = [w for w in normalise(_NUMBER.sub(" ", _NUMBER_WORD.sub(" ", truth))).split()]
    if not expected or len(words) > NUMBER_CONTEXT_WORDS:
        return None
    given = numbers(answer)
    found = sum(any(e.matches(g) for g in given) for e in expected)
    right = found == len(expected)
    why = (f"all {len(expected)} number(s) of the ground truth are in the answer" if right
           else f"{found} of the ground truth's {len(expected)} number(s) are in the answer")
    return Verdict(right, "number", found / len(expected), why)


def text_verdict(answer: str, truth: str) -> Verdict:
    """The deterministic verdict on an answer to a question whose ground truth is `truth`."""
    answer = clean_answer(answer)
    if not normalise(answer):
        return Verdict(False, "empty", 0.0, "no answer")
    if normalise(answer) == normalise(truth):
        return Verdict(True, "exact", 1.0, "the same text as the ground truth")
    expected = polarity(truth)
    if expected is not None:
        given, how = polarity(answer), "says"
        if given is None:
            given, how = implied_polarity(answer), "implies"
        if given is None:
            return Verdict(False, "yes/no", 0.0, f"the ground truth is {expected!r}; the answer says the context does not tell")
        return Verdict(given == expected, "yes/no", float(given == expected),
                       f"the ground truth is {expected!r}; the answer {how} {given!r}"
                       + (" (its first sentence negates)" if how == "implies" and given == "no" else "")
                       + (" (its first sentence asserts, with no negation)" if how == "implies" and given == "yes" else ""))
    by_number = _number_verdict(answer, truth)
    if by_number is not None:
        return by_number
    phrase = normalise(truth)
    if len(phrase.split()) <= PHRASE_WORDS and f" {phrase} " in f" {normalise(answer)} ":
        return Verdict(True, "contains", 1.0, "the answer contains the ground truth's words in order")
    f1 = token_f1(answer, truth)
    return Verdict(f1 >= F1_RIGHT, "token-F1", f1, f"token F1 {f1:.2f} (right from {F1_RIGHT})")


def verdict(record: ResultRecord) -> Verdict:
    """The record's verdict: its stored L3Score when it has one, else `text_verdict`."""
    l3 = record.metrics.get("L3Score")
    if isinstance(l3, (int, float)):
        return Verdict(l3 >= L3_RIGHT, "L3Score", float(l3), f"L3Score {l3:.3f} (right from {L3_RIGHT})")
    return text_verdict(record.answer, record.ground_truth)
