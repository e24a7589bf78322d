"""The SPIQA check: when the loaded paper is a SPIQA paper, score answers against the benchmark.

The paper is looked up in the SPIQA files the app knows (`SPIQA_CHECK_DATASETS`, default: those
under `<SPIQA_DATA_DIR>/spiqa`) by arXiv id, then title. Its benchmark questions are listed; asking
one shows, next to the model's answer, the ground-truth answer and figure, whether the chosen
figure is the reference, L3Score (live, with the judge named; the exact value too when the judge is
local) and ROUGE-L / BLEU. "Run all questions" fills a table with the same columns.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gradio as gr

from spiqa_demo.errors import PaperError
from spiqa_demo.settings import get_settings
from spiqa_demo.types import Figure
from spiqa_demo.ui.answer_metrics import text_scores
from spiqa_demo.ui.model_settings import ModelChoice, resolve_backend
from spiqa_demo.ui.session import Session
from spiqa_demo.ui.spiqa_images import find_image

if TYPE_CHECKING:
    from spiqa_demo.metrics import L3Judge, L3Result
    from spiqa_demo.qa import Answer
    from spiqa_demo.spiqa import SpiqaDataset, SpiqaQuestion

log = logging.getLogger(__name__)

# Files looked for under <SPIQA_DATA_DIR>/spiqa when SPIQA_CHECK_DATASETS is empty, in this order.
DEFAULT_FILES = ("SPIQA_testA.json", "SPIQA_testB.json", "SPIQA_testB_sample.json", "SPIQA_testC.json",
                 "testC_qa_derived_from_official_responses.json")
TABLE_COLUMNS = ["#", "Question", "Ground truth", "Answer", "Chosen", "Reference", "Chosen = reference",
                 "L3Score", "ROUGE-L", "BLEU-1"]
OPENAI_URL = "https://api.openai.com/v1"
NOT_A_BENCHMARK_QUESTION = "Your last question is not one of this paper's SPIQA questions, so there is no ground truth to compare with."


def dataset_sources() -> list[str]:
    """The SPIQA files (or split names) papers are looked up in."""
    settings = get_settings()
    if settings.check_datasets:
        return [s.strip() for s in settings.check_datasets.split(",") if s.strip()]
    folder = settings.data_dir / "spiqa"
    return [str(folder / name) for name in DEFAULT_FILES if (folder / name).is_file()]


@lru_cache(maxsize=1)
def benchmark_datasets() -> tuple[SpiqaDataset, ...]:
    """The loaded SPIQA files (once per process); one that cannot be loaded is skipped with a log line."""
    from spiqa_demo.spiqa import load_dataset

    loaded = []
    for source in dataset_sources():
        try:
            loaded.append(load_dataset(source))
        except PaperError as exc:
            log.warning("SPIQA check: skipping %s (%s)", source, exc)
    return tuple(loaded)


def match_paper(session: Session) -> Session:
    """The session with its SPIQA paper and the SPIQA figure files mapped to extracted items."""
    from spiqa_demo.spiqa import find_spiqa_paper, map_figures

    session.spiqa, session.spiqa_figures = None, {}
    if session.paper is not None:
        session.spiqa = find_spiqa_paper(session.paper, benchmark_datasets())
    if session.spiqa is not None:
        session.spiqa_figures = {file: m.figure for file, m in map_figures(session.spiqa, session.paper).items()}
    return session


def _normalise(text: str) -> str:
    return " ".join((text or "").lower().split()).rstrip("?. ")


def find_question(session: Session, text: str) -> SpiqaQuestion | None:
    """The benchmark question with this text (case and spacing ignored), or None."""
    if session.spiqa is None:
        return None
    wanted = _normalise(text)
    return next((q for q in session.spiqa.questions if _normalise(q.question) == wanted), None)


@dataclass
class Check:
    """One answer compared with the ground truth (None: not computable, `notes` say why)."""

    question: SpiqaQuestion
    answer: str
    chosen: Figure | None
    references: list[str]  # SPIQA figure files
    reference_items: list[Figure]  # the extracted items they map to
    chosen_is_reference: bool | None
    l3: L3Result | None = None
    scores: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def load_judge(model: str, base_url: str, answer_base_url: str = "", api_key: str = "") -> tuple[L3Judge | None, str]:
    """`(judge or None, why not)`; a typed API key is passed on only to the answering model's own server."""
    from spiqa_demo.metrics import load_judge as library_load_judge

    settings = get_settings()
    if settings.ui_lock_model:
        model, base_url, api_key = settings.judge_model, settings.judge_base_url, ""
    model, base_url = (model or "").strip(), (base_url or "").strip()
    if not model:
        return None, "L3Score needs a judge model: set one under \"L3Score judge\" (SPIQA used gpt-4o)."
    key = (api_key or "").strip() if _same_server(base_url, answer_base_url) else ""
    try:
        return library_load_judge(model=model, base_url=base_url, api_key=key or None), ""
    except PaperError as exc:
        return None, f"The judge could not be loaded: {exc}"


