"""The error-analysis tab: load a result file, see where a model fails, compare two runs.

Summary numbers and plots (score distribution, scores by figure category, score when the chosen
figure was right vs wrong) on top; a filterable table below; selecting a row shows question,
ground truth, answer, raw reply and the chosen and reference figures side by side (SPIQA's images
when they are on this machine, captions otherwise). A second file is compared question by question.
Files come from an upload or from the server's results folder, picked by name. A file over
`SPIQA_UI_MAX_RESULTS_MB` is refused before it is read, one of more than `SPIQA_UI_MAX_RESULTS_ROWS`
answers before they are scored: a session keeps its file's table, so both bound its memory.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any, NamedTuple

import gradio as gr

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation import analysis
from spiqa_demo.ui.app_settings import app_settings
from spiqa_demo.ui.input_limits import capped, limit
from spiqa_demo.ui.outputs import components
from spiqa_demo.ui.session_expiry import visitor_state
from spiqa_demo.ui.spiqa_images import find_image

log = logging.getLogger(__name__)

MAX_FILES = 200


def server_files() -> dict[str, Path]:
    """Result files offered by name: *.json / *.jsonl in `SPIQA_RESULTS_DIR`."""
    folder = app_settings().ui.results_dir
    if not folder.is_dir():
        return {}
    files = sorted(p for p in folder.iterdir() if p.suffix in (".json", ".jsonl") and p.is_file())
    return {p.name: p for p in files[:MAX_FILES]}


def _open(upload: str | None, name: str | None) -> analysis.Results:
    """The result file uploaded or picked, within the app's bounds (size before reading, answers before scoring)."""
    settings = app_settings().ui
    path = Path(upload) if upload else server_files().get(name or "")
    if path is None:
        raise PaperError("choose a result file: upload one, or pick one from the list")
    megabytes = path.stat().st_size / 1_000_000 if path.is_file() else 0.0
    if megabytes > settings.ui_max_results_mb:
        raise PaperError(f"{path.name} is {megabytes:.1f} MB, over the {settings.ui_max_results_mb:g} MB this app reads "
                         "(SPIQA_UI_MAX_RESULTS_MB): score it with `python -m spiqa_demo score --responses FILE`")
    return analysis.load_results(path, path.name, max_rows=settings.ui_max_results_rows)


def _caption(paper_id: str, file: str) -> str:
    """The SPIQA caption of a figure file, when a loaded SPIQA file has it."""
    from spiqa_demo.ui.spiqa_check import benchmark_datasets

    for dataset in benchmark_datasets():
        paper = dataset.paper(paper_id)
        if paper is not None and (figure := paper.figure(file)) is not None and figure.caption:
            return figure.caption
    return ""


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
    parts += [f"mean L3Score {mean:.3f} (judge {escape(judge) or 'unknown'})" for judge, mean in totals.l3.items()]
    if totals.rouge_l is not None:
        parts.append(f"ROUGE-L {totals.rouge_l:.3f}")
    text = " · ".join(parts)
    if results.warnings:
        shown = results.warnings[:5]
        more = f" (and {len(results.warnings) - 5} more)" if len(results.warnings) > 5 else ""
        text += "\n\n" + "\n".join(f"> ⚠️ {w}" for w in shown) + more
    return text


def _plots(results: analysis.Results) -> tuple[Any, Any, Any]:
    """Updates of the three plots: score distribution, by figure category, retrieval right vs wrong."""
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
WIDTHS = {"#": 4, "paper": 8, "key": 5, "category": 7, "question": 28, "answer": 28, "retrieval": 7, "L3Score": 6,
          "ROUGE-L": 7, "answer A": 22, "answer B": 22, "score A": 6, "score B": 6, "retrieval A": 6,
          "retrieval B": 6, "better": 5}


def _widths(columns: list[str]) -> list[str | int]:
    sizes = [WIDTHS.get(c, 7) for c in columns]
    return [f"{100 * size / sum(sizes):.1f}%" for size in sizes]


def _table(results: analysis.Results, filters: analysis.Filters) -> tuple[Any, list[int]]:
    rows = analysis.filtered(results, filters)
    shown = rows[analysis.TABLE_COLUMNS].reset_index().rename(columns={"index": "#"})
    return shown, list(rows.index)


