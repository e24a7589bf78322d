"""The error-analysis tab's side by side: who is right, A or B, and why not.

A second result file is laid next to the first one question by question (`analysis.side_by_side`):
the ground truth, both answers with their verdicts (each naming its rule), both chosen figures, and
the outcome (right in both, in A only, in B only, wrong in both). The counts and SPIQA's error
taxonomy of both files sit on top; filters for the outcome, figure type, paper and words apply to the
table; selecting a row shows both answers and rationales with both chosen figures and the
ground-truth figure. What the filters leave can be exported as CSV or as a Markdown report.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import gradio as gr

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation import analysis
from spiqa_demo.evaluation.comparison import OUTCOME_NAMES, OUTCOMES
from spiqa_demo.ui.serving.guards.input_limits import capped, limit
from spiqa_demo.ui.serving.guards.repeats import first_reading
from spiqa_demo.ui.serving.untrusted import inert
from spiqa_demo.ui.serving.work.queues import Queues
from spiqa_demo.ui.serving.work.result_files import Scoring
from spiqa_demo.ui.serving.work.steps import Wait
from spiqa_demo.ui.shared.outputs import components
from spiqa_demo.ui.state.results import ResultsState
from spiqa_demo.ui.tabs.errors.spiqa_figures import figure_view

# How the tab reads a result file: (upload, name picked, session) -> the file being read in a worker.
OpenFile = Callable[[str | None, str | None, Hashable], Scoring[analysis.Results]]

OUTCOME_CHOICES = [analysis.ANY, *(OUTCOME_NAMES[o] for o in OUTCOMES)]
TYPE_COLORS = {  # figure type -> (colour, its name in the plot's label)
    "table": ("#f59e0b", "orange"), "plot": ("#3b82f6", "blue"), "schematic": ("#8b5cf6", "purple"),
    "visualization": ("#10b981", "green"), "other": ("#64748b", "grey"), "unknown": ("#cbd5e1", "light grey"),
}
WIDTHS = {"#": 4, "paper": 7, "key": 5, "category": 6, "question": 15, "ground truth": 13, "answer A": 16, "verdict A": 7,
          "figure A": 8, "answer B": 16, "verdict B": 7, "figure B": 8, "outcome": 7}


def widths(columns: list[str], sizes: dict[str, int]) -> list[str | int]:
    """Relative column widths (percentages) for a Dataframe: the texts get the room."""
    values = [sizes.get(c, 7) for c in columns]
    return [f"{100 * size / sum(values):.1f}%" for size in values]


def taxonomy_plot(*files: analysis.Results) -> dict[str, Any]:
    """An update of a bar plot of SPIQA's error taxonomy: one bar per cell (and file, side by side, when there are
    two), stacked by figure type; the label names the colours, as the plot's own legend falls below its frame."""
    counts = analysis.taxonomy_counts(*files)
    counts = counts[counts["figure type"] != "all"]
    letters = {results.name: chr(ord("A") + i) for i, results in enumerate(files)}
    counts = counts.assign(bar=[f"{cell} ({letters[name]})" if len(files) > 1 else cell
                                for cell, name in zip(counts["cell"], counts["file"])])
    kinds = sorted(set(counts["figure type"]), key=lambda kind: list(TYPE_COLORS).index(kind) if kind in TYPE_COLORS else 99)
    colors = {kind: TYPE_COLORS.get(kind, TYPE_COLORS["unknown"]) for kind in kinds}
    legend = ", ".join(f"{kind} {name}" for kind, (_, name) in colors.items())
    return gr.update(value=counts, x="bar", y="questions", color="figure type", x_title=" ", x_label_angle=0, visible=True,
                     sort=list(dict.fromkeys(counts["bar"])), color_map={kind: colour for kind, (colour, _) in colors.items()},
                     label=f"SPIQA error taxonomy: chosen figure right ✓ / wrong ✗, answer right ✓ / wrong ✗ (questions; {legend})")


def _table(side: analysis.SideBySide, filters: analysis.SideFilters) -> tuple[Any, list[int]]:
    rows = analysis.side_filtered(side, filters)
    return rows.reset_index().rename(columns={"index": "#"}), list(rows.index)


