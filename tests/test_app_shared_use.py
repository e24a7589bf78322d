"""The app shared by several visitors, driven through `gradio_client` against the running app.

An operator's key never reaches an address a visitor names; endpoints visitors may choose are the
operator's setting; with a Space's defaults the operator's endpoint is asked for the operator's
models only, and with no model configured nothing is sent; a cancelled load or answer leaves the session usable, and a
cancelled answer closes its model request; a retrieval-only
question is not queued behind another visitor's slow model; a question sent right after an
upload is answered once the paper is indexed; the extraction cache is not served. Loads and model
replies that a test must act during are held until the test says go, so no outcome depends on
which of two things finishes first.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from app_harness import _served_app, allow_endpoint, app_url, files, grnet_pdf, reconfigure, texts, visitor
from gradio_client import Client, handle_file
from test_app_client import ask_args

from evalsuite.openai_listener import Listener, openai_listener
from evalsuite.raw_visitor import status_of

CANARY = "sk-operator-canary-5d1f0c9e"
ORG_CANARY, PROJECT_CANARY = "org-operator-canary", "proj-operator-canary"  # the operator's identity, for its endpoint only
PASC2 = ("Which method performs best on the PaSC dataset for the handheld testing scenario (PaSC2), and how does "
         "its performance compare to other methods?")


@pytest.fixture
def held_loads(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The app's paper loads wait before extracting until the returned event is set (at the latest
    when the test ends), so a test acts while a load is provably still running."""
    from spiqa_demo.ui.serving.work import loading

    go = threading.Event()
    open_paper = loading.open_paper

    def held(*args: Any, **kwargs: Any) -> Any:
        go.wait()
        return open_paper(*args, **kwargs)

    monkeypatch.setattr(loading, "open_paper", held)
    yield go
    go.set()