class LoadOutputs(NamedTuple):
    """What loading a result file shows (outputs left out stay as they are), in the order of `components`."""

    state: dict
    summary: str
    plot_distribution: Any = gr.skip()
    plot_category: Any = gr.skip()
    plot_retrieval: Any = gr.skip()
    split: Any = gr.skip()
    model: Any = gr.skip()
    category: Any = gr.skip()
    score_min: Any = gr.skip()
    score_max: Any = gr.skip()
    table: Any = gr.skip()



def load(upload: str | None, name: str | None, state: dict | None) -> LoadOutputs:
    """The file's summary, plots, filter choices, score sliders and table."""
    state = dict(state or {})
    try:
        results = _open(upload, name)
    except PaperError as exc:
        gr.Warning(str(exc))
        return LoadOutputs(state=state, summary=f"> ⚠️ **Could not load the results.** {escape(str(exc))}")
    state["a"] = results
    table, view = _table(results, analysis.Filters())
    state["view"] = view
    score = results.score_column
    distribution, by_category, by_retrieval = _plots(results)
    return LoadOutputs(
        state=state,
        summary=summary_markdown(results),
        plot_distribution=distribution,
        plot_category=by_category,
        plot_retrieval=by_retrieval,
        split=gr.update(choices=analysis.choices(results, "split"), value=analysis.ANY),
        model=gr.update(choices=analysis.choices(results, "model"), value=analysis.ANY),
        category=gr.update(choices=analysis.choices(results, "category"), value=analysis.ANY),
        score_min=gr.update(label=f"Lowest {score}", value=0),
        score_max=gr.update(label=f"Highest {score}", value=1),
        table=table,
    )


class FilterOutputs(NamedTuple):
    """The table for the current filters and its count line (outputs left out stay as they are), in the order of `components`."""

    state: dict
    table: Any = gr.skip()
    count: Any = gr.skip()



def apply_filters(state: dict | None, split: str, model: str, category: str, retrieval: str,
                  low: float, high: float, text: str) -> FilterOutputs:
    """The rows that pass the current filters, and how many they are."""
    state = dict(state or {})
    results: analysis.Results | None = state.get("a")
    if results is None:
        return FilterOutputs(state=state, count="Load a result file first.")
    low, high = min(float(low), float(high)), max(float(low), float(high))
    filters = analysis.Filters(split or analysis.ANY, model or analysis.ANY, category or analysis.ANY, retrieval or analysis.ANY, low, high,
                               capped(text, "search"))
    table, state["view"] = _table(results, filters)
    return FilterOutputs(state=state, table=table, count=f"{len(table)} of {len(results.frame)} questions")


def _figure(paper_id: str, file: str | None, label: str) -> tuple[str | None, str]:
    """(image or None, markdown) for one figure file of the detail view."""
    if not file:
        return None, f"**{label}:** none"
    image = find_image(file, paper_id)
    caption = _caption(paper_id, file)
    text = f"**{label}:** `{escape(file)}`" + (f" — {escape(caption)}" if caption else "")
    if image is None and not caption:
        text += " *(no image or caption on this machine)*"
    return image, text


class RowOutputs(NamedTuple):
    """The selected row in detail (outputs left out stay as they are), in the order of `components`."""

    detail: Any = gr.skip()
    chosen_image: Any = gr.skip()
    chosen_text: Any = gr.skip()
    reference_image: Any = gr.skip()
    reference_text: Any = gr.skip()



def show_row(state: dict | None, evt: gr.SelectData) -> RowOutputs:
    """The selected row's question, answers, scores and raw reply, with its chosen and reference figures."""
    state = state or {}
    results: analysis.Results | None = state.get("a")
    view: list[int] = state.get("view", [])
    position = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
    if results is None or not isinstance(position, int) or not 0 <= position < len(view):
        return RowOutputs()
    record = results.records[view[position]]
    metrics = ", ".join(f"{k} {v:.3f}" for k, v in record.metrics.items() if isinstance(v, (int, float)))
    row = results.frame.iloc[view[position]]
    detail = "\n\n".join([
        f"#### {escape(record.paper_id)} · question {escape(record.question_key)}",
        f"**Question:** {escape(record.question)}",
        f"**Ground truth:** {escape(record.ground_truth) or '—'}",
        f"**Answer:** {escape(record.answer) or '*(empty)*'}",
        f"**Scores:** ROUGE-L {row['ROUGE-L']}, BLEU-1 {row['BLEU-1']}" + (f", {metrics}" if metrics else "")
        + (f" · retrieval **{row['retrieval']}**" if row["retrieval"] else ""),
        "**Raw response:**\n\n```text\n" + record.raw_response.replace("```", "'''")[:4000] + "\n```",
    ])
    chosen = _figure(record.paper_id, record.chosen_figure, "Chosen")
    reference = _figure(record.paper_id, record.reference_figures[0] if record.reference_figures else None, "Reference")
    return RowOutputs(detail=detail, chosen_image=gr.update(value=chosen[0], visible=chosen[0] is not None),
                      chosen_text=chosen[1], reference_image=gr.update(value=reference[0], visible=reference[0] is not None),
                      reference_text=reference[1])


