"""What a reader takes away: the chat (Markdown with each answer, its quoted passages and pages, the
figure crops alongside) and the gallery's figures and tables (the crops with an index of labels,
pages and captions), each as one zip. Their text reads as written ("[p. 2]", not its character
references), except what a Markdown viewer would make live (`untrusted.plain`): it would fetch an
image that a PDF or a model wrote into it. The app never shows these files; it only offers them.

The gallery's zip is written beside the paper's served crops, under a name only the server can
compute, and cleaned up with the paper's files. A chat's zip is a fresh file each time
(`storage.export_path`): a download after more questions is never an earlier export, cached.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Sequence
from pathlib import Path

from spiqa_demo.conversation import Evidence
from spiqa_demo.files import write_whole
from spiqa_demo.paper_text import one_line
from spiqa_demo.types import Figure, Paper
from spiqa_demo.ui.serving.files import storage
from spiqa_demo.ui.serving.messages import figure_name, full_sentence
from spiqa_demo.ui.serving.untrusted import code, inert, plain
from spiqa_demo.ui.state.session import Asked

CHAT_MARKDOWN = "chat.md"
FIGURES_FOLDER = "figures"


def _crop_name(figure: Figure) -> str:
    return f"{FIGURES_FOLDER}/{Path(figure.image).name}"


def _image(alt: str, name: str) -> str:
    """The app's Markdown image of a crop it exports; its alt text escaped whole (`inert`), as any
    bracket in it would end it early."""
    return f"![{inert(alt)}]({name})"


def _write(target: Path, files: dict[str, bytes | Path]) -> Path:
    """`files` (name in the zip -> bytes, or a file to copy) as the zip `target`, written whole or not at all."""

    def zipped(partial: Path) -> None:
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, content in files.items():
                if isinstance(content, Path):
                    archive.write(content, name)
                else:
                    archive.writestr(name, content)

    return write_whole(target, zipped)


def gallery_zip(paper: Paper) -> Path | None:
    """Every crop of `paper` with `index.md` and `index.csv` (file, label, kind, page, caption); None without crops."""
    items = [f for f in paper.items if f.image and Path(f.image).is_file()]
    if not items:
        return None
    rows = io.StringIO()
    table = csv.writer(rows)
    table.writerow(["file", "label", "kind", "page", "caption"])
    lines = [f"# Figures and tables of {plain(paper.title or paper.source)}", "", f"Source: {code(paper.source)}", ""]
    for figure in items:
        name = _crop_name(figure)
        table.writerow([name, figure.title, figure.kind, figure.page, figure.caption])
        lines += [f"## {plain(figure_name(figure))}", "",
                  _image(figure.title, name), "", plain(figure.caption) or "*(no caption)*", ""]
    files: dict[str, bytes | Path] = {"index.md": "\n".join(lines).encode("utf-8"), "index.csv": rows.getvalue().encode("utf-8")}
    files.update({_crop_name(f): Path(f.image) for f in items})
    return _write(storage.served_folder(paper) / "figures-and-tables.zip", files)


def _evidence_markdown(e: Evidence) -> list[str]:
    figure = e.figure
    if figure is not None:
        shown = [_image(e.label or figure.title, _crop_name(figure)), ""] if figure.image else []
        return [f"**{plain(e.label or figure.title)}** · page {e.page}", "", *shown, plain(one_line(figure.caption, 600)), ""]
    quote = plain(" … ".join(e.quotes) if e.quotes else one_line(e.text, 900))
    return [f"> {quote}", ">", f"> — page {e.page}", ""]


STOPPED = "(stopped)"


def chat_markdown(paper: Paper, asked: Sequence[Asked]) -> str:
    """The conversation as Markdown: each question, how it was read, the answer and what it rests on;
    a stopped one with what was written before Stop, marked "(stopped)"."""
    lines = [f"# Chat about {plain(paper.title or paper.source)}", "", f"Source: {code(paper.source)}", ""]
    said: set[str] = set()  # a note is said once, where it first applies (as the chat says "no model" once)
    for i, (turn, stopped) in enumerate(((a.turn, a.stopped) for a in asked), 1):
        lines += [f"## {i}. {plain(turn.question)}" + (f" {STOPPED}" if stopped else ""), ""]
        if turn.followup:
            lines += [f"*Read as:* {plain(turn.read_as)}", ""]
        if stopped:
            lines += [(plain(turn.answer) + " " if turn.answer else "") + f"*{STOPPED}: the answer was stopped before it was complete.*", ""]
            continue
        lines += [plain(turn.answer) or "*No answer was found in this paper.*", ""]
        notes = [note for note in dict.fromkeys(turn.messages) if note not in said]
        said.update(notes)
        lines += [f"> ⚠️ {plain(full_sentence(note))}" for note in notes] + ([""] if notes else [])
        if turn.shown:
            lines += ["**Cited:**" if turn.cited else "**Best match (the answer cites none):**", ""]
            for e in turn.shown:
                lines += _evidence_markdown(e)
    return "\n".join(lines)


def chat_zip(paper: Paper, asked: Sequence[Asked]) -> Path:
    """`chat.md` and the crops of the figures and tables it shows, as one zip in a fresh file."""
    files: dict[str, bytes | Path] = {CHAT_MARKDOWN: chat_markdown(paper, asked).encode("utf-8")}
    for a in asked:
        for e in a.turn.shown:
            if e.figure is not None and e.figure.image and Path(e.figure.image).is_file():
                files[_crop_name(e.figure)] = Path(e.figure.image)
    return _write(storage.export_path("chat.zip"), files)
