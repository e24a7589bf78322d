"""The command line: `python -m spiqa_demo COMMAND ...`, one module per command.

Each command module exposes `add_parser(subparsers)`, which registers its arguments and sets
`func(args) -> int`. Bad input surfaces as `PaperError`: printed as one line on stderr, exit code 2.
"""

from __future__ import annotations

import argparse
import sys

from spiqa_demo.cli import (
    ask,
    bench_m3sciqa,
    bench_m3sciqa_answers,
    bench_retrieval,
    chat,
    cited,
    evaluate,
    extract,
    library,
    score,
    search,
)
from spiqa_demo.errors import PaperError
from spiqa_demo.settings import get_settings

COMMANDS = [extract, ask, chat, search, cited, library, score, evaluate, bench_retrieval, bench_m3sciqa, bench_m3sciqa_answers]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m spiqa_demo", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        get_settings()  # a bad SPIQA_* variable stops every command before it starts
        return int(args.func(args) or 0)
    except PaperError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