def spiqa_metrics(state: dict | None) -> str:
    """The file's scores as the SPIQA paper reports them (x100), per split and figure category."""
    from spiqa_demo.evaluation import score_records
    from spiqa_demo.evaluation.report import format_summary

    results: analysis.Results | None = (state or {}).get("a")
    if results is None:
        return "Load a result file first."
    try:
        summary = score_records(results.records, bertscore=False, settings=app_settings().evaluation)
    except PaperError as exc:
        return f"> ⚠️ {escape(str(exc))}"
    return ("BLEU, METEOR, ROUGE-L and CIDEr over the whole file as SPIQA computes them (BERTScore is left out "
            "here: it needs its model). Values ×100.\n\n```text\n" + format_summary(summary) + "\n```")


class CompareOutputs(NamedTuple):
    """The comparison with a second file (the table left out stays as it is), in the order of `components`."""

    verdict: str
    compare_table: Any = gr.skip()



def compare_with(upload: str | None, name: str | None, state: dict | None) -> CompareOutputs:
    """The verdict and the question-by-question table against a second file (which is not kept: the table says it all)."""
    first: analysis.Results | None = (state or {}).get("a")
    if first is None:
        return CompareOutputs(verdict="Load the first result file above first.")
    try:
        other = _open(upload, name)
    except PaperError as exc:
        return CompareOutputs(verdict=f"> ⚠️ **Could not load the second file.** {escape(str(exc))}")
    table, verdict = analysis.compare(first, other)
    return CompareOutputs(verdict=verdict, compare_table=table)


@dataclass(frozen=True)
class ErrorAnalysis:
    """The tab's widgets."""

    state: gr.State  # {"a": the loaded Results, "view": the table's row indices}
    upload: gr.File
    server_file: gr.Dropdown
    summary: gr.Markdown
    metrics_button: gr.Button
    metrics: gr.Markdown
    plot_distribution: gr.BarPlot
    plot_category: gr.BarPlot
    plot_retrieval: gr.BarPlot
    split: gr.Dropdown
    model: gr.Dropdown
    category: gr.Dropdown
    retrieval: gr.Radio
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
    upload_b: gr.File
    server_file_b: gr.Dropdown
    verdict: gr.Markdown
    compare_table: gr.Dataframe


