"""The app's handlers and helpers without a server: inputs a client can send, notices, limits."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from spiqa_demo.errors import PaperError
from spiqa_demo.settings import get_settings
from spiqa_demo.ui.serving.app_settings import install


@pytest.fixture(autouse=True)
def _app_settings() -> None:
    """The handlers read the settings the app was built with: here, the test's environment."""
    install(get_settings())


def test_model_choice_is_clamped_to_valid_values() -> None:
    from spiqa_demo.ui.shared.model_settings import MAX_SHORTLIST, ModelChoice

    choice = ModelChoice.from_inputs("sql; drop", "gpu-cluster", " m ", " http://x/v1 ", 99, "huge", "yes")
    assert (choice.task, choice.backend, choice.model, choice.base_url) == ("reader", "none", "m", "http://x/v1")
    assert choice.k == MAX_SHORTLIST and choice.image_size == 0 and choice.captions is True
    assert ModelChoice.from_inputs("direct", "local", "", "", 0, 224, False).k == 1


def test_spiqas_ablations_are_tasks_of_the_settings_panel() -> None:
    from spiqa_demo.qa import TASKS
    from spiqa_demo.ui.shared.model_settings import TASK_CHOICES, ModelChoice, describe

    assert [value for _, value in TASK_CHOICES] == ["reader", *TASKS]
    assert ModelChoice.from_inputs("reader", "none", "", "", 8, 0, True).spiqa_task == "cot"  # the check stays SPIQA's
    for task in ("caption-only", "image-only"):
        choice = ModelChoice.from_inputs(task, "openai", "gpt-4o", "", 8, 0, True)
        assert choice.task == task
    assert describe(ModelChoice.from_inputs("caption-only", "openai", "gpt-4o", "", 8, 0, True)) == "gpt-4o · Caption only"


def test_a_locked_space_ignores_the_model_a_client_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    from spiqa_demo.ui.shared.model_settings import ModelChoice, resolve_backend

    monkeypatch.setenv("SPIQA_UI_LOCK_MODEL", "1")
    monkeypatch.setenv("SPIQA_BACKEND", "none")
    get_settings.cache_clear()
    install(get_settings())
    choice = ModelChoice.from_inputs("cot", "openai", "gpt-4o", "http://127.0.0.1:9/v1", 4, 0, True)
    assert choice.backend == "none" and choice.model == "" and choice.base_url == ""
    assert resolve_backend(choice, "sk-visitor")[0] is None


def test_a_question_asked_while_the_paper_uploads_waits_for_the_upload(monkeypatch: pytest.MonkeyPatch) -> None:
    """However long the browser says the upload takes; a failed upload ends the wait ("Load a paper first")."""
    from spiqa_demo.ui.serving.work.steps import blocking
    from spiqa_demo.ui.state.session import Session
    from spiqa_demo.ui.tabs.paper import chat, upload_watch

    monkeypatch.setattr(chat, "UPLOAD_GRACE_S", 0.0)
    monkeypatch.setattr(chat.examples, "example_papers", dict)
    session = Session()
    upload_watch.started(session, 1)
    turns = blocking(chat.ask("Which figure?", session, "cot", "none", "", "", 8, 0, True, ""))
    history, *_ = next(turns)
    assert history[-1]["content"] == chat.UPLOADING
    upload_watch.ended(session, 1)  # the upload failed
    history, *_ = list(turns)[-1]
    assert history[-1]["content"] == chat.NO_PAPER and not session.uploading


@pytest.mark.parametrize(("arrivals", "uploading"), [
    (["start 1"], True), (["start 1", "end 1"], False),
    (["end 1", "start 1"], False),  # an upload's start mark overtaken by its own load
    (["start 1", "end 1", "start 2"], True), (["start 1", "start 2", "end 1"], True),
    (["start 2", "end 1", "start 1"], True), (["end 2", "start 1", "start 2"], False),
    (["start 1", "end 0"], False),  # a load that names no upload (another loader's) ends what has started,
    (["end 0", "start 1"], True),  # not what starts later
])
def test_an_uploads_marks_tell_the_same_in_any_order(arrivals: list[str], uploading: bool) -> None:
    """The page's words about its numbered uploads are separate requests that the server may get in any
    order (a start mark is unqueued, a load queued): the session is uploading while an upload started
    that no word said is over."""
    from spiqa_demo.ui.state.session import Session
    from spiqa_demo.ui.tabs.paper import upload_watch

    session = Session()
    for arrival in arrivals:
        word, number = arrival.split()
        (upload_watch.started if word == "start" else upload_watch.ended)(session, int(number))
    assert session.uploading == uploading


