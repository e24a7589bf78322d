"""The error-analysis tab: load a result file, see where a model fails and why, compare two runs.

Summary numbers (how many answers are right, by which verdict rule) and plots (SPIQA's error
taxonomy, score distribution, scores by figure category, score when the chosen figure was right vs
wrong) on top; a filterable table below with the ground truth and each answer's verdict; selecting
a row shows question, ground truth, answer, verdict, raw reply and the chosen and reference figures
(SPIQA's images and captions when they are on this machine; a button fetches test-C's from the hub).
A second file is laid side by side question by question (`error_compare`).
Files come from an upload or from the server's results folder, picked by name. A file over
`SPIQA_UI_MAX_RESULTS_MB` is refused before it is read, one of more than `SPIQA_UI_MAX_RESULTS_ROWS`
answers before they are scored: a session keeps its file's table, so both bound its memory. Files
are read and scored in worker processes with limits of their own (`result_files`).
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import gradio as gr

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation import analysis
from spiqa_demo.evaluation.taxonomy import CELL_NAMES, CELLS
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.guards.input_limits import capped, limit
from spiqa_demo.ui.serving.guards.repeats import first_reading
from spiqa_demo.ui.serving.guards.session_expiry import visitor_state
from spiqa_demo.ui.serving.untrusted import inert
from spiqa_demo.ui.serving.work.queues import Queues
from spiqa_demo.ui.serving.work.result_files import Scoring, measuring, reading, refused
from spiqa_demo.ui.serving.work.steps import Wait
from spiqa_demo.ui.shared.outputs import components
from spiqa_demo.ui.state.results import ResultsState
from spiqa_demo.ui.tabs.errors import error_compare
from spiqa_demo.ui.tabs.errors.spiqa_figures import fetch_test_c, figure_view, missing_help

log = logging.getLogger(__name__)

MAX_FILES = 200


def server_files() -> dict[str, Path]:
    """Result files offered by name: *.json / *.jsonl in `SPIQA_RESULTS_DIR`."""
    folder = app_settings().ui.results_dir
    if not folder.is_dir():
        return {}
    files = sorted(p for p in folder.iterdir() if p.suffix in (".json", ".jsonl") and p.is_file())
    return {p.name: p for p in files[:MAX_FILES]}


def _open(upload: str | None, name: str | None, owner: Hashable) -> Scoring[analysis.Results]:
    """The result file uploaded or picked being read in a worker, within the app's bounds (its size
    before reading; answers, time and memory there); done at once when it is refused before."""
    settings = app_settings().ui
    path = Path(upload) if upload else server_files().get(name or "")
    if path is None:
        return refused(PaperError("choose a result file: upload one, or pick one from the list"))
    megabytes = path.stat().st_size / 1_000_000 if path.is_file() else 0.0
    if megabytes > settings.ui_max_results_mb:
        return refused(PaperError(f"{path.name} is {megabytes:.1f} MB, over the {settings.ui_max_results_mb:g} MB this "
                                  "app reads (SPIQA_UI_MAX_RESULTS_MB): score it with "
                                  "`python -m spiqa_demo score --responses FILE`"))
    return reading(path, owner)


def summary_markdown(results: analysis.Results) -> str:
    """File-level numbers (`Results.overview`): size, models, retrieval accuracy, mean scores, warnings."""
    frame = results.frame
    totals = results.overview()
    parts = [f"**{results.name}** · {totals.questions} questions · {frame['paper'].nunique()} papers"]
    models = sorted({m for m in frame["model"] if m})
    if models:
        parts.append("model " + ", ".join(models))
    if totals.retrieval_accuracy is not None:
        parts.append(f"retrieval accuracy {totals.retrieval_accuracy:.3f} ({totals.told} CoT answers)")
    parts += [f"mean L3Score {mean:.3f} (judge {inert(judge) or 'unknown'})" for judge, mean in totals.l3.items()]
    if totals.rouge_l is not None:
        parts.append(f"ROUGE-L {totals.rouge_l:.3f}")
    judged = results.judged
    rules = ", ".join(f"{rule} {n}" for rule, n in judged.verdict_rules.items())
    parts.append(f"**{judged.right} answers right** (verdicts by rule: {rules})")
    text = " · ".join(parts)
    if results.warnings:
        shown = results.warnings[:5]
        more = f" (and {len(results.warnings) - 5} more)" if len(results.warnings) > 5 else ""
        text += "\n\n" + "\n".join(f"> ⚠️ {w}" for w in shown) + more
    return text


def _plots(results: analysis.Results) -> tuple[Any, Any, Any]:
    """Updates of three plots: score distribution, by figure category, retrieval right vs wrong."""
    score = results.score_column
    retrieval = analysis.by_retrieval(results)
    top = float(retrieval[f"mean {score}"].max()) if not retrieval.empty else 1.0
    return (
        gr.update(value=analysis.distribution(results), x="bin", y="questions", x_title=f"{score} (bins of 0.1)",
                  label=f"{score} per answer"),
        gr.update(value=analysis.by_category(results), x="bar", y="value", color="measure", x_title="", x_label_angle=-25,
                  y_lim=[0, 1], label=f"By figure category: mean {score} and retrieval accuracy"),
        gr.update(value=retrieval, x="retrieval", y=f"mean {score}", y_lim=[0, max(top * 1.2, 0.05)], color="retrieval",
                  color_map={"right": "#16a34a", "wrong": "#dc2626"},
                  label=f"Mean {score} when the chosen figure is right / wrong", visible=not retrieval.empty),
    )


# Relative column widths: the texts get the room.
WIDTHS = {"#": 4, "paper": 8, "key": 5, "category": 6, "question": 22, "ground truth": 18, "answer": 22, "verdict": 9,
          "retrieval": 7, "ROUGE-L": 6}
CELL_CHOICES = [analysis.ANY, *(CELL_NAMES[c] for c in CELLS)]


def _table(results: analysis.Results, filters: analysis.Filters) -> tuple[Any, list[int]]:
    rows = analysis.filtered(results, filters)
    shown = rows[analysis.TABLE_COLUMNS].reset_index().rename(columns={"index": "#"})
    return shown, list(rows.index)


class LoadOutputs(NamedTuple):
    """What loading a result file shows (outputs left out stay as they are), in the order of `components`."""

    state: ResultsState
    summary: str
    plot_distribution: Any = gr.skip()
    plot_category: Any = gr.skip()
    plot_retrieval: Any = gr.skip()
    plot_taxonomy: Any = gr.skip()
    split: Any = gr.skip()
    model: Any = gr.skip()
    category: Any = gr.skip()
    score_min: Any = gr.skip()
    score_max: Any = gr.skip()
    table: Any = gr.skip()



def load(upload: str | None, name: str | None, state: ResultsState | None, request: gr.Request) -> Iterator[LoadOutputs | Wait]:
    """The file's summary, plots, filter choices, score sliders and table; the same file picked again changes
    nothing (a dropdown repeats its input event when it loses focus, which would undo the filters set since).
    The file is read in a worker meanwhile (`result_files`): waiting for it holds no thread."""
    state = state or ResultsState()
    source = upload or name
    if state.a is not None and state.a_source == source:
        yield LoadOutputs(state=state, summary=gr.skip())
        return
    with first_reading(request.session_hash, "a", str(source)) as fresh:
        if not fresh:
            yield LoadOutputs(state=state, summary=gr.skip())
            return
        job = _open(upload, name, request.session_hash)
        if not job.done:
            yield Wait(lambda: job.done)
    results = job.outcome
    if isinstance(results, PaperError):
        gr.Warning(str(results))
        yield LoadOutputs(state=state, summary=f"> ⚠️ **Could not load the results.** {inert(str(results))}")
        return
    table, view = _table(results, analysis.Filters())
    state = ResultsState(a=results, a_source=source, view=view)  # a comparison with the previous file no longer holds
    score = results.score_column
    distribution, by_category, by_retrieval = _plots(results)
    yield LoadOutputs(
        state=state,
        summary=summary_markdown(results),
        plot_distribution=distribution,
        plot_category=by_category,
        plot_retrieval=by_retrieval,
        plot_taxonomy=error_compare.taxonomy_plot(results),
        split=gr.update(choices=analysis.choices(results, "split"), value=analysis.ANY),
        model=gr.update(choices=analysis.choices(results, "model"), value=analysis.ANY),
        category=gr.update(choices=analysis.choices(results, "category"), value=analysis.ANY),
        score_min=gr.update(label=f"Lowest {score}", value=0),
        score_max=gr.update(label=f"Highest {score}", value=1),
        table=table,
    )


class FilterOutputs(NamedTuple):
    """The table for the current filters and its count line (outputs left out stay as they are), in the order of `components`."""

    state: ResultsState
    table: Any = gr.skip()
    count: Any = gr.skip()



def apply_filters(state: ResultsState | None, split: str, model: str, category: str, retrieval: str, correct: str, cell: str,
                  low: float, high: float, text: str) -> FilterOutputs:
    """The rows that pass the current filters, and how many they are."""
    state = state or ResultsState()
    results = state.a
    if results is None:
        return FilterOutputs(state=state, count="Load a result file first.")
    low, high = min(float(low), float(high)), max(float(low), float(high))
    filters = analysis.Filters(split or analysis.ANY, model or analysis.ANY, category or analysis.ANY, retrieval or analysis.ANY,
                               correct or analysis.ANY, cell or analysis.ANY, low, high, capped(text, "search"))
    table, view = _table(results, filters)
    return FilterOutputs(state=replace(state, view=view), table=table, count=f"{len(table)} of {len(results.frame)} questions")


class RowOutputs(NamedTuple):
    """The selected row in detail (outputs left out stay as they are), in the order of `components`."""

    detail: Any = gr.skip()
    chosen_image: Any = gr.skip()
    chosen_text: Any = gr.skip()
    reference_image: Any = gr.skip()
    reference_text: Any = gr.skip()



def show_row(state: ResultsState | None, evt: gr.SelectData) -> RowOutputs:
    """The selected row's question, answers, scores and raw reply, with its chosen and reference figures."""
    state = state or ResultsState()
    results, view = state.a, state.view
    position = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
    if results is None or not isinstance(position, int) or not 0 <= position < len(view):
        return RowOutputs()
    record = results.records[view[position]]
    metrics = ", ".join(f"{k} {v:.3f}" for k, v in record.metrics.items() if isinstance(v, (int, float)))
    row = results.frame.iloc[view[position]]
    verdict = results.judged.verdicts[view[position]]
    detail = "\n\n".join([
        f"#### {inert(record.paper_id)} · question {inert(record.question_key)}",
        f"**Question:** {inert(record.question)}",
        f"**Ground truth:** {inert(record.ground_truth) or '—'}",
        f"**Answer:** {inert(row['answer']) or '*(empty)*'}",
        f"**Verdict:** **{verdict.label}** — {inert(verdict.why)}" + (f" · {inert(row['taxonomy'])}" if row["taxonomy"] else ""),
        f"**Scores:** ROUGE-L {row['ROUGE-L']}, BLEU-1 {row['BLEU-1']}" + (f", {metrics}" if metrics else "")
        + (f" · retrieval **{row['retrieval']}**" if row["retrieval"] else ""),
        "**Raw response:**\n\n```text\n" + record.raw_response.replace("```", "'''")[:4000] + "\n```",
    ])
    chosen = error_compare.shown_figure(figure_view(record.paper_id, record.chosen_figure, "Chosen",
                                                    results.judged.figures[view[position]]))
    reference = error_compare.shown_figure(figure_view(record.paper_id, record.reference_figures[0] if record.reference_figures
                                                       else None, "Reference"))
    return RowOutputs(detail=detail, chosen_image=chosen[0], chosen_text=chosen[1], reference_image=reference[0],
                      reference_text=reference[1])


