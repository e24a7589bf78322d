"""`evaluate`: a tiny SPIQA split (real PNGs) answered by tiny real models, one line per question, resumable.

Models: the CoT-trained tiny Idefics3 (always "{'Image': 1, ...} The answer is: Yes"), locally and
behind a real `transformers serve` (which returns no log-probs: the judge-without-log-probs case),
and a tiny Llama trained to say "Yes" as the local L3Score judge. Ctrl-C is sent to a run against the
loopback OpenAI-compatible listener, which holds the requests after the first until the test says go.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tiny_models import Server, served_cot_vlm, tiny_cot_vlm, tiny_llama, tiny_model

from evalsuite.local_servers import free_port
from evalsuite.openai_listener import openai_listener
from evalsuite.tiny_models import make_image
from spiqa_demo.cli import main
from spiqa_demo.evaluation import read_results
from spiqa_demo.evaluation.harness import run_evaluation
from spiqa_demo.evaluation.spiqa import load_dataset
from spiqa_demo.models.base import Message, Usage
from spiqa_demo.settings import get_settings

PAPERS = {"1611.05742v3": ["Figure1-1", "Table1-1", "Figure2-1"], "1702.01234v1": ["Figure1-1", "Figure2-1", "Table3-1"]}


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A test-A-shaped file (2 papers, 4 questions) and its image folder laid out as SPIQA's archive."""
    root = tmp_path_factory.mktemp("spiqa-tiny")
    images = root / "SPIQA_testA_Images"
    data = {}
    for p, (pid, names) in enumerate(PAPERS.items()):
        (images / pid).mkdir(parents=True)
        figures = {}
        for k, name in enumerate(names):
            file = f"{pid}-{name}.png"
            make_image(3 * p + k, size=(64, 48)).save(images / pid / file)
            table = name.startswith("Table")
            figures[file] = {"caption": f"{name.split('-')[0]}: results {k}.", "content_type": "table" if table else "figure",
                             "figure_type": "N/A" if table else ("plot" if k == 0 else "** Schematic")}
        data[pid] = {"paper_id": pid, "all_figures": figures, "qa": [
            {"question": "Is the proposed method better?", "answer": "Yes", "explanation": "", "reference": f"{pid}-{names[1]}.png"},
            {"question": "What is plotted on the x axis?", "answer": "The number of training epochs.", "explanation": "",
             "reference": f"{pid}-{names[0]}.png"},
        ]}
    dataset = root / "SPIQA_testA_tiny.json"
    dataset.write_text(json.dumps(data))
    return dataset, images


