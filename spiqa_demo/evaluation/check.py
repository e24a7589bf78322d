"""Check answers about a PDF against the SPIQA entry of that paper: the app's SPIQA check.

The app answers from the PDF it extracted, not from SPIQA's images, so each SPIQA figure file is
tied to an extracted item first (`spiqa.map_figures`). `check_answer` turns one `Answer` into the
`ResultRecord` batch evaluation writes, with what a single answer can be scored on: whether the
item it rests on is a reference (`metrics["retrieval_hit"]`, absent when that cannot be told),
L3Score from a judge, and ROUGE-L / BLEU of this answer alone (`metrics.ANSWER_KEYS`); `notes`
say why a value is missing. `check_paper` asks every question through the harness's loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.harness import each_done, question_record
from spiqa_demo.evaluation.metrics.classic import answer_scores
from spiqa_demo.evaluation.metrics.l3score import L3Judge
from spiqa_demo.evaluation.records import ResultRecord
from spiqa_demo.evaluation.scoring import judge_record
from spiqa_demo.evaluation.spiqa import SpiqaPaper, SpiqaQuestion
from spiqa_demo.qa import Answer
from spiqa_demo.types import Figure

FigureFiles = Mapping[str, Figure | None]  # SPIQA figure file -> the extracted item (None: not found)
Checked = tuple[Answer, ResultRecord]

REFERENCE_NOT_FOUND = "The reference figure was not found among this PDF's extracted figures."
NO_GROUND_TRUTH = "SPIQA gives no ground-truth answer for this question."


def _normalise(text: str) -> str:
    return " ".join((text or "").lower().split()).rstrip("?. ")


def find_question(paper: SpiqaPaper, text: str) -> SpiqaQuestion | None:
    """The benchmark question with this text (case, spacing and a final "?" or "." ignored), or None."""
    wanted = _normalise(text)
    return next((q for q in paper.questions if _normalise(q.question) == wanted), None)


def chosen_item(answer: Answer) -> Figure | None:
    """The item the answer rests on: the model's pick, or retrieval's best when there is no pick."""
    return answer.figure if answer.figure_source in ("model", "retrieval") else None


def reference_items(files: Sequence[str], figures: FigureFiles) -> list[Figure]:
    """The extracted items of SPIQA figure files (files with no item are left out)."""
    return [f for file in files if (f := figures.get(file)) is not None]


def _file_of(item: Figure | None, figures: FigureFiles, references: Sequence[str]) -> str | None:
    """A SPIQA file of `item`, a reference one when several files map to it."""
    files = [file for file, f in figures.items() if item is not None and f is not None and f.id == item.id]
    return next((file for file in files if file in references), files[0] if files else None)


def check_answer(answer: Answer, paper: SpiqaPaper, question: SpiqaQuestion, figures: FigureFiles,
                 judge: L3Judge | None, judge_note: str = "") -> ResultRecord:
    """`answer` to `question` scored against SPIQA's ground truth (`judge_note`: why there is no judge)."""
    record = question_record(paper.split, paper, question, answer.task, answer.model or "")
    record.take_answer(answer)
    chosen = chosen_item(answer)
    record.chosen_figure = _file_of(chosen, figures, question.references)
    items = reference_items(question.references, figures)
    if chosen is not None and items:
        record.metrics["retrieval_hit"] = float(any(chosen.id == f.id for f in items))
    if question.references and not items:
        record.notes.append(REFERENCE_NOT_FOUND)
    if not question.answer:
        record.notes.append(NO_GROUND_TRUTH)
        return record
    if judge is not None:
        try:
            judge_record(record, judge)
        except PaperError as exc:
            record.notes.append(f"L3Score failed: {exc}")
    elif judge_note:
        record.notes.append(judge_note)
    try:
        record.metrics.update(answer_scores([answer.answer], [question.answer])[0])
    except PaperError as exc:
        record.notes.append(str(exc))
    return record


def check_paper(paper: SpiqaPaper, figures: FigureFiles, ask_one: Callable[[str], Answer],
                judge: L3Judge | None, judge_note: str = "") -> Iterator[Checked]:
    """Ask every question of `paper` with `ask_one(question text)` and check each answer, in order."""
    def work(question: SpiqaQuestion) -> Checked:
        answer = ask_one(question.question)
        return answer, check_answer(answer, paper, question, figures, judge, judge_note)

    for _, checked in each_done(paper.questions, work):
        yield checked
