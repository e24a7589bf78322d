"""SPIQA's test-C figures fetched from "the hub": a loopback server standing in for huggingface.co.

`../shared` holds none of SPIQA's images, and tests have no network, so the test builds a tiny
dataset folder (one figure in an images zip, one paper's captions) and serves it the way the hub
serves files (`/datasets/<repo>/resolve/main/<path>`, with the commit and ETag headers
huggingface_hub reads). The app's download (`spiqa_figures.fetch_test_c`) then finds the image and
the caption a detail view shows, a second call downloads nothing, and offline it says which file
to put where.
"""

from __future__ import annotations

import hashlib
import json
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image

from spiqa_demo.settings import get_settings

PAPER, FIGURE, CAPTION = "1806.07711", "4-Figure2-1.png", "Figure 2: Accuracy against the number of layers."


def _dataset_folder(root: Path) -> Path:
    """test-C's two files as the dataset lays them out: the images zip and the QA JSON with captions."""
    (root / "test-C").mkdir(parents=True)
    image = root / FIGURE
    Image.new("RGB", (40, 30), (200, 30, 30)).save(image)
    with zipfile.ZipFile(root / "test-C" / "SPIQA_testC_Images.zip", "w") as zipped:
        zipped.write(image, f"SPIQA_testC_Images/{PAPER}/{FIGURE}")
    entry = {"arxiv_id": PAPER, "title": "A paper", "question": ["How many layers?"], "answer": [{"free_form_answer": "12"}],
             "figures_and_tables": [{"file": FIGURE, "caption": CAPTION}], "referred_figures_tables": [[FIGURE]],
             "question_key": ["1206"], "full_text": []}
    (root / "test-C" / "SPIQA_testC.json").write_text(json.dumps({PAPER: entry}))
    return root


@pytest.fixture()
def hub(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """(the loopback hub's address, the paths it was asked for with GET)."""
    folder = _dataset_folder(tmp_path / "hub")
    fetched: list[str] = []

    class Hub(BaseHTTPRequestHandler):
        def _file(self) -> Path | None:
            prefix = "/datasets/google/spiqa/resolve/main/"
            path = folder / self.path.split("?")[0].removeprefix(prefix)
            return path if self.path.startswith(prefix) and path.is_file() else None

        def _headers(self, path: Path) -> None:
            body = path.read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", f'"{hashlib.sha256(body).hexdigest()}"')
            self.send_header("X-Repo-Commit", "0" * 40)
            self.end_headers()

        def do_HEAD(self) -> None:
            path = self._file()
            if path is None:
                self.send_error(404)
                return
            self._headers(path)

        def do_GET(self) -> None:
            path = self._file()
            if path is None:
                self.send_error(404)
                return
            fetched.append(self.path)
            self._headers(path)
            self.wfile.write(path.read_bytes())

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", fetched
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def app_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The app's settings pointed at a fresh cache and data folder (the installed ones restored after)."""
    from spiqa_demo.ui.serving import app_settings
    from spiqa_demo.ui.shared import spiqa_images
    from spiqa_demo.ui.tabs.errors import spiqa_figures

    monkeypatch.setenv("SPIQA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SPIQA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SPIQA_CHECK_DATASETS", "")
    monkeypatch.setenv("SPIQA_IMAGES_DIR", "")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path / "hf"))
    get_settings.cache_clear()
    saved = list(app_settings._installed)
    app_settings.install(get_settings())
    spiqa_images.forget_index()
    try:
        yield
    finally:
        app_settings._installed[:] = saved
        spiqa_figures._fetched.clear()
        spiqa_images.forget_index()
        get_settings.cache_clear()


def test_test_c_figures_download_once_then_show(hub: tuple[str, list[str]], app_on: None,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from spiqa_demo.ui.tabs.errors.spiqa_figures import fetch_test_c, figure_view, missing_help

    url, fetched = hub
    image, text = figure_view(PAPER, FIGURE, "Ground truth")
    assert image is None and "No image or caption" in text
    where = missing_help()  # what the tab says goes where
    assert "SPIQA_testC_Images.zip" in where and str(Path(get_settings().evaluation.cache_dir) / "spiqa" / "test-C" / "images") in where

    monkeypatch.setenv("SPIQA_HF_ENDPOINT", url)
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", False)  # conftest sets the tests offline
    get_settings.cache_clear()
    from spiqa_demo.ui.serving import app_settings

    app_settings.install(get_settings())
    status = fetch_test_c()
    assert status.startswith("SPIQA test-C figures ready") and "captions of 1 papers" in status, status
    assert sorted(fetched) == ["/datasets/google/spiqa/resolve/main/test-C/SPIQA_testC.json",
                               "/datasets/google/spiqa/resolve/main/test-C/SPIQA_testC_Images.zip"]
    image, text = figure_view(PAPER, FIGURE, "Ground truth")
    assert image is not None and Path(image).name == FIGURE and Image.open(image).size == (40, 30)
    assert CAPTION in text
    assert fetch_test_c().startswith("SPIQA test-C figures ready") and len(fetched) == 2  # cached: nothing fetched again


def test_offline_download_says_which_file_goes_where(app_on: None) -> None:
    from spiqa_demo.ui.tabs.errors.spiqa_figures import fetch_test_c

    status = fetch_test_c()  # HF_HUB_OFFLINE=1 in the tests, nothing cached
    assert "could not be downloaded" in status and "SPIQA_testC_Images.zip" in status and "SPIQA_testC.json" in status


def test_an_archive_unpacks_images_by_content_within_its_bounds(tmp_path: Path) -> None:
    """The unpacking itself (the app's test serves such archives from a hostile hub): images by name
    and content only, a path out of the folder or an image over the per-image bound refuses the whole."""
    from spiqa_demo.errors import PaperError
    from spiqa_demo.evaluation.spiqa.archive import is_image, unpack_images

    assert is_image("a.webp", b"RIFF\0\0\0\0WEBPVP8 ") and not is_image("a.webp", b"RIFF\0\0\0\0AVI LIST")
    assert is_image("a.JPG", b"\xff\xd8\xff\xe0") and not is_image("a.png", b"\xff\xd8\xff\xe0") and not is_image("a.svg", b"<svg")
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 100
    for name, members, why in [("out.zip", {"../escaped.png": png}, "unsafe path"),
                               ("big.zip", {"a/big.png": png + b"\0" * 2_000}, "more than this app takes")]:
        with zipfile.ZipFile(tmp_path / name, "w", zipfile.ZIP_DEFLATED) as zipped:
            zipped.writestr("a/fine.png", png)
            for member, data in members.items():
                zipped.writestr(member, data)
        with pytest.raises(PaperError, match=why):
            unpack_images(tmp_path / name, tmp_path / name.replace(".zip", ""), 10_000, 1_000)
        assert not (tmp_path / name.replace(".zip", "")).exists() and not (tmp_path / "escaped.png").exists()
    with zipfile.ZipFile(tmp_path / "mixed.zip", "w") as zipped:
        zipped.writestr("a/fine.png", png)
        zipped.writestr("a/page.html", b"<script></script>")
    assert unpack_images(tmp_path / "mixed.zip", tmp_path / "mixed", 10_000, 1_000) == 1
    assert [p.name for p in (tmp_path / "mixed").rglob("*") if p.is_file()] == ["fine.png"]
