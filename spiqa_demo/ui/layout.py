"""The app's Blocks: a Paper tab (load, figures, chat, SPIQA check, settings) and an Error analysis tab.

Each part lives in its own module (`paper_tab`, `chat`, `spiqa_check`, `model_settings`,
`error_analysis`); this module places them and connects their events. Model calls (answers, the
judge, run-all) share one queue (`concurrency_id="model"`, `SPIQA_UI_MODEL_CONCURRENCY` at once),
so one GPU model is never used by two visitors at the same time; paper loading has its own queue.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr

from spiqa_demo.settings import get_settings
from spiqa_demo.ui import chat, error_analysis, model_settings, paper_tab, spiqa_check, storage
from spiqa_demo.ui.session import Session
from spiqa_demo.ui.spiqa_images import image_roots

ASSETS = Path(__file__).resolve().parents[2] / "assets"
TITLE = "SPIQA paper QA"
INTRO = ("Ask questions about a scientific paper's figures and tables, and see the figure that answers them. "
         "Load a paper, then ask in the chat.")
QUEUE_SIZE = 64
PAPER_CONCURRENCY = 2  # extraction is CPU-bound: two at a time keep the server responsive


def build_demo() -> gr.Blocks:
    """The whole app (not launched)."""
    settings = get_settings()
    model_queue: dict[str, Any] = {"concurrency_id": "model", "concurrency_limit": max(1, settings.ui_model_concurrency)}
    paper_queue: dict[str, Any] = {"concurrency_id": "paper", "concurrency_limit": PAPER_CONCURRENCY}
    # Old files in Gradio's cache are deleted hourly (uploads, copies of crops); the rest is bounded by storage.evict.
    with gr.Blocks(title=TITLE, delete_cache=(3600, 3600), analytics_enabled=False) as demo:
        session = gr.State(Session())
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
                                              submit_btn="Ask", max_lines=4, elem_id="question", autofocus=False)
                        check = spiqa_check.build()
                        with gr.Accordion("Settings", open=False, elem_id="settings"):
                            model = model_settings.build(settings)
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
            trigger(fn, [source, session], loaded, api_name=name, show_progress_on=paper["gallery"], **paper_queue).then(
                spiqa_check.on_paper_loaded, [session], matched, api_name=f"{name}_spiqa_match")
        paper["gallery"].select(paper_tab.show_figure, [session], [paper["page"], paper["detail"]])
        chatbot.clear(chat.clear, [session], [session], api_name="clear_chat")

        asked = [question, session, *model_settings.inputs(model)]
        scored = [session, check["judge_model"], check["judge_url"], model["base_url"], model["api_key"]]
        question.submit(chat.ask, asked, [chatbot, session, question], api_name="ask", **model_queue).then(
            spiqa_check.score_last, scored, [check["result"], check["reference"]], api_name="spiqa_score", **model_queue)
        check["questions"].click(spiqa_check.pick_question, [check["questions"]], [question], queue=False).then(
            chat.ask, asked, [chatbot, session, question], api_visibility="private", **model_queue).then(
            spiqa_check.score_last, scored, [check["result"], check["reference"]], api_visibility="private", **model_queue)
        check["run_all"].click(
            spiqa_check.run_all, [session, check["judge_model"], check["judge_url"], *model_settings.inputs(model)],
            [check["table"], check["summary"]], api_name="spiqa_run_all", **model_queue)
        error_analysis.wire(errors)
    demo.queue(max_size=QUEUE_SIZE)
    return demo


def launch_options() -> dict[str, Any]:
    """`demo.launch` arguments: theme, CSS, upload limit, and the only folders files are served from."""
    settings = get_settings()
    return {
        "theme": gr.themes.Soft(primary_hue="indigo", secondary_hue="amber"),
        "css_paths": [ASSETS / "app.css"],
        "allowed_paths": storage.served_paths(settings) + [str(root) for root in image_roots()],
        "max_file_size": f"{settings.max_file_mb}mb",
        "run_history": False,  # it would keep typed inputs (the API key) in the browser
        "footer_links": ["api", "gradio"],
    }