def spiqa_metrics(state: ResultsState | None, request: gr.Request) -> Iterator[str | Wait]:
    """The file's scores as the SPIQA paper reports them (x100), per split and figure category (computed
    in a worker: `result_files`)."""
    results = (state or ResultsState()).a
    if results is None:
        yield "Load a result file first."
        return
    job = measuring(results, request.session_hash)
    yield Wait(lambda: job.done)
    if isinstance(job.outcome, PaperError):
        yield f"> ⚠️ {inert(str(job.outcome))}"
        return
    yield ("BLEU, METEOR, ROUGE-L and CIDEr over the whole file as SPIQA computes them (BERTScore is left out "
           "here: it needs its model). Values ×100.\n\n```text\n" + job.outcome + "\n```")


def get_figures(progress: gr.Progress = gr.Progress(track_tqdm=True)) -> str:
    """Download test-C's figure images and captions from the hub (once), showing the download's progress.
    What it says fills one widget, so it is returned as it is: Gradio hands a single output the whole
    return value, a one-field NamedTuple included."""
    progress(0, desc="Fetching SPIQA test-C figures")
    return fetch_test_c()


@dataclass(frozen=True)
class ErrorAnalysis:
    """The tab's widgets."""

    state: gr.State  # a ResultsState
    upload: gr.File
    server_file: gr.Dropdown
    summary: gr.Markdown
    figures_button: gr.Button
    figures_status: gr.Markdown
    metrics_button: gr.Button
    metrics: gr.Markdown
    plot_taxonomy: gr.BarPlot
    plot_distribution: gr.BarPlot
    plot_category: gr.BarPlot
    plot_retrieval: gr.BarPlot
    split: gr.Dropdown
    model: gr.Dropdown
    category: gr.Dropdown
    retrieval: gr.Radio
    correct: gr.Radio
    cell: gr.Dropdown
    score_min: gr.Slider
    score_max: gr.Slider
    search: gr.Textbox
    count: gr.Markdown
    table: gr.Dataframe
    detail: gr.Markdown
    chosen_image: gr.Image
    chosen_text: gr.Markdown
    reference_image: gr.Image
    reference_text: gr.Markdown
    compare: error_compare.CompareWidgets


