"""The shared app under a hostile visitor, driven against the running app: `gradio_client` for the
ordinary visitors, raw HTTP (`evalsuite.raw_visitor`) where a browser would not go (uploads never
loaded, events joined on a session and then the connection dropped, a gallery selection).

Queues: sessions holding model calls on a server that never answers leave another visitor's
retrieval-only answer unqueued; a session has one model call at a time; a server that accepts and
never replies is cut off. Loads: one session flooding slow loads leaves another visitor's fresh
paper to be read meanwhile, a newer load replaces a waiting one, a visitor who leaves drops its
waiting load, and a load past its CPU limit is stopped. Disk: uploads never loaded keep the
folder within its limit and never cost a live session's crops or page image; a session's uploads
past its quota are refused and deleted. No outcome depends on a clock: the model server and the
slow loads are held until the test says go, and every wait is for a condition, bounded.
"""

from __future__ import annotations

import math
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from app_harness import _served_app, app_url, grnet_pdf, reconfigure, texts, visitor
from gradio_client import handle_file
from test_app_client import ask_args

from evalsuite.hostile_pdfs import huge_image_pdf
from evalsuite.openai_listener import Listener, openai_listener
from evalsuite.raw_visitor import RawVisitor, raw_visitor, status_of

PASC2 = "Which method performs best on the PaSC dataset for the handheld testing scenario (PaSC2)?"
HUNG_SESSIONS = 10  # more than SPIQA_UI_API_CONCURRENCY (8): some calls run (held), the rest wait for a model
FLOOD = 6  # loads one session sends at once
JUNK_UPLOADS = 12
JUNK_MB = 7.9  # under the tests' SPIQA_MAX_FILE_MB (8)


def wait_for(condition: Callable[[], object], what: str) -> None:
    """Poll until `condition()` holds; fail after two minutes (it never came)."""
    deadline = time.monotonic() + 120
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within 120 s"
        time.sleep(0.05)




def folder_bytes() -> int:
    from spiqa_demo.ui.serving.files import storage

    return sum(p.stat().st_size for p in storage.ui_root().rglob("*") if p.is_file())


def padded_copy(source: Path, target: Path, megabytes: float) -> Path:
    """`source` with bytes after its end (readers ignore them) up to `megabytes`: same paper, new file."""
    data = source.read_bytes() + b"\n%" + target.name.encode()
    target.write_bytes(data + os.urandom(max(0, int(megabytes * 1e6) - len(data))))
    return target


def two_page_pdf(path: Path) -> Path:
    """A fresh two-page paper with one figure (its own title: never in the extraction cache)."""
    from evalsuite.pdf_factory import Caption, LinePlot, PaperWriter, Prose

    w, prose = PaperWriter(columns=2), Prose(11)
    w.title(f"A Fresh Paper {path.stem}", "Grace Hopper")
    w.heading("1. Introduction")
    w.paragraph(prose.sentences(12) + ["Figure 1 shows the accuracy over training."] + prose.sentences(12))
    w.figure(LinePlot(seed=7, series=("Ours", "Baseline")), Caption("figure", "1", "Accuracy over training.", "Figure {n}:"),
             case="accuracy curves")
    w.paragraph(prose.sentences(40))
    return w.save(path).path


# -- queues that cannot be exhausted -------------------------------------------------------------


@pytest.fixture
def hung_model(app_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Listener]:
    """The operator's model server (so any visitor may ask it): it accepts every request and sends
    nothing until the test sets go (at the latest when it ends)."""
    with openai_listener(answer_first=0, silent=True) as hung:
        reconfigure(monkeypatch, SPIQA_BACKEND="openai", SPIQA_BASE_URL=hung.url, SPIQA_MODEL="m", SPIQA_MODEL_FIRST_BYTE_TIMEOUT_S="600")
        yield hung


