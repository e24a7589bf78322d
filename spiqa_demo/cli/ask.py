"""`ask PAPER.pdf "QUESTION" [--task reader|cot|direct|full|caption-only|image-only] [--backend ...] [--model ...]
[--k 8] [--json] [--cited PDF_OR_FOLDER ...]`.

The default task is the reader's (`spiqa_demo.conversation`): one shortlist of figures, tables and
passages, and an answer that cites them (with a model) or quotes the paper's best sentences with their
page (without one); `--json` prints one object: `question`, `read_as`, `answer`, `evidence` (ranked:
kind, page, label for figures/tables, text, score, cited) and `messages`. SPIQA's tasks
(`--task cot|direct|full|caption-only|image-only`) are the reproduction's, unchanged: they print the
answer, the figure that supports it (label, page, crop path), the model's rationale and any notes, and
`--json` prints the whole `Answer`. With `--cited` the answer comes from the papers PAPER cites
(`ask_cited`).

Without a usable model (none configured, no API key) every task still shows the best retrieved
evidence and says why no model answered. Exit code 0, or 1 when a configured model failed to answer
(the retrieved evidence is printed all the same). API keys come from the environment
(SPIQA_API_KEY / OPENAI_API_KEY), never from flags.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from spiqa_demo.errors import PaperError
from spiqa_demo.qa.answer import TASKS, Answer

if TYPE_CHECKING:
    from spiqa_demo.models.base import ModelBackend
    from spiqa_demo.settings import Settings

READER = "reader"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("ask", help="ask a question about a paper's figures and tables")
    p.add_argument("pdf", type=Path, help="the paper PDF")
    p.add_argument("question", help="the question, in quotes")
    p.add_argument("--task", choices=(READER, *TASKS), default=READER,
                   help="reader: figures, tables and passages, a cited (or, without a model, quoted) answer (default); "
                        "SPIQA's tasks: cot: pick a figure then answer; direct: all figures; full: paper text + figures; "
                        "caption-only / image-only: direct with the captions or the images alone")
    p.add_argument("--backend", choices=("local", "openai", "none"),
                   help="model backend (default: SPIQA_BACKEND, else openai with --base-url, local with --model)")
    p.add_argument("--model", help="a Hugging Face id or folder (local), or the API's model name")
    p.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--k", type=int, default=None, help="candidate figures shown to the model (SPIQA: at most 8)")
    p.add_argument("--image-size", type=int, default=None, help="resize figures to N x N px (0: full size; SPIQA open models: 224)")
    p.add_argument("--no-captions", action="store_true", help="show figures without captions (SPIQA's image-only ablation)")
    p.add_argument("--max-new-tokens", type=int, default=None, help="longest reply (default SPIQA_MAX_NEW_TOKENS)")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.add_argument("--cited", nargs="+", metavar="PDF_OR_FOLDER",
                   help="answer from the papers the anchor cites: their PDFs, folders of PDFs or arXiv ids")
    p.add_argument("--cited-k", type=int, default=None, help="how many of the ranked cited papers to read (default SPIQA_CITED_K, 3)")
    p.set_defaults(func=run)


def load_cli_backend(args: argparse.Namespace, settings: Settings) -> tuple[ModelBackend | None, str]:
    """The backend the flags and settings name, or None with a notice saying why no model answers."""
    from spiqa_demo.models import load_backend

    _quiet_progress_bars()
    try:
        backend = load_backend(
            settings.models, backend=args.backend, model=args.model, base_url=args.base_url,
            image_size=getattr(args, "image_size", None),
        )
    except PaperError as exc:
        return None, f"no model answered: {exc}"
    return backend, ""


def run(args: argparse.Namespace) -> int:
    from spiqa_demo.library import open_paper
    from spiqa_demo.qa.flows import ask
    from spiqa_demo.qa.shortlist import retrieval_shortlist
    from spiqa_demo.questions import check_question
    from spiqa_demo.settings import get_settings

    settings = get_settings()
    check_question(args.question, settings.qa)  # before the (slower) extraction
    backend, notice = load_cli_backend(args, settings)
    if args.cited:
        from spiqa_demo.cli.ask_cited import run_cited

        return run_cited(args, backend, notice, settings)
    if args.task == READER:
        from spiqa_demo.cli.reader_output import ask_reader

        return ask_reader(args, backend, notice, settings)
    answer = ask(
        open_paper(args.pdf, settings).paper,
        args.question,
        backend,
        task=args.task,
        k=args.k,
        use_captions=False if args.no_captions else None,
        max_new_tokens=args.max_new_tokens,
        notice=notice,
        shortlist=retrieval_shortlist(settings.retrieval),
        settings=settings.qa,
    )
    if args.json:
        sys.stdout.write(answer.to_json() + "\n")
    else:
        _print(answer)
    configured = backend is not None or bool(notice)
    return 1 if configured and not answer.answered else 0


def _quiet_progress_bars() -> None:
    """Model-loading progress bars would bury the answer in a terminal."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()


def _print(answer: Answer) -> None:
    if answer.answered:
        print(f"Answer: {answer.answer}")
    elif answer.model is None:
        print("Answer: (no model answered: retrieval only)")
    else:
        print("Answer: (the model gave no answer)")
    figure = answer.figure
    if figure is not None:
        who = {"model": f"chosen by the model as Image {answer.chosen_index}", "retrieval": "best retrieved"}
        print(f"Figure: {figure.title}, page {figure.page} ({who.get(answer.figure_source, '')})")
        if figure.image:
            print(f"  crop: {figure.image}")
        if figure.caption:
            print(f"  caption: {figure.caption}")
    if answer.rationale:
        print(f"Rationale: {answer.rationale}")
    details = [f"task {answer.task}", f"{answer.timings.get('total', 0.0):.1f} s"]
    if answer.model:
        details.insert(0, f"model {answer.model}")
    if answer.prompt_tokens is not None:
        details.append(f"{answer.prompt_tokens} prompt + {answer.completion_tokens or 0} reply tokens")
    print(" · ".join(details))
    for message in answer.messages:
        print(f"note: {message}", file=sys.stderr)