def build() -> ErrorAnalysis:
    """The tab (inside the caller's `gr.Tabs`)."""
    files = list(server_files())
    with gr.Tab("Error analysis", id="errors"):
        state = visitor_state({})
        with gr.Row(equal_height=True):
            upload = gr.File(label="Upload a result file (results.jsonl, or SPIQA responses .json)",
                             file_types=[".json", ".jsonl"], type="filepath", elem_id="results-upload", height=110)
            server_file = gr.Dropdown(files, value=None, label="…or a file on the server (official SPIQA test-C responses)",
                                      visible=bool(files), elem_id="results-file")
        summary = gr.Markdown("Load a result file to analyse its errors.", elem_id="results-summary")
        with gr.Accordion("SPIQA metrics for this file (BLEU, METEOR, ROUGE-L, CIDEr, L3Score)", open=False):
            metrics_button = gr.Button("Compute (slow the first time: METEOR starts a Java process)", size="sm")
            metrics = gr.Markdown("", elem_id="results-metrics")
        with gr.Row():
            plot_distribution = gr.BarPlot(None, label="Score distribution", height=270, elem_id="plot-distribution")
            plot_category = gr.BarPlot(None, label="By figure category", height=270, elem_id="plot-category")
            plot_retrieval = gr.BarPlot(None, label="Retrieval right vs wrong", height=270, elem_id="plot-retrieval")
        with gr.Row():
            split = gr.Dropdown([analysis.ANY], value=analysis.ANY, label="Split", min_width=120)
            model = gr.Dropdown([analysis.ANY], value=analysis.ANY, label="Model", min_width=160)
            category = gr.Dropdown([analysis.ANY], value=analysis.ANY, label="Figure category", min_width=140)
            retrieval = gr.Radio([analysis.ANY, "right", "wrong"], value=analysis.ANY, label="Chosen figure", min_width=200)
            score_min = gr.Slider(0, 1, value=0, step=0.05, label="Lowest score", min_width=140)
            score_max = gr.Slider(0, 1, value=1, step=0.05, label="Highest score", min_width=140)
            search = gr.Textbox(label="Search", placeholder="words in question, answer or paper id", min_width=200,
                                max_length=limit("search"))
        count = gr.Markdown("")
        table = gr.Dataframe(headers=["#", *analysis.TABLE_COLUMNS], interactive=False, wrap=True, max_height=420,
                             elem_id="results-table", column_widths=_widths(["#", *analysis.TABLE_COLUMNS]))
        with gr.Row():
            detail = gr.Markdown("Select a row to see the question in detail.", elem_id="results-detail")
            with gr.Column():
                chosen_image = gr.Image(label="Chosen figure", height=220, interactive=False, visible=False)
                chosen_text = gr.Markdown("")
            with gr.Column():
                reference_image = gr.Image(label="Reference figure", height=220, interactive=False, visible=False)
                reference_text = gr.Markdown("")
        with gr.Accordion("Compare with a second result file", open=False):
            with gr.Row(equal_height=True):
                upload_b = gr.File(label="Second result file", file_types=[".json", ".jsonl"], type="filepath", height=110)
                server_file_b = gr.Dropdown(files, value=None, label="…or a file on the server", visible=bool(files),
                                            elem_id="results-file-b")
            verdict = gr.Markdown("", elem_id="compare-verdict")
            compare_table = gr.Dataframe(headers=analysis.COMPARE_COLUMNS, interactive=False, wrap=True, max_height=420,
                                         elem_id="compare-table", column_widths=_widths(analysis.COMPARE_COLUMNS))
    return ErrorAnalysis(
        state=state, upload=upload, server_file=server_file, summary=summary, metrics_button=metrics_button,
        metrics=metrics, plot_distribution=plot_distribution, plot_category=plot_category, plot_retrieval=plot_retrieval,
        split=split, model=model, category=category, retrieval=retrieval, score_min=score_min, score_max=score_max,
        search=search, count=count, table=table, detail=detail, chosen_image=chosen_image, chosen_text=chosen_text,
        reference_image=reference_image, reference_text=reference_text, upload_b=upload_b, server_file_b=server_file_b,
        verdict=verdict, compare_table=compare_table,
    )


def wire(tab: ErrorAnalysis) -> None:
    """Connect the tab's events; reading, scoring and comparing files share the "results" group (they are CPU-bound)."""
    loaded = components(LoadOutputs, tab)
    tab.upload.upload(load, [tab.upload, tab.server_file, tab.state], loaded, api_name="load_results",
                      concurrency_id="results", concurrency_limit=2)
    tab.server_file.input(lambda name, state: load(None, name, state), [tab.server_file, tab.state], loaded,
                          api_name="load_server_results", concurrency_id="results")
    filters = [tab.state, tab.split, tab.model, tab.category, tab.retrieval, tab.score_min, tab.score_max, tab.search]
    gr.on([tab.split.input, tab.model.input, tab.category.input, tab.retrieval.input,
           tab.score_min.release, tab.score_max.release, tab.search.submit],
          apply_filters, filters, components(FilterOutputs, tab), api_name="filter_results")
    tab.metrics_button.click(spiqa_metrics, [tab.state], [tab.metrics], api_name="results_metrics", concurrency_id="results")
    tab.table.select(show_row, [tab.state], components(RowOutputs, tab))
    compared = components(CompareOutputs, tab)
    tab.upload_b.upload(compare_with, [tab.upload_b, tab.server_file_b, tab.state], compared, api_name="compare_results",
                        concurrency_id="results")
    tab.server_file_b.input(lambda name, state: compare_with(None, name, state), [tab.server_file_b, tab.state], compared,
                            api_name="compare_server_results", concurrency_id="results")