class CompareOutputs(NamedTuple):
    """The comparison with a second file (outputs left out stay as they are), in the order of `components`."""

    state: ResultsState
    verdict: str
    plot_compare: Any = gr.skip()
    outcome: Any = gr.skip()
    side_category: Any = gr.skip()
    side_paper: Any = gr.skip()
    compare_table: Any = gr.skip()
    side_count: Any = gr.skip()


def compare_with(upload: str | None, name: str | None, state: ResultsState | None, owner: Hashable,
                 open_file: OpenFile) -> Iterator[CompareOutputs | Wait]:
    """The counts, taxonomy plot, filter choices and side-by-side table against a second file, uploaded or picked
    (`open_file(upload, name, owner)` reads it in a worker for session `owner`; waiting holds no thread).
    The same choice again changes nothing: a dropdown repeats its input event when it loses focus, which
    would undo the filters set since."""
    state = state or ResultsState()
    first = state.a
    if first is None:
        yield CompareOutputs(state=state, verdict="Load the first result file above first.")
        return
    source = upload or name
    if state.side is not None and state.b_source == source:
        yield CompareOutputs(state=state, verdict=gr.skip())
        return
    with first_reading(owner, "b", str(source)) as fresh:
        if not fresh:
            yield CompareOutputs(state=state, verdict=gr.skip())
            return
        job = open_file(upload, name, owner)
        if not job.done:
            yield Wait(lambda: job.done)
    opened = job.outcome
    if isinstance(opened, PaperError):
        yield CompareOutputs(state=state, verdict=f"> ⚠️ **Could not load the second file.** {inert(str(opened))}")
        return
    side = analysis.side_by_side(first, opened)
    table, side_view = _table(side, analysis.SideFilters())
    state = replace(state, b=opened, side=side, b_source=source, side_view=side_view)
    categories = [analysis.ANY, *sorted(v for v in side.frame["category"].unique() if v)]
    papers = [analysis.ANY, *sorted(side.frame["paper"].unique())]
    yield CompareOutputs(
        state=state, verdict=side.summary(), plot_compare=taxonomy_plot(first, opened),
        outcome=gr.update(value=analysis.ANY), side_category=gr.update(choices=categories, value=analysis.ANY),
        side_paper=gr.update(choices=papers, value=analysis.ANY), compare_table=table,
        side_count=f"{len(table)} of {len(side.frame)} shared questions",
    )


class SideFilterOutputs(NamedTuple):
    """The side-by-side table for the current filters and its count line, in the order of `components`."""

    state: ResultsState
    compare_table: Any = gr.skip()
    side_count: Any = gr.skip()


def filter_side(state: ResultsState | None, outcome: str, category: str, paper: str, text: str) -> SideFilterOutputs:
    """The shared questions that pass the filters, and how many they are."""
    state = state or ResultsState()
    side = state.side
    if side is None:
        return SideFilterOutputs(state=state, side_count="Compare with a second file first.")
    filters = analysis.SideFilters(outcome or analysis.ANY, category or analysis.ANY, paper or analysis.ANY,
                                   capped(text, "search"))
    table, side_view = _table(side, filters)
    return SideFilterOutputs(state=replace(state, side_view=side_view), compare_table=table, side_count=f"{len(table)} of {len(side.frame)} shared questions")


class SideRowOutputs(NamedTuple):
    """A shared question in detail: both answers and rationales, both chosen figures, the ground truth's figure."""

    side_detail: Any = gr.skip()
    figure_a_image: Any = gr.skip()
    figure_a_text: Any = gr.skip()
    figure_b_image: Any = gr.skip()
    figure_b_text: Any = gr.skip()
    figure_truth_image: Any = gr.skip()
    figure_truth_text: Any = gr.skip()


def _answer_block(letter: str, results: analysis.Results, index: int) -> str:
    record, row = results.records[index], results.frame.iloc[index]
    verdict = results.judged.verdicts[index]
    return "\n\n".join([
        f"##### {letter}: {inert(results.name)}",
        f"**Answer:** {inert(row['answer']) or '*(empty)*'}",
        f"**Verdict:** **{verdict.label}** — {inert(verdict.why)}",
        "**Rationale (raw reply):**\n\n" + "\n".join(f"> {inert(line)}" for line in record.raw_response[:3000].splitlines()),
    ])


def shown_figure(view: tuple[str | None, str]) -> tuple[dict[str, Any], str]:
    """A `figure_view` for an image widget and its text: the image hidden when there is none."""
    return gr.update(value=view[0], visible=view[0] is not None), view[1]


