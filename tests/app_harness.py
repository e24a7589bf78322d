"""Fixtures shared by the app tests (this module holds no tests).

`app_url`: the real app, launched once in this process on a free loopback port, reading the
session's cache folder, the shared SPIQA test-A file for the check, the shared papers as examples,
and arXiv pointed at a closed local port (no network in tests); visitors may choose models (`any`:
`allow_endpoint` lists a loopback endpoint a test asks); its environment is set only
while a test that uses it runs, so other test modules see their usual settings. `grnet_pdf`: a synthetic PDF of a
SPIQA test-A paper (1611.05742, "GrNet": arXiv stamp, figures and captions as in SPIQA), so the
SPIQA check has a paper to match. Import the fixtures you use:
`from app_harness import _served_app, app_url, grnet_pdf`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gradio_client import Client

from evalsuite.local_servers import free_port

GRNET_ID = "1611.05742v3"
GRNET_TITLE = "Building Deep Networks on Grassmann Manifolds"
GRNET_QUESTIONS = 3

def _app_environment(cache: Path, shared: Path) -> dict[str, str]:
    """What the app reads through `spiqa_demo.settings` (the cache folder is conftest's own)."""
    return {
        "SPIQA_CACHE_DIR": str(cache),
        "SPIQA_DATA_DIR": str(shared),  # example papers, SPIQA files and result files
        "SPIQA_CHECK_DATASETS": str(shared / "spiqa" / "SPIQA_testA.json"),
        "SPIQA_ARXIV_PDF_URL": f"http://127.0.0.1:{free_port()}/pdf/{{id}}",  # nothing listens there
        "SPIQA_MAX_FILE_MB": "8",
        "SPIQA_BACKEND": "none",
        "SPIQA_JUDGE_MODEL": "",
        # Visitors pick the tiny local models the tests ask with; a loopback listener a test asks
        # must be listed too (`any, URL`), as an operator would list a private endpoint.
        "SPIQA_UI_VISITOR_ENDPOINTS": "any",
        "GRADIO_TEMP_DIR": str(cache / "ui" / "gradio"),
    }


@pytest.fixture(scope="session")
def _served_app(tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """The launched app and its environment; the environment is set only while app tests run."""
    environment = _app_environment(tmp_path_factory.getbasetemp() / "cache", shared)
    saved = {k: os.environ.get(k) for k in environment}
    os.environ.update(environment)
    from spiqa_demo.settings import get_settings

    get_settings.cache_clear()
    try:
        from spiqa_demo.ui.app.layout import build_demo, launch_options
        from spiqa_demo.ui.app.warmup import start_warmup

        demo = build_demo(get_settings())
        port = free_port()
        demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=port, quiet=True, **launch_options())
        start_warmup().join()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        get_settings.cache_clear()
    yield f"http://127.0.0.1:{port}/", environment
    demo.close()


def allow_endpoint(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """Visitors may also name `url`, a loopback listener (`any` alone allows public addresses only)."""
    reconfigure(monkeypatch, SPIQA_UI_VISITOR_ENDPOINTS=f"any, {url}")


def reconfigure(monkeypatch: pytest.MonkeyPatch, **environment: str) -> None:
    """The running app's settings read again with these variables set, as an operator restarting it
    with them would have it (the app reads its settings once, when it is built)."""
    from spiqa_demo.settings import get_settings
    from spiqa_demo.ui.serving.app_settings import install

    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    get_settings.cache_clear()
    install(get_settings())


@pytest.fixture
def app_url(_served_app: tuple[str, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> str:
    """The app's URL ("http://127.0.0.1:PORT/"), its settings those it was started with for this test."""
    url, environment = _served_app
    reconfigure(monkeypatch, **environment)
    return url


@pytest.fixture(scope="session")
def grnet_pdf(tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Path:
    """A 3-page synthetic PDF of SPIQA test-A paper 1611.05742 with its Figures 1-2 and Table 1."""
    from evalsuite.pdf_factory import BarChart, Caption, Diagram, LinePlot, PaperWriter, Prose, Table
    from spiqa_demo.evaluation.spiqa import load_dataset

    spiqa = load_dataset(shared / "spiqa" / "SPIQA_testA.json").paper("1611.05742")
    assert spiqa is not None and len(spiqa.questions) == GRNET_QUESTIONS
    captions = {(f.kind, f.number): f.caption for f in spiqa.figures.values()}
    w, prose = PaperWriter(columns=2), Prose(7)
    w.title(GRNET_TITLE, "Zhiwu Huang, Jiqing Wu, Luc Van Gool", arxiv_id=GRNET_ID)
    w.heading("Abstract")
    w.paragraph(prose.sentences(6))
    w.heading("1. Introduction")
    w.paragraph(prose.sentences(4) + ["Figure 1 shows the projection, pooling and output blocks of GrNet."] + prose.sentences(4))
    w.figure(Diagram(stages=("FRMap", "ReOrth", "ProjMap", "ProjPooling", "Output")),
             Caption("figure", "1", captions[("figure", "1")], "Figure {n}:"), case="architecture diagram", span=True)
    w.paragraph(prose.sentences(10))
    w.figure(LinePlot(seed=3, series=("SPDNet", "GrNet")),
             Caption("figure", "2", captions[("figure", "2")], "Figure {n}:"), case="accuracy curves")
    w.paragraph(["Figure 2 compares the pooling variants and the convergence of SPDNet and GrNet."] + prose.sentences(8))
    w.table(Table([["Method", "AFEW", "HDM05", "PaSC1", "PaSC2"], ["SPDNet", "34.23", "61.45", "80.12", "72.83"],
                   ["GrNet-2Blocks", "34.23", "59.08", "80.52", "72.76"], ["DeepO2P", "28.54", "-", "68.76", "60.14"]]),
            Caption("table", "1", captions[("table", "1")].removeprefix("Table 1: "), "Table {n}:"), case="results table")
    w.paragraph(["Table 1 reports the results on AFEW, HDM05 and PaSC."] + prose.sentences(10))
    w.figure(BarChart(seed=5), None, case="an uncaptioned figure")
    return w.save(tmp_path_factory.mktemp("grnet") / f"grnet-{GRNET_ID}.pdf").path


def visitor(url: str, **options: Any) -> Client:
    """A new visitor's session on the app (gradio_client).

    The app is plain HTTP on loopback, so there is no certificate to check: with the default
    `ssl_verify=True` every request and every file download would load the CA bundle anew.
    """
    return Client(url, verbose=False, ssl_verify=False, **options)


def texts(history: list[dict[str, Any]]) -> str:
    """All text of a chat history (content parts as gradio_client returns them)."""
    return "\n".join(part.get("text", "") for message in history for part in message["content"] if part.get("type") == "text")


def files(history: list[dict[str, Any]]) -> list[str]:
    return [part["file"]["path"] if isinstance(part["file"], dict) else part["file"]
            for message in history for part in message["content"] if part.get("type") == "file"]
