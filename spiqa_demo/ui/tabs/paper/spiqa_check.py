"""The SPIQA check: when the loaded paper is a SPIQA paper, score answers against the benchmark.

The paper is looked up in the SPIQA files the app knows (`SPIQA_CHECK_DATASETS`, default: those
under `<SPIQA_DATA_DIR>/spiqa`) by arXiv id, then title. Its benchmark questions are listed; asking
one shows, next to the model's answer, the ground-truth answer and figure, whether the chosen
figure is the reference, L3Score (live, with the judge named; the exact value too when the judge is
local) and ROUGE-L / BLEU. "Run all questions" fills a table with the same columns. The checking
itself is `spiqa_demo.evaluation.check`; this module formats its records and wires the panel.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import gradio as gr

from spiqa_demo.errors import PaperError
from spiqa_demo.types import Figure
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.guards.input_limits import capped, limit
from spiqa_demo.ui.serving.untrusted import code, inert
from spiqa_demo.ui.serving.work import model_calls
from spiqa_demo.ui.serving.work.steps import Wait
from spiqa_demo.ui.shared.model_settings import PanelChoice, PanelValue, resolve_backend
from spiqa_demo.ui.shared.outputs import components
from spiqa_demo.ui.shared.spiqa_data import benchmark_datasets
from spiqa_demo.ui.shared.spiqa_images import find_image
from spiqa_demo.ui.state.session import Session

if TYPE_CHECKING:
    from spiqa_demo.evaluation import ResultRecord
    from spiqa_demo.evaluation.metrics import L3Judge
    from spiqa_demo.qa import Answer
    from spiqa_demo.ui.serving.work.queues import Queues
    from spiqa_demo.ui.shared.events import PaperEvents
    from spiqa_demo.ui.shared.model_settings import ModelPanel

log = logging.getLogger(__name__)

TABLE_COLUMNS = ["#", "Question", "Ground truth", "Answer", "Chosen", "Reference", "Chosen = reference",
                 "L3Score", "ROUGE-L", "BLEU-1"]
TableRow = list[str | int | float | None]  # a line of the run-all table, in the order of TABLE_COLUMNS
NOT_A_BENCHMARK_QUESTION = "Your last question is not one of this paper's SPIQA questions, so there is no ground truth to compare with."


def match_paper(session: Session) -> Session:
    """The session with its SPIQA paper and the SPIQA figure files mapped to extracted items."""
    from spiqa_demo.evaluation.spiqa import find_spiqa_paper, map_figures

    session.spiqa, session.spiqa_figures = None, {}
    if session.paper is not None:
        session.spiqa = find_spiqa_paper(session.paper, benchmark_datasets())
    if session.spiqa is not None and session.paper is not None:
        session.spiqa_figures = {file: m.figure for file, m in map_figures(session.spiqa, session.paper).items()}
    return session


def load_judge(model: str, base_url: str, answer_base_url: str = "", api_key: str = "") -> tuple[L3Judge | None, str]:
    """`(judge or None, why not)`; a typed API key is passed on only to the answering model's own server.

    A judge the operator does not allow visitors to choose (`visitor_policy`) is not contacted; the
    operator's judge is asked exactly as configured, and only it may carry the operator's key.
    """
    from spiqa_demo.evaluation.metrics import load_judge as library_load_judge
    from spiqa_demo.evaluation.metrics.l3score import judge_kind
    from spiqa_demo.models.endpoints import same_endpoint
    from spiqa_demo.ui.serving.guards.visitor_policy import ModelTarget, VisitorPolicy, operator_judge

    settings = app_settings()
    if settings.ui.ui_lock_model:
        model, base_url, api_key = settings.evaluation.judge_model, settings.evaluation.judge_base_url, ""
    model, base_url = capped(model, "model").strip(), capped(base_url, "base_url").strip()
    if not model:
        return None, "L3Score needs a judge model: set one under \"L3Score judge\" (SPIQA used gpt-4o)."
    configured = operator_judge(settings)
    asked = ModelTarget(judge_kind(settings.evaluation, base_url), model, base_url)
    verdict = VisitorPolicy.from_settings(settings).check(asked, configured, what="judge")
    if verdict.refusal:
        return None, verdict.refusal
    target = configured if verdict.source == "operator" else asked
    typed = capped(api_key, "api_key").strip() if base_url and same_endpoint(base_url, capped(answer_base_url, "base_url")) else ""
    key = typed or (None if verdict.source == "operator" else "")
    try:
        return library_load_judge(settings, model=target.model, backend=target.backend, base_url=target.base_url,
                                  api_key=key, untrusted=verdict.untrusted), ""
    except PaperError as exc:
        return None, f"The judge could not be loaded: {exc}"


def _figure_name(figure: Figure | None) -> str:
    return inert(figure.title) if figure is not None else "none"


def _chosen(answer: Answer) -> Figure | None:
    from spiqa_demo.evaluation.check import chosen_item

    return chosen_item(answer)


def _references(session: Session, record: ResultRecord) -> list[Figure]:
    from spiqa_demo.evaluation.check import reference_items

    return reference_items(record.reference_figures, session.spiqa_figures)


def _verdict(record: ResultRecord) -> str:
    hit = record.retrieval_hit
    if hit is None:
        return "cannot tell"
    return "✓ yes" if hit else "✗ no"


def _judge(record: ResultRecord) -> str:
    return record.l3[0].judge if record.l3 else ""


def check_markdown(session: Session, answer: Answer, record: ResultRecord) -> str:
    """The texts, then one row of figure verdict and scores, then the judge and notes."""
    def cell(text: str) -> str:
        return text.replace("|", "¦").replace("\n", " ")

    reference = (", ".join(_figure_name(f) for f in _references(session, record))
                 or ", ".join(inert(r) for r in record.reference_figures) or "—")
    metrics = record.metrics
    score, exact = metrics.get("L3Score"), metrics.get("L3Score-exact")
    l3 = "—" if score is None else f"**{score:.2f}**" + (f" (exact {exact:.2f})" if exact is not None else "")
    rouge, bleu1, bleu4 = (metrics.get(key) for key in ("ROUGE-L", "BLEU-1", "BLEU-4"))
    lines = [
        f"**Question.** {inert(record.question)}",
        f"**Ground truth.** {inert(record.ground_truth) or '—'}",
        f"**Model's answer.** {inert(record.answer) or '*(none)*'}",
        "| Chosen | Reference | Chosen = reference | L3Score | ROUGE-L | BLEU-1 / BLEU-4 |\n|---|---|---|---|---|---|\n"
        + "| " + " | ".join(cell(v) for v in (
            _figure_name(_chosen(answer)), reference, _verdict(record), l3,
            f"{rouge:.3f}" if rouge is not None else "—",
            f"{bleu1:.3f} / {bleu4:.3f}" if bleu1 is not None and bleu4 is not None else "—",
        )) + " |",
    ]
    if score is not None:
        how = "top-5 log-probs; exact = full next-token distribution (local judge)" if exact is not None else "top-5 log-probs"
        lines.append(f"<small>L3Score judge: {code(_judge(record))} ({how}).</small>")
    lines += [f"> {inert(n)}" for n in record.notes if n]
    return "\n\n".join(lines)


def reference_image(session: Session, record: ResultRecord) -> tuple[str, str] | None:
    """(image, label) of the ground-truth figure: SPIQA's own image when on disk, else this PDF's crop."""
    if record.reference_figures and session.spiqa is not None:
        found = find_image(record.reference_figures[0], session.spiqa.paper_id)
        if found:
            return found, f"Ground truth (SPIQA image {Path(found).name})"
    for item in _references(session, record):
        if item.image:
            return item.image, f"Ground truth: {item.title} (crop from this PDF)"
    return None


def row(session: Session, number: int, answer: Answer, record: ResultRecord) -> TableRow:
    """One line of the run-all table (TABLE_COLUMNS)."""
    hit = record.retrieval_hit
    chosen = _chosen(answer)
    rouge, bleu1, score = (record.metrics.get(key) for key in ("ROUGE-L", "BLEU-1", "L3Score"))
    return [
        number,
        record.question,
        record.ground_truth,
        record.answer,
        chosen.title if chosen is not None else "none",
        ", ".join(f.title for f in _references(session, record)) or ", ".join(record.reference_figures),
        "" if hit is None else ("yes" if hit else "no"),
        None if score is None else round(score, 3),
        None if rouge is None else round(rouge, 3),
        None if bleu1 is None else round(bleu1, 3),
    ]


def summary_markdown(records: list[ResultRecord]) -> str:
    """Totals of a run-all (`evaluation.overview`): retrieval accuracy, mean L3Score per judge, mean ROUGE-L."""
    from spiqa_demo.evaluation import overview

    totals = overview(records)
    parts = [f"**{totals.questions} questions**"]
    if totals.told:
        parts.append(f"chosen = reference {totals.right}/{totals.told}")
    parts += [f"mean L3Score {mean:.3f} (judge {inert(judge) or 'unknown'})" for judge, mean in totals.l3.items()]
    if totals.rouge_l is not None:
        parts.append(f"mean ROUGE-L {totals.rouge_l:.3f}")
    return " · ".join(parts)


# ---- event handlers


class MatchOutputs(NamedTuple):
    """The panel after a load (outputs left out stay as they are), in the order of `components`."""

    session: Session
    panel: Any = gr.skip()
    header: Any = gr.skip()
    questions: Any = gr.skip()
    result: Any = gr.skip()
    reference: Any = gr.skip()
    table: Any = gr.skip()
    summary: Any = gr.skip()



def on_paper_loaded(session: Session | None) -> MatchOutputs:
    """After a load: the panel shown with the paper's benchmark questions when it is a SPIQA paper, else hidden."""
    session = session or Session()
    if session.paper is None:
        return MatchOutputs(session)
    try:
        match_paper(session)
    except Exception:  # the check is an extra: a broken SPIQA file must not break loading
        log.exception("SPIQA matching failed")
        session.spiqa = None
    spiqa = session.spiqa
    if spiqa is None:
        return _fresh_panel(session, visible=False, header="", samples=[])
    header = (f"**This paper is in SPIQA {inert(spiqa.split)}** (arXiv {spiqa.paper_id}, {len(spiqa.questions)} "
              "benchmark questions). Click a question to ask it; the answer is scored against the ground truth.")
    return _fresh_panel(session, visible=True, header=header, samples=[[q.question] for q in spiqa.questions])


