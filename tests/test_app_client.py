"""The app driven through its API with `gradio_client`, as a program would use it.

The real app runs in-process on 127.0.0.1 (see `app_harness`): load a paper -> ask (retrieval
only, then a tiny local VLM) -> SPIQA check with a tiny local judge (L3Score with exact values,
ROUGE-L, BLEU) -> run all questions; bad inputs get messages and leave the app working; sessions
are separate; no server file outside the app's own uploads and crops can be fetched.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from app_harness import (
    GRNET_ID,
    GRNET_QUESTIONS,
    _served_app,
    allow_endpoint,
    app_url,
    files,
    grnet_pdf,
    reconfigure,
    texts,
    visitor,
)
from gradio_client import Client, handle_file
from tiny_models import tiny_cot_vlm, tiny_llama

from evalsuite.local_servers import free_port
from evalsuite.raw_visitor import status_of

RETRIEVAL_ONLY = "retrieval-only mode"


def ask_args(question: str, backend: str = "none", model: str = "", base_url: str = "", api_key: str = "",
             task: str = "cot", k: int = 8) -> tuple:
    """The /ask endpoint's inputs: question, task, backend, model, base URL, k, image size, captions, API key."""
    return (question, task, backend, model, base_url, k, 0, True, api_key)


@pytest.fixture
def client(app_url: str) -> Client:
    return visitor(app_url)


def test_load_ask_and_spiqa_check(client: Client, grnet_pdf: Path, tiny_cot_vlm: Path, tiny_llama: Path) -> None:
    status, gallery, _, detail, chat, *_ = client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    assert "2 pages, 3 figures, 1 table" in status and GRNET_ID in status, status
    captions = [item["caption"] for item in gallery]
    assert any(c.startswith("Figure 1 · p. ") for c in captions) and any(c.startswith("Table 1") for c in captions), captions
    assert "Loaded" in texts(chat) and "Select a figure" in detail

    header, *_ = client.predict(api_name="/load_pdf_spiqa_match")
    assert "SPIQA test-A" in header and "1611.05742" in header and f"{GRNET_QUESTIONS} benchmark questions" in header

    # No model: the best figure is shown, and the retrieval-only notice is said once per session.
    chat, box = client.predict(*ask_args("What is the function of the ReOrth layer in the projection block?"), api_name="/ask")
    assert box == "" and RETRIEVAL_ONLY in texts(chat)
    assert "Figure 1" in texts(chat) and len(files(chat)) == 1
    assert "Shortlist" in json.dumps(chat) and "dense" in texts(chat).lower()
    chat, _ = client.predict(*ask_args("Which method performs best on PaSC2?"), api_name="/ask")
    assert texts(chat).count(RETRIEVAL_ONLY) == 1 and len(files(chat)) == 2
    assert "Table 1" in texts(chat).split("PaSC2?")[-1]

    # A tiny local VLM answers a benchmark question; the check scores it with a tiny local judge.
    question = "Which method performs best on the PaSC dataset for the handheld testing scenario (PaSC2), and how does its performance compare to other methods?"
    job = client.submit(*ask_args(question, backend="local", model=str(tiny_cot_vlm)), api_name="/ask")
    chat, _ = job.result()
    streamed = [texts(history) for history, _ in job.outputs()[:-1]]
    assert any("{&#x27;Image&#x27;: 1" in text and "chosen by the model" not in text for text in streamed), streamed[-1:]
    turn = texts(chat).split("(PaSC2), and how")[-1]
    assert "Yes" in turn and "chosen by the model (Image 1)" in turn and "Image 1 shows the results" in turn, turn
    assert len(files(chat)) == 3
    result, reference = client.predict(str(tiny_llama), "", "", "", api_name="/spiqa_score")
    assert "SPDNet, with an accuracy of 72.83%" in result  # the ground truth
    assert "(exact 0." in result and f"L3Score judge: `{tiny_llama}`" in result, result
    header, _, values = result.split("| Chosen |")[1].splitlines()[:3]
    chosen, reference_name, verdict, l3 = [cell.strip() for cell in values.split("|")[1:5]]
    assert "ROUGE-L" in header and reference_name == "Table 1" and l3.startswith("**0."), values
    assert verdict == ("✓ yes" if chosen == "Table 1" else "✗ no"), values  # the tiny VLM always picks Image 1
    assert reference["label"] == "Ground truth: Table 1 (crop from this PDF)" and Path(reference["value"]).is_file()

    # Run all: one row per benchmark question, the same columns, totals with the judge named.
    table, summary = client.predict(str(tiny_llama), "", "cot", "local", str(tiny_cot_vlm), "", 8, 0, True, "",
                                    api_name="/spiqa_run_all")
    assert len(table["data"]) == GRNET_QUESTIONS and table["headers"][6] == "Chosen = reference"
    assert all(row[3] == "Yes" for row in table["data"]), table["data"]
    assert f"{GRNET_QUESTIONS} questions" in summary and "mean L3Score" in summary and "chosen = reference" in summary