@pytest.fixture(scope="module")
def yes_judge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Llama trained to answer "Yes": a local judge whose top-5 holds "Yes" and no "No"."""
    return tiny_model(tmp_path_factory, "llama", reply="Yes", steps=60)


def evaluate(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["evaluate", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_cot_run_writes_one_line_per_question_then_resumes(
    split: tuple[Path, Path], tiny_cot_vlm: Path, yes_judge: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, images = split
    out = tmp_path / "results.jsonl"
    args = ["--dataset", dataset, "--task", "cot", "--backend", "local", "--model", tiny_cot_vlm, "--images",
            images.parent, "--out", out, "--judge", yes_judge, "--no-bertscore", "--json"]
    code, stdout, stderr = evaluate(capsys, *args)
    assert code == 0, stderr
    assert "4/4" in stderr and "evaluate cot" in stderr  # the progress bar (with its ETA) on stderr
    rows = lines(out)
    assert len(rows) == 4
    for row in rows:
        assert row["model"] == str(tiny_cot_vlm) and row["task"] == "cot" and row["split"] == "test-A"
        assert row["raw_response"].startswith("{'Image': 1") and row["answer"] == "Yes" and row["parse"] == "dict"
        assert len(row["all_figures"]) == 3 and set(row["reference_figures"]) <= set(row["all_figures"])
        assert row["chosen_index"] == 1 and row["chosen_figure"] == row["all_figures"][1]
        assert row["metrics"]["retrieval_hit"] == float(row["chosen_figure"] in row["reference_figures"])
        assert {"model", "total", "l3score"} <= set(row["timings"])
        assert row["l3"][0]["judge"] == str(yes_judge) and row["l3"][0]["case"] == "yes_only"
        assert row["metrics"]["L3Score"] > 0.9 and row["metrics"]["L3Score-exact"] > 0.9
    assert {r["figure_category"] for r in rows} == {"table", "plot", "schematic"}
    summary = json.loads(stdout.strip().splitlines()[-1])
    hits = [r["metrics"]["retrieval_hit"] for r in rows]
    assert summary["n"] == 4 and summary["retrieval_accuracy"] == pytest.approx(sum(hits) / 4)
    assert summary["judge"] == str(yes_judge) and summary["L3Score"] > 0.9
    assert set(summary["by_split"]) == {"test-A"} and "table" in summary["by_category"]
    assert "Top-1 Acc" in stdout and "Figure category" in stdout

    before = out.read_bytes()
    code, _, stderr = evaluate(capsys, *args)
    assert code == 0 and "0 question(s) answered now, 4 already there" in stderr
    assert out.read_bytes() == before  # nothing recomputed, nothing rewritten

    # An interrupted run: the last line half-written, one question never done.
    kept = before.splitlines(keepends=True)
    out.write_bytes(b"".join(kept[:2]) + kept[2][: len(kept[2]) // 2])
    code, _, stderr = evaluate(capsys, *args)
    assert code == 0, stderr
    assert "dropped an incomplete last line" in stderr and "2 question(s) answered now, 2 already there" in stderr
    assert out.read_bytes().splitlines(keepends=True)[:2] == kept[:2] and len(lines(out)) == 4


def test_judge_added_later_only_judges(
    split: tuple[Path, Path], tiny_cot_vlm: Path, yes_judge: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, images = split
    out = tmp_path / "results.jsonl"
    base = ["--dataset", dataset, "--backend", "local", "--model", tiny_cot_vlm, "--images", images,
            "--out", out, "--no-bertscore", "--limit", "2"]
    assert evaluate(capsys, *base, "--judge", "none")[0] == 0
    answered = {(r["paper_id"], r["question_key"]): r["timings"] for r in lines(out)}
    code, stdout, stderr = evaluate(capsys, *base, "--judge", yes_judge)
    assert code == 0 and "0 question(s) answered now, 2 already there, 2 earlier answer(s) judged" in stderr
    records = read_results(out).records
    assert len(records) == 2 and all(r.l3 and r.l3[0].judge == str(yes_judge) for r in records)
    assert {r.key: r.timings for r in records} == answered  # the answers were not recomputed
    assert "L3Score" in stdout


def test_api_backend_concurrency_and_a_judge_without_logprobs(
    split: tuple[Path, Path], served_cot_vlm: Server, yes_judge: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, images = split
    out = tmp_path / "results.jsonl"
    base = ["--dataset", dataset, "--backend", "openai", "--base-url", served_cot_vlm.base_url, "--model",
            served_cot_vlm.model, "--images", images, "--out", out, "--no-bertscore", "--concurrency", "3",
            "--judge", served_cot_vlm.model, "--judge-base-url", served_cot_vlm.base_url]
    code, _, stderr = evaluate(capsys, *base)
    assert code == 2 and "returned no log-probabilities" in stderr and "--judge-fallback" in stderr
    written = lines(out)
    assert 1 <= len(written) <= 4 and all(r["answer"] == "Yes" and not r["l3"] for r in written)  # answers kept

    code, stdout, stderr = evaluate(capsys, *base, "--judge-fallback", yes_judge, "--json")
    assert code == 0, stderr
    records = read_results(out).records
    assert len(records) == 4 and all(r.l3[0].judge == str(yes_judge) for r in records)
    assert json.loads(stdout.strip().splitlines()[-1])["judge"] == str(yes_judge)

    # `score` takes the same judge flags: no log-probs is an error unless a fallback is given.
    judge = ["--judge", served_cot_vlm.model, "--judge-base-url", served_cot_vlm.base_url, "--no-bertscore"]
    unjudged = records[0]
    unjudged.l3, unjudged.metrics = [], {}
    fresh = tmp_path / "fresh.jsonl"
    fresh.write_text(unjudged.to_json() + "\n")
    assert main(["score", "--responses", str(fresh), *judge]) == 2
    assert "returned no log-probabilities" in capsys.readouterr().err
    assert main(["score", "--responses", str(fresh), *judge, "--judge-fallback", str(yes_judge), "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["judge"] == str(yes_judge)


def test_server_down_stops_early_and_writes_nothing(
    split: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPIQA_MAX_RETRIES", "0")
    get_settings.cache_clear()
    dataset, images = split
    out = tmp_path / "results.jsonl"
    code, _, stderr = evaluate(capsys, "--dataset", dataset, "--backend", "openai", "--base-url",
                               f"http://127.0.0.1:{free_port()}/v1", "--model", "m", "--images", images, "--out", out)
    assert code == 2 and "the first 4 questions all failed; stopping" in stderr
    assert not out.exists() or out.read_text() == ""


def test_images_are_required_and_missing_ones_are_retried_later(
    split: tuple[Path, Path], tiny_cot_vlm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, images = split
    out = tmp_path / "results.jsonl"
    base = ["--dataset", dataset, "--backend", "local", "--model", tiny_cot_vlm, "--out", out, "--no-bertscore"]
    code, _, stderr = evaluate(capsys, *base)
    assert code == 2 and "needs the SPIQA figure images" in stderr and "--images" in stderr
    (tmp_path / "empty").mkdir()
    code, _, stderr = evaluate(capsys, *base, "--images", tmp_path / "empty")
    assert code == 2 and "no figure image of this split was found" in stderr

    partial = tmp_path / "partial"
    (partial / "1611.05742v3").mkdir(parents=True)
    for png in (images / "1611.05742v3").iterdir():
        (partial / "1611.05742v3" / png.name).write_bytes(png.read_bytes())
    code, _, stderr = evaluate(capsys, *base, "--images", partial)
    assert code == 0 and "2 question(s) got no answer and were not written" in stderr
    assert "figure images not found: 1702.01234v1-Figure1-1.png" in stderr
    assert {r["paper_id"] for r in lines(out)} == {"1611.05742"}


def test_other_tasks_and_a_text_only_full_paper_run(
    split: tuple[Path, Path], tiny_cot_vlm: Path, tiny_llama: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, images = split
    code, stdout, stderr = evaluate(capsys, "--dataset", dataset, "--task", "direct", "--backend", "local", "--model",
                                    tiny_cot_vlm, "--images", images, "--out", tmp_path / "direct.jsonl",
                                    "--no-bertscore", "--json")
    assert code == 0, stderr
    rows = lines(tmp_path / "direct.jsonl")
    assert all(r["task"] == "direct" and r["parse"] == "direct" and r["chosen_figure"] is None for r in rows)
    assert json.loads(stdout.strip().splitlines()[-1])["retrieval_accuracy"] is None

    # A text-only model reads captions in the full-paper task: no images needed.
    code, _, stderr = evaluate(capsys, "--dataset", dataset, "--task", "full", "--backend", "local", "--model",
                               tiny_llama, "--out", tmp_path / "full.jsonl", "--no-bertscore", "--limit", "1")
    assert code == 0, stderr
    assert lines(tmp_path / "full.jsonl")[0]["task"] == "full"


def test_caption_only_and_image_only_ablations(
    split: tuple[Path, Path], tiny_cot_vlm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, images = split
    # Caption-only needs no images, even for a multimodal model.
    code, _, stderr = evaluate(capsys, "--dataset", dataset, "--task", "caption-only", "--backend", "local", "--model",
                               tiny_cot_vlm, "--out", tmp_path / "captions.jsonl", "--no-bertscore", "--limit", "2")
    assert code == 0, stderr
    assert [(r["task"], r["parse"]) for r in lines(tmp_path / "captions.jsonl")] == [("caption-only", "direct")] * 2
    code, _, stderr = evaluate(capsys, "--dataset", dataset, "--task", "image-only", "--backend", "local", "--model",
                               tiny_cot_vlm, "--out", tmp_path / "images.jsonl", "--no-bertscore", "--limit", "1")
    assert code == 2 and "needs the SPIQA figure images for task 'image-only'" in stderr
    code, _, stderr = evaluate(capsys, "--dataset", dataset, "--task", "image-only", "--backend", "local", "--model",
                               tiny_cot_vlm, "--images", images, "--out", tmp_path / "images.jsonl", "--no-bertscore",
                               "--limit", "1")
    assert code == 0, stderr
    assert lines(tmp_path / "images.jsonl")[0]["task"] == "image-only"


class RecordingBackend:
    """A text-only backend that answers in SPIQA's direct format and records each request's reply budget."""

    name, supports_images, max_images, context_tokens = "recording", False, 0, 100_000

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def generate(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> str:
        self.calls.append((messages[0].text, max_new_tokens))
        return "{'Answer': 'Yes'}"

    def count_tokens(self, messages: list[Message]) -> int:
        return sum(len(m.text) // 4 for m in messages)


def test_evaluation_replies_default_to_spiqas_128_tokens(split: tuple[Path, Path], tmp_path: Path) -> None:
    dataset = load_dataset(str(split[0]))
    backend = RecordingBackend()
    run_evaluation(dataset, backend, tmp_path / "a.jsonl", task="caption-only", limit=1, progress=False)
    run_evaluation(dataset, backend, tmp_path / "b.jsonl", task="caption-only", limit=1, max_new_tokens=7,
                   progress=False)
    assert [tokens for _, tokens in backend.calls] == [128, 7] == [get_settings().evaluation.eval_max_new_tokens, 7]
    assert backend.calls[0][0].startswith("You are given a question, and a few input captions.")


def test_resuming_another_run_into_the_same_file_is_refused(
    split: tuple[Path, Path], tiny_cot_vlm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, images = split
    out = tmp_path / "results.jsonl"
    base = ["--dataset", dataset, "--backend", "local", "--model", tiny_cot_vlm, "--images", images, "--out", out,
            "--no-bertscore", "--limit", "1"]
    assert evaluate(capsys, *base)[0] == 0
    code, _, stderr = evaluate(capsys, *base[:-2], "--task", "direct")
    assert code == 2 and "holds results of model" in stderr and "task 'cot'" in stderr
    out.write_text("this is not a results file\n")
    code, _, stderr = evaluate(capsys, *base)
    assert code == 2 and "is not a results.jsonl file" in stderr


AT_A_TERMINAL = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                 "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
                 "sys.argv[0] = 'spiqa_demo'; runpy.run_module('spiqa_demo', run_name='__main__', alter_sys=True)")


def test_ctrl_c_keeps_finished_questions_and_the_rerun_resumes(
    split: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real SIGINT to a running `python -m spiqa_demo evaluate`, then the same command again.

    The model server answers the first question and holds the others, so the signal lands while
    the run is provably unfinished, however fast or slow the machine. It answers the held requests
    only once the run has said it was interrupted (the process ends after its requests in flight).
    """
    import os
    import signal
    import subprocess
    import sys
    import threading
    import time

    dataset, images = split
    total = sum(len(entry["qa"]) for entry in json.loads(dataset.read_text()).values())
    out = tmp_path / "results.jsonl"
    repo = Path(__file__).resolve().parents[1]
    with openai_listener(answer_first=1) as server:
        args = ["--dataset", dataset, "--backend", "openai", "--base-url", server.url, "--model", "m",
                "--images", images, "--out", out, "--no-bertscore"]
        # Ctrl-C as at a terminal: the run is started with SIGINT handled and unblocked, whatever this
        # test process inherited (a worker of the suite started in the background ignores or blocks it,
        # and a child inherits both).
        process = subprocess.Popen([sys.executable, "-c", AT_A_TERMINAL, "evaluate", *map(str, args)], cwd=repo,
                                   env={**os.environ, "PYTHONPATH": str(repo)}, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        stderr: list[str] = []
        interrupted = threading.Event()

        def read_stderr() -> None:
            assert process.stderr is not None
            for line in process.stderr:
                stderr.append(line)
                if "interrupted: " in line:
                    interrupted.set()

        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()
        try:
            deadline = time.monotonic() + 120
            while not (out.exists() and "\n" in out.read_text()):  # the first question's line
                assert process.poll() is None and time.monotonic() < deadline, "".join(stderr)
                time.sleep(0.05)
            assert server.held.wait(60), "".join(stderr)  # and the other questions' requests are held
            process.send_signal(signal.SIGINT)
            signals = [line for line in Path(f"/proc/{os.getpid()}/status").read_text().splitlines() if line.startswith("Sig")]
            assert interrupted.wait(60), ("".join(stderr), signals)
            server.go.set()
            assert process.wait(timeout=60) == 130, "".join(stderr)
        finally:
            process.kill()
            process.wait()
        reader.join(timeout=10)
        message = "".join(stderr)
        assert "interrupted: finished questions are in" in message and "run the same command again to resume" in message
        done = lines(out)
        assert len(done) == 1

        code, _, err = evaluate(capsys, *args)
        assert code == 0, err
        assert f"{total - 1} question(s) answered now, 1 already there" in err
        assert len(lines(out)) == total and lines(out)[:1] == done