def _fresh_panel(session: Session, visible: bool, header: str, samples: list[list[str]]) -> MatchOutputs:
    """The panel with its header and questions, and nothing left of the previous paper's results."""
    return MatchOutputs(session, panel=gr.update(visible=visible), header=header, questions=gr.update(samples=samples),
                        result="", reference=gr.update(value=None, visible=False), table=None, summary="")


def pick_question(sample: object) -> str:
    """The clicked question's text, a benchmark's or one suggested for the paper (goes to the chat's question box);
    `sample` is what the client sent for the clicked sample, whatever it is."""
    if isinstance(sample, (list, tuple)):
        sample = sample[0] if sample else ""
    return capped(sample, "question")


class ScoreOutputs(NamedTuple):
    """The check of the last answer (outputs left out stay as they are), in the order of `components`."""

    result: Any = gr.skip()
    reference: Any = gr.skip()



def score_last(session: Session | None, judge_model: str, judge_url: str, base_url: str,
               api_key: str) -> Iterator[ScoreOutputs | Wait]:
    """The check of the session's last answer and its ground-truth figure, when it is a benchmark question
    (as `steps`: the judge is a model call, waited for without holding a thread)."""
    from spiqa_demo.evaluation.check import check_answer, find_question

    if session is None or session.spiqa is None or session.last_answer is None:
        yield ScoreOutputs()
        return
    answer, spiqa = session.last_answer, session.spiqa
    question = find_question(spiqa, answer.question)
    if question is None:
        yield ScoreOutputs(result=NOT_A_BENCHMARK_QUESTION, reference=gr.update(value=None, visible=False))
        return
    judge, note = load_judge(judge_model, judge_url, base_url, api_key)
    checked = (check_answer(answer, spiqa, question, session.spiqa_figures, judge, note) for _ in range(1))
    call = model_calls.start(id(session), checked, judge.backend if judge is not None else None)
    try:
        yield Wait(call.has_news)
        record = call.take()[0]
    except PaperError as exc:
        yield ScoreOutputs(result=f"> {inert(str(exc))}")
        return
    finally:
        call.stop()
    image = reference_image(session, record)
    shown = (gr.update(value=None, visible=False) if image is None
             else gr.update(value=image[0], label=image[1], visible=True))
    yield ScoreOutputs(result=check_markdown(session, answer, record), reference=shown)