def _same_server(judge_url: str, answer_url: str) -> bool:
    """Whether the judge runs on the server the typed key is for (empty answer URL = OpenAI)."""
    answer_url = (answer_url or "").strip().rstrip("/") or OPENAI_URL
    return bool(judge_url) and judge_url.rstrip("/") == answer_url


def check_answer(session: Session, answer: Answer, question: SpiqaQuestion, judge: L3Judge | None, judge_note: str = "") -> Check:
    """Compare `answer` with `question`'s ground truth: figure, L3Score, ROUGE-L and BLEU."""
    items = [f for file in question.references if (f := session.spiqa_figures.get(file)) is not None]
    chosen = answer.figure if answer.figure_source in ("model", "retrieval") else None
    verdict = None if chosen is None or not items else any(chosen.id == f.id for f in items)
    check = Check(question, answer.answer, chosen, list(question.references), items, verdict)
    if question.references and not items:
        check.notes.append("The reference figure was not found among this PDF's extracted figures.")
    if not question.answer:
        check.notes.append("SPIQA gives no ground-truth answer for this question.")
        return check
    if judge is None:
        check.notes.append(judge_note)
    else:
        try:
            check.l3 = judge.score(question.question, question.answer, answer.answer)
        except PaperError as exc:
            check.notes.append(f"L3Score failed: {exc}")
    try:
        check.scores = text_scores([answer.answer], [question.answer])[0]
    except PaperError as exc:
        check.notes.append(str(exc))
    return check


def _figure_name(figure: Figure | None) -> str:
    return escape(figure.title) if figure is not None else "none"


def _verdict(check: Check) -> str:
    if check.chosen_is_reference is None:
        return "cannot tell"
    return "✓ yes" if check.chosen_is_reference else "✗ no"


def check_markdown(check: Check) -> str:
    """The texts, then one row of figure verdict and scores, then the judge and notes."""
    def cell(text: str) -> str:
        return text.replace("|", "¦").replace("\n", " ")

    reference = ", ".join(_figure_name(f) for f in check.reference_items) or ", ".join(escape(r) for r in check.references) or "—"
    l3 = "—" if check.l3 is None else f"**{check.l3.score:.2f}**" + (f" (exact {check.l3.exact:.2f})" if check.l3.exact is not None else "")
    scores = check.scores
    lines = [
        f"**Question.** {escape(check.question.question)}",
        f"**Ground truth.** {escape(check.question.answer) or '—'}",
        f"**Model's answer.** {escape(check.answer) or '*(none)*'}",
        "| Chosen | Reference | Chosen = reference | L3Score | ROUGE-L | BLEU-1 / BLEU-4 |\n|---|---|---|---|---|---|\n"
        + "| " + " | ".join(cell(v) for v in (
            _figure_name(check.chosen), reference, _verdict(check), l3,
            f"{scores['ROUGE-L']:.3f}" if scores else "—",
            f"{scores['BLEU-1']:.3f} / {scores['BLEU-4']:.3f}" if scores else "—",
        )) + " |",
    ]
    if check.l3 is not None:
        how = "top-5 log-probs; exact = full next-token distribution (local judge)" if check.l3.exact is not None else "top-5 log-probs"
        lines.append(f"<small>L3Score judge: `{escape(check.l3.judge)}` ({how}).</small>")
    lines += [f"> {escape(n)}" for n in check.notes if n]
    return "\n\n".join(lines)


