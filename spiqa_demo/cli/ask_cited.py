"""`ask ANCHOR.pdf "QUESTION" --cited PDF_OR_FOLDER ...`: answer from the papers the anchor cites.

The anchor and the cited PDFs form a `PaperLibrary`; `crosspaper.cited_answer` ranks the anchor's
references and answers from the passages of the top-k ones provided. Prints the answer, the anchor
figure, the ranked references (which file holds each) and the passages with their pages;
`--json` prints today's answer JSON with `cited_papers` and `passages` added.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from spiqa_demo.crosspaper.cited_answer import CitedAnswer
from spiqa_demo.crosspaper.replies import is_abstention
from spiqa_demo.models.base import ModelBackend
from spiqa_demo.qa.answer import Answer
from spiqa_demo.settings import Settings

TOP_PRINTED = 10


def run_cited(args: argparse.Namespace, backend: ModelBackend | None, notice: str, settings: Settings) -> int:
    from spiqa_demo.crosspaper.cited_answer import ask_cited
    from spiqa_demo.library import PaperLibrary

    library = PaperLibrary.open(args.pdf, settings)
    notices = library.add(args.cited)
    result = ask_cited(library, args.question, backend, k=args.cited_k)
    messages = [n.message for n in notices] + [f"{p.origin}: matches no reference of the anchor" for p in library.unmatched()]
    messages += ([notice] if notice else []) + result.messages
    answered = bool(result.text) and not is_abstention(result.text)
    answer = Answer(
        question=result.question, task="cot", model=backend.name if backend is not None else None, answer=result.text,
        figure=result.anchor_figure, figure_source="retrieval" if result.anchor_figure else "none", answered=answered,
        messages=messages, prompt_version=result.prompt_version,
    )  # fmt: skip
    if args.json:
        sys.stdout.write(json.dumps(answer_json(answer, result), indent=1, ensure_ascii=False) + "\n")
    else:
        _print(answer, result)
    configured = backend is not None or bool(notice)
    return 1 if configured and result.passages and not result.text else 0


def answer_json(answer: Answer, result: CitedAnswer) -> dict[str, Any]:
    """Today's `ask --json` answer with the ranked cited papers and the passages added."""
    return {
        **answer.to_dict(),
        "cited_papers": [asdict(c) for c in result.cited_papers],
        "passages": [asdict(p) for p in result.passages],
    }


def _print(answer: Answer, result: CitedAnswer) -> None:
    print(f"Answer: {result.text}" if result.text else "Answer: (no model answered: retrieval only)")
    if result.anchor_figure is not None:
        print(f"Anchor figure: {result.anchor_figure.title}, page {result.anchor_figure.page}")
    print("Cited papers (best first):")
    for rank, c in enumerate(result.cited_papers[:TOP_PRINTED], 1):
        held = c.source or "not in the library"
        print(f"{rank:>3}. {c.key} {c.title[:90]}  [{held}]  score {c.score:.2f}\n     why: {c.why}")
    for number, p in enumerate(result.passages, 1):
        print(f"[{number}] {p.paper_title[:80]} ({p.source}, page {p.page}):\n    {' '.join(p.text.split())[:400]}")
    for message in answer.messages:
        print(f"note: {message}", file=sys.stderr)