def build() -> ErrorAnalysis:
    """The tab (inside the caller's `gr.Tabs`)."""
    files = list(server_files())
    with gr.Tab("Error analysis", id="errors"):
        state = visitor_state(ResultsState())
        with gr.Row(equal_height=True):
            upload = gr.File(label="Upload a result file (results.jsonl, or SPIQA responses .json)",
                             file_types=[".json", ".jsonl"], type="filepath", elem_id="results-upload", height=110)
            server_file = gr.Dropdown(files, value=None, label="…or a file on the server (official SPIQA test-C responses)",
                                      visible=bool(files), elem_id="results-file")
        summary = gr.Markdown("Load a result file to analyse its errors.", elem_id="results-summary")
        with gr.Accordion("SPIQA's figures (images and captions) for the detail views", open=False):
            gr.Markdown("Result files name the figures only. Get test-C's images and captions from the hub with the "
                        f"button, or by hand: {missing_help()}.")
            figures_button = gr.Button("Get SPIQA's test-C figures from the Hugging Face hub (once; cached)", size="sm",
                                       elem_id="figures-button")
            figures_status = gr.Markdown("", elem_id="figures-status")
        with gr.Accordion("SPIQA metrics for this file (BLEU, METEOR, ROUGE-L, CIDEr, L3Score)", open=False):
            metrics_button = gr.Button("Compute (slow the first time: METEOR starts a Java process)", size="sm")
            metrics = gr.Markdown("", elem_id="results-metrics")
        plot_taxonomy = gr.BarPlot(None, label="SPIQA error taxonomy", height=270, visible=False, elem_id="plot-taxonomy")
        with gr.Row():
            plot_distribution = gr.BarPlot(None, label="Score distribution", height=270, elem_id="plot-distribution")
            plot_category = gr.BarPlot(None, label="By figure category", height=270, elem_id="plot-category")
            plot_retrieval = gr.BarPlot(None, label="Retrieval right vs wrong", height=270, elem_id="plot-retrieval")
        with gr.Row():
            split = gr.Dropdown([analysis.ANY], value=analysis.ANY, label="Split", min_width=120)
            model = gr.Dropdown([analysis.ANY], value=analysis.ANY, label="Model", min_width=160)
            category = gr.Dropdown([analysis.ANY], value=analysis.ANY, label="Figure category", min_width=140)
            retrieval = gr.Radio([analysis.ANY, "right", "wrong"], value=analysis.ANY, label="Chosen figure", min_width=200)
            correct = gr.Radio([analysis.ANY, "right", "wrong"], value=analysis.ANY, label="Answer", min_width=200,
                               elem_id="results-correct")
            cell = gr.Dropdown(CELL_CHOICES, value=analysis.ANY, label="Taxonomy cell", min_width=240, elem_id="results-cell")
        with gr.Row():
            score_min = gr.Slider(0, 1, value=0, step=0.05, label="Lowest score", min_width=140)
            score_max = gr.Slider(0, 1, value=1, step=0.05, label="Highest score", min_width=140)
            search = gr.Textbox(label="Search", placeholder="words in question, answer, ground truth or paper id", min_width=200,
                                max_length=limit("search"))
        count = gr.Markdown("")
        table = gr.Dataframe(headers=["#", *analysis.TABLE_COLUMNS], interactive=False, wrap=True, max_height=420,
                             elem_id="results-table",
                             column_widths=error_compare.widths(["#", *analysis.TABLE_COLUMNS], WIDTHS))
        with gr.Row():
            detail = gr.Markdown("Select a row to see the question in detail.", elem_id="results-detail")
            with gr.Column():
                chosen_image = gr.Image(label="Chosen figure", height=220, interactive=False, visible=False)
                chosen_text = gr.Markdown("")
            with gr.Column():
                reference_image = gr.Image(label="Reference figure", height=220, interactive=False, visible=False)
                reference_text = gr.Markdown("")
        with gr.Accordion("Compare with a second result file: who is right, side by side", open=False,
                          elem_id="compare-accordion"):
            compare = error_compare.build(files)
    return ErrorAnalysis(
        state=state, upload=upload, server_file=server_file, summary=summary, figures_button=figures_button,
        figures_status=figures_status, metrics_button=metrics_button, metrics=metrics, plot_taxonomy=plot_taxonomy,
        plot_distribution=plot_distribution, plot_category=plot_category, plot_retrieval=plot_retrieval,
        split=split, model=model, category=category, retrieval=retrieval, correct=correct, cell=cell,
        score_min=score_min, score_max=score_max, search=search, count=count, table=table, detail=detail,
        chosen_image=chosen_image, chosen_text=chosen_text, reference_image=reference_image,
        reference_text=reference_text, compare=compare,
    )


