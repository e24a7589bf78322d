"""The app's Blocks: a Paper tab (load, figures, chat, SPIQA check, settings), an Across papers tab
(the paper's references, its cited papers, answers from them) and an Error analysis tab.

Each tab is a module (`paper_tab` with the `spiqa_check` and `model_settings` panels under its chat,
`across_tab`, `error_analysis`) whose `build()` returns its widgets and whose `wire()` connects its
events; this module places the tabs and hands each `wire()` what it takes from another tab. Questions
and loads wait for models and papers without holding a Gradio worker or a thread (`queues`), so a
retrieval-only answer never waits behind another visitor's model; model calls run in `model_calls`'
pools and paper loads in `loading`'s worker processes, both fair between sessions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr
from starlette.middleware import Middleware

from spiqa_demo.settings import Settings
from spiqa_demo.ui.serving.app_settings import app_settings, install
from spiqa_demo.ui.serving.files import storage
from spiqa_demo.ui.serving.guards.request_size import RequestSizeLimit, max_request_bytes
from spiqa_demo.ui.serving.guards.session_expiry import forgetting_idle_sessions, visitor_state
from spiqa_demo.ui.serving.guards.upload_room import UploadRoom
from spiqa_demo.ui.serving.work.queues import Queues
from spiqa_demo.ui.shared import page_viewer
from spiqa_demo.ui.shared.spiqa_images import image_roots
from spiqa_demo.ui.state.session import Session
from spiqa_demo.ui.tabs.across import across_tab
from spiqa_demo.ui.tabs.errors import error_analysis
from spiqa_demo.ui.tabs.paper import paper_tab, spiqa_check, upload_watch

ASSETS = Path(__file__).resolve().parents[3] / "assets"
TITLE = "SPIQA paper QA"
INTRO = ("Ask a scientific paper about its figures, tables and text, follow-ups included, and see what each answer "
         "rests on: the figure or table, and the passages boxed on their pages. Load a paper, then ask in the chat.")
NO_SHARING_CSS = 'button[title="Share"] { display: none !important; }'


def served_folders(settings: Settings) -> list[str]:
    """The only folders files are served from: the app's crops and pages, and SPIQA's images."""
    return storage.served_paths(settings) + [str(root) for root in image_roots()]


def build_demo(settings: Settings) -> gr.Blocks:
    """The whole app (not launched), running with `settings` (its handlers read them, never the environment)."""
    install(settings)
    queues = Queues.make(settings.ui.ui_ask_concurrency)
    # Crops, pages and SPIQA's images are served where they lie: Gradio copies nothing into its cache,
    # so what a session shows is exactly what `storage.live` holds for it.
    gr.set_static_paths(served_folders(settings))
    # Old files in Gradio's cache are deleted hourly (uploads); the rest is bounded by storage.evict.
    with gr.Blocks(title=TITLE, delete_cache=(3600, 3600), analytics_enabled=False) as demo:
        session = visitor_state(Session())
        gr.Markdown(f"# {TITLE}\n{INTRO}", elem_id="app-header")
        with gr.Tabs() as tabs:
            paper = paper_tab.build(settings)
            across = across_tab.build()
            errors = error_analysis.build()
        across.settings_link.click(across_tab.open_model_settings, None, [tabs, paper.settings], queue=False,
                                   api_visibility="private")

        events = paper_tab.wire(paper, session, queues)
        spiqa_check.wire(paper.check, session, paper.model, events, queues)
        across_tab.wire(across, session, paper.model, events.loads, queues)
        error_analysis.wire(errors, queues)
        demo.load(None, js=upload_watch.WATCH_JS)  # the browser tells the server while a paper uploads
    demo.queue(max_size=settings.ui.ui_queue_size)
    return demo


def launch_options() -> dict[str, Any]:
    """`demo.launch` arguments: theme, CSS, upload and request limits, idle sessions forgotten, and the only
    folders files are served from."""
    settings = app_settings()
    return {
        # Oversized requests are refused unread; room is made before an upload streams in.
        "app_kwargs": {"lifespan": forgetting_idle_sessions,
                       "middleware": [Middleware(RequestSizeLimit, max_bytes=max_request_bytes(settings)), Middleware(UploadRoom)]},
        "theme": gr.themes.Soft(primary_hue="indigo", secondary_hue="amber"),
        "css_paths": [ASSETS / "app.css"],
        # The page viewer's zooms; Gradio gives every image in a chat a Share button, which off Spaces only says
        # that it cannot share.
        "css": page_viewer.zoom_css() + ("" if settings.ui.space_id else "\n" + NO_SHARING_CSS),
        "allowed_paths": served_folders(settings),
        # Gradio's refusal gives the limit in units of 2^20 bytes ("38.1 Mb" for 40 MB): in those units it says the
        # upload box's number; the few files over 10^6-byte megabytes but under these get the app's own message.
        "max_file_size": settings.extraction.max_file_mb * 2**20,
        "run_history": False,  # it would keep typed inputs (the API key) in the browser
        "footer_links": ["api", "gradio"],
    }
