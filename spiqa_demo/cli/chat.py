"""`chat PAPER.pdf [--backend ...] [--model ...] [--base-url ...] [--json]`: a conversation with a paper.

Reads questions from standard input, one per line (blank lines are skipped), answers each in the
context of the earlier ones (`spiqa_demo.conversation`) and prints one answer per question as it
comes: with `--json` one JSON object per line (`ask --json`'s shape, with `read_as`, the standalone
question retrieval used). Without a model the answers quote the paper. Exit code 0, or 1 when a
configured model failed to answer some question (the quoted answer is printed all the same).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("chat", help="a conversation with a paper: questions from stdin, one per line")
    p.add_argument("pdf", type=Path, help="the paper PDF")
    p.add_argument("--backend", choices=("local", "openai", "none"),
                   help="model backend (default: SPIQA_BACKEND, else openai with --base-url, local with --model)")
    p.add_argument("--model", help="a Hugging Face id or folder (local), or the API's model name")
    p.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--json", action="store_true", help="print one JSON object per answer, one per line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from spiqa_demo.cli.ask import load_cli_backend
    from spiqa_demo.cli.reader_output import model_failed, show_turn
    from spiqa_demo.conversation import Conversation, ask_turn
    from spiqa_demo.errors import InputError
    from spiqa_demo.library import open_paper
    from spiqa_demo.settings import get_settings

    settings = get_settings()
    backend, notice = load_cli_backend(args, settings)
    paper = open_paper(args.pdf, settings).paper
    conversation = Conversation(paper.sha256)
    failed = False
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            turn = ask_turn(paper, conversation, line, backend, settings.qa, retrieval=settings.retrieval, notice=notice)
        except InputError as exc:
            print(f"error: {exc}", file=sys.stderr)
            continue
        show_turn(turn, args.json)
        failed = failed or model_failed(turn, backend, notice)
    return 1 if failed else 0