def load_server_file(name: str | None, state: ResultsState | None, request: gr.Request) -> Iterator[LoadOutputs | Wait]:
    """A file of the server's results folder, picked by name (`load`)."""
    yield from load(None, name, state, request)


def wire(tab: ErrorAnalysis, queues: Queues) -> None:
    """Connect the tab's events; reading, scoring and comparing files wait for the scoring workers
    (`result_files`) in the "results" group, holding no thread while they wait."""
    loaded = components(LoadOutputs, tab)
    tab.upload.upload(queues.handler(load), [tab.upload, tab.server_file, tab.state], loaded, api_name="load_results",
                      **queues.results)
    tab.server_file.input(queues.handler(load_server_file), [tab.server_file, tab.state], loaded,
                          api_name="load_server_results", **queues.results)
    filters = [tab.state, tab.split, tab.model, tab.category, tab.retrieval, tab.correct, tab.cell, tab.score_min,
               tab.score_max, tab.search]
    gr.on([tab.split.input, tab.model.input, tab.category.input, tab.retrieval.input, tab.correct.input, tab.cell.input,
           tab.score_min.release, tab.score_max.release, tab.search.submit],
          apply_filters, filters, components(FilterOutputs, tab), api_name="filter_results")
    tab.metrics_button.click(queues.handler(spiqa_metrics), [tab.state], [tab.metrics], api_name="results_metrics",
                             **queues.results)
    tab.figures_button.click(get_figures, None, tab.figures_status, api_name="get_figures",
                             concurrency_id="figures", concurrency_limit=1)
    tab.table.select(show_row, [tab.state], components(RowOutputs, tab))
    error_compare.wire(tab.compare, tab.state, _open, queues)
