"""The reader's turns on the command line: `ask`'s default task and every answer of `chat`.

`--json` prints each `Turn` as one JSON object on one line; otherwise the answer, how a follow-up
was read, the evidence (best first, what the answer cites marked) and notes on stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from spiqa_demo.paper_text import one_line

if TYPE_CHECKING:
    from spiqa_demo.conversation import Turn
    from spiqa_demo.models.base import ModelBackend
    from spiqa_demo.settings import Settings

SHOWN_EVIDENCE = 5  # evidence lines printed in a terminal (JSON has them all)


def ask_reader(args: argparse.Namespace, backend: ModelBackend | None, notice: str, settings: Settings) -> int:
    """`ask`'s reader task: one question, a new conversation."""
    from spiqa_demo.conversation import Conversation, ask_turn
    from spiqa_demo.library import open_paper

    qa = settings.qa if args.max_new_tokens is None else settings.qa.with_overrides(max_new_tokens=args.max_new_tokens)
    paper = open_paper(args.pdf, settings).paper
    turn = ask_turn(paper, Conversation(paper.sha256), args.question, backend, qa, retrieval=settings.retrieval, notice=notice)
    show_turn(turn, args.json)
    return 1 if model_failed(turn, backend, notice) else 0


def model_failed(turn: Turn, backend: ModelBackend | None, notice: str) -> bool:
    """A model was configured (loaded, or named and unusable: `notice`) and did not answer the turn."""
    return (backend is not None or bool(notice)) and turn.model is None


def show_turn(turn: Turn, as_json: bool) -> None:
    """Print the turn (see the module docstring)."""
    if as_json:
        sys.stdout.write(turn.to_json() + "\n")
        sys.stdout.flush()
        return
    if turn.followup:
        print(f"Read as: {turn.read_as}")
    print(f"Answer: {turn.answer or '(no answer)'}")
    for e in turn.evidence[:SHOWN_EVIDENCE]:
        mark = "*" if e.cited and not turn.abstained else " "
        name = e.label or "passage"
        print(f" {mark} {name}, page {e.page}: {one_line(e.quotes[0] if e.quotes else e.text, 140)}")
    for message in turn.messages:
        print(f"note: {message}", file=sys.stderr)
    sys.stdout.flush()
