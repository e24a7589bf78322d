"""The reader's conversation without a model: does the shortlist hold the right evidence?

    python -m benchmarks.reader_conversation          (from the repository root)

Questions: benchmarks/data/reader_questions.json, written from the shared papers' own text
(`SPIQA_SHARED`, default ../shared; papers read through the extraction cache). Printed, never asserted:
- text questions: a passage from the page of the answering sentence among the top 3 passages of the
  shortlist (bar 0.80), and how often the extractive answer quotes that sentence;
- follow-ups: the second, elliptical turn ("and on CIFAR-10?") asked after the first in one
  conversation, with the right figure/table among the top 3 figures/tables of its shortlist (bar
  0.80), beside today's one-question-at-a-time baseline (the second turn searched alone);
- figure questions that do not name the figure: top-1/top-3 of the shortlist's figures/tables beside
  today's figure-only `search` ranking (bar: no worse).
The last line is JSON.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalsuite.paths import SHARED
from spiqa_demo.conversation import Conversation, Evidence, ask_turn
from spiqa_demo.library import open_paper
from spiqa_demo.settings import Settings, get_settings
from spiqa_demo.types import Paper

DATA = Path(__file__).parent / "data" / "reader_questions.json"
TOP = 3
BARS = {"text_top3": 0.80, "followup_top3": 0.80}


def normalised(text: str) -> str:
    """Text compared the way a reader reads it: ligatures unfolded, whitespace collapsed, case folded."""
    return " ".join(unicodedata.normalize("NFKC", text).split()).casefold()


def _papers(names: set[str], settings: Settings) -> dict[str, Paper]:
    return {name: open_paper(SHARED / "papers" / name, settings).paper for name in sorted(names)}


def _labels(evidence: Sequence[Evidence]) -> list[str]:
    return [e.label for e in evidence if e.figure is not None]


def _ask(paper: Paper, questions: Sequence[str], settings: Settings) -> list[Any]:
    conversation = Conversation(paper.sha256)
    return [ask_turn(paper, conversation, q, None, settings.qa, retrieval=settings.retrieval) for q in questions]


def _text(rows: list[dict[str, Any]], papers: dict[str, Paper], settings: Settings) -> dict[str, float]:
    top3 = quoted = 0
    for row in rows:
        paper = papers[row["paper"]]
        assert any(p.page == row["page"] and normalised(row["quote"]) in normalised(p.text) for p in paper.passages), row
        turn = _ask(paper, [row["question"]], settings)[0]
        pages = [e.page for e in turn.evidence if e.passage is not None][:TOP]
        hit = row["page"] in pages
        says = normalised(row["quote"]) in normalised(turn.answer)
        top3 += hit
        quoted += says
        print(f"{'right' if hit else 'WRONG'} {'quoted' if says else '      '} {row['paper'][:18]:18s} {row['question'][:70]:70s} p{row['page']} <- {pages}")
    n = len(rows)
    print(f"text questions: passage from the right page in the top {TOP}: {top3}/{n} = {top3 / n:.3f} "
          f"(bar {BARS['text_top3']:.2f}); answer quotes the sentence: {quoted}/{n} = {quoted / n:.3f}")
    return {"text_questions": n, "text_top3": round(top3 / n, 3), "text_quoted": round(quoted / n, 3)}


def _followups(rows: list[dict[str, Any]], papers: dict[str, Paper], settings: Settings) -> dict[str, float]:
    chat = alone = chat1 = alone1 = 0
    for row in rows:
        paper = papers[row["paper"]]
        labels = {item.title for item in paper.items}
        assert row["first_label"] in labels and row["second_label"] in labels, row
        turn = _ask(paper, [row["first"], row["second"]], settings)[1]
        baseline = _ask(paper, [row["second"]], settings)[0]
        got, got_alone = _labels(turn.evidence)[:TOP], _labels(baseline.evidence)[:TOP]
        chat += row["second_label"] in got
        alone += row["second_label"] in got_alone
        chat1 += got[:1] == [row["second_label"]]
        alone1 += got_alone[:1] == [row["second_label"]]
        print(f"{'right' if row['second_label'] in got else 'WRONG'} {'(alone right)' if row['second_label'] in got_alone else '             '} "
              f"{row['paper'][:18]:18s} {row['second']:28s} read as {turn.read_as[:70]!r:72s} {row['second_label']} <- {got}")
    n = len(rows)
    print(f"follow-ups: right figure/table in the top {TOP}: in the conversation {chat}/{n} = {chat / n:.3f} "
          f"(bar {BARS['followup_top3']:.2f}); asked alone (today) {alone}/{n} = {alone / n:.3f}; "
          f"top-1: in the conversation {chat1 / n:.3f}, alone {alone1 / n:.3f}")
    return {"followups": n, "followup_top3": round(chat / n, 3), "followup_alone_top3": round(alone / n, 3),
            "followup_top1": round(chat1 / n, 3), "followup_alone_top1": round(alone1 / n, 3)}


def _figures(rows: list[dict[str, Any]], papers: dict[str, Paper], settings: Settings) -> dict[str, float]:
    from spiqa_demo.qa.shortlist import paper_index

    top1 = top3 = base1 = base3 = 0
    for row in rows:
        paper = papers[row["paper"]]
        assert row["label"] in {item.title for item in paper.items}, row
        got = _labels(_ask(paper, [row["question"]], settings)[0].evidence)[:TOP]
        search = [hit.item.title for hit in paper_index(paper, settings.retrieval).search(row["question"], TOP)]
        top1 += got[:1] == [row["label"]]
        top3 += row["label"] in got
        base1 += search[:1] == [row["label"]]
        base3 += row["label"] in search
        print(f"{'right' if row['label'] in got[:1] else 'top3 ' if row['label'] in got else 'WRONG'} "
              f"{row['paper'][:18]:18s} {row['question'][:70]:70s} {row['label']} <- {got} (search {search})")
    n = len(rows)
    print(f"figure questions: top-1 {top1}/{n} = {top1 / n:.3f}, top-{TOP} {top3}/{n} = {top3 / n:.3f}; "
          f"today's search top-1 {base1 / n:.3f}, top-{TOP} {base3 / n:.3f}")
    return {"figure_questions": n, "figure_top1": round(top1 / n, 3), "figure_top3": round(top3 / n, 3),
            "search_top1": round(base1 / n, 3), "search_top3": round(base3 / n, 3)}


def main() -> int:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    settings = get_settings()
    names = {row["paper"] for part in ("text", "followups", "figures") for row in data[part]}
    papers = _papers(names, settings)
    result = _text(data["text"], papers, settings) | _followups(data["followups"], papers, settings) | _figures(data["figures"], papers, settings)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