class RunAllOutputs(NamedTuple):
    """The run-all table and its totals (outputs left out stay as they are), in the order of `components`."""

    table: Any = gr.skip()
    summary: Any = gr.skip()



def run_all(session: Session | None, judge_model: str, judge_url: str, *panel: PanelValue,
            progress: gr.Progress = gr.Progress()) -> Iterator[RunAllOutputs | Wait]:
    """Ask every benchmark question of the paper; yields the table and its totals as each is done (as
    `steps`: the run is one model call of the session, waited for without holding a thread)."""
    from spiqa_demo.evaluation.check import check_paper
    from spiqa_demo.qa import ask
    from spiqa_demo.qa.shortlist import retrieval_shortlist

    settings = app_settings()
    if session is None or session.spiqa is None or session.paper is None:
        yield RunAllOutputs(summary="Load a SPIQA paper first.")
        return
    chosen = PanelChoice.from_values(panel)
    choice, api_key = chosen.choice, chosen.api_key
    backend, notice = resolve_backend(choice, api_key)
    judge, judge_note = load_judge(judge_model, judge_url, choice.base_url, api_key)
    ask_paper = partial(ask, session.paper, backend=backend, task=choice.spiqa_task, k=choice.k,
                        use_captions=choice.captions, notice=notice, shortlist=retrieval_shortlist(settings.retrieval),
                        settings=settings.qa)
    total = len(session.spiqa.questions)
    rows: list[TableRow] = []
    records: list[ResultRecord] = []
    if total:
        progress(0.0, desc=f"Question 1 of {total}")
    checked = check_paper(session.spiqa, session.spiqa_figures, ask_paper, judge, judge_note)
    call = model_calls.start(id(session), checked, backend, judge.backend if judge is not None else None)
    try:
        while True:
            yield Wait(call.has_news)
            done = call.take()
            if not done and call.finished:
                break
            for answer, record in done:
                records.append(record)
                rows.append(row(session, len(records), answer, record))
                if len(records) < total:
                    progress(len(records) / total, desc=f"Question {len(records) + 1} of {total}")
                yield RunAllOutputs(table=rows, summary=summary_markdown(records))
    except PaperError as exc:
        notice = str(exc)
    finally:
        call.stop()
    notes = sorted({n for r in records for n in r.notes if n} | ({notice} if notice else set()))
    yield RunAllOutputs(table=rows, summary=summary_markdown(records) + "".join(f"\n\n> {inert(n)}" for n in notes))


