"""`score`: SPIQA's official response files and our results, scored without a model unless L3Score is asked for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tiny_bert import tiny_bert
from tiny_models import tiny_model

from evalsuite.local_servers import free_port
from spiqa_demo.cli import main
from spiqa_demo.evaluation import read_results, score_records
from spiqa_demo.settings import get_settings

RESPONSES = "spiqa/test-C-responses"
GPT4O_COT = f"{RESPONSES}/test-C_GPT4_QA__gpt4o_cot_image+caption_size_full.json"
LLAVA = f"{RESPONSES}/test-C_LLaVA_QA__llava_image+caption_size_224.json"
DERIVED_TEST_C = "spiqa/testC_qa_derived_from_official_responses.json"
REQUIRED_KEYS = {"retrieval_accuracy", "BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4", "METEOR", "ROUGE-L", "CIDEr",
                 "BERTScore-F1", "L3Score"}


def score(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["score", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def bertscore_model(tiny_bert: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """BERTScore on the tiny local BERT (bert-base-uncased cannot be downloaded here)."""
    monkeypatch.setenv("SPIQA_BERTSCORE_MODEL", str(tiny_bert))
    monkeypatch.setenv("SPIQA_BERTSCORE_LAYERS", "2")
    get_settings.cache_clear()
    return tiny_bert


@pytest.fixture(scope="module")
def yes_judge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_model(tmp_path_factory, "llama", reply="Yes", steps=60)


def small_official_file(shared: Path, tmp_path: Path, n: int = 3) -> Path:
    """The first `n` questions of the official GPT-4o CoT file, same shape."""
    data = json.loads((shared / GPT4O_COT).read_text())
    path = tmp_path / "test-C_GPT4_QA__gpt4o_cot_small.json"
    path.write_text(json.dumps({k: data[k] for k in list(data)[:n]}))
    return path


def test_official_gpt4o_cot_file_scores_like_spiqa(
    shared: Path, bertscore_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = score(capsys, "--responses", shared / GPT4O_COT, "--dataset", shared / DERIVED_TEST_C, "--json")
    assert code == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert set(summary) >= REQUIRED_KEYS and summary["n"] == 493
    assert round(summary["retrieval_accuracy"], 3) == 0.704
    assert summary["L3Score"] is None and summary["judge"] is None  # no model was called
    assert 0 < summary["BERTScore-F1"] <= 1
    library = score_records(read_results(shared / GPT4O_COT).records, bertscore=False).overall.values
    for key in ("BLEU-1", "BLEU-4", "METEOR", "ROUGE-L", "CIDEr"):
        assert summary[key] == pytest.approx(library[key], abs=1e-12)
    assert summary["by_category"]["table"]["n"] == 368
    table = out.split("{")[0]
    assert "Top-1 Acc" in table and "70.39" in table and "Tables" in table and "BERTScore-F1" in table


def test_open_model_file_without_bertscore(shared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = score(capsys, "--responses", shared / LLAVA, "--no-bertscore", "--json")
    assert code == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["n"] == 491 and summary["task"] == "per-figure"
    assert summary["retrieval_accuracy"] is None and summary["BERTScore-F1"] is None and summary["METEOR"] > 0


def test_bertscore_unavailable_is_a_note_not_a_failure(shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPIQA_BERTSCORE_MODEL", "bert-base-uncased")
    get_settings.cache_clear()
    code, out, err = score(capsys, "--responses", small_official_file(shared, tmp_path), "--json")
    assert code == 0, err
    assert "note: BERTScore-F1 not computed: BERTScore needs the model 'bert-base-uncased'" in out
    assert json.loads(out.strip().splitlines()[-1])["BERTScore-F1"] is None


def test_l3score_with_a_local_judge_is_saved_and_reused(
    shared: Path, yes_judge: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    responses = small_official_file(shared, tmp_path)
    out_file = tmp_path / "scored.jsonl"
    code, out, err = score(capsys, "--responses", responses, "--judge", yes_judge, "--out", out_file,
                           "--no-bertscore", "--json")
    assert code == 0, err
    first = json.loads(out.strip().splitlines()[-1])
    assert first["judge"] == str(yes_judge) and first["L3Score"] > 0.9 and first["L3Score-exact"] > 0.9
    written = out_file.read_text()
    assert len(written.splitlines()) == 3 and "L3Score" in out

    # The re-run finds every verdict in --out: the judge (now a dead server of the same name) is never called.
    code, out, err = score(capsys, "--responses", responses, "--judge", yes_judge, "--judge-base-url",
                           f"http://127.0.0.1:{free_port()}/v1", "--out", out_file, "--no-bertscore", "--json")
    assert code == 0, err
    assert json.loads(out.strip().splitlines()[-1])["L3Score"] == first["L3Score"]
    assert out_file.read_text() == written
    assert read_results(out_file).records[0].l3[0].judge == str(yes_judge)


def test_responses_that_do_not_match_the_dataset(shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = score(capsys, "--responses", shared / GPT4O_COT, "--dataset", shared / "spiqa/SPIQA_testA.json")
    assert code == 2 and "is it the right split" in err
    code, out, err = score(capsys, "--responses", small_official_file(shared, tmp_path), "--dataset",
                           shared / DERIVED_TEST_C, "--no-bertscore", "--json")
    assert code == 0 and "question(s) of testC_qa_derived_from_official_responses.json have no result" in err
    assert json.loads(out.strip().splitlines()[-1])["n"] == 3


def test_bad_response_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    truncated = tmp_path / "responses.json"
    truncated.write_text('{"1603.01987": {"259": {"question": "q", "response": "{\'Image\': 0')
    code, _, err = score(capsys, "--responses", truncated)
    assert code == 2 and err.startswith("error: responses.json: not valid JSON")
    code, _, err = score(capsys, "--responses", tmp_path / "missing.json")
    assert code == 2 and "result file not found" in err
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"1603.01987": {
        "1": {"question": "q", "response": "{'Image': 0}\nThe answer is: Yes", "answer": "Yes",
              "all_figures_names": ["a.png"], "referred_figures_names": ["a.png"]},
        "2": {"question": "q", "response": "x"},
        "3": {"question": "q", "response": "", "answer": "No", "all_figures_names": [], "referred_figures_names": []},
    }}))
    code, out, err = score(capsys, "--responses", partial, "--no-bertscore", "--json")
    assert code == 0, err
    assert "question 2: skipped (no 'answer')" in err
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["n"] == 2 and summary["retrieval_accuracy"] == 0.5
    assert any("empty answers" in note for note in summary["notes"])


def test_overview_gives_each_judge_its_own_mean_and_never_mixes_them() -> None:
    """Verdicts of different judges are not comparable, so the summary lines show one mean per judge."""
    from spiqa_demo.evaluation import ResultRecord, overview
    from spiqa_demo.evaluation.metrics.l3score import L3Result

    def record(judge: str, score: float, hit: float | None) -> ResultRecord:
        r = ResultRecord(paper_id="p", question_key=judge + str(score), question="q", ground_truth="g", answer="a",
                         l3=[L3Result(score=score, judge=judge, case="both")])
        if hit is not None:
            r.metrics["retrieval_hit"] = hit
        return r

    totals = overview([record("gpt-4o", 1.0, 1.0), record("gpt-4o", 0.5, 0.0), record("qwen", 0.0, None)])
    assert totals.l3 == {"gpt-4o": 0.75, "qwen": 0.0}
    assert (totals.questions, totals.right, totals.told, totals.retrieval_accuracy) == (3, 1, 2, 0.5)
    assert totals.rouge_l is None
