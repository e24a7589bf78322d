"""The result-file reader: our results.jsonl and SPIQA's official response files, into one record list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation import ResultRecord, align_with_dataset, read_results
from spiqa_demo.evaluation.metrics import L3Result
from spiqa_demo.evaluation.official import spiqa_cot_answer, spiqa_direct_answer
from spiqa_demo.evaluation.prompts import L3SCORE_PROMPT_VERSION
from spiqa_demo.evaluation.spiqa import load_dataset
from spiqa_demo.models.base import TokenLogprob

RESPONSES = "spiqa/test-C-responses"
GPT4O_COT = f"{RESPONSES}/test-C_GPT4_QA__gpt4o_cot_image+caption_size_full.json"
GPT4O_DIRECT = f"{RESPONSES}/test-C_GPT4_QA__gpt4o_image+caption_size_full.json"
LLAVA = f"{RESPONSES}/test-C_LLaVA_QA__llava_image+caption_size_224.json"
DERIVED_TEST_C = "spiqa/testC_qa_derived_from_official_responses.json"


def record(key: str = "1", answer: str = "Yes", **extra: object) -> ResultRecord:
    return ResultRecord(paper_id="1611.05742", question_key=key, question="Q?", ground_truth="Yes", answer=answer, **extra)


def test_records_round_trip_through_a_jsonl_line() -> None:
    original = record(task="cot", chosen_figure="a.png", metrics={"L3Score": 0.5}, l3=[L3Result(score=0.5, judge="j", case="both", top=[TokenLogprob("Yes", -0.7)])],
                      timings={"model": 1.5}, messages=["note"])
    assert ResultRecord.from_dict(json.loads(original.to_json())) == original
    assert json.loads(original.to_json())["l3"][0]["prompt_version"] == L3SCORE_PROMPT_VERSION
    assert L3Result.from_dict({"score": 1.0, "judge": "j", "case": "both"}).prompt_version == ""  # stored before it was recorded
    with pytest.raises(ValueError, match="missing field"):
        ResultRecord.from_dict({"paper_id": "x"})
    with pytest.raises(ValueError, match="not text"):
        ResultRecord.from_dict({**original.to_dict(), "answer": 3})


def test_jsonl_keeps_good_lines_and_says_what_it_skipped(tmp_path: Path) -> None:
    good = [record("1"), record("2"), record("2", answer="later")]
    text = "\n".join([good[0].to_json(), "[1, 2]", good[1].to_json(), "{\"paper_id\": \"x\"}", good[2].to_json(),
                      good[0].to_json()[:40]])
    path = tmp_path / "results.jsonl"
    path.write_text(text)
    results = read_results(path)
    assert [r.question_key for r in results.records] == ["1", "2"]
    assert results.records[1].answer == "later"  # a later line for a question replaces the earlier one
    assert results.kind == "results.jsonl"
    assert any("line 2" in w for w in results.warnings) and any("missing field" in w for w in results.warnings)
    assert any("line 6: not valid JSON (a run interrupted while writing?)" in w for w in results.warnings)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("  \n", "is empty"),
        ("[1, 2, 3]", "expected SPIQA responses"),
        ('{"1603.01987": {"259": {"question": "q", "resp', "not valid JSON"),
        ('{"1603.01987": ["not", "questions"]}', "no usable results: paper 1603.01987: expected an object"),
        ('{"1603.01987": {"259": {"question": "q", "response": "r"}}}', "no 'answer'"),
    ],
)
def test_bad_result_files_get_clear_messages(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "responses.json"
    path.write_text(content)
    with pytest.raises(PaperError, match=message):
        read_results(path)


def test_missing_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(PaperError, match="not found"):
        read_results(tmp_path / "nope.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(PaperError, match="not a UTF-8"):
        read_results(tmp_path / "bin.json")
    (tmp_path / "empty-folder").mkdir()
    with pytest.raises(PaperError, match="no SPIQA response files"):
        read_results(tmp_path / "empty-folder")


def test_official_cot_file(shared: Path) -> None:
    results = read_results(shared / GPT4O_COT)
    first = results.records[0]
    assert results.kind == "spiqa-cot" and results.models == ["gpt4o_cot_image+caption_size_full"]
    assert (first.paper_id, first.question_key, first.split, first.task) == ("1603.01987", "259", "test-C", "cot")
    assert first.chosen_index == 0 and first.chosen_figure == "12-Table4-1.png" and first.parse == "dict"
    assert first.reference_figures == ["4-Figure2-1.png"] and first.figure_category == "other"
    assert first.answer == spiqa_cot_answer(first.raw_response) and first.answer.startswith(": It is not valid")
    assert sum(r.parse == "failed" for r in results.records) == 0


def test_official_direct_and_per_figure_files(shared: Path) -> None:
    direct = read_results(shared / GPT4O_DIRECT)
    assert direct.kind == "spiqa-direct" and direct.tasks == ["direct"]
    assert direct.records[0].answer == spiqa_direct_answer(direct.records[0].raw_response)
    assert spiqa_direct_answer("{'Answer': 'No, because X.'}") == "'No, because X.'"  # as SPIQA's script cuts it

    llava = read_results(shared / LLAVA)
    assert llava.kind == "spiqa-per-figure" and len(llava) == 491
    first = llava.records[0]
    assert first.figure_answers[0].figure == "4-Figure2-1.png" and first.predictions == [" Yes"]
    # SPIQA's open-model script: one scored pair per helpful figure, an empty one when none is helpful.
    pairs = sum(len(r.predictions) for r in llava.records)
    helpful = sum(a.is_helpful for r in llava.records for a in r.figure_answers)
    no_helpful = sum(not any(a.is_helpful for a in r.figure_answers) for r in llava.records)
    assert pairs == helpful + no_helpful


def test_a_folder_of_per_paper_files_reads_like_the_merged_file(shared: Path, tmp_path: Path) -> None:
    data = json.loads((shared / GPT4O_COT).read_text())
    folder = tmp_path / "gpt4o_cot"
    folder.mkdir()
    for paper_id in list(data)[:5]:
        (folder / f"{paper_id}_response.json").write_text(json.dumps(data[paper_id]))
    merged = tmp_path / "merged.json"
    merged.write_text(json.dumps({k: data[k] for k in list(data)[:5]}))
    assert [r.to_dict() | {"model": ""} for r in read_results(folder).records] == [
        r.to_dict() | {"model": ""} for r in read_results(merged).records
    ]


def test_alignment_with_the_dataset(shared: Path, tmp_path: Path) -> None:
    dataset = load_dataset(shared / DERIVED_TEST_C)
    results = read_results(shared / GPT4O_COT)
    alignment = align_with_dataset(results, dataset)
    assert alignment.matched == 493 and not alignment.unknown and not alignment.missing

    data = json.loads((shared / GPT4O_COT).read_text())
    first, second = list(data)[:2]
    data["9999.99999"] = {"1": {**data[first][next(iter(data[first]))]}}
    del data[second]
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(data))
    partial = read_results(path)
    alignment = align_with_dataset(partial, dataset)
    messages = alignment.messages("test-C")
    assert alignment.unknown == [("9999.99999", "1")] and len(partial) == alignment.matched
    assert "match no question of test-C" in messages[0] and "have no result" in messages[1]

    test_a = load_dataset(shared / "spiqa/SPIQA_testA.json")
    with pytest.raises(PaperError, match="is it the right split"):
        align_with_dataset(read_results(shared / GPT4O_COT), test_a)
