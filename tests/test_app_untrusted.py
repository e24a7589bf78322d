"""What strangers wrote, shown by the running app: PDFs, model replies, hub archives, result files.

Markdown images and links in a PDF's text (a passage, a caption, the page viewer's selectable text,
where an HTML tag lies too) and in a model's reply (its answer, its reading of a follow-up) are shown
as text in headless Chromium, the browser asks the
loopback listener they point at for nothing, and the chat's export holds them as text too. SPIQA's figure archive from a hostile hub (a
loopback server standing in for huggingface.co) unpacks its images only, within its bound, and the
button that fetches it says what happened (gradio_client). Result files nested too deeply or
holding a number too long to read get the one-line message, not a bare "Error".
"""

from __future__ import annotations

import shutil
import struct
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from app_harness import _served_app, allow_endpoint, app_url, reconfigure, visitor
from gradio_client import handle_file
from test_app_browser import browser, fill_setting, page, pytestmark, shot, wait_for_text
from test_app_reader_browser import ask, exported_chat
from test_spiqa_figures_download import FIGURE, PAPER, hub

from evalsuite.openai_listener import openai_listener
from evalsuite.raw_visitor import status_of

__all__ = ["_served_app", "app_url", "browser", "hub", "page", "pytestmark"]  # fixtures and the Chromium skip, used by pytest


@dataclass
class Lure:
    """A loopback web server that records every path a browser asks it for."""

    url: str = ""
    asked: list[str] = field(default_factory=list)

    @property
    def image(self) -> str:
        return f"![x]({self.url}/t.png)"

    @property
    def link(self) -> str:
        return f"[details]({self.url}/link)"


@pytest.fixture(scope="module")
def lure() -> Iterator[Lure]:
    record = Lure()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            record.asked.append(self.path)
            self.send_error(404)

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    record.url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield record
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def lure_pdf(tmp_path_factory: pytest.TempPathFactory, lure: Lure) -> Path:
    """A one-column paper whose calibration passage and figure caption carry Markdown images and links."""
    from evalsuite.pdf_factory import BarChart, Caption, PaperWriter, Prose

    w, prose = PaperWriter(columns=1), Prose(3)
    w.title("Calibrating Sensor Arrays", "A. Author")
    w.heading("Abstract")
    w.paragraph(prose.sentences(4))
    w.heading("1. Calibration")
    w.paragraph(prose.sentences(3) + [f"The calibration protocol is published at {lure.image} and {lure.link} for every "
                                      f"sensor array. Its raw form is <img src={lure.url}/raw.png> as typed."]
                + prose.sentences(3))
    w.figure(BarChart(seed=2), Caption("figure", "1", f"Calibration error per sensor array, as published at {lure.image}.",
                                       "Figure {n}:"), case="bars")
    w.paragraph(prose.sentences(6))
    return w.save(tmp_path_factory.mktemp("lure") / "calibration.pdf").path


# Elements that fetch from `host`, or link to it behind other words; a bare URL stays a link showing its address.
SHOWN_AS_MARKUP = """(host) => [...document.querySelectorAll('img, source, video, audio, iframe, object, embed, a')]
    .filter(e => (e.src || e.href || e.data || '').includes(host)
                 && !(e.tagName === 'A' && e.textContent.trim() === decodeURI(e.getAttribute('href'))))
    .map(e => e.outerHTML)"""


