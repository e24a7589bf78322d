"""A question that names a figure or table gets that item first, everywhere a question ranks items:
the reader's conversation (no model), SPIQA's CoT shortlist in the app, the Across tab's anchor
figure and `search`. Asked "What does <label> show?" for every labelled item of every shared paper
(`manifest.json` and `manifest-hard.json`), and in the other ways readers print a label."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from retrieval_fixtures import encoded_once
from shared_papers import hard_manifest, manifest, shared_papers

from spiqa_demo.conversation import Conversation, ask_turn
from spiqa_demo.crosspaper.cited_answer import anchor_figure_for
from spiqa_demo.qa.shortlist import paper_index, retrieval_shortlist
from spiqa_demo.settings import get_settings
from spiqa_demo.types import Figure, Paper

Ranker = Callable[[Paper, str], str]  # the id of the item ranked first for a question


def _reader(paper: Paper, question: str) -> str:
    settings = get_settings()
    turn = ask_turn(paper, Conversation(paper.sha256), question, None, settings.qa, retrieval=settings.retrieval)
    first = turn.evidence[0].figure if turn.evidence else None
    return first.id if first is not None else ""


def _cot_shortlist(paper: Paper, question: str) -> str:
    return retrieval_shortlist(get_settings().retrieval)(paper, question, 8)[0].figure.id


def _search(paper: Paper, question: str) -> str:
    return paper_index(paper, get_settings().retrieval).search(question, 1)[0].item.id


def _across(paper: Paper, question: str) -> str:
    return anchor_figure_for(paper, paper_index(paper, get_settings().retrieval), question).id


pytestmark = pytest.mark.usefixtures("encoded_once")  # the four flows embed the same questions

RANKERS: dict[str, Ranker] = {"reader": _reader, "cot_shortlist": _cot_shortlist, "search": _search, "across": _across}


def _labelled(papers: dict[str, Paper]) -> list[tuple[Paper, Figure]]:
    return [(paper, item) for paper in papers.values() for item in paper.items if item.number]


@pytest.mark.parametrize("where", list(RANKERS))
def test_every_labelled_item_of_the_shared_papers_is_first_when_named(where: str, shared_papers: dict[str, Paper]) -> None:
    labelled = _labelled(shared_papers)
    assert len(labelled) > 200  # every paper of both manifests, each with its items
    rank = RANKERS[where]
    wrong = [f"{paper.source}: {item.title} -> {got}" for paper, item in labelled
             if (got := rank(paper, f"What does {item.title} show?")) != item.id]
    assert not wrong, f"{len(wrong)} of {len(labelled)} named items not first in {where}: {wrong[:10]}"


# Other ways a reader prints a label, each asked of items that exist in the shared papers.
PHRASINGS = [
    ("resnet-1512.03385.pdf", "What does Fig. 4 show?", "figure-4"),
    ("resnet-1512.03385.pdf", "what does table 3 show?", "table-3"),
    ("resnet-1512.03385.pdf", "What does TABLE 6 report?", "table-6"),
    ("resnet-1512.03385.pdf", "Which errors are in Table III?", "table-3"),
    ("vit-2010.11929.pdf", "What is plotted in fig. 3b?", "figure-3"),
    ("vit-2010.11929.pdf", "What does Figure 7(a) show?", "figure-7"),
    ("bert-1810.04805.pdf", "Explain Fig 2", "figure-2"),
    ("res2net-tpami-1904.01169.pdf", "What does Table 4 show?", "table-4"),
    ("res2net-tpami-1904.01169.pdf", "What does TABLE V compare?", "table-5"),
    ("moco-1911.05722.pdf", "What does Table A.1 show?", "table-A1"),
    ("moco-1911.05722.pdf", "What does table A1 show?", "table-A1"),
    ("rahman-zsd-accv2018.pdf", "What does Table 3 in the supplement show?", "table-S3"),
    ("rahman-zsd-accv2018.pdf", "What does Supplementary Table 2 show?", "table-S2"),
    ("rahman-zsd-accv2018.pdf", "What does Table 2 show?", "table-2"),
    ("rahman-zsd-accv2018.pdf", "What does Fig. 2 of the supplementary material show?", "figure-S2"),
]


@pytest.mark.parametrize("where", list(RANKERS))
def test_a_label_printed_another_way_still_names_the_item(where: str, shared_papers: dict[str, Paper]) -> None:
    wrong = [(file, question, got) for file, question, expected in PHRASINGS
             if (got := RANKERS[where](shared_papers[file], question)) != expected]
    assert not wrong, wrong