def test_retrieval_only_is_answered_while_sessions_hold_hung_model_calls(app_url: str, grnet_pdf: Path,
                                                                          hung_model: Listener) -> None:
    from spiqa_demo.ui.serving.app_settings import app_settings
    from spiqa_demo.ui.serving.work import model_calls

    running = app_settings().ui.ui_api_concurrency
    holders = [visitor(app_url) for _ in range(HUNG_SESSIONS)]
    for client in holders:
        client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    asks = [client.submit(*ask_args(PASC2, backend="openai", model="m", base_url=hung_model.url), api_name="/ask")
            for client in holders]
    wait_for(lambda: len(hung_model.requests) == running and model_calls.waiting() == HUNG_SESSIONS - running,
             "model call held by the server or waiting for a model in every session")

    quick = visitor(app_url)
    quick.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    chat, _ = quick.predict(*ask_args("Which method is best on HDM05?"), api_name="/ask")  # queued behind them, it never comes
    assert "Table 1" in texts(chat), texts(chat)
    assert not any(ask.done() for ask in asks) and not hung_model.go.is_set()
    assert len(hung_model.requests) == running and model_calls.waiting() == HUNG_SESSIONS - running

    hung_model.go.set()
    for ask in asks:
        chat, _ = ask.result(timeout=120)
        assert "SPDNet" in texts(chat), texts(chat)


def test_a_session_has_one_model_call_at_a_time(app_url: str, grnet_pdf: Path, hung_model: Listener) -> None:
    import json

    client = visitor(app_url)
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    first = client.submit(*ask_args(PASC2, backend="openai", model="m", base_url=hung_model.url), api_name="/ask")
    wait_for(lambda: len(hung_model.requests) == 1, "first model call")
    second = client.submit(*ask_args("Which method is best on HDM05?", backend="openai", model="m",
                                     base_url=hung_model.url), api_name="/ask")
    # The newer question stops the first: its request, still waiting for the server's headers, is hung
    # up, and only then is the second's sent (it waited for the session's call in flight to end).
    assert hung_model.disconnected.wait(120), "the first question's request stayed open"
    wait_for(lambda: len(hung_model.requests) == 2, "second model call")
    hung_model.go.set()
    chat, _ = second.result(timeout=120)
    assert "SPDNet" in texts(chat) and len(hung_model.requests) == 2, texts(chat)
    chat, _ = first.result(timeout=120)
    assert "(stopped)" in texts(chat) or "Stopped" in json.dumps(chat)  # the newer question stopped it


def test_a_model_server_that_never_replies_is_cut_off(app_url: str, grnet_pdf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    client = visitor(app_url)
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    with openai_listener(answer_first=0, silent=True) as silent:
        reconfigure(monkeypatch, SPIQA_BACKEND="openai", SPIQA_BASE_URL=silent.url, SPIQA_MODEL="m", SPIQA_MODEL_FIRST_BYTE_TIMEOUT_S="1",
                    SPIQA_MAX_RETRIES="0")
        chat, _ = client.predict(*ask_args(PASC2, backend="openai", model="m", base_url=silent.url), api_name="/ask")
        assert not silent.go.is_set()  # it never replied: the app gave up on its own
    assert "within 1 s" in texts(chat) and "SPIQA_MODEL_FIRST_BYTE_TIMEOUT_S" in texts(chat), texts(chat)
    assert "Table 1" in texts(chat) or "Figure" in texts(chat)  # the retrieved figure is still shown


# -- slow PDFs cannot stall everyone -------------------------------------------------------------


@dataclass
class HeldLoads:
    """Extractions of PDFs named `flood-*`, held until `go` (a slow PDF, without a clock)."""

    go: threading.Event = field(default_factory=threading.Event)
    started: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)