def reference_image(session: Session, check: Check) -> tuple[str, str] | None:
    """(image, label) of the ground-truth figure: SPIQA's own image when on disk, else this PDF's crop."""
    if check.references and session.spiqa is not None:
        found = find_image(check.references[0], session.spiqa.paper_id)
        if found:
            return found, f"Ground truth (SPIQA image {Path(found).name})"
    for item in check.reference_items:
        if item.image:
            return item.image, f"Ground truth: {item.title} (crop from this PDF)"
    return None


def row(number: int, check: Check) -> list[Any]:
    """One line of the run-all table (TABLE_COLUMNS)."""
    verdict = "" if check.chosen_is_reference is None else ("yes" if check.chosen_is_reference else "no")
    return [
        number,
        check.question.question,
        check.question.answer,
        check.answer,
        check.chosen.title if check.chosen is not None else "none",
        ", ".join(f.title for f in check.reference_items) or ", ".join(check.references),
        verdict,
        None if check.l3 is None else round(check.l3.score, 3),
        round(check.scores["ROUGE-L"], 3) if check.scores else None,
        round(check.scores["BLEU-1"], 3) if check.scores else None,
    ]


def summary_markdown(checks: list[Check]) -> str:
    """Totals of a run-all: retrieval accuracy, mean L3Score (one judge) and mean ROUGE-L."""
    n = len(checks)
    known = [c.chosen_is_reference for c in checks if c.chosen_is_reference is not None]
    parts = [f"**{n} questions**"]
    if known:
        parts.append(f"chosen = reference {sum(known)}/{len(known)}")
    l3 = [c.l3 for c in checks if c.l3 is not None]
    if l3:
        judges = sorted({r.judge for r in l3})
        parts.append(f"mean L3Score {sum(r.score for r in l3) / len(l3):.3f} (judge {', '.join(judges)})")
    rouge = [c.scores["ROUGE-L"] for c in checks if c.scores]
    if rouge:
        parts.append(f"mean ROUGE-L {sum(rouge) / len(rouge):.3f}")
    return " · ".join(parts)


# ---- event handlers


def on_paper_loaded(session: Session | None) -> tuple:
    """After a load: (session, panel visibility, header, question list, result, image, table, summary)."""
    session = session or Session()
    if session.paper is None:
        return (session, *(gr.skip(),) * 7)
    try:
        match_paper(session)
    except Exception:  # the check is an extra: a broken SPIQA file must not break loading
        log.exception("SPIQA matching failed")
        session.spiqa = None
    spiqa = session.spiqa
    if spiqa is None:
        return (session, gr.update(visible=False), "", gr.update(samples=[]), "", gr.update(value=None, visible=False), None, "")
    header = (f"**This paper is in SPIQA {escape(spiqa.split)}** (arXiv {spiqa.paper_id}, {len(spiqa.questions)} "
              "benchmark questions). Click a question to ask it; the answer is scored against the ground truth.")
    samples = [[q.question] for q in spiqa.questions]
    return (session, gr.update(visible=True), header, gr.update(samples=samples), "", gr.update(value=None, visible=False), None, "")


def pick_question(sample: Any) -> str:
    """The clicked benchmark question's text (goes to the chat's question box)."""
    if isinstance(sample, (list, tuple)):
        sample = sample[0] if sample else ""
    return str(sample or "")


