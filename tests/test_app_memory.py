"""Memory per visitor: what a session keeps is bounded, however large the inputs a client sends.

Against the running app (`app_harness`): a 10 MB question is answered with a note that it was cut,
and the chat keeps only its first `SPIQA_MAX_QUESTION_CHARS`; a chat keeps its last
`SPIQA_UI_CHAT_MAX_TURNS` questions and says older ones were dropped; a result file over the size or
answer bounds gets a message saying which; a request body over the app's limit is refused unread.
Without a server: the other boxes' texts are cut at their limits, and a session left idle for
`SPIQA_UI_SESSION_TTL_S` is forgotten with its states (an answer still waiting is stopped).
"""

from __future__ import annotations

import gc
import http.client
import weakref
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from app_harness import _served_app, app_url, grnet_pdf, reconfigure, texts, visitor
from gradio_client import handle_file
from test_app_client import ask_args

OFFICIAL = "test-C_GPT4_QA__gpt4o_cot_image+caption_size_full.json"  # 493 answers, 0.39 MB
TEN_MB = 10_000_000
LIMIT = 2000  # SPIQA_MAX_QUESTION_CHARS, as the harness runs the app


def _questions(chat: list[dict]) -> list[str]:
    return [part["text"] for message in chat if message["role"] == "user" for part in message["content"]
            if part.get("type") == "text"]


