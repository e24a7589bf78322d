"""The app's Blocks: a Paper tab (load, figures, chat, SPIQA check, settings), an Across papers tab
(the paper's references, its cited papers, answers from them) and an Error analysis tab.

Each part lives in its own module (`paper_tab`, `chat`, `spiqa_check`, `model_settings`,
`across_tab`, `error_analysis`); this module places them and connects their events. Questions (answers, the
judge, run-all) run side by side (`SPIQA_UI_ASK_CONCURRENCY`), so a retrieval-only answer never
waits behind another visitor's model; inside, `model_slots` makes local-model calls take turns and
bounds remote API calls. Paper loads run in their own worker pool (`loading`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr

from spiqa_demo.settings import get_settings
from spiqa_demo.ui import across_tab, chat, error_analysis, model_settings, paper_tab, spiqa_check, storage
from spiqa_demo.ui.across_session import AcrossSession
from spiqa_demo.ui.session import Session
from spiqa_demo.ui.spiqa_images import image_roots

ASSETS = Path(__file__).resolve().parents[2] / "assets"
TITLE = "SPIQA paper QA"
INTRO = ("Ask questions about a scientific paper's figures and tables, and see the figure that answers them. "
         "Load a paper, then ask in the chat.")
QUEUE_SIZE = 64
ASK_BUTTON, STOP_BUTTON = "Ask", "Stop"


def build_demo() -> gr.Blocks:
    """The whole app (not launched)."""
    settings = get_settings()
    ask_queue: dict[str, Any] = {"concurrency_id": "ask", "concurrency_limit": max(1, settings.ui_ask_concurrency)}
    # Loads only report on background work (`loading.PaperLoad`), so reporting requests may overlap.
    paper_queue: dict[str, Any] = {"concurrency_id": "paper", "concurrency_limit": max(1, settings.ui_ask_concurrency)}
    # Old files in Gradio's cache are deleted hourly (uploads, copies of crops); the rest is bounded by storage.evict.
    with gr.Blocks(title=TITLE, delete_cache=(3600, 3600), analytics_enabled=False) as demo:
        session = gr.State(Session())
        across = gr.State(AcrossSession())
        gr.Markdown(f"# {TITLE}\n{INTRO}", elem_id="app-header")
        with gr.Tabs():
            with gr.Tab("Paper", id="paper"):
                paper = paper_tab.build_loaders()
                with gr.Row():
                    with gr.Column(scale=5):
                        paper.update(paper_tab.build_browser())
                    with gr.Column(scale=6):
                        chatbot = gr.Chatbot(label="Chat about this paper", height=620, elem_id="chat",
                                             placeholder="Load a paper, then ask about its figures and tables.",
                                             buttons=["copy"], feedback_options=None)
                        question = gr.Textbox(label="Question", placeholder="e.g. Which method has the lowest error?",
                                              submit_btn=ASK_BUTTON, stop_btn=False, max_lines=4, elem_id="question",
                                              autofocus=False)
                        check = spiqa_check.build()
                        with gr.Accordion("Settings", open=False, elem_id="settings"):
                            model = model_settings.build(settings)
            with gr.Tab("Across papers", id="across", elem_id="across-tab") as across_page:
                cited = across_tab.build()
            with gr.Tab("Error analysis", id="errors"):
                errors = error_analysis.build()

        loaded = [session, paper["status"], paper["gallery"], paper["page"], paper["detail"], chatbot]
        matched = [session, check["panel"], check["header"], check["questions"], check["result"], check["reference"],
                   check["table"], check["summary"]]
        for trigger, fn, source, name in (
            (paper["upload"].upload, paper_tab.load_upload, paper["upload"], "load_pdf"),
            (paper["arxiv"].submit, paper_tab.load_arxiv, paper["arxiv"], "load_arxiv"),
            (paper["example"].input, paper_tab.load_example, paper["example"], "load_example"),
        ):
            load = trigger(fn, [source, session], loaded, api_name=name, show_progress_on=paper["gallery"], **paper_queue)
            load.then(spiqa_check.on_paper_loaded, [session], matched, api_name=f"{name}_spiqa_match")
            load.then(across_tab.refresh, [session, across], [across, cited["status"], cited["references"]],
                      api_visibility="private")
        paper["gallery"].select(paper_tab.show_figure, [session], [paper["page"], paper["detail"]],
                                api_visibility="private")  # needs the browser's selection event
        paper["annotations"].change(paper_tab.show_annotations, [paper["annotations"], session], [session],
                                    queue=False, api_visibility="private")
        chatbot.clear(chat.clear, [session], [session], api_name="clear_chat")

        asked = [question, session, *model_settings.inputs(model)]
        scored = [session, check["judge_model"], check["judge_url"], model["base_url"], model["api_key"]]
        # Stop shows first and Ask comes back last in one chain per question: as separate events, an
        # answer's Ask could arrive before its Stop (a question sent during an upload) and leave the
        # Stop button showing.
        picked = check["questions"].click(spiqa_check.pick_question, [check["questions"]], [question], queue=False)
        answering = [
            question.submit(_stop_button, None, [question], queue=False, api_visibility="private").then(
                chat.ask, asked, [chatbot, session, question], api_name="ask", **ask_queue),
            picked.then(_stop_button, None, [question], queue=False, api_visibility="private").then(
                chat.ask, asked, [chatbot, session, question], api_visibility="private", **ask_queue),
        ]
        for event, api in zip(answering, ({"api_name": "spiqa_score"}, {"api_visibility": "private"})):
            event.then(spiqa_check.score_last, scored, [check["result"], check["reference"]], **api, **ask_queue)
            event.then(_ask_button, None, [question], queue=False, api_visibility="private")
        question.stop(chat.stop, [session], [chatbot, session], cancels=answering, api_name="stop").then(
            _ask_button, None, [question], queue=False, api_visibility="private")
        check["run_all"].click(
            spiqa_check.run_all, [session, check["judge_model"], check["judge_url"], *model_settings.inputs(model)],
            [check["table"], check["summary"]], api_name="spiqa_run_all", **ask_queue)
        across_tab.wire(cited, across_page, session, across, model_settings.inputs(model), ask_queue, paper_queue)
        error_analysis.wire(errors)
    demo.queue(max_size=QUEUE_SIZE)
    return demo


def _stop_button() -> gr.Textbox:
    return gr.Textbox(submit_btn=False, stop_btn=STOP_BUTTON)


def _ask_button() -> gr.Textbox:
    return gr.Textbox(submit_btn=ASK_BUTTON, stop_btn=False)


def launch_options() -> dict[str, Any]:
    """`demo.launch` arguments: theme, CSS, upload limit, and the only folders files are served from."""
    settings = get_settings()
    return {
        "theme": gr.themes.Soft(primary_hue="indigo", secondary_hue="amber"),
        "css_paths": [ASSETS / "app.css"],
        "allowed_paths": storage.served_paths(settings) + [str(root) for root in image_roots()],
        "max_file_size": settings.max_file_mb * 1_000_000,  # bytes, as the app's own check counts them
        "run_history": False,  # it would keep typed inputs (the API key) in the browser
        "footer_links": ["api", "gradio"],
    }