def test_sessions_are_separate(app_url: str, grnet_pdf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from spiqa_demo.ui.tabs.paper import chat

    # No upload is on its way in the second session: its question needs no grace for one to start.
    monkeypatch.setattr(chat, "UPLOAD_GRACE_S", 0.0)
    first, second = visitor(app_url), visitor(app_url)
    first.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    chat, _ = second.predict(*ask_args("What does Figure 1 show?"), api_name="/ask")
    assert "Load a paper first" in texts(chat)
    chat, _ = first.predict(*ask_args("What does Figure 1 show?"), api_name="/ask")
    assert "Figure 1" in texts(chat) and files(chat)


class _Refusing(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that rejects every key (HTTP 401), as a real server does."""

    def do_POST(self) -> None:
        body = json.dumps({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                                     "code": "invalid_api_key"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        return None


def test_bad_inputs_get_messages(client: Client, tmp_path: Path, shared: Path, grnet_pdf: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    not_pdf = tmp_path / "notes.pdf"
    not_pdf.write_text("just some notes, not a PDF")
    status, *_ = client.predict(handle_file(str(not_pdf)), api_name="/load_pdf")
    assert "Could not load the paper" in status and "not a PDF" in status

    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(grnet_pdf.read_bytes()[:3000])
    status, *_ = client.predict(handle_file(str(truncated)), api_name="/load_pdf")
    assert "damaged and has been repaired" in status, status  # loaded, with a warning

    garbage = tmp_path / "garbage.pdf"
    garbage.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 40)
    status, *_ = client.predict(handle_file(str(garbage)), api_name="/load_pdf")
    assert "Could not load the paper" in status and "damaged" in status, status

    text = tmp_path / "paper.txt"
    text.write_text("hello")
    with pytest.raises(Exception, match=r"(?i)invalid file type"):
        client.predict(handle_file(str(text)), api_name="/load_pdf")

    huge = tmp_path / "huge.pdf"
    huge.write_bytes(b"%PDF-1.4\n" + b"0" * 9_000_000)  # over the test app's 8 MB limit
    with pytest.raises(Exception, match=r"(?i)(too large|exceeds|maximum)"):
        client.predict(handle_file(str(huge)), api_name="/load_pdf")

    status, *_ = client.predict("1706.03762", api_name="/load_arxiv")
    assert "not reachable" in status and "upload it instead" in status, status
    status, *_ = client.predict("not an id", api_name="/load_arxiv")
    assert "is not an arXiv id" in status

    # Still working: a real paper with no figures loads, and questions about it get an answer.
    from evalsuite.pdf_factory import no_figures_paper

    empty = no_figures_paper(tmp_path / "no-figures.pdf").path
    status, gallery, *_ = client.predict(handle_file(str(empty)), api_name="/load_pdf")
    assert "No figures or tables were found" in status and gallery == []
    chat, _ = client.predict(*ask_args("What is the main result?"), api_name="/ask")
    assert "no figures or tables to show" in texts(chat)

    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    chat, _ = client.predict(*ask_args("   "), api_name="/ask")
    # said, not ignored, as a turn of its own after the greeting
    assert len(chat) == 3 and "Loaded" in texts(chat) and chat[1]["role"] == "user" and "The question is empty" in texts(chat)

    closed = f"http://127.0.0.1:{free_port()}/v1"
    allow_endpoint(monkeypatch, closed)  # an endpoint the operator listed: its failures are explained
    chat, _ = client.predict(*ask_args("Which method is best on AFEW?", backend="openai", model="m", base_url=closed),
                             api_name="/ask")
    assert "cannot reach" in texts(chat) and files(chat), texts(chat)  # the figure is still shown

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        allow_endpoint(monkeypatch, url)
        chat, _ = client.predict(*ask_args("Which method is best on AFEW?", backend="openai", model="m", base_url=url,
                                           api_key="sk-wrong-key-123"), api_name="/ask")
    finally:
        server.shutdown()
    assert "API key" in texts(chat) and "sk-wrong-key-123" not in json.dumps(chat), texts(chat)
    assert files(chat)


def test_an_abandoned_stream_leaves_the_app_working(app_url: str, grnet_pdf: Path, tiny_cot_vlm: Path) -> None:
    # The cancel's reply comes once the stream has stopped at its next step (the model loaded, a
    # token generated): on a busy machine that can take longer than the client's usual 5 s.
    client = visitor(app_url, httpx_kwargs={"timeout": 120})
    client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    job = client.submit(*ask_args("Which method is best on HDM05?", backend="local", model=str(tiny_cot_vlm)), api_name="/ask")
    job.cancel()  # what a closed tab does to a running stream
    # Gradio's cancel stops every running call of this endpoint in the session, so the next question
    # is asked only once the cancel has landed (else a late cancel would stop that one instead).
    deadline = time.monotonic() + 60
    while not job.done() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.done()
    chat, _ = client.predict(*ask_args("Which method is best on HDM05?"), api_name="/ask")
    assert "Table 1" in texts(chat)




def test_only_the_apps_own_files_are_served(app_url: str, grnet_pdf: Path, shared: Path) -> None:
    client = visitor(app_url, download_files=False)
    _, gallery, *_ = client.predict(handle_file(str(grnet_pdf)), api_name="/load_pdf")
    served = gallery[0]["image"]  # the app's copy of a crop, as the browser fetches it
    assert status_of(served["url"]) == 200
    for path in ("/etc/passwd", Path(__file__).resolve().parents[1] / "app.py", shared / "papers" / "resnet-1512.03385.pdf",
                 shared / "spiqa" / "SPIQA_testA.json"):
        assert status_of(f"{app_url}gradio_api/file={path}") in (403, 404), path


def test_error_analysis(client: Client, shared: Path, tmp_path: Path) -> None:
    official = "test-C_GPT4_QA__gpt4o_cot_image+caption_size_full.json"
    summary, _, by_category, by_retrieval, taxonomy, *_, table = client.predict(
        official, api_name="/load_server_results")
    assert "493 questions" in summary and "retrieval accuracy 0.704" in summary, summary
    assert "answers right** (verdicts by rule: token-F1" in summary, summary
    assert table["headers"][:7] == ["#", "paper", "key", "category", "question", "ground truth", "answer"]
    assert len(table["data"]) == 493 and not any(row[6].startswith(":") for row in table["data"])  # no stray ": "
    assert by_category and by_retrieval and taxonomy
    rows, count = client.predict("(all)", "(all)", "table", "wrong", "(all)", "(all)", 0, 1, "", api_name="/filter_results")
    assert count.startswith(f"{len(rows['data'])} of 493") and 0 < len(rows["data"]) < 493
    assert all(row[3] == "table" and row[8] == "wrong" for row in rows["data"])
    from spiqa_demo.evaluation import read_results
    from spiqa_demo.evaluation.comparison import compare_files, judge_file

    gemini = "test-C_Gemini_QA__gemini_1-5_cot_image+caption_size_full.json"
    first, second = (judge_file(name, read_results(shared / "spiqa" / "test-C-responses" / name).records) for name in (official, gemini))
    expected = compare_files(first, second).counts
    rows, _ = client.predict("(all)", "(all)", "(all)", "(all)", "wrong", "right figure, wrong answer (reasoning)", 0, 1, "",
                             api_name="/filter_results")
    assert len(rows["data"]) == first.taxonomy.counts["right_figure_wrong_answer"] and all(row[7].startswith("wrong (") and row[8] == "right" for row in rows["data"])
    rows, count = client.predict("(all)", "(all)", "(all)", "(all)", "(all)", "(all)", 0, 1, "wikipedia", api_name="/filter_results")
    assert 0 < len(rows["data"]) < 50
    verdict, plot, *_, side, side_count = client.predict(gemini, api_name="/compare_server_results")
    assert "493 shared questions" in verdict and f"right in A only **{expected['a_only_right']}**" in verdict, verdict
    assert side["headers"][1:9] == ["paper", "key", "category", "question", "ground truth", "answer A", "verdict A", "figure A"]
    assert len(side["data"]) == 493 and side_count == "493 of 493 shared questions" and plot
    side, side_count = client.predict("right in A, wrong in B", "(all)", "(all)", "", api_name="/filter_compare")
    assert side_count == f"{expected['a_only_right']} of 493 shared questions" and all(r[7].startswith("right") and r[10].startswith("wrong") for r in side["data"])
    exported = Path(client.predict(api_name="/export_csv")["value"])  # an update: the file and its widget shown
    assert exported.read_text(encoding="utf-8").count("right in A, wrong in B") == expected["a_only_right"]
    report = Path(client.predict(api_name="/export_markdown")["value"]).read_text(encoding="utf-8")
    assert f"| right in A, wrong in B | {expected['a_only_right']} |" in report and "█" in report, report[:2000]

    # Our own results.jsonl (here: 30 official answers) uploaded, scored with the SPIQA metrics.
    records = read_results(shared / "spiqa" / "test-C-responses" / official).records[:30]
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(r.to_json() for r in records) + "\n{truncated", encoding="utf-8")
    summary, *_, table = client.predict(handle_file(str(results)), None, api_name="/load_results")
    assert "30 questions" in summary and "not valid JSON" in summary and len(table["data"]) == 30, summary
    metrics = client.predict(api_name="/results_metrics")
    not_results = tmp_path / "settings.json"
    not_results.write_text('{"theme": "dark"}')
    summary, *_, table = client.predict(handle_file(str(not_results)), None, api_name="/load_results")
    assert "Could not load the results" in summary
    assert "METEOR" in metrics and "CIDEr" in metrics and "test-C" in metrics, metrics


def test_arxiv_download_and_examples(client: Client, grnet_pdf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Mirror(BaseHTTPRequestHandler):
        """A stand-in for arxiv.org/pdf/ID on loopback (tests have no network)."""

        def do_GET(self) -> None:
            found = self.path == f"/pdf/{GRNET_ID}"
            body = grnet_pdf.read_bytes() if found else b"not found"
            self.send_response(200 if found else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Mirror)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    reconfigure(monkeypatch, SPIQA_ARXIV_PDF_URL=f"http://127.0.0.1:{server.server_address[1]}/pdf/{{id}}")
    try:
        status, gallery, *_ = client.predict(f"https://arxiv.org/abs/{GRNET_ID}", api_name="/load_arxiv")
        assert "Grassmann" in status and len(gallery) == 4, status
        status, *_ = client.predict("1611.99999", api_name="/load_arxiv")
        assert "has no paper 1611.99999" in status
    finally:
        server.shutdown()

    from spiqa_demo.ui.tabs.paper.examples import example_papers

    name = next(n for n in example_papers() if "ecapa-tdnn" in n)  # the dropdown's names: shared papers
    status, gallery, *_ = client.predict(name, api_name="/load_example")
    assert "5 pages" in status and gallery
