"""Who is right, and why not: verdict rules, SPIQA's error taxonomy, two files compared, `compare`, exports.

The rule cases are written from the official test-C response files (GPT-4o CoT and Gemini 1.5 CoT),
with the question they come from named; the acceptance runs on both whole files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tiny_models import tiny_model

from spiqa_demo.cli import main
from spiqa_demo.evaluation import ResultRecord, read_results
from spiqa_demo.evaluation.comparison import compare_files, judge_file
from spiqa_demo.evaluation.export import markdown_report, taxonomy_chart
from spiqa_demo.evaluation.metrics.retrieval_accuracy import retrieval_accuracy
from spiqa_demo.evaluation.taxonomy import CELLS
from spiqa_demo.evaluation.verdicts import RULES, clean_answer, numbers, polarity, text_verdict, verdict

RESPONSES = "spiqa/test-C-responses"
GPT4O_COT = f"{RESPONSES}/test-C_GPT4_QA__gpt4o_cot_image+caption_size_full.json"
GEMINI_COT = f"{RESPONSES}/test-C_Gemini_QA__gemini_1-5_cot_image+caption_size_full.json"


@pytest.mark.parametrize(("answer", "truth", "right"), [
    ("11.", "12", False),  # 1806.07711/1206, Gemini: a different number, however close
    ("There are 12 of them.", "12", True),
    ("0.35", "35%", True),  # a fraction and its percentage
    ("35%", "0.35", True),
    ("The improvement in performance for Estonian in the NER task is 0.05.", "5 percent points.", True),  # 1911.10049/374
    ("The performance obtained on the SemEval dataset is an F-score of 82.10.", "F1 score of 82.10%", True),  # 1911.12569/363
    ("65.44", "F1 score of 66.66%", False),  # 1911.12569/362, Gemini
    ("The corpus has a total of 106,350 documents across five languages.", "It contains 106,350 documents", True),  # 2002.10361/1161
    ("The dataset contains 73,163 users and 106,350 documents.", "over 104k documents", False),  # 2002.10361/1163
    ("The UTCNN model has seven layers.", "eight layers", False),  # 1611.03599/416: number words are numbers
    ("The model captures the previous two turns of the dialog history: k-1 and k-2.", "two previous turns", True),  # 1701.04056/278
    ("The mean accuracy is 85.3 ± 0.2 over five runs.", "85.3", True),  # ± is the value's uncertainty
    ("The F-score is 88.7%.", "88%", False),  # 88.7 does not round to 88
    ("It reaches 88.4%.", "88%", True),  # ... but 88.4 does
])
def test_numbers_are_matched_as_numbers(answer: str, truth: str, right: bool) -> None:
    found = text_verdict(answer, truth)
    assert (found.rule, found.right) == ("number", right), found


@pytest.mark.parametrize(("answer", "truth", "right"), [
    (": Yes, sluice networks outperform non-transfer learning approaches.", "Yes", True),  # a long yes is a yes
    ("Yes.", "Yes. The paper reports a macro avg F1 of 0.7 on the held-out set.", True),  # and so is a curt one
    (": No, the data is not only in English.", "Yes", False),
    (": No, they do not.", "No", True),
    # No leading yes/no: the first sentence negates, asserts, or says the sources do not tell.
    ("The model is not state of the art, as there are other models with higher F1 scores.",
     "No, supervised models perform better for this task.", True),  # 1603.04553/448, GPT-4o
    ("Table 3 compares the DeepER approach against three other approaches: Quant, traditional NER.", "Yes", True),  # 1605.08675/504, Gemini
    ("The provided context does not contain the answer to whether crowdsourcing platforms were used.", "No", False),
    ("The image and caption do not provide information on whether the three tagging problems are tackled jointly.", "No", False),
    ("The question is unanswerable. While the caption of Image 3 mentions Twitter Sentiment Analysis...", "Yes", False),
])
def test_yes_no_questions_are_judged_by_agreement(answer: str, truth: str, right: bool) -> None:
    found = text_verdict(answer, truth)
    assert (found.rule, found.right) == ("yes/no", right), found


def test_exact_contains_token_f1_and_empty() -> None:
    assert text_verdict(": multiple choice question answering", "MULTIPLE CHOICE QUESTION ANSWERING").rule == "exact"
    contains = text_verdict("The SST-2 dataset has a larger performance drop when a 10% error is introduced.", "SST-2 dataset")
    assert (contains.rule, contains.right) == ("contains", True)  # "SST-2" is a name, not the number 2
    overlap = text_verdict("Ituorp, ProperGander and YMJA had better results than the authors.",
                           "For SLC task: Ituorp, ProperGander and YMJA teams had better results.")
    assert overlap.rule == "token-F1" and overlap.right and 0.5 <= overlap.value <= 1
    assert text_verdict(" : ", "Yes").rule == "empty"
    assert polarity("No one knows") is None and polarity("No, it does not") == "no"
    assert [n.readings[0][0] for n in numbers("SST-2 B-1: 54.11, 10k and -3.5")] == [54.11, 10000.0, -3.5]


def test_a_stored_l3score_decides_over_the_rules() -> None:
    record = ResultRecord(paper_id="1", question_key="q", question="Q?", ground_truth="12", answer="11.",
                          metrics={"L3Score": 0.8})
    assert verdict(record).rule == "L3Score" and verdict(record).right
    record.metrics["L3Score"] = 0.2
    assert not verdict(record).right


def test_stray_colon_is_stripped_for_reading_only(shared: Path) -> None:
    records = read_results(shared / GPT4O_COT).records
    assert sum(r.answer.lstrip().startswith(":") for r in records) > 400  # as SPIQA's scripts cut them (and score them)
    assert not any(clean_answer(r.answer).startswith(":") for r in records)


def test_official_files_every_question_judged_taxonomy_sums_and_retrieval_matches_score(shared: Path) -> None:
    for path in (GPT4O_COT, GEMINI_COT):
        records = read_results(shared / path).records
        judged = judge_file(path, records)
        assert len(judged.verdicts) == len(records) == 493
        assert all(v.rule in RULES and v.why for v in judged.verdicts)
        assert sum(judged.verdict_rules.values()) == 493
        found = judged.taxonomy
        assert found.told == sum(found.counts.values()) == 493 and found.figure_unknown == 0
        assert sum(sum(c.values()) for c in found.by_figure_type.values()) == 493
        right_figure = found.counts["right_figure_right_answer"] + found.counts["right_figure_wrong_answer"]
        scored = retrieval_accuracy([r.chosen_figure for r in records], [r.reference_figures for r in records])
        assert judged.retrieval_accuracy == right_figure / 493 == scored
    gpt4o = judge_file("a", read_results(shared / GPT4O_COT).records)
    assert round(gpt4o.retrieval_accuracy or 0, 5) == 0.70385


def test_questions_in_one_file_only_are_counted_apart(shared: Path) -> None:
    records = read_results(shared / GPT4O_COT).records
    a, b = judge_file("a", records[:300]), judge_file("b", records[100:])
    comparison = compare_files(a, b)
    assert len(comparison.pairs) == 200 and len(comparison.only_a) == 100 and len(comparison.only_b) == 193
    counts = comparison.counts
    assert sum(counts.values()) == 200 and counts["a_only_right"] == counts["b_only_right"] == 0  # the same answers


def test_compare_command_prints_the_counts_and_the_json_object(shared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(shared / GPT4O_COT), str(shared / GEMINI_COT), "--json"]) == 0
    out = capsys.readouterr().out
    result = json.loads(out.strip().splitlines()[-1])
    assert set(result) == {"questions", "a", "b", "comparison", "only_in_a", "only_in_b"}
    assert result["questions"] == 493 and result["only_in_a"] == result["only_in_b"] == 0
    for side in ("a", "b"):
        assert set(result[side]) == {"file", "retrieval_accuracy", "verdict_rules", "taxonomy"}
        assert sum(result[side]["verdict_rules"].values()) == sum(result[side]["taxonomy"].values()) == 493
        assert list(result[side]["taxonomy"]) == list(CELLS)
    assert round(result["a"]["retrieval_accuracy"], 3) == 0.704
    comparison = result["comparison"]
    assert list(comparison) == ["both_right", "a_only_right", "b_only_right", "both_wrong"] and sum(comparison.values()) == 493
    for name in ("right in both", "right in A, wrong in B", "right in B, wrong in A", "wrong in both"):
        assert name in out
    assert "wrong figure, wrong answer (retrieval)" in out and "█" in out


def test_compare_with_a_judge_uses_l3score(shared: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads((shared / GPT4O_COT).read_text())
    small = tmp_path / "test-C_GPT4_QA__gpt4o_cot_small.json"
    small.write_text(json.dumps({k: data[k] for k in list(data)[:2]}))
    judge = tiny_model(tmp_path_factory, "llama", reply="Yes", steps=60)
    assert main(["compare", str(small), str(small), "--judge", str(judge), "--judge-backend", "local", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    questions = result["questions"]
    assert questions > 0 and result["a"]["verdict_rules"] == {"L3Score": questions}


def test_markdown_report_has_counts_chart_and_rows(shared: Path) -> None:
    import pandas as pd

    a = judge_file("gpt4o", read_results(shared / GPT4O_COT).records)
    b = judge_file("gemini", read_results(shared / GEMINI_COT).records)
    rows = pd.DataFrame([{"question": "Which | one?", "answer A": "x"}])
    report = markdown_report([a, b], compare_files(a, b), rows, "a test")
    assert "| right in both |" in report and "Which \\| one?" in report and "A = gpt4o" in report
    assert taxonomy_chart([a, b]) in report