def test_a_start_mark_after_its_uploads_load_leaves_no_question_waiting(shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The known risk, delivered in that order: the upload's load begins, then its start mark arrives;
    the next question is answered about the paper (it used to wait for an upload long over)."""
    from spiqa_demo.ui.serving.work.steps import blocking
    from spiqa_demo.ui.state.session import Session
    from spiqa_demo.ui.tabs.paper import chat, upload_watch
    from spiqa_demo.ui.tabs.paper.paper_tab import load_upload

    monkeypatch.setattr(chat, "UPLOAD_GRACE_S", 0.0)
    session = Session()
    pdf = shared / "papers" / "non-local-nn-cvpr2018-1711.07971.pdf"
    list(blocking(load_upload(str(pdf), 1, session, progress=lambda *_, **__: None)))
    upload_watch.started(session, 1)  # late
    assert session.paper is not None and not session.uploading
    history, *_ = list(blocking(chat.ask("Which table compares the non-local block with the baseline on Kinetics?",
                                         session, "cot", "none", "", "", 8, 0, True, "")))[-1]
    assert session.last_answer is not None and chat.UPLOADING not in str(history[-3:])


def test_a_question_asked_while_the_paper_loads_waits_for_it(shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from spiqa_demo.ui.serving.work.loading import PaperLoad
    from spiqa_demo.ui.serving.work.steps import blocking
    from spiqa_demo.ui.state.session import Session
    from spiqa_demo.ui.tabs.paper import chat
    from spiqa_demo.ui.tabs.paper.chat import NO_PAPER, ask

    inputs = ("cot", "none", "", "", 8, 0, True, "")
    turns = blocking(ask("Which figure?", Session(), *inputs))
    history, *_ = next(turns)  # at once, before the grace for an upload's word: the question and what it waits for
    assert history[-2]["content"] == "Which figure?" and history[-1]["content"] == chat.LOOKING, history
    turns.close()
    monkeypatch.setattr(chat, "UPLOAD_GRACE_S", 0.0)
    for offered, told in (({}, NO_PAPER), ({"An example": Path("example.pdf")}, chat.NO_PAPER_OR_EXAMPLE)):
        monkeypatch.setattr(chat.examples, "example_papers", lambda offered=offered: offered)  # an example is named only where one is offered
        history, *_ = list(blocking(ask("Which figure?", Session(), *inputs)))[-1]
        assert history[-1]["content"] == told
    asked, told = list(blocking(ask("  ", Session(), *inputs)))[-1][0]
    assert asked["role"] == "user" and "The question is empty" in told["content"]  # said in the chat, a turn of its own

    gate = threading.Event()
    session = Session()
    PaperLoad(lambda: gate.wait(30) and shared / "papers" / "non-local-nn-cvpr2018-1711.07971.pdf", session).reported.set()  # no request shows it
    turns = blocking(ask("Which table compares the non-local block with the baseline on Kinetics?", session, *inputs))
    history, *_ = next(turns)
    assert "Waiting for the paper to be read and indexed" in history[-1]["content"] and session.loading
    gate.set()
    history, session, box = list(turns)[-1]
    assert not session.loading and session.paper is not None and box == ""
    assert history[0]["content"].startswith("Loaded **") and history[1]["content"].startswith("Which table")
    assert session.last_answer is not None and session.last_answer.figure is not None


def test_an_answer_waits_for_the_loads_last_update_to_be_sent(shared: Path) -> None:
    """Gradio sends a load's last update (the chat with only the greeting) once more as its request
    completes: an answer sent before that was replaced by it in the browser. The question is held
    until the load's request has handed over its last update (resumed after it)."""
    from spiqa_demo.ui.serving.work.steps import Wait, blocking
    from spiqa_demo.ui.state.session import Session
    from spiqa_demo.ui.tabs.paper.chat import ask
    from spiqa_demo.ui.tabs.paper.paper_tab import LoadOutputs, load_upload

    session = Session()
    pdf = shared / "papers" / "non-local-nn-cvpr2018-1711.07971.pdf"
    load = blocking(load_upload(str(pdf), 1, session, progress=lambda *_, **__: None))
    for shown in load:  # up to the load's last update, which Gradio has not finished sending
        assert isinstance(shown, LoadOutputs)
        if session.load_job is not None and session.load_job.done and isinstance(shown.status, str) and "Indexing" not in shown.status:
            break
    assert session.paper is not None and isinstance(shown.chatbot, list) and len(shown.chatbot) == 1  # the greeting
    asked = ask("Which table compares the non-local block with the baseline on Kinetics?", session, "cot", "none", "", "", 8, 0,
                True, "")
    held = next(step for step in asked if isinstance(step, Wait) and not step.ready())
    assert session.last_answer is None and len(session.history) == 3  # the greeting, the question, its thought
    assert next(load, None) is None  # the load's request ends
    assert held.ready()
    history, answered, _ = list(blocking(asked))[-1]
    assert answered.last_answer is not None and history[0]["content"].startswith("Loaded **")


def test_a_question_that_arrives_before_its_upload_waits_for_the_load_to_begin(shared: Path) -> None:
    """The browser sends the question while the dropped file is still uploading."""
    from spiqa_demo.ui.serving.work.loading import PaperLoad
    from spiqa_demo.ui.serving.work.steps import Wait, blocking
    from spiqa_demo.ui.state.session import Session
    from spiqa_demo.ui.tabs.paper.chat import ask

    session = Session()
    pdf = shared / "papers" / "non-local-nn-cvpr2018-1711.07971.pdf"

    def upload_arrives_at_the_first_wait(steps: Iterator[object]) -> Iterator[object]:
        """The upload's load begins while the question waits for it, so it provably waited for it,
        however late a timer would have fired on a busy machine."""
        for step in steps:
            if isinstance(step, Wait) and session.load_job is None:
                PaperLoad(lambda: pdf, session).reported.set()  # no request shows it
            yield step

    asked = ask("Which table compares the non-local block with the baseline on Kinetics?", session, "cot", "none", "", "", 8, 0,
                True, "")
    history, answered, _ = list(blocking(upload_arrives_at_the_first_wait(asked)))[-1]
    assert session.load_job is not None and answered.paper is not None and answered.last_answer is not None, history


def test_the_warm_up_left_after_the_first_papers_needs_waits_while_a_paper_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The other readers, the page-image workers and the SPIQA files start only once no load runs."""
    from spiqa_demo.ui.app import warmup
    from spiqa_demo.ui.serving.work import pools
    from spiqa_demo.ui.serving.work.fair_queue import FairQueue

    class HeldLoad:
        def __init__(self) -> None:
            self.running, self.go = threading.Event(), threading.Event()

        def run(self, slot: int) -> None:
            self.running.set()
            self.go.wait(60)

        def dropped(self, reason: str) -> None:
            raise AssertionError(reason)

    loads: FairQueue[HeldLoad] = FairQueue(2, "test-loads")
    monkeypatch.setattr(pools, "LOADS", loads)
    load = HeldLoad()
    loads.submit("visitor", load)
    assert load.running.wait(60) and not loads.idle()
    warm_up_goes_on = threading.Thread(target=warmup._after_loads)
    warm_up_goes_on.start()
    warm_up_goes_on.join(0.5)
    assert warm_up_goes_on.is_alive()  # a slow machine only makes it wait longer
    load.go.set()
    warm_up_goes_on.join(60)
    assert not warm_up_goes_on.is_alive() and loads.idle()


def test_a_failed_load_is_said_in_the_chat_and_the_upload_is_not_kept(tmp_path: Path) -> None:
    from spiqa_demo.ui.serving.files import storage
    from spiqa_demo.ui.serving.work.loading import PaperLoad
    from spiqa_demo.ui.serving.work.steps import blocking
    from spiqa_demo.ui.state.session import Session
    from spiqa_demo.ui.tabs.paper.chat import ask

    upload = storage.gradio_temp_dir() / "abc" / "notes.pdf"
    upload.parent.mkdir(parents=True, exist_ok=True)
    upload.write_text("not a PDF at all")
    session = Session()
    job = PaperLoad(lambda: upload, session)
    history, *_ = list(blocking(ask("Which figure?", session, "cot", "none", "", "", 8, 0, True, "")))[-1]
    assert job.done and job.error.startswith("notes.pdf: ") and job.error in history[-1]["content"]
    assert history[-1]["content"].endswith("not a PDF file.")  # a sentence, with its full stop
    assert not upload.exists() and session.paper is None and not session.loading


@pytest.mark.parametrize(("message", "expected"), [
    ("notes.pdf: not a PDF file", "notes.pdf: not a PDF file"),
    ("the upload did not arrive", "The upload did not arrive"),
    ("SPIQA_DPI: expected an integer", "SPIQA_DPI: expected an integer"),
    ("rate-limited by http://x (HTTP 429)", "Rate-limited by http://x (HTTP 429)"),
    ("http://127.0.0.1:9/v1 refused", "http://127.0.0.1:9/v1 refused"),
])
def test_messages_become_sentences_without_renaming_files(message: str, expected: str) -> None:
    from spiqa_demo.ui.serving.messages import as_sentence

    assert as_sentence(message) == expected


@pytest.mark.parametrize(("message", "expected"), [
    ("notes.pdf: not a PDF file", "notes.pdf: not a PDF file."),
    ("the model failed (HTTP 429)", "The model failed (HTTP 429)."),
    ("read it as “and on AFEW?”", "Read it as “and on AFEW?”"),
    ("Done.", "Done."),
])
def test_a_message_followed_by_more_text_ends_its_sentence(message: str, expected: str) -> None:
    from spiqa_demo.ui.serving.messages import full_sentence

    assert full_sentence(message) == expected


@pytest.mark.parametrize(("text", "expected"), [
    (r"where $\alpha < 1$", r"where $\alpha &lt; 1$"),  # the chat's KaTeX reads the decoded text
    (r"\[ x_{[i]} \]", r"$$ x_{&#91;i&#93;} $$"),  # display maths kept, its brackets still inert
    ("![x](http://host/t.png) $![y](http://h)$", "!&#91;x&#93;(http://host/t.png) $!&#91;y&#93;(http://h)$"),
])
def test_untrusted_maths_stays_maths_and_images_stay_text(text: str, expected: str) -> None:
    from spiqa_demo.ui.serving.untrusted import inert

    assert inert(text) == expected


def test_a_worker_whose_server_is_gone_exits_without_a_traceback() -> None:
    """The server stopped (SIGTERM) while a load ran: the worker's reply finds the pipe closed."""
    import pickle
    import subprocess
    import sys

    worker = subprocess.Popen([sys.executable, "-m", "spiqa_demo.ui.serving.work.workers"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdout.close()  # the server's end of the replies
    worker.stdin.write(pickle.dumps(("run", print, (), None)))  # a task that returns at once
    worker.stdin.close()
    assert worker.stderr is not None and worker.wait(timeout=60) is not None
    stderr = worker.stderr.read()
    assert worker.returncode == 0 and b"Traceback" not in stderr and b"BrokenPipe" not in stderr, stderr


@pytest.mark.parametrize(("text", "expected"), [
    ("1706.03762", "1706.03762"),
    ("arXiv:1706.03762v5", "1706.03762v5"),
    ("https://arxiv.org/abs/1611.05742v3", "1611.05742v3"),
    ("https://arxiv.org/pdf/2205.14135", "2205.14135"),
    ("hep-th/9901001", "hep-th/9901001"),
])
def test_arxiv_ids_are_read_from_ids_and_links(text: str, expected: str) -> None:
    from spiqa_demo.arxiv import parse_arxiv_id

    assert parse_arxiv_id(text) == expected


def test_not_an_arxiv_id_says_so() -> None:
    from spiqa_demo.arxiv import parse_arxiv_id

    with pytest.raises(PaperError, match="not an arXiv id"):
        parse_arxiv_id("attention is all you need")


def test_the_ui_folder_stays_under_its_size_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from spiqa_demo.ui.serving.files import storage

    monkeypatch.setenv("SPIQA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("SPIQA_UI_CACHE_MAX_MB", "1")
    get_settings.cache_clear()
    install(get_settings())
    for i in range(4):
        source = tmp_path / f"paper {i}!.pdf"
        source.write_bytes(b"%PDF-1.4\n" + bytes([i]) * 400_000)
        kept = storage.keep_upload(source)
        assert kept.name == f"paper_{i}_.pdf" and kept.read_bytes() == source.read_bytes()
        os.utime(kept, (1_000 + i, 1_000 + i))  # older uploads are evicted first
    storage.evict()
    left = sorted(p.name for p in storage.uploads_dir().rglob("*.pdf"))
    assert sum(p.stat().st_size for p in storage.ui_root().rglob("*") if p.is_file()) <= 1_000_000
    assert left == ["paper_2_.pdf", "paper_3_.pdf"]


def test_examples_are_listed_by_their_printed_title_and_picked_by_name_never_by_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalsuite.pdf_factory import PaperWriter, Prose
    from spiqa_demo.ui.tabs.paper import examples

    w = PaperWriter(columns=2)
    w.title("A Paper About Figures", "Ada Lovelace")
    w.paragraph(Prose(1).sentences(4))
    w.save(tmp_path / "a.pdf")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\n")
    monkeypatch.setenv("SPIQA_EXAMPLES_DIR", str(tmp_path))
    get_settings.cache_clear()
    install(get_settings())
    assert list(examples.example_papers()) == ["A Paper About Figures (a.pdf)", "broken.pdf"]
    assert examples.example_pdf("A Paper About Figures (a.pdf)") == (tmp_path / "a.pdf").resolve()
    with pytest.raises(PaperError, match="no example paper"):
        examples.example_pdf("/etc/passwd")


def test_a_huge_page_is_shown_within_the_pixel_bound_with_its_boxes_scaled(tmp_path: Path) -> None:
    """A page 14,400 points a side (the PDF maximum) must not render to gigapixels in the page view."""
    import pymupdf
    from PIL import Image

    from spiqa_demo.types import Figure
    from spiqa_demo.ui.serving.work.page_view import PAGE_DPI, PAGE_MAX_PIXELS, PageImage, box_on_page, draw_page, figure_on_page

    pdf = tmp_path / "kept" / "huge.pdf"
    pdf.parent.mkdir()
    doc = pymupdf.open()
    doc.new_page(width=14_400, height=14_400)
    doc.new_page(width=612, height=792)
    doc.save(pdf)
    figure = Figure(kind="figure", label="Figure 1", number="1", page=1, bbox=(7200.0, 7200.0, 14400.0, 14400.0), caption="Figure 1: x")
    drawn = [PageImage(tmp_path / f"p{page}.png", draw_page(print, pdf, page, False, PAGE_DPI, tmp_path / f"p{page}.png"))
             for page in (1, 2)]
    image, boxes = figure_on_page(drawn[0], figure)
    with Image.open(image) as png:
        assert png.width * png.height <= PAGE_MAX_PIXELS and abs(png.width - boxes[0][0][2]) <= 1
        assert abs(boxes[0][0][0] - png.width / 2) <= 1
    image, boxes = box_on_page(drawn[1], (72.0, 72.0, 144.0, 144.0), "page 2")
    with Image.open(image) as png:
        assert png.width == round(612 * PAGE_DPI / 72) and boxes[0][0][:2] == (round(72 * PAGE_DPI / 72),) * 2


def test_zooming_renders_the_page_larger_keeps_the_box_and_the_zoom_across_pages(tmp_path: Path) -> None:
    """Zoom in/out steps through the viewer's zooms within their bounds, with the figure still boxed on a
    page rendered finer at large zooms, and stepping to another page keeps the zoom."""
    import pymupdf
    from PIL import Image

    from spiqa_demo.types import Figure, Paper
    from spiqa_demo.ui.serving.work.page_view import PAGE_DPI
    from spiqa_demo.ui.serving.work.steps import Wait, blocking
    from spiqa_demo.ui.shared import page_viewer
    from spiqa_demo.ui.state.session import Session

    pdf = tmp_path / tmp_path.name / "paper.pdf"  # page images are named by the folder (a content hash in the app)
    pdf.parent.mkdir()
    doc = pymupdf.open()
    for _ in range(2):
        doc.new_page(width=612, height=792)
    doc.save(pdf)
    figure = Figure(kind="figure", label="Figure 1", number="1", page=1, bbox=(72.0, 72.0, 288.0, 216.0), caption="Figure 1: x")
    session = Session(paper=Paper(sha256="0" * 64, source="paper.pdf", title="A paper", arxiv_id=None,
                                  page_sizes=[(612.0, 792.0)] * 2, items=[figure]), pdf=pdf)

    def viewed(steps: Iterator[page_viewer.ViewerOutputs | Wait]) -> page_viewer.ViewerOutputs:
        *_, outputs = blocking(steps)  # the page is drawn in a worker process meanwhile
        return outputs

    def shown(steps: Iterator[page_viewer.ViewerOutputs | Wait]) -> tuple[str, int, list]:
        outputs = viewed(steps)
        image, boxes = outputs.page["value"]
        with Image.open(image) as png:
            return outputs.page["elem_classes"][0], png.width, boxes

    at_100, width_100, boxes_100 = shown(page_viewer.show_figure(session, figure))
    assert at_100 == "zoom-100" and width_100 == round(612 * PAGE_DPI / 72) and boxes_100[0][1] == "Figure 1"
    for _ in range(len(page_viewer.ZOOMS) - 1):
        viewed(page_viewer.zoom_in(session))
    zoomed = viewed(page_viewer.zoom_in(session))
    at_300, width_300, boxes_300 = shown(iter([zoomed]))
    assert at_300 == "zoom-300" and zoomed.zoom_level == "Zoom **300 %**" and zoomed.zoom_in["interactive"] is False
    assert width_300 > width_100 and boxes_300[0][0][2] / width_300 == pytest.approx(boxes_100[0][0][2] / width_100, abs=0.01)
    assert "height: 1560px" in page_viewer.zoom_css()  # the class gives the page three times its fitted height
    stepped = viewed(page_viewer.next_page(session))
    assert stepped.page["elem_classes"] == ["zoom-300"] and stepped.page_number == "Page **2** of 2"
    assert stepped.page_focus == ""  # the figure is not on page 2: the browser has no box to scroll to
    jumped = viewed(page_viewer.go_to(" 99 ", session))  # past the last page: the last one; the figure boxed on page 1
    assert jumped.page_number == "Page **2** of 2" and "Figure 1 · page 1 is boxed on its page" in jumped.detail
    assert viewed(page_viewer.go_to("one", session)) == page_viewer.UNCHANGED
    back = viewed(page_viewer.go_to("1", session))
    name, *box = back.page_focus.split(" ")  # the page image's name and the figure's box on it, in its pixels
    assert back.page["value"][0].endswith(name) and [int(v) for v in box] == list(back.page["value"][1][0][0])
    for _ in range(len(page_viewer.ZOOMS)):
        zoomed = viewed(page_viewer.zoom_out(session))
    assert zoomed.page["elem_classes"] == ["zoom-50"] and zoomed.zoom_out["interactive"] is False
    assert viewed(page_viewer.zoom_in(Session())).detail == page_viewer.NOTHING_SHOWN  # nothing opened yet


def test_every_named_output_has_one_widget() -> None:
    """Handlers return NamedTuples whose fields name the widgets they fill: a field added without its
    widget (or naming one twice) fails here, not when a visitor fires the event."""
    import gradio as gr

    from spiqa_demo.ui.shared import page_viewer
    from spiqa_demo.ui.shared.outputs import components
    from spiqa_demo.ui.tabs.across import across_chat, across_tab
    from spiqa_demo.ui.tabs.errors import error_analysis, error_compare
    from spiqa_demo.ui.tabs.paper import chat, paper_tab, spiqa_check

    with gr.Blocks():
        session = gr.State()
        with gr.Tabs():
            paper = paper_tab.build(get_settings())
            across = across_tab.build()
            errors = error_analysis.build()
    listed = {
        paper_tab.LoadOutputs: components(paper_tab.LoadOutputs, paper, session=session),
        page_viewer.ViewerOutputs: components(page_viewer.ViewerOutputs, paper),
        chat.AskOutputs: components(chat.AskOutputs, paper, session=session),
        chat.StopOutputs: components(chat.StopOutputs, paper, session=session),
        chat.ClearOutputs: components(chat.ClearOutputs, paper, session=session),
        spiqa_check.MatchOutputs: components(spiqa_check.MatchOutputs, paper.check, session=session),
        spiqa_check.ScoreOutputs: components(spiqa_check.ScoreOutputs, paper.check),
        spiqa_check.RunAllOutputs: components(spiqa_check.RunAllOutputs, paper.check),
        across_tab.RefreshOutputs: components(across_tab.RefreshOutputs, across),
        across_tab.AddOutputs: components(across_tab.AddOutputs, across),
        across_chat.AskOutputs: components(across_chat.AskOutputs, across),
        across_chat.StopOutputs: components(across_chat.StopOutputs, across),
        error_analysis.LoadOutputs: components(error_analysis.LoadOutputs, errors),
        error_analysis.FilterOutputs: components(error_analysis.FilterOutputs, errors),
        error_analysis.RowOutputs: components(error_analysis.RowOutputs, errors),
        error_compare.CompareOutputs: components(error_compare.CompareOutputs, errors.compare, state=errors.state),
        error_compare.SideFilterOutputs: components(error_compare.SideFilterOutputs, errors.compare, state=errors.state),
        error_compare.SideRowOutputs: components(error_compare.SideRowOutputs, errors.compare),
    }
    for outputs, widgets in listed.items():
        assert len(widgets) == len(outputs._fields) == len({id(c) for c in widgets}), outputs.__qualname__


def test_a_drawn_page_has_its_printed_lines_for_the_text_layer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker that draws a page writes the lines upright on its image, in the image's pixels, and leaves out
    a line printed sideways; on a page turned a quarter the sideways line is the upright one. A tag stays the
    text it is (the browser sets it as text)."""
    import json

    import pymupdf

    from spiqa_demo.ui.serving.work.page_view import PAGE_DPI, PageImage, draw_page, page_text, write_page_text

    pdf = tmp_path / "kept" / "text.pdf"
    pdf.parent.mkdir()
    doc = pymupdf.open()
    for rotation in (0, 90):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 100), "Results on <img src=x onerror=alert(1)> data", fontsize=12)
        page.insert_text((30, 700), "arXiv:1234.5678 stamp", fontsize=10, rotate=90)  # reads upwards
        page.set_rotation(rotation)
    doc.save(pdf)
    layers = []
    for number in (1, 2):
        target = tmp_path / f"p{number}.png"
        scale = draw_page(print, pdf, number, False, PAGE_DPI, target)
        assert page_text(PageImage(target, scale)) == ""  # none yet: the page is shown, not selectable
        write_page_text(print, pdf, number, scale, target)
        layers.append(json.loads(page_text(PageImage(target, scale))))
        assert layers[-1]["image"] == target.name
    scale = PAGE_DPI / 72
    [(x0, y0, x1, y1, text)] = layers[0]["lines"]
    assert text == "Results on <img src=x onerror=alert(1)> data"
    assert abs(x0 - 72 * scale) < 2 and y0 < 100 * scale < y1 < 110 * scale and x1 > x0 + 200
    [(x0, y0, x1, y1, text)] = layers[1]["lines"]  # turned clockwise: the page's x is the image's y
    assert text == "arXiv:1234.5678 stamp" and abs(x0 - (792 - 700) * scale) < 2 and y0 < 30 * scale < y1

    from spiqa_demo.ui.serving.work import page_view

    monkeypatch.setattr(page_view, "TEXT_MAX_LINES", 1)  # a page of endless lines: the first ones only
    many = tmp_path / "kept" / "many.pdf"
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for n in range(5):
        page.insert_text((72, 100 + 20 * n), f"line {n}", fontsize=12)
    doc.save(many)
    target = tmp_path / "many.png"
    write_page_text(print, many, 1, scale, target)
    assert [line[4] for line in json.loads(page_text(PageImage(target, scale)))["lines"]] == ["line 0"]


def test_every_chat_words_the_no_model_notice_one_way_and_says_it_once() -> None:
    """`resolve_backend`'s notice that no model is configured becomes the chat's own words (what it shows
    instead), said under the first answer of a chat only; any other notice passes as it is, every time."""
    from spiqa_demo.ui.shared.model_settings import RETRIEVAL_ONLY_NOTICE, model_notes, no_model_notice, worded
    from spiqa_demo.ui.state.session import Chat

    shows = "the passage that best matches your question"
    notice = worded(RETRIEVAL_ONLY_NOTICE, shows)
    assert notice == no_model_notice(shows) and "retrieval-only mode" in notice and shows in notice
    assert worded("the model server could not be reached", shows) == "the model server could not be reached"
    chat = Chat()
    assert model_notes([notice, "the question was cut to its limit"], chat, shows) == [notice, "The question was cut to its limit."]
    assert model_notes([notice, "server down"], chat, shows) == ["Server down."]  # said once per chat
    assert model_notes([notice], Chat(), shows) == [notice]  # a new chat is told again


def test_no_summary_is_asked_without_a_model_nor_when_the_operator_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """`start.summarise` after a load: nothing without a model; nothing, and no model built, with
    `SPIQA_UI_SUMMARY_ON_LOAD` off (the app's loopback-listener test shows it on)."""
    from types import SimpleNamespace

    from spiqa_demo.types import Paper
    from spiqa_demo.ui.serving.work.steps import blocking
    from spiqa_demo.ui.state.session import Session
    from spiqa_demo.ui.tabs.paper import start

    paper = Paper(sha256="0" * 64, source="paper.pdf", title="A paper", arxiv_id=None, page_sizes=[(612.0, 792.0)], items=[])
    session = Session(paper=paper)
    session.load_job = SimpleNamespace(done=True, error="", paper=paper)  # type: ignore[assignment]
    no_model = ("reader", "none", "", "", 8, 0, True, "")
    assert [o.chatbot for o in blocking(start.summarise(session, *no_model))] == [start.gr.skip()]
    monkeypatch.setattr(start, "resolve_backend", lambda *args: pytest.fail("a model was built"))
    a_model = ("reader", "openai", "m", "http://127.0.0.1:9/v1", 8, 0, True, "")
    with pytest.MonkeyPatch.context() as environment:
        environment.setenv("SPIQA_UI_SUMMARY_ON_LOAD", "false")
        get_settings.cache_clear()
        install(get_settings())
        try:
            assert [o.chatbot for o in blocking(start.summarise(session, *a_model))] == [start.gr.skip()] and session.history == []
        finally:
            environment.undo()
            get_settings.cache_clear()
            install(get_settings())


@pytest.mark.parametrize(("asked", "label"), [(1, "(1 question)"), (2, "(2 questions)")])
def test_the_previous_chats_export_counts_its_questions_in_words(asked: int, label: str) -> None:
    """A second paper offers the first one's chat for export, its count said as a reader would."""
    from spiqa_demo.conversation import Turn
    from spiqa_demo.types import Paper
    from spiqa_demo.ui.state.session import Asked, PreviousChat, Session
    from spiqa_demo.ui.tabs.paper.paper_tab import _paper_shown

    first = Paper(sha256="1" * 64, source="first.pdf", title="A first paper", arxiv_id=None, page_sizes=[(612.0, 792.0)], items=[])
    second = Paper(sha256="2" * 64, source="second.pdf", title="A second paper", arxiv_id=None, page_sizes=[(612.0, 792.0)], items=[])
    turns = tuple(Asked(Turn(question=f"Question {n}?", read_as=f"Question {n}?", answer="An answer.")) for n in range(asked))
    session = Session(paper=second, previous_chat=PreviousChat(first, turns))
    shown = _paper_shown(session, second, "ready", ready=True)
    assert shown.export_file["label"] == f"Your chat about “A first paper” {label}"


def test_the_chat_export_says_a_note_once() -> None:
    """The "no model" notice comes with every answer's messages; the export says it under the first, as the chat does."""
    from spiqa_demo.conversation import Turn
    from spiqa_demo.types import Paper
    from spiqa_demo.ui.shared.model_settings import no_model_notice
    from spiqa_demo.ui.state.session import Asked
    from spiqa_demo.ui.tabs.paper.exports import chat_markdown

    notice = no_model_notice("the paper's sentences that best answer your question")
    paper = Paper("0" * 64, "made.pdf", "A paper", None, [(612.0, 792.0)], items=[])
    asked = [Asked(Turn(question=f"Question {n}?", read_as=f"Question {n}?", answer="An answer.", messages=(notice,)))
             for n in range(3)]
    markdown = chat_markdown(paper, asked)
    assert markdown.count("No model is configured") == 1 and markdown.index("No model") < markdown.index("## 2."), markdown


def test_the_chat_export_reads_as_plain_text_with_a_pdfs_markup_left_dead() -> None:
    """chat.md says "[p. 2]" and "it's" as the chat reads, not their character references; an image, a
    link, a definition or an HTML tag written by a PDF or a model still does nothing in a Markdown viewer;
    a stopped turn keeps what was written, marked stopped."""
    from spiqa_demo.conversation import Evidence, Turn
    from spiqa_demo.types import Paper, Passage
    from spiqa_demo.ui.state.session import Asked
    from spiqa_demo.ui.tabs.paper.exports import chat_markdown

    lure = "![pixel](http://127.0.0.1:9/t.png) [site](http://127.0.0.1:9) [ref]: http://127.0.0.1:9 <img src=x>"
    passage = Passage(text=f"KGAT's results, a < b. {lure}", page=2, bbox=(50.0, 100.0, 300.0, 200.0))
    evidence = Evidence(kind="passage", page=2, label="", text=passage.text, score=1.0, box=passage.bbox, item=passage, cited=True)
    paper = Paper("0" * 64, "made.pdf", "The Authors' Paper", None, [(612.0, 792.0)] * 2, passages=[passage], items=[])
    asked = [Asked(Turn(question="What's best?", read_as="What's best?", answer="KGAT's results, a < b [p. 2].", evidence=(evidence,))),
             Asked(Turn(question="and on Last-FM?", read_as="What's best on Last-FM?", answer="It's [p.", stopped=True))]
    markdown = chat_markdown(paper, asked)
    assert "# Chat about The Authors' Paper" in markdown and "## 1. What's best?" in markdown, markdown
    assert "KGAT's results, a < b [p. 2]." in markdown and markdown.count("&") == 4, markdown  # the lure's only
    assert "## 2. and on Last-FM? (stopped)" in markdown and "*Read as:* What's best on Last-FM?" in markdown
    assert "It's [p. *(stopped)" in markdown, markdown
    quoted = next(line for line in markdown.splitlines() if "127.0.0.1" in line)
    assert quoted == ("> KGAT's results, a < b. ![pixel&#93;(http://127.0.0.1:9/t.png) [site&#93;(http://127.0.0.1:9) "
                      "[ref&#93;: http://127.0.0.1:9 &lt;img src=x>"), quoted
    from markdown_it import MarkdownIt  # a CommonMark viewer, as a reader may open the file with

    shown = MarkdownIt("commonmark").render(markdown)
    assert "<img" not in shown and "href" not in shown and "![pixel](http://127.0.0.1:9/t.png)" in shown, shown


def test_a_turn_stopped_before_any_reply_says_so() -> None:
    """A question stopped while it still ranked (nothing written) is not told "what was written so far is kept"."""
    from spiqa_demo.ui.shared.chat_stream import chat_message
    from spiqa_demo.ui.state.session import Answering

    turn = Answering(chat_message("assistant", "Ranking the paper's figures and tables…"))
    turn.stop()
    assert turn.thought["content"] == "Stopped before any answer was written." and turn.thought["metadata"]["title"] == "Stopped"


def test_the_summary_starts_only_while_no_question_is_being_answered_or_was_answered() -> None:
    """A question answered while the summary's backend was being made leaves the summary out: it
    would be written under the reader's answer (a question being answered goes first, as before)."""
    from spiqa_demo.conversation import Turn
    from spiqa_demo.ui.state.session import Asked, Session

    thought = {"role": "assistant", "content": "Asking the model for a summary…"}
    idle = Session()
    assert idle.start_turn_when_idle(thought) is idle.turn is not None
    answering = Session()
    question = answering.start_turn({"role": "assistant", "content": "Reading the question…"})
    assert answering.start_turn_when_idle(thought) is None and answering.turn is question
    answered = Session()
    answered.asked.append(Asked(Turn(question="What is it?", read_as="What is it?", answer="An answer.")))
    assert answered.start_turn_when_idle(thought) is None and answered.turn is None