def wait_for(condition: Callable[[], object], what: str) -> None:
    """Poll until `condition()` holds; fail after a minute (it never came)."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within 60 s"
        time.sleep(0.05)


def test_the_operator_key_never_reaches_a_visitor_endpoint(app_url: str, grnet_pdf: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    client = visitor(app_url)
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    client.predict(api_name="/load_pdf_spiqa_match")  # the judge scores benchmark questions
    with openai_listener() as operator, openai_listener() as visitor_api:
        reconfigure(monkeypatch, SPIQA_API_KEY=CANARY, SPIQA_BACKEND="openai", SPIQA_BASE_URL=operator.url,
                    SPIQA_MODEL="m", SPIQA_UI_VISITOR_ENDPOINTS="none", OPENAI_ORG_ID=ORG_CANARY,
                    OPENAI_PROJECT_ID=PROJECT_CANARY)
        # Shared (the default on a Space): another endpoint gets a message and no request at all.
        chat, _ = client.predict(*ask_args(PASC2, backend="openai", model="m", base_url=visitor_api.url), api_name="/ask")
        assert "No request was sent to " + visitor_api.url in texts(chat) and files(chat), texts(chat)
        result, _ = client.predict("m", visitor_api.url, visitor_api.url, "", api_name="/spiqa_score")
        assert "No request was sent to " + visitor_api.url in result, result
        chat, _ = client.predict(*ask_args(PASC2, backend="local", model="some/other-model"), api_name="/ask")
        assert "This app has no local model, so none was loaded" in texts(chat)
        assert visitor_api.requests == []
        # The operator's own endpoint gets the operator's key.
        chat, _ = client.predict(*ask_args(PASC2, backend="openai", model="m", base_url=operator.url), api_name="/ask")
        assert "SPDNet" in texts(chat) and operator.saw(f"Bearer {CANARY}")
        assert operator.saw(f"openai-organization: {ORG_CANARY}") and operator.saw(f"openai-project: {PROJECT_CANARY}")

        # Visitors allowed to choose, but public addresses only: a loopback endpoint is not asked.
        reconfigure(monkeypatch, SPIQA_UI_VISITOR_ENDPOINTS="any")
        chat, _ = client.predict(*ask_args(PASC2, backend="openai", model="m", base_url=visitor_api.url), api_name="/ask")
        assert "visitors may name only addresses on the public internet" in texts(chat), texts(chat)
        assert visitor_api.requests == []
        # Listed by the operator: the request goes out, without the operator's key.
        allow_endpoint(monkeypatch, visitor_api.url)
        chat, _ = client.predict(*ask_args(PASC2, backend="openai", model="m", base_url=visitor_api.url), api_name="/ask")
        assert "SPDNet" in texts(chat), texts(chat)
        client.predict("m", visitor_api.url, visitor_api.url, "", api_name="/spiqa_score")
        chat, _ = client.predict(*ask_args(PASC2, backend="openai", model="m", base_url=visitor_api.url,
                                           api_key="sk-visitor-own"), api_name="/ask")
        assert len(visitor_api.requests) >= 3 and visitor_api.saw("Bearer sk-visitor-own")
        # An allow-list: the listed endpoint only.
        reconfigure(monkeypatch, SPIQA_UI_VISITOR_ENDPOINTS=f"{visitor_api.url}/")
        chat, _ = client.predict(*ask_args(PASC2, backend="openai", model="m", base_url=visitor_api.url), api_name="/ask")
        assert "SPDNet" in texts(chat)
        assert not any(visitor_api.saw(secret) for secret in (CANARY, ORG_CANARY, PROJECT_CANARY))


def models_asked(listener: Listener) -> set[str]:
    """The model names in the requests a listener received."""
    return {name for request in listener.requests for name in re.findall(r'"model":\s*"([^"]*)"', request)}


def test_with_space_defaults_a_visitor_spends_nothing_but_the_operators_models(
        app_url: str, grnet_pdf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Space's defaults (SPACE_ID set, SPIQA_UI_VISITOR_ENDPOINTS unset) and a canary key: the
    operator's endpoint sees the operator's model and judge names only; with no model configured,
    a visitor's OpenAI request (empty base URL) is not sent at all."""
    client = visitor(app_url)
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    client.predict(api_name="/load_pdf_spiqa_match")  # the judge scores benchmark questions
    monkeypatch.delenv("SPIQA_UI_VISITOR_ENDPOINTS")
    with openai_listener() as operator:
        reconfigure(monkeypatch, SPACE_ID="user/space", SPIQA_API_KEY=CANARY, SPIQA_BACKEND="openai",
                    SPIQA_BASE_URL=operator.url, SPIQA_MODEL="cheap-model", SPIQA_JUDGE_MODEL="cheap-model",
                    SPIQA_JUDGE_BASE_URL=operator.url)
        chat, _ = client.predict(*ask_args(PASC2, backend="openai", model="expensive-model", base_url=operator.url),
                                 api_name="/ask")
        assert "asks only for its own model (cheap-model), not expensive-model" in texts(chat) and files(chat)
        result, _ = client.predict("expensive-model", operator.url, operator.url, "", api_name="/spiqa_score")
        assert "asks only for its own judge (cheap-model), not expensive-model" in result, result
        table, summary = client.predict("expensive-model", operator.url, "cot", "openai", "expensive-model", operator.url,
                                        8, 0, True, "", api_name="/spiqa_run_all")
        assert "not expensive-model" in summary and len(table["data"]) == 3, summary
        assert operator.requests == []
        # The operator's own choice is asked as configured, with the operator's key.
        chat, _ = client.predict(*ask_args(PASC2, backend="openai", base_url=operator.url), api_name="/ask")
        result, _ = client.predict("cheap-model", operator.url, operator.url, "", api_name="/spiqa_score")
        assert "SPDNet" in texts(chat) and "L3Score judge: `cheap-model`" in result, result
        assert models_asked(operator) == {"cheap-model"} and all(CANARY in r for r in operator.requests)

    with openai_listener() as openai_api:  # stands in for api.openai.com, where an empty base URL goes
        for module in ("spiqa_demo.models.endpoints", "spiqa_demo.models.openai_api"):
            monkeypatch.setattr(f"{module}.OPENAI_URL", openai_api.url)
        reconfigure(monkeypatch, SPIQA_BACKEND="", SPIQA_BASE_URL="", SPIQA_MODEL="", SPIQA_JUDGE_MODEL="",
                    SPIQA_JUDGE_BASE_URL="")
        chat, _ = client.predict(*ask_args(PASC2, backend="openai", model="o1-pro"), api_name="/ask")
        assert "No request was sent to the OpenAI API: this app has no model configured" in texts(chat), texts(chat)
        assert files(chat)  # the retrieval-only answer is still shown
        for judge_url in ("", openai_api.url):
            result, _ = client.predict("o1-pro", judge_url, "", "", api_name="/spiqa_score")
            assert "this app has no judge configured" in result or "has no local judge" in result, result
        assert openai_api.requests == []


