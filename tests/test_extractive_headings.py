"""Over every shared paper's passages (../shared/papers and the hard ones: the run's one extraction of
them, `shared_papers`, since passages do not depend on the crops' resolution): no extractive answer
quotes a heading, a lead-in ending in ":", a list of research questions or an item's caption, even
when the question is that very text, the strongest pull BM25 can have.

The quote is checked against what the paper prints as a heading (a paragraph too short to be body
text), not only against the filter's own rule; and the test counts how often the best candidate by
BM25 alone was such a text, so it shows the filter at work rather than passing on easy questions.
"""

from __future__ import annotations

import re

import pytest
from retrieval_fixtures import encoded_once
from shared_papers import hard_manifest, manifest, shared_papers

from retrieval.lexical import BM25Index
from spiqa_demo.conversation.evidence import passage_evidence, sentences_of
from spiqa_demo.conversation.extractive import extractive_answer, is_no_answer
from spiqa_demo.types import Paper

WINDOW = 2  # passages either side of the asked one in the shortlist the answer quotes from
MIN_PULLED = 20  # across the papers, at least this many questions must pull BM25 to a no-answer first
_HEADING_WORDS = 6

pytestmark = pytest.mark.usefixtures("encoded_once")  # the quotes are reranked by MiniLM: each text encoded once, kept between runs


def _printed_headings(paper: Paper) -> set[str]:
    return {" ".join(p.text.split()) for p in paper.passages if 0 < len(p.text.split()) <= _HEADING_WORDS}


def test_no_extractive_answer_quotes_a_heading_a_research_question_list_or_a_caption(shared_papers: dict[str, Paper]) -> None:
    pulled = asked = 0
    for paper in shared_papers.values():
        headings = _printed_headings(paper)
        for i, passage in enumerate(paper.passages):
            traps = [s for s in sentences_of(passage) if is_no_answer(s) and len(s.split()) >= 2]
            if not traps:
                continue
            window = [passage_evidence(p, 1.0) for p in paper.passages[max(0, i - WINDOW): i + WINDOW + 1]]
            sentences = [s for e in window if e.passage is not None for s in sentences_of(e.passage)]
            index = BM25Index(sentences)
            for question in traps:
                asked += 1
                scores = index.scores(question)
                pulled += is_no_answer(sentences[int(scores.argmax())])
                answer = extractive_answer(question, window, paper=paper)
                quoted = [q for e in answer.evidence for q in e.quotes]
                for sentence in quoted:
                    assert not sentence.endswith(":") and not re.search(r"\bRQ\s?\d", sentence), (paper.source, question, sentence)
                    assert " ".join(sentence.split()) not in headings, (paper.source, question, sentence)
                    assert not is_no_answer(sentence), (paper.source, question, sentence)
    assert pulled >= MIN_PULLED, f"only {pulled} of {asked} questions pulled BM25 to a heading: the test exercises too little"