@pytest.fixture
def held_floods(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldLoads]:
    from spiqa_demo.ui.serving.work import loading

    held = HeldLoads()
    extract = loading.extract

    def slow(slot: int, pdf: Path, *args: object, **kwargs: object) -> object:
        if not pdf.name.startswith("flood"):
            return extract(slot, pdf, *args, **kwargs)  # type: ignore[arg-type]
        held.started.append(pdf.name)
        held.go.wait(300)
        try:
            return extract(slot, pdf, *args, **kwargs)  # type: ignore[arg-type]
        finally:
            held.finished.append(pdf.name)

    monkeypatch.setattr(loading, "extract", slow)
    yield held
    held.go.set()


def test_a_session_flooding_slow_loads_delays_no_one_else(app_url: str, grnet_pdf: Path, held_floods: HeldLoads,
                                                          tmp_path: Path) -> None:
    from spiqa_demo.ui.serving.work.loading import LOADS

    floods = [padded_copy(grnet_pdf, tmp_path / f"flood-{i}.pdf", 0.1) for i in range(FLOOD)]
    flooder = RawVisitor(app_url)
    events = [flooder.join("load_pdf", flooder.upload(pdf)) for pdf in floods]
    # One load of the session runs (held), one waits; each newer load replaced the one waiting before it.
    wait_for(lambda: len(held_floods.started) == 1 and LOADS.waiting() == 1
             and sum(flooder.completed(e) is not None for e in events) == FLOOD - 2, "flood settled")

    victim = visitor(app_url)
    status, gallery, *_ = victim.predict(handle_file(str(two_page_pdf(tmp_path / "fresh.pdf"))), api_name="/load_pdf")
    assert "A Fresh Paper" in status and gallery, status
    assert not held_floods.go.is_set() and held_floods.started == [held_floods.started[0]] and LOADS.waiting() == 1

    flooder.disconnect()  # the visitor leaves: its waiting load is dropped, the running one finishes
    wait_for(lambda: LOADS.waiting() == 0, "waiting flood load dropped")
    held_floods.go.set()
    wait_for(lambda: held_floods.finished, "running flood load finished")
    assert len(held_floods.started) == 1  # the dropped load was never read
    flooder.close()