def test_a_cancelled_load_leaves_a_usable_session(app_url: str, shared: Path, tmp_path: Path,
                                                   held_loads: threading.Event) -> None:
    pdf = tmp_path / "non-local.pdf"  # a copy with other bytes: not in the extraction cache yet
    pdf.write_bytes((shared / "papers" / "non-local-nn-cvpr2018-1711.07971.pdf").read_bytes() + b"\n%cancelled load\n")
    # A load's request stops only at its next step (the paper extracted), so the cancel's reply may
    # take longer than the client's usual 5 s.
    client = visitor(app_url, httpx_kwargs={"timeout": 120})
    job = client.submit(handle_file(str(pdf)), api_name="/load_pdf")
    wait_for(lambda: job.status().progress_data, "progress of the load")  # the session holds the (held) load
    with ThreadPoolExecutor(1) as pool:
        cancelled = pool.submit(job.cancel)  # the visitor cancels while the load is held
        held_loads.set()
        assert cancelled.result(timeout=120)
    chat, _ = client.predict(*ask_args("Which table compares the non-local block with the baseline on Kinetics?"),
                             api_name="/ask")
    assert "Loaded **" in texts(chat) and "Table" in texts(chat), texts(chat)  # it finished loading


def test_retrieval_only_questions_do_not_wait_behind_a_slow_model(app_url: str, grnet_pdf: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    slow_visitor, quick_visitor = visitor(app_url), visitor(app_url)
    slow_visitor.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    quick_visitor.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    with openai_listener(answer_first=0) as slow:  # the slow model streams until the test says go
        allow_endpoint(monkeypatch, slow.url)
        streaming = slow_visitor.submit(*ask_args(PASC2, backend="openai", model="m", base_url=slow.url), api_name="/ask")
        assert slow.held.wait(60)
        quick = quick_visitor.submit(*ask_args("Which method is best on HDM05?"), api_name="/ask")
        chat, _ = quick.result(timeout=120)  # queued behind the slow model, it would never come
        assert "Table 1" in texts(chat) and not slow.finished.is_set()
        slow.go.set()
        streaming.result(timeout=60)


def test_stop_keeps_the_partial_answer_marked_stopped(app_url: str, grnet_pdf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    client = visitor(app_url)
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    with openai_listener(answer_first=0) as slow:  # the reply never ends before the test says go
        allow_endpoint(monkeypatch, slow.url)
        job = client.submit(*ask_args(PASC2, backend="openai", model="m", base_url=slow.url), api_name="/ask")
        wait_for(lambda: "Rationale" in json.dumps(job.outputs()[-1:]), "rationale in the streamed reply")
        chat = client.predict(api_name="/stop")
        assert "(stopped)" in texts(chat) and "Rationale" in texts(chat), texts(chat)
        assert "Waiting for the model" not in texts(chat)
        job.result(timeout=60)
    chat, _ = client.predict(*ask_args("Which method is best on HDM05?"), api_name="/ask")
    assert texts(chat).count("(stopped)") == 1 and "Stopped before the answer was complete" in json.dumps(chat)
    assert "Table 1" in texts(chat).split("HDM05?")[-1]


def test_a_followup_after_stop_reads_against_the_stopped_question(app_url: str, grnet_pdf: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's chat: a question whose answer is stopped was still asked, so "And on HDM05?" is read
    against it; what the model had written is no evidence, and the export keeps both turns, the first
    marked stopped. The model's reply is held until Stop."""
    client = visitor(app_url)
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    with openai_listener(answer_first=0) as slow:  # the reply never ends before the test says go
        allow_endpoint(monkeypatch, slow.url)
        job = client.submit(*ask_args(PASC2, backend="openai", model="m", base_url=slow.url, task="reader"), api_name="/ask")
        assert slow.held.wait(60)
        client.predict(api_name="/stop")
        job.result(timeout=60)
    chat, _ = client.predict(*ask_args("And on HDM05?", task="reader"), api_name="/ask")
    turn = texts(chat).split("And on HDM05?")[-1]
    assert "Read as" in turn and "performs best on HDM05" in turn and "no earlier question" not in turn, turn
    exported = client.predict(api_name="/export_chat")  # an update of the download's box: the zip is its value
    with zipfile.ZipFile(exported["value"]) as archive:
        markdown = archive.read("chat.md").decode("utf-8")
    assert f"## 1. {PASC2} (stopped)" in markdown and "## 2. And on HDM05?" in markdown, markdown
    assert "*Read as:* Which method performs best on HDM05" in markdown and "&#" not in markdown, markdown


@pytest.mark.parametrize("task", ["reader", "cot"])
def test_a_cancelled_answer_closes_the_model_request(app_url: str, grnet_pdf: Path, monkeypatch: pytest.MonkeyPatch,
                                                     task: str) -> None:
    """The reader's chat and a SPIQA task: the model's stream is held after its second piece, so the
    listener sees the hang-up only if cancelling the event closed the request, and counts what it sent after."""
    client = visitor(app_url)
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    with openai_listener(paced=True, chunks=40) as model:
        allow_endpoint(monkeypatch, model.url)
        job = client.submit(*ask_args(PASC2, backend="openai", model="m", base_url=model.url, task=task), api_name="/ask")
        model.release(1)
        wait_for(lambda: "the answer is" in json.dumps(job.outputs()[-1:]).lower(), "the streamed reply in the chat")
        model.mark_stop()
        job.cancel()
        assert model.disconnected.wait(30), "the model request stayed open after the answer was cancelled"
        assert model.sent_after_stop == 0


def test_a_question_sent_right_after_an_upload_is_answered(app_url: str, shared: Path, tmp_path: Path,
                                                           held_loads: threading.Event) -> None:
    pdf = tmp_path / "cbam.pdf"
    pdf.write_bytes((shared / "papers" / "cbam-eccv2018.pdf").read_bytes() + b"\n%asked at once\n")
    client = visitor(app_url)
    loading = client.submit(handle_file(str(pdf)), api_name="/load_pdf")
    wait_for(loading.outputs, "start of the load")  # uploaded, and the load has begun (held)
    asking = client.submit(*ask_args("Which table compares channel attention with spatial attention?"), api_name="/ask")
    wait_for(lambda: any("Waiting for the paper to be read and indexed" in texts(history)
                         for history, _ in asking.outputs()), "wait for the paper in the chat")
    held_loads.set()
    chat, _ = asking.result(timeout=120)
    assert "Loaded **" in texts(chat) and files(chat), texts(chat)
    assert "still being read" not in texts(chat) and "Load a paper first" not in texts(chat)
    status, *_ = loading.result(timeout=120)
    assert "CBAM" in status or "Attention" in status, status




def test_the_extraction_cache_is_not_served(app_url: str, grnet_pdf: Path) -> None:
    from spiqa_demo.extraction import load_paper
    from spiqa_demo.extraction.cache import paper_cache_dir
    from spiqa_demo.settings import get_settings

    client = visitor(app_url, download_files=False)
    _, gallery, *_ = client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    assert status_of(gallery[0]["image"]["url"]) == 200
    settings = get_settings()
    entry = paper_cache_dir(load_paper(grnet_pdf, settings.extraction), settings.extraction)  # the app's entry, read back
    for path in (entry / "paper.json", next(entry.glob("crops/*.png"))):
        assert status_of(f"{app_url}gradio_api/file={path}") in (403, 404), path
    served = [str(p) for p in (settings.ui.cache_dir / "ui").rglob("*.png")]
    assert served and not any(entry.name[:16] in p for p in served)  # no served name is the PDF's hash