def show_side_row(state: ResultsState | None, evt: gr.SelectData) -> SideRowOutputs:
    """The selected shared question side by side."""
    state = state or ResultsState()
    side, view = state.side, state.side_view
    position = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
    if side is None or not isinstance(position, int) or not 0 <= position < len(view):
        return SideRowOutputs()
    i, j = side.comparison.pairs[view[position]]
    a, b = state.a, state.b
    if a is None or b is None:  # a side by side is made from both
        return SideRowOutputs()
    record = a.records[i]
    detail = "\n\n".join([
        f"#### {inert(record.paper_id)} · question {inert(record.question_key)} · "
        f"{OUTCOME_NAMES[side.comparison.outcome((i, j))]}",
        f"**Question:** {inert(record.question)}",
        f"**Ground truth:** {inert(record.ground_truth) or '—'}",
        _answer_block("A", a, i),
        _answer_block("B", b, j),
    ])
    truth = record.reference_figures[0] if record.reference_figures else None
    figure_a = shown_figure(figure_view(record.paper_id, record.chosen_figure, "A chose", a.judged.figures[i]))
    figure_b = shown_figure(figure_view(record.paper_id, b.records[j].chosen_figure, "B chose", b.judged.figures[j]))
    figure_truth = shown_figure(figure_view(record.paper_id, truth, "Ground truth"))
    return SideRowOutputs(side_detail=detail, figure_a_image=figure_a[0], figure_a_text=figure_a[1],
                          figure_b_image=figure_b[0], figure_b_text=figure_b[1],
                          figure_truth_image=figure_truth[0], figure_truth_text=figure_truth[1])


@dataclass(frozen=True)
class CompareWidgets:
    """The side-by-side part's widgets (inside the error-analysis tab, sharing its state)."""

    upload_b: gr.File
    server_file_b: gr.Dropdown
    verdict: gr.Markdown
    plot_compare: gr.BarPlot
    outcome: gr.Radio
    side_category: gr.Dropdown
    side_paper: gr.Dropdown
    side_search: gr.Textbox
    side_count: gr.Markdown
    compare_table: gr.Dataframe
    side_detail: gr.Markdown
    figure_a_image: gr.Image
    figure_a_text: gr.Markdown
    figure_b_image: gr.Image
    figure_b_text: gr.Markdown
    figure_truth_image: gr.Image
    figure_truth_text: gr.Markdown
    export_csv: gr.Button
    export_markdown: gr.Button
    export_file: gr.File


def build(files: list[str]) -> CompareWidgets:
    """The side-by-side part (inside the caller's layout); `files` are the server's result files."""
    with gr.Row(equal_height=True):
        upload_b = gr.File(label="Second result file (B)", file_types=[".json", ".jsonl"], type="filepath", height=110)
        server_file_b = gr.Dropdown(files, value=None, label="…or a file on the server", visible=bool(files),
                                    elem_id="results-file-b")
    verdict = gr.Markdown("", elem_id="compare-verdict")
    plot_compare = gr.BarPlot(None, label="SPIQA error taxonomy", height=400, visible=False, elem_id="plot-compare")
    with gr.Row():
        outcome = gr.Radio(OUTCOME_CHOICES, value=analysis.ANY, label="Outcome", elem_id="compare-outcome", min_width=420)
        side_category = gr.Dropdown([analysis.ANY], value=analysis.ANY, label="Figure type", min_width=140)
        side_paper = gr.Dropdown([analysis.ANY], value=analysis.ANY, label="Paper", min_width=140)
        side_search = gr.Textbox(label="Search", placeholder="words in question, answers, ground truth or paper id",
                                 min_width=200, max_length=limit("search"), elem_id="compare-search")
    side_count = gr.Markdown("", elem_id="compare-count")
    columns = ["#", *analysis.SIDE_COLUMNS]
    compare_table = gr.Dataframe(headers=columns, interactive=False, wrap=True, max_height=460, elem_id="compare-table",
                                 column_widths=widths(columns, WIDTHS))
    side_detail = gr.Markdown("Select a row to see both answers side by side.", elem_id="compare-detail")
    with gr.Row():
        with gr.Column():
            figure_a_image = gr.Image(label="A's chosen figure", height=220, interactive=False, visible=False)
            figure_a_text = gr.Markdown("", elem_id="compare-figure-a")
        with gr.Column():
            figure_b_image = gr.Image(label="B's chosen figure", height=220, interactive=False, visible=False)
            figure_b_text = gr.Markdown("", elem_id="compare-figure-b")
        with gr.Column():
            figure_truth_image = gr.Image(label="Ground-truth figure", height=220, interactive=False, visible=False)
            figure_truth_text = gr.Markdown("", elem_id="compare-figure-truth")
    with gr.Row():
        export_csv = gr.Button("Export these rows as CSV", size="sm", elem_id="export-csv")
        export_markdown = gr.Button("Export a Markdown report (counts, chart, rows)", size="sm", elem_id="export-markdown")
    export_file = gr.File(label="Exported file", interactive=False, visible=False, elem_id="export-file")
    return CompareWidgets(
        upload_b=upload_b, server_file_b=server_file_b, verdict=verdict, plot_compare=plot_compare, outcome=outcome,
        side_category=side_category, side_paper=side_paper, side_search=side_search, side_count=side_count,
        compare_table=compare_table, side_detail=side_detail, figure_a_image=figure_a_image, figure_a_text=figure_a_text,
        figure_b_image=figure_b_image, figure_b_text=figure_b_text, figure_truth_image=figure_truth_image,
        figure_truth_text=figure_truth_text, export_csv=export_csv, export_markdown=export_markdown,
        export_file=export_file,
    )


