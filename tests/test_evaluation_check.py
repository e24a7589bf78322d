"""The app's SPIQA check as a library: one answer about an extracted PDF scored against its SPIQA question.

Hand-built papers and a stand-in judge (the real judges are tested in test_metrics_l3score); ROUGE-L
and BLEU are the real pycocoevalcap values (Java).
"""

from __future__ import annotations

import threading

import pytest

from spiqa_demo.errors import PaperError
from spiqa_demo.evaluation.check import NO_GROUND_TRUTH, REFERENCE_NOT_FOUND, check_answer, check_paper, find_question
from spiqa_demo.evaluation.harness import each_done
from spiqa_demo.evaluation.metrics.classic import CocoMetrics, answer_scores
from spiqa_demo.evaluation.metrics.l3score import L3Result
from spiqa_demo.evaluation.spiqa import SpiqaFigure, SpiqaPaper, SpiqaQuestion
from spiqa_demo.qa import Answer
from spiqa_demo.types import Figure

TABLE = Figure(kind="table", label="Table 1", number="1", page=1, bbox=(0, 0, 1, 1))
PLOT = Figure(kind="figure", label="Figure 2", number="2", page=1, bbox=(0, 2, 1, 3))
FILES = {"1611.05742v3-Table1-1.png": TABLE, "1611.05742v3-Figure2-1.png": PLOT, "1611.05742v3-Figure3-1.png": None}


def spiqa_paper(*questions: SpiqaQuestion) -> SpiqaPaper:
    figures = {file: SpiqaFigure(file=file, caption="", kind="table" if "Table" in file else "figure",
                                 number=file.split("-")[-2][-1], page=None,
                                 figure_type="table" if "Table" in file else "plot")
               for file in FILES}
    return SpiqaPaper(paper_id="1611.05742", source_id="1611.05742v3", title="GrNet", figures=figures,
                      questions=list(questions), split="test-A")


BEST = SpiqaQuestion(key="0", question="Which method is best on PaSC2?", answer="SPDNet is best on PaSC2.",
                     references=["1611.05742v3-Table1-1.png"])


class HalfJudge:
    """A stand-in judge: every answer scores 0.5."""

    name = "stand-in"
    names = frozenset({"stand-in"})

    def score(self, question: str, ground_truth: str, candidate: str) -> L3Result:
        return L3Result(score=0.5, judge=self.name, case="both", exact=0.25)


class BrokenJudge(HalfJudge):
    def score(self, question: str, ground_truth: str, candidate: str) -> L3Result:
        raise PaperError("the judge server is down")


def answer(text: str, figure: Figure | None, source: str = "model", question: str = BEST.question) -> Answer:
    return Answer(question=question, task="cot", model="tiny", answer=text, figure=figure, figure_source=source,
                  raw_response=text, messages=["a flow note"])


def test_a_right_figure_with_a_judge_gets_every_score() -> None:
    record = check_answer(answer("SPDNet is best on PaSC2.", TABLE), spiqa_paper(BEST), BEST, FILES, HalfJudge())
    assert record.metrics["retrieval_hit"] == 1.0 and record.chosen_figure == "1611.05742v3-Table1-1.png"
    assert record.metrics["L3Score"] == 0.5 and record.metrics["L3Score-exact"] == 0.25
    assert record.l3[0].judge == "stand-in"
    assert record.metrics["ROUGE-L"] == pytest.approx(1.0) and record.metrics["BLEU-1"] == pytest.approx(1.0)
    assert record.notes == [] and record.messages == ["a flow note"]
    assert (record.paper_id, record.question_key, record.split, record.figure_category) == ("1611.05742", "0", "test-A", "table")


def test_a_wrong_or_missing_figure_and_missing_scores_are_said() -> None:
    record = check_answer(answer("Something else.", PLOT, source="retrieval"), spiqa_paper(BEST), BEST, FILES, None,
                          "L3Score needs a judge model")
    assert record.metrics["retrieval_hit"] == 0.0 and "L3Score" not in record.metrics
    assert record.notes == ["L3Score needs a judge model"] and record.metrics["ROUGE-L"] < 1.0

    record = check_answer(answer("Yes.", None, source="none"), spiqa_paper(BEST), BEST, FILES, BrokenJudge())
    assert "retrieval_hit" not in record.metrics and record.chosen_figure is None  # cannot tell
    assert record.notes == ["L3Score failed: the judge server is down"]

    unmapped = SpiqaQuestion(key="1", question="What does Figure 3 show?", answer="", references=["1611.05742v3-Figure3-1.png"])
    record = check_answer(answer("A plot.", PLOT, question=unmapped.question), spiqa_paper(unmapped), unmapped, FILES, HalfJudge())
    assert record.notes == [REFERENCE_NOT_FOUND, NO_GROUND_TRUTH] and record.metrics == {}


def test_questions_are_found_by_their_text_and_a_paper_is_checked_in_order() -> None:
    plot = SpiqaQuestion(key="1", question="What is on the x axis?", answer="Epochs.", references=["1611.05742v3-Figure2-1.png"])
    paper = spiqa_paper(BEST, plot)
    assert find_question(paper, "  which METHOD is best on pasc2 ") is BEST and find_question(paper, "Other?") is None
    asked: list[str] = []

    def ask_one(question: str) -> Answer:
        asked.append(question)
        return answer("Epochs.", PLOT, question=question)

    checked = list(check_paper(paper, FILES, ask_one, HalfJudge()))
    assert asked == [BEST.question, plot.question]
    assert [(a.question, r.question_key, r.metrics["retrieval_hit"]) for a, r in checked] == [
        (BEST.question, "0", 0.0), (plot.question, "1", 1.0)]


def test_leaving_the_loop_early_starts_no_more_work() -> None:
    release, ran_late = threading.Event(), threading.Event()
    workers: list[threading.Thread] = []

    def work(item: int) -> int:
        workers.append(threading.current_thread())
        if item == 1:
            release.wait()
        if item > 1:
            ran_late.set()
        return item

    done = each_done(list(range(5)), work)
    try:
        assert next(done) == (0, 0)
        done.close()  # e.g. the visitor left during "run all"
    finally:
        release.set()
    # Once the one worker has ended, whatever it was going to run has run.
    workers[0].join(timeout=60)
    assert not workers[0].is_alive() and not ran_late.is_set()


def test_per_answer_rouge_is_the_set_rouge_split_by_answer() -> None:
    predictions = ["SPDNet is the best.", "", "The x axis shows epochs."]
    references = ["SPDNet performs best.", "Yes.", "Epochs are on the x axis."]
    scores = answer_scores(predictions, references)
    assert [set(s) for s in scores] == [{"ROUGE-L", "BLEU-1", "BLEU-4"}] * 3
    assert scores[1] == {"ROUGE-L": 0.0, "BLEU-1": 0.0, "BLEU-4": 0.0}  # an empty answer scores 0
    kept = [0, 2]
    assert CocoMetrics(predictions, references).score(kept)["ROUGE-L"] == pytest.approx(
        sum(scores[i]["ROUGE-L"] for i in kept) / len(kept))
    assert answer_scores([], []) == []