@dataclass(frozen=True)
class SpiqaCheck:
    """The panel's widgets."""

    panel: gr.Group
    header: gr.Markdown
    questions: gr.Dataset
    result: gr.Markdown
    reference: gr.Image
    judge_model: gr.Textbox
    judge_url: gr.Textbox
    run_all_button: gr.Button
    summary: gr.Markdown
    table: gr.Dataframe


def build() -> SpiqaCheck:
    """The panel (hidden until a SPIQA paper is loaded)."""
    settings = app_settings()
    with gr.Group(visible=False, elem_id="spiqa-check") as panel:
        header = gr.Markdown("", elem_id="spiqa-header", padding=True)
        questions = gr.Dataset(components=[gr.Textbox(visible=False)], samples=[], label="SPIQA questions",
                               elem_id="spiqa-questions", samples_per_page=10)
        result = gr.Markdown("", elem_id="spiqa-result", padding=True)
        reference = gr.Image(label="Ground-truth figure", height=260, interactive=False, elem_id="spiqa-reference",
                             buttons=[], visible=False)
        with gr.Accordion("L3Score judge", open=False):
            with gr.Row():
                judge_model = gr.Textbox(value=settings.evaluation.judge_model, label="Judge model",
                                         placeholder="gpt-4o, or a local model folder / Hugging Face id",
                                         interactive=not settings.ui.ui_lock_model, elem_id="judge-model",
                                         max_length=limit("model"))
                judge_url = gr.Textbox(value=settings.evaluation.judge_base_url, label="Judge base URL (empty: a local model; https://api.openai.com/v1 for gpt-4o)",
                                       interactive=not settings.ui.ui_lock_model, elem_id="judge-url",
                                       max_length=limit("base_url"))
        run_all_button = gr.Button("Run all questions of this paper", elem_id="run-all")
        summary = gr.Markdown("", elem_id="run-all-summary", padding=True)
        table = gr.Dataframe(headers=TABLE_COLUMNS, interactive=False, wrap=True, elem_id="run-all-table", max_height=400)
    return SpiqaCheck(panel=panel, header=header, questions=questions, result=result, reference=reference,
                      judge_model=judge_model, judge_url=judge_url, run_all_button=run_all_button, summary=summary,
                      table=table)


def wire(panel: SpiqaCheck, session: gr.State, model: ModelPanel, paper: PaperEvents, queues: Queues) -> None:
    """Connect the panel to the Paper tab: match every loaded paper to SPIQA, score every answer of its chat
    (with the answering model's endpoint and key, which the judge may share), and run all questions.

    A question clicked in the list is asked in the Paper chat, so `paper_tab.wire` connects that click.
    """
    matched = components(MatchOutputs, panel, session=session)
    for load in paper.loads:
        load.event.then(on_paper_loaded, [session], matched, api_name=f"{load.api_name}_spiqa_match")
    scored = [session, panel.judge_model, panel.judge_url, model.base_url, model.api_key]
    checked = components(ScoreOutputs, panel)
    paper.typed.then(queues.handler(score_last), scored, checked, api_name="spiqa_score", **queues.ask)
    paper.picked.then(queues.handler(score_last), scored, checked, api_visibility="private", **queues.ask)
    panel.run_all_button.click(queues.handler(run_all), [session, panel.judge_model, panel.judge_url, *model.inputs()],
                               components(RunAllOutputs, panel), api_name="spiqa_run_all", **queues.ask)