def test_a_load_past_its_cpu_limit_is_stopped(app_url: str, grnet_pdf: Path, monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    side = 60_000  # 3.6 gigapixels: decoding takes several CPU seconds, far past a 1 s limit
    reconfigure(monkeypatch, SPIQA_MAX_IMAGE_PIXELS=str(side * side), SPIQA_UI_LOAD_CPU_S="1")
    client = visitor(app_url)
    status, *_ = client.predict(handle_file(str(huge_image_pdf(tmp_path / "bomb.pdf", side))), api_name="/load_pdf")
    assert "bomb.pdf: reading it took more than 1 s of processor time" in status, status
    from spiqa_demo.extraction.cache import STAGING, papers_root
    from spiqa_demo.ui.serving.app_settings import app_settings

    assert not [f for f in papers_root(app_settings().extraction).iterdir() if f.name.startswith(STAGING)]  # swept
    status, gallery, *_ = client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")  # a new reader takes over
    assert "Grassmann" in status and gallery, status


# -- the disk --------------------------------------------------------------------------------------


def test_uploads_never_loaded_keep_the_folder_within_its_limit_and_live_files_served(
        app_url: str, grnet_pdf: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    victim = visitor(app_url, download_files=False)
    _, gallery, *_ = victim.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    with closing(RawVisitor(app_url, victim.session_hash)) as browser:  # the victim selects a figure: its page is shown
        selected = browser.wait(browser.join(browser.trigger("gallery", "select"),
                                             event_data={"index": 0, "value": None, "selected": True}))
    page = selected["output"]["data"][0]["value"]["image"]
    shown = [f"{app_url}gradio_api/file={item['image']['path']}" for item in gallery]
    shown.append(f"{app_url}gradio_api/file={page['path']}")
    assert [status_of(url) for url in shown] == [200] * len(shown)

    limit_mb = math.ceil(folder_bytes() / 1e6) + 20  # room for two of the uploads below
    reconfigure(monkeypatch, SPIQA_UI_CACHE_MAX_MB=str(limit_mb))
    with raw_visitor(app_url) as hostile:
        for i in range(JUNK_UPLOADS):
            hostile.upload(padded_copy(grnet_pdf, tmp_path / f"junk-{i}.pdf", JUNK_MB))  # uploaded, never loaded
            assert folder_bytes() <= limit_mb * 1e6, f"upload {i}: {folder_bytes() / 1e6:.0f} MB over {limit_mb} MB"
    assert [status_of(url) for url in shown] == [200] * len(shown)


def test_uploads_past_a_sessions_quota_are_refused_and_deleted(app_url: str, grnet_pdf: Path,
                                                               monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from spiqa_demo.ui.serving.files import storage

    reconfigure(monkeypatch, SPIQA_UI_UPLOAD_QUOTA_MB="6")
    client = visitor(app_url)
    status, *_ = client.predict(handle_file(str(padded_copy(grnet_pdf, tmp_path / "first.pdf", 4))), api_name="/load_pdf")
    assert "Grassmann" in status, status
    # A name no other test uploads: the app's folders are shared by every test module this worker runs.
    status, *_ = client.predict(handle_file(str(padded_copy(grnet_pdf, tmp_path / "past-quota.pdf", 4))), api_name="/load_pdf")
    assert "past-quota.pdf: your papers in this session would take 8 MB, over the 6 MB a session may use" in status, status
    assert not list(storage.gradio_temp_dir().rglob("past-quota.pdf")) and not list(storage.uploads_dir().rglob("past-quota.pdf"))


def test_ten_sessions_loading_one_paper_at_once_all_get_it(app_url: str, grnet_pdf: Path, tmp_path: Path) -> None:
    """Every load writes the paper's gallery zip: each through a temporary of its own."""
    from spiqa_demo.ui.serving.files import storage

    pdf = padded_copy(grnet_pdf, tmp_path / "same.pdf", 0.1)
    jobs = [visitor(app_url).submit(handle_file(str(pdf)), api_name="/load_pdf") for _ in range(10)]
    statuses = [str(job.result(timeout=300)[0]) for job in jobs]
    assert [s for s in statuses if "Grassmann" not in s] == []
    assert not list(storage.served_dir().rglob("*.part"))


# -- costly work runs in limited worker processes, and waiting for it holds up no one -------------


def viewer(browser: RawVisitor, event: str, **options: object) -> list:
    """The page viewer's outputs after `event` (an api name, or a trigger from `browser.trigger`)."""
    return browser.wait(browser.join(event, **options))["output"]["data"]  # type: ignore[arg-type]


def first_figure(browser: RawVisitor) -> list:
    return viewer(browser, browser.trigger("gallery", "select"), event_data={"index": 0, "value": None, "selected": True})


def test_a_page_past_its_drawing_limit_says_so_and_the_viewer_goes_on(app_url: str, monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
    from evalsuite.hostile_pdfs import nested_groups_pdf

    reconfigure(monkeypatch, SPIQA_UI_RENDER_CPU_S="1")
    bomb = nested_groups_pdf(tmp_path / "paint-bomb.pdf", two_page_pdf(tmp_path / "base.pdf"))  # page 2 paints for minutes
    client = visitor(app_url)
    status, gallery, *_ = client.predict(handle_file(str(bomb)), api_name="/load_pdf")
    assert "A Fresh Paper" in status and gallery, status
    with closing(RawVisitor(app_url, client.session_hash)) as browser:
        assert first_figure(browser)[0]["value"]["image"]["path"].endswith(".png")
        stopped = viewer(browser, "next_page")
        assert "Page 2: drawing it took more than 1 s of processor time" in stopped[1] and not stopped[0]["visible"], stopped[1]
        assert "took more than 1 s" in viewer(browser, "zoom_in")[1]  # refused again at once, not drawn again
        assert viewer(browser, "previous_page")[0]["value"]["image"]["path"].endswith(".png")


@dataclass
class HeldWork:
    """Page renders of PDFs and result files named `held*`, each waiting until `go`."""

    go: threading.Event = field(default_factory=threading.Event)
    started: list[str] = field(default_factory=list)


@pytest.fixture
def held_work(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldWork]:
    from spiqa_demo.ui.serving.work.page_renders import PageRender
    from spiqa_demo.ui.serving.work.result_files import Scoring

    held = HeldWork()
    for job, name in ((PageRender, lambda render: render.pdf.name), (Scoring, lambda scoring: scoring._what)):
        def run(self: object, slot: int, real: Callable = job.run, name: Callable = name) -> None:
            if name(self).startswith("held"):
                held.started.append(name(self))
                held.go.wait(300)
            real(self, slot)

        monkeypatch.setattr(job, "run", run)
    yield held
    held.go.set()


def result_file(path: Path, answers: list[str]) -> Path:
    from spiqa_demo.evaluation.records import ResultRecord

    path.write_text("\n".join(ResultRecord("1611.05742", str(i), "Which method is best?", "SPDNet is best on PaSC2.", answer,
                                            figure_category="table").to_json() for i, answer in enumerate(answers)))
    return path


def test_a_visitor_waiting_for_a_page_or_a_result_file_holds_up_no_one(app_url: str, grnet_pdf: Path, held_work: HeldWork,
                                                                       tmp_path: Path) -> None:
    slow = visitor(app_url)
    status, *_ = slow.predict(handle_file(str(padded_copy(grnet_pdf, tmp_path / "held.pdf", 0.1))), api_name="/load_pdf")
    assert "Grassmann" in status, status
    with closing(RawVisitor(app_url, slow.session_hash)) as browser:
        page = browser.join(browser.trigger("gallery", "select"), event_data={"index": 0, "value": None, "selected": True})
        # Another session: this one's messages now come to `browser`, the stream it opened.
        scoring = visitor(app_url).submit(handle_file(str(result_file(tmp_path / "held.jsonl", ["SPDNet."]))), None,
                                          api_name="/load_results")
        wait_for(lambda: len(held_work.started) == 2, "page render and scoring held")

        quick = visitor(app_url)
        quick.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
        with closing(RawVisitor(app_url, quick.session_hash)) as other:
            assert first_figure(other)[0]["value"]["image"]["path"].endswith(".png")  # the same event, not queued
        long = " ".join(["word"] * 1500)  # more tokens than an answer is scored with
        summary, *_ = quick.predict(handle_file(str(result_file(tmp_path / "small.jsonl", ["SPDNet.", long]))), None,
                                    api_name="/load_results")
        assert "2 questions" in summary and "1 answer was not scored" in summary, summary
        chat, _ = quick.predict(*ask_args("Which method is best on HDM05?"), api_name="/ask")
        assert "Table 1" in texts(chat)
        assert browser.completed(page) is None and not scoring.done()

        held_work.go.set()
        assert browser.wait(page)["output"]["data"][0]["value"]["image"]["path"].endswith(".png")
        assert "1 questions" in scoring.result(timeout=120)[0]


def test_a_cited_paper_past_its_cpu_limit_is_stopped(app_url: str, grnet_pdf: Path, monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    side = 60_000  # as the paper load above: decoding it takes several CPU seconds
    reconfigure(monkeypatch, SPIQA_MAX_IMAGE_PIXELS=str(side * side), SPIQA_UI_LOAD_CPU_S="1")
    client = visitor(app_url)
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    _, report, _ = client.predict([handle_file(str(huge_image_pdf(tmp_path / "cited-bomb.pdf", side)))], api_name="/add_cited")
    assert "cited-bomb.pdf: reading it took more than 1 s of processor time" in report, report