def test_markdown_images_in_a_pdf_and_a_model_reply_fetch_nothing(page, lure_pdf: Path, lure: Lure, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    page.set_input_files("#upload input[type=file]", str(lure_pdf))
    wait_for_text(page, "#chat", "follow-up questions are read in the context of the chat", timeout_ms=4 * 90_000)
    ask(page, "Where is the calibration protocol published?", "Evidence:")  # retrieval only: the answer quotes the paper
    wait_for_text(page, "#chat", lure.image)  # the quoted passage and the caption, as the text they are
    page.locator("#gallery img").first.click()
    wait_for_text(page, "#figure-detail", f"as published at {lure.image}")
    wait_for_text(page, "#page-view .text-layer", "<img src=")  # the page's selectable text: text, not markup

    reply = f"Where is the protocol at {lure.image} published? See {lure.link}."
    with openai_listener(reply=lambda request: reply) as model:  # a prompt-injected model, answer and reading alike
        allow_endpoint(monkeypatch, model.url)
        page.click("#settings")
        page.get_by_label("OpenAI-compatible API").check()
        fill_setting(page, "#model", "m")
        fill_setting(page, "#base-url", model.url)
        ask(page, "and where is it published?", "Read as")
        assert len(model.requests) >= 2  # the follow-up's reading, then the answer
    chat = page.inner_text("#chat")
    assert chat.count(lure.image) >= 4 and lure.link in chat, chat
    shot(page, "untrusted-markdown")
    assert page.evaluate(SHOWN_AS_MARKUP, lure.url.removeprefix("http://")) == []
    assert lure.asked == []

    markdown, _ = exported_chat(page, tmp_path)  # inert too: a Markdown viewer would fetch what the app does not
    assert f"({lure.url}" in markdown and lure.image not in markdown and lure.link not in markdown, markdown
    assert "![Figure 1](figures/" in markdown  # the app's own image of the crop it exports


def test_hostile_result_files_get_a_one_line_message(app_url: str, tmp_path: Path) -> None:
    client = visitor(app_url)
    for name, text, why in [("deep.json", "[" * 200_000 + "]" * 200_000, "JSON nested deeper than this app reads"),
                            ("number.json", '{"1806.07711": {"1": ' + "9" * 100_000 + "}}", "a number too long to read")]:
        (tmp_path / name).write_text(text)
        summary, *_ = client.predict(handle_file(str(tmp_path / name)), None, api_name="/load_results")
        assert "Could not load the results" in summary and why in summary, summary[:300]


PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64
INSIDE = f"SPIQA_testC_Images/{PAPER}"


def _zip(path: Path, members: dict[str, bytes]) -> None:
    """The hub's archive made anew (and the download cache emptied: the hub names one commit throughout)."""
    shutil.rmtree(path.parents[2] / "hf", ignore_errors=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _understated(path: Path, size: int) -> None:
    """Make a one-member zip's headers (local and central) declare `size` bytes unpacked."""
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.index(signature) + offset
        data[at:at + 4] = struct.pack("<I", size)
    path.write_bytes(bytes(data))


@pytest.fixture
def images_folder(app_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Where the app unpacks test-C's images (removed after, with what the app remembers of them);
    the hub's downloads go to this test's own cache."""
    from spiqa_demo.settings import get_settings
    from spiqa_demo.ui.shared import spiqa_images
    from spiqa_demo.ui.tabs.errors import spiqa_figures

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", False)  # conftest sets the tests offline
    folder = get_settings().evaluation.cache_dir / "spiqa" / "test-C" / "images"
    yield folder
    shutil.rmtree(folder.parent, ignore_errors=True)
    spiqa_figures._fetched.clear()
    spiqa_images.forget_index()


def test_spiqa_figures_from_a_hostile_hub(app_url: str, hub: tuple[str, list[str]], images_folder: Path,
                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url, _ = hub
    archive = tmp_path / "hub" / "test-C" / "SPIQA_testC_Images.zip"
    reconfigure(monkeypatch, SPIQA_HF_ENDPOINT=url, SPIQA_IMAGES_MAX_MB="1")
    client = visitor(app_url, download_files=False)

    _zip(archive, {f"{INSIDE}/{FIGURE}": PNG + b"\0" * 3_000_000})  # 3 MB of zeros: a few KB zipped
    said = client.predict(api_name="/get_figures")
    assert "could not be downloaded" in said and "unpacks to more than this app takes" in said, said
    _zip(archive, {f"{INSIDE}/{FIGURE}": PNG + b"\0" * 3_000_000})
    _understated(archive, 1000)  # its headers lie: the bytes are counted as they come out
    said = client.predict(api_name="/get_figures")
    assert "could not be downloaded" in said and "not a valid zip archive" in said, said
    assert not images_folder.exists() and not [p for p in images_folder.parent.rglob("*") if p.is_file()]

    script = b"<html><script>fetch('/steal')</script></html>"
    _zip(archive, {f"{INSIDE}/{FIGURE}": PNG, f"{INSIDE}/anim.gif": b"GIF89a" + b"\0" * 32,
                   f"{INSIDE}/page.html": script, f"{INSIDE}/plot.svg": b"<svg onload=alert(1)></svg>",
                   f"{INSIDE}/fake-Figure3-1.png": script, f"{INSIDE}/notes.txt": b"hello"})
    said = client.predict(api_name="/get_figures")
    assert said.startswith("SPIQA test-C figures ready"), said
    unpacked = sorted(p.name for p in images_folder.rglob("*") if p.is_file() and not p.name.startswith("."))
    assert unpacked == [FIGURE, "anim.gif"]
    served = f"{app_url}gradio_api/file={images_folder / INSIDE}"
    assert status_of(f"{served}/{FIGURE}") == 200
    for name in ("page.html", "plot.svg", "fake-Figure3-1.png"):
        assert status_of(f"{served}/{name}") in (403, 404), name