def export(state: ResultsState | None, kind: str) -> dict[str, Any]:
    """The rows on show as a file to download: the side-by-side table's when a second file is compared,
    else the first file's table; `kind` is "csv" or "markdown" (counts, the taxonomy chart, the rows)."""
    from spiqa_demo.evaluation.export import markdown_report, rows_csv
    from spiqa_demo.ui.serving.files.storage import export_path

    state = state or ResultsState()
    first = state.a
    if first is None:
        gr.Warning("Load a result file first.")
        return gr.update(visible=False)
    side = state.side
    if side is not None:
        rows = side.frame.loc[state.side_view]
        files, comparison, what = [side.comparison.a, side.comparison.b], side.comparison, "side-by-side rows"
    else:
        rows = first.frame.loc[state.view, ["paper", "key", "category", "question", "ground truth", "answer",
                                                       "verdict", "chosen", "reference", "retrieval", "taxonomy"]]
        files, comparison, what = [first.judged], None, "rows"
    selection = f"the {what} shown with the filters set in the app"
    if kind == "csv":
        path, text = export_path("error-analysis.csv"), rows_csv(rows)
    else:
        path, text = export_path("error-analysis.md"), markdown_report(files, comparison, rows, selection)
    path.write_text(text, encoding="utf-8")
    return gr.update(value=str(path), visible=True)


def wire(widgets: CompareWidgets, state: gr.State, open_file: OpenFile, queues: Queues) -> None:
    """Connect the side-by-side part; `open_file(upload, name, owner)` reads a result file within the app's
    bounds for session `owner`."""

    def uploaded(upload: str | None, state: ResultsState | None, request: gr.Request) -> Iterator[CompareOutputs | Wait]:
        yield from compare_with(upload, None, state, request.session_hash, open_file)

    def picked(name: str | None, state: ResultsState | None, request: gr.Request) -> Iterator[CompareOutputs | Wait]:
        yield from compare_with(None, name, state, request.session_hash, open_file)

    compared = components(CompareOutputs, widgets, state=state)
    widgets.upload_b.upload(queues.handler(uploaded), [widgets.upload_b, state], compared, api_name="compare_results",
                            **queues.results)
    widgets.server_file_b.input(queues.handler(picked), [widgets.server_file_b, state], compared,
                                api_name="compare_server_results", **queues.results)
    filters = [state, widgets.outcome, widgets.side_category, widgets.side_paper, widgets.side_search]
    gr.on([widgets.outcome.input, widgets.side_category.input, widgets.side_paper.input, widgets.side_search.submit],
          filter_side, filters, components(SideFilterOutputs, widgets, state=state), api_name="filter_compare")
    widgets.compare_table.select(show_side_row, [state], components(SideRowOutputs, widgets))
    widgets.export_csv.click(lambda state: export(state, "csv"), [state], [widgets.export_file], api_name="export_csv")
    widgets.export_markdown.click(lambda state: export(state, "markdown"), [state], [widgets.export_file],
                                  api_name="export_markdown")