def score_last(session: Session | None, judge_model: str, judge_url: str, base_url: str, api_key: str) -> tuple[Any, Any]:
    """(result markdown, ground-truth image) for the session's last answer, when it is a benchmark question."""
    if session is None or session.spiqa is None or session.last_answer is None:
        return gr.skip(), gr.skip()
    question = find_question(session, session.last_answer.question)
    if question is None:
        return NOT_A_BENCHMARK_QUESTION, gr.update(value=None, visible=False)
    judge, note = load_judge(judge_model, judge_url, base_url, api_key)
    check = check_answer(session, session.last_answer, question, judge, note)
    image = reference_image(session, check)
    if image is None:
        return check_markdown(check), gr.update(value=None, visible=False)
    return check_markdown(check), gr.update(value=image[0], label=image[1], visible=True)


def run_all(session: Session | None, judge_model: str, judge_url: str, *choice_and_key: Any,
            progress: gr.Progress = gr.Progress()) -> Iterator[tuple[Any, str]]:
    """Ask every benchmark question of the paper; yields (table rows, summary) as each is done."""
    from spiqa_demo.qa import ask

    if session is None or session.spiqa is None or session.paper is None:
        yield gr.skip(), "Load a SPIQA paper first."
        return
    *fields, api_key = choice_and_key
    choice = ModelChoice.from_inputs(*fields)
    backend, notice = resolve_backend(choice, api_key)
    judge, judge_note = load_judge(judge_model, judge_url, choice.base_url, api_key)
    questions = session.spiqa.questions
    rows: list[list[Any]] = []
    checks: list[Check] = []
    for number, question in enumerate(questions, 1):
        progress((number - 1) / len(questions), desc=f"Question {number} of {len(questions)}")
        answer = ask(session.paper, question.question, backend, task=choice.task, k=choice.k,
                     use_captions=choice.captions, notice=notice)
        check = check_answer(session, answer, question, judge, judge_note)
        checks.append(check)
        rows.append(row(number, check))
        yield rows, summary_markdown(checks)
    notes = sorted({n for c in checks for n in c.notes if n} | ({notice} if notice else set()))
    yield rows, summary_markdown(checks) + "".join(f"\n\n> {escape(n)}" for n in notes)


def build() -> dict[str, Any]:
    """The panel (hidden until a SPIQA paper is loaded)."""
    settings = get_settings()
    c: dict[str, Any] = {}
    with gr.Group(visible=False, elem_id="spiqa-check") as c["panel"]:
        c["header"] = gr.Markdown("", elem_id="spiqa-header", padding=True)
        c["questions"] = gr.Dataset(components=[gr.Textbox(visible=False)], samples=[], label="SPIQA questions",
                                    elem_id="spiqa-questions", samples_per_page=10)
        c["result"] = gr.Markdown("", elem_id="spiqa-result", padding=True)
        c["reference"] = gr.Image(label="Ground-truth figure", height=260, interactive=False, elem_id="spiqa-reference",
                                  buttons=[], visible=False)
        with gr.Accordion("L3Score judge", open=False):
            with gr.Row():
                c["judge_model"] = gr.Textbox(value=settings.judge_model, label="Judge model",
                                              placeholder="gpt-4o, or a local model folder / Hugging Face id",
                                              interactive=not settings.ui_lock_model, elem_id="judge-model")
                c["judge_url"] = gr.Textbox(value=settings.judge_base_url, label="Judge base URL (empty: a local model; https://api.openai.com/v1 for gpt-4o)",
                                            interactive=not settings.ui_lock_model, elem_id="judge-url")
        c["run_all"] = gr.Button("Run all questions of this paper", elem_id="run-all")
        c["summary"] = gr.Markdown("", elem_id="run-all-summary", padding=True)
        c["table"] = gr.Dataframe(headers=TABLE_COLUMNS, interactive=False, wrap=True, elem_id="run-all-table",
                                  max_height=400)
    return c