def test_a_huge_question_is_cut_before_the_chat_keeps_it(app_url: str, grnet_pdf: Path) -> None:
    client = visitor(app_url)
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    sentence = "Which method performs best on PaSC2? "
    huge = (sentence * (TEN_MB // len(sentence) + 1))[:TEN_MB]
    chat, box = client.predict(*ask_args(huge), api_name="/ask")
    assert box == "" and "Table 1" in texts(chat)  # answered, from the words kept
    cross_chat, *_ = client.predict(huge, "cot", "none", "", "", 8, 0, True, "", api_name="/ask_cited")
    for kept in (chat, cross_chat):
        [asked] = _questions(kept)
        question, note = asked.split("\n\n", 1)
        assert len(question) <= LIMIT and question.startswith(sentence.strip()), len(question)
        assert note == f"> ⚠️ The question was cut to its first {LIMIT} characters.", note


def test_a_chat_keeps_its_last_turns_and_says_older_ones_were_dropped(app_url: str, grnet_pdf: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    reconfigure(monkeypatch, SPIQA_UI_CHAT_MAX_TURNS="2")
    client = visitor(app_url)
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    asked = ["Which method is best on HDM05?", "What does Figure 1 show?", "Which method performs best on PaSC2?"]
    chat, _ = client.predict(*ask_args(asked[0]), api_name="/ask")
    chat, _ = client.predict(*ask_args(asked[1]), api_name="/ask")
    assert _questions(chat) == asked[:2] and "Loaded" in texts(chat) and "dropped" not in texts(chat)
    chat, _ = client.predict(*ask_args(asked[2]), api_name="/ask")
    assert _questions(chat) == asked[1:]
    assert "Older questions and answers were dropped" in texts(chat).split(asked[1])[0]
    assert "Table 1" in texts(chat).split(asked[2])[-1]


def test_a_result_file_over_the_bounds_is_refused_with_a_message(app_url: str, shared: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    client = visitor(app_url)
    official = shared / "spiqa" / "test-C-responses" / OFFICIAL
    reconfigure(monkeypatch, SPIQA_UI_MAX_RESULTS_MB="0.2")
    summary, *_ = client.predict(handle_file(str(official)), None, api_name="/load_results")
    assert "Could not load the results" in summary and "0.4 MB, over the 0.2 MB this app reads" in summary, summary
    assert "SPIQA_UI_MAX_RESULTS_MB" in summary and "python -m spiqa_demo score" in summary
    reconfigure(monkeypatch, SPIQA_UI_MAX_RESULTS_MB="10", SPIQA_UI_MAX_RESULTS_ROWS="100")
    summary, *_ = client.predict(OFFICIAL, api_name="/load_server_results")
    assert "holds 493 answers, more than the 100 read here" in summary, summary
    _, count = client.predict("(all)", "(all)", "(all)", "(all)", "(all)", "(all)", 0, 1, "", api_name="/filter_results")
    assert count == "Load a result file first."  # nothing of the refused files was kept


def test_a_request_over_the_size_limit_is_refused_unread(app_url: str) -> None:
    """Only the headers are sent: the refusal comes before the body would be read."""
    from spiqa_demo.ui.serving.app_settings import app_settings
    from spiqa_demo.ui.serving.guards.request_size import max_request_bytes

    address = urlsplit(app_url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=60)
    try:
        connection.putrequest("POST", "/gradio_api/queue/join")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", str(max_request_bytes(app_settings()) + 1))
        connection.endheaders()
        reply = connection.getresponse()
        assert reply.status == 413 and b"larger than the 16 MB this app reads" in reply.read()
    finally:
        connection.close()


@pytest.fixture
def _app_settings() -> None:
    """The handlers read the settings the app was built with: here, the test's environment."""
    from spiqa_demo.settings import get_settings
    from spiqa_demo.ui.serving.app_settings import install

    install(get_settings())


@pytest.mark.usefixtures("_app_settings")
def test_the_other_boxes_are_cut_at_their_limits() -> None:
    from spiqa_demo.ui.serving.guards.input_limits import LIMITS, capped
    from spiqa_demo.ui.shared.model_settings import ModelChoice

    choice = ModelChoice.from_inputs("cot", "openai", "m" * TEN_MB, "http://127.0.0.1/" + "v" * TEN_MB, 8, 0, True)
    assert len(choice.model) == LIMITS["model"] and len(choice.base_url) == LIMITS["base_url"]
    assert capped("k" * TEN_MB, "api_key") == "k" * LIMITS["api_key"] and capped(None, "arxiv") == ""


def test_a_chats_history_is_bounded_in_place() -> None:
    from spiqa_demo.ui.state.chat_history import CUT, MAX_MESSAGE_CHARS, bounded, keep_recent

    history = [{"role": "assistant", "content": "Loaded"}]
    for n in range(5):
        history += [{"role": "user", "content": f"q{n}"}, {"role": "assistant", "content": f"a{n}"}]
    shared_list = history
    keep_recent(history, 2)
    assert history is shared_list and [m["content"] for m in history[1:]] == ["q3", "a3", "q4", "a4"]
    assert "keeps the last 2 questions" in history[0]["content"]
    keep_recent(history, 2)
    assert len(history) == 5  # the note is not a turn: nothing more is dropped
    assert bounded("x" * (MAX_MESSAGE_CHARS + 1)) == "x" * MAX_MESSAGE_CHARS + CUT


@pytest.mark.usefixtures("_app_settings")
def test_an_idle_session_is_forgotten_with_its_states() -> None:
    """The lifespan `launch_options` give the app forgets sessions idle for SPIQA_UI_SESSION_TTL_S, with their
    states' delete callbacks (an answer still waiting stops); Gradio's own holder of sessions is used."""
    import gradio as gr
    from gradio.state_holder import StateHolder

    from spiqa_demo.ui.app.layout import launch_options
    from spiqa_demo.ui.serving.guards.session_expiry import forget_idle, forgetting_idle_sessions, visitor_state
    from spiqa_demo.ui.state.session import Session

    assert launch_options()["app_kwargs"]["lifespan"] is forgetting_idle_sessions
    with gr.Blocks() as demo:
        state = visitor_state(Session())
    holder = StateHolder()
    holder.set_blocks(demo)
    sessions = {name: Session() for name in ("idle", "active")}
    turns = {name: session.start_turn({"role": "assistant", "content": "…"}) for name, session in sessions.items()}
    for name, session in sessions.items():
        holder[name][state._id] = session
    now = datetime.now()
    holder.time_last_used["idle"] = now - timedelta(seconds=7201)
    holder.time_last_used["active"] = now - timedelta(seconds=7199)
    assert forget_idle(holder, 7200, now) == 1
    assert "idle" not in holder and "active" in holder and holder["active"][state._id] is sessions["active"]
    assert turns["idle"].stopped and not turns["active"].stopped
    forgotten = weakref.ref(sessions.pop("idle"))
    del turns
    gc.collect()
    assert forgotten() is None  # nothing else keeps a forgotten session (or the paper and index it holds)


_ALLOCATOR_PROBE = r"""
import ctypes, json, os, sys, tempfile, threading
from spiqa_demo.settings import UISettings
from spiqa_demo.ui.app.allocator import tune_allocator

libc = ctypes.CDLL(None)
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
libc.fdopen.restype, libc.fdopen.argtypes = ctypes.c_void_p, [ctypes.c_int, ctypes.c_char_p]
libc.malloc_info.argtypes, libc.fclose.argtypes = [ctypes.c_int, ctypes.c_void_p], [ctypes.c_void_p]
tuned = tune_allocator(UISettings(ui_malloc_arenas=int(sys.argv[1]), ui_mmap_threshold_kb=int(sys.argv[2])))


def report():
    with tempfile.TemporaryFile("w+") as out:
        stream = libc.fdopen(os.dup(out.fileno()), b"w")
        libc.malloc_info(0, stream)
        libc.fclose(stream)
        out.seek(0)
        return out.read()


def mapped_blocks():
    return int(report().rsplit('<total type="mmap" count="', 1)[1].split('"')[0])


def mapped_apart(size):
    # Whether a block of `size` bytes is mapped on its own: one more block counted as "mmap".
    before = mapped_blocks()
    block = libc.malloc(size)
    apart = mapped_blocks() > before
    libc.free(block)
    return apart


big = libc.malloc(20_000_000)
libc.free(big)  # glibc's default then maps only blocks over 20 MB apart
apart = mapped_apart(256 * 1024)
ready = threading.Barrier(9)

def allocate():
    kept = [bytes(4096) for _ in range(64)]  # each thread's first blocks come from the arena it is given
    ready.wait()
    ready.wait()

threads = [threading.Thread(target=allocate) for _ in range(8)]
for thread in threads:
    thread.start()
ready.wait()  # all eight alive at once, each having allocated
xml = report()
ready.wait()
for thread in threads:
    thread.join()
print(json.dumps({"tuned": tuned, "arenas": xml.count("<heap nr="), "apart": apart}))
"""


def _allocator(arenas: int, threshold_kb: int) -> dict[str, object]:
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _ALLOCATOR_PROBE, str(arenas), str(threshold_kb)], capture_output=True,
                          text=True, check=True, cwd=Path(__file__).resolve().parents[1], timeout=60)
    return json.loads(done.stdout)


@pytest.mark.skipif(__import__("platform").libc_ver()[0] != "glibc", reason="the allocator is tuned on glibc only")
def test_the_server_allocator_keeps_few_arenas_and_maps_large_blocks_apart() -> None:
    """What the app sets at start (`allocator.tune_allocator`): eight threads allocating at once share the
    arenas allowed, and a block over the mapping size is mapped apart even after a far larger one was
    freed (glibc's default raises the size then, and such blocks would stay inside the arenas)."""
    from spiqa_demo.settings import UISettings

    defaults = UISettings()
    tuned = _allocator(defaults.ui_malloc_arenas, defaults.ui_mmap_threshold_kb)
    assert tuned == {"tuned": True, "arenas": defaults.ui_malloc_arenas, "apart": True}
    untouched = _allocator(0, 0)  # glibc's defaults: the probe tells them apart
    assert untouched["arenas"] > defaults.ui_malloc_arenas and untouched["apart"] is False, untouched
