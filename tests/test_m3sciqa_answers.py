"""M3SciQA stage 2: combined questions, answers from the top-k cited papers, the graded judge, resuming, the report.

Scripted backends drive the parser, resume and failure tests; the plumbing runs end to end with a
tiny random local Llama answering and llama.cpp's OpenAI-compatible server judging: a tiny Llama
trained to reply a bare "0.5" (the 2-layer model does not learn the `"selection"` key reliably;
the parser reads a bare selection too), and the Yes/No judge of the L3Score tests (unparseable on
this scale: every record is kept with the reason).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_m3sciqa import CANDIDATES, _kit
from tiny_gguf import serve_gguf, served_gguf_judge, tiny_gguf_judge, write_gguf
from tiny_models import Server, tiny_llama

from evalsuite.tiny_models import tiny_model_dir
from spiqa_demo.cli import main
from spiqa_demo.crosspaper.ranking import CitationRanker
from spiqa_demo.crosspaper.replies import IDK, clean_answer, is_abstention
from spiqa_demo.crosspaper.types import AnchorFigure
from spiqa_demo.errors import BackendError, InputError, PaperError
from spiqa_demo.evaluation.analysis import load_results
from spiqa_demo.evaluation.m3sciqa import answer_report
from spiqa_demo.evaluation.m3sciqa.answer_benchmark import AnswerSettings, Ranker, run_answers
from spiqa_demo.evaluation.m3sciqa.answering import ContextPaper, answer_from_papers, chunks
from spiqa_demo.evaluation.m3sciqa.combined import CombinedData, load_combined
from spiqa_demo.evaluation.m3sciqa.judge import GradedJudge, JudgeReplyError, StoredVerdict, parse_selection
from spiqa_demo.evaluation.prompts import M3SCIQA_PROMPT_VERSION
from spiqa_demo.evaluation.reader import read_results
from spiqa_demo.models.base import Message

SELECTION_REPLY = "0.5"
QUESTIONS = [  # (anchor, reference arXiv id, visual question, combined question, reference answer)
    ("2401.00001", "1707.07250", "Which method scores 34.9?",
     "Consider the paper that introduces the method that scores 34.9. What kind of model does it introduce?",
     "A tensor fusion model."),
    ("2401.00001", "2305.06161", "Which model scores 41.0?",
     "Consider the paper that introduces the model that scores 41.0. What kind of model is it?", "A code model."),
    ("2401.00002", "2305.06161", "Which model is shown?",
     "Consider the paper that introduces the model shown. What kind of model is it?", "A code model."),
]


class Scripted:
    """A text backend whose reply comes from `reply(prompt)`; raises what `reply` raises."""

    supports_images = False
    max_images = 0
    context_tokens = 100_000

    def __init__(self, reply: Callable[[str], str], name: str = "scripted") -> None:
        self.reply = reply
        self.name = name
        self.prompts: list[str] = []

    def generate(self, messages: list[Message], max_new_tokens: int = 512, usage: object = None) -> str:
        self.prompts.append(messages[0].text)
        return self.reply(messages[0].text)

    def count_tokens(self, messages: list[Message]) -> int:
        return sum(len(m.text) // 4 for m in messages)


def combined_kit(root: Path) -> Path:
    """The stage-1 kit of test_m3sciqa plus combined_val.jsonl (the same question twice: keys stay unique)."""
    _kit(root)
    rows = [{"question": q, "answer": a, "figure": "locality/2401.00001/table.png", "anchor_arxiv_id": anchor,
             "reference_arxiv_id": ref, "modal": "table", "anchor_reasoning_type": "Data Extraction",
             "reference_reasoning_type": "Conceptual Understanding", "question_anchor": visual}
            for anchor, ref, visual, q, a in QUESTIONS]
    (root / "m3sciqa" / "data" / "combined_val.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows + rows[-1:]))
    return root


@pytest.fixture
def data(tmp_path: Path) -> CombinedData:
    return load_combined(combined_kit(tmp_path / "kit"))


def rank_by_text(data: CombinedData) -> Ranker:
    """Stage 1 without OCR: the drawn table's words given as text."""
    ranker = CitationRanker()
    return lambda q: ranker.rank(q.question_anchor, AnchorFigure(text="Method Acc TFN 34.9 StarCoder 41.0"),
                                 data.clusters[q.anchor_id])


def answer_by_abstract(prompt: str) -> str:
    """Answers from the context when it holds the needed abstract, else "I don't know"."""
    if "tensor fusion model" in prompt and "34.9" in prompt:
        return "Answer: A tensor fusion model."
    if "code model" in prompt and "41.0" in prompt:
        return "A code model."
    return "I don't know."


# --- parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(("reply", "value"), [
    ('{"selection": "1"}', 1.0), ('```json\n{"selection": "0.5"}\n```', 0.5), ("{'selection': 0}", 0.0),
    ("Selection: 1.0 because both name a tensor fusion model", 1.0), ("0.5", 0.5), ('"1"', 1.0), ("{.5}", 0.5),
])
def test_judge_replies_are_read_leniently(reply: str, value: float) -> None:
    assert parse_selection(reply) == value


@pytest.mark.parametrize(("reply", "why"), [
    ("The candidate is correct.", "no {\"selection\""), ('{"selection": "2"}', "not 1, 0.5 or 0"), ("", "no {\"selection\""),
    ("Yes", "no {\"selection\""),
])
def test_an_unparseable_judge_reply_says_why_and_quotes_it(reply: str, why: str) -> None:
    with pytest.raises(JudgeReplyError, match="unparseable judge reply") as caught:
        parse_selection(reply)
    assert why in str(caught.value) and repr(reply.strip()) in str(caught.value) and caught.value.reply == reply


def test_abstentions_and_answer_labels() -> None:
    assert all(is_abstention(a) for a in ["I don't know.", "Answer: I do not know", "i don’t know", "**I dont know**"])
    assert not any(is_abstention(a) for a in ["", "The model uses tensors.", "We know that it is a code model."])
    assert clean_answer("  Answer: A code model. ") == "A code model." and clean_answer("Final answer: 42") == "42"


def test_chunks_overlap_and_cover_the_text() -> None:
    text = "".join(chr(65 + i % 26) for i in range(25))
    pieces = chunks(text, size=10, overlap=2)
    assert pieces == [text[0:10], text[8:18], text[16:25]]
    assert chunks("short", size=10, overlap=2) == ["short"]


def test_the_prompt_says_titles_and_abstracts_only() -> None:
    backend = Scripted(answer_by_abstract)
    papers = [ContextPaper.of(c) for c in CANDIDATES[:2]] + [ContextPaper.of(CANDIDATES[5])]
    answer = answer_from_papers(backend, "What does the method scoring 34.9 introduce?", papers)
    prompt = backend.prompts[0]
    assert "titles and abstracts" in prompt and "full texts are not available" in prompt and IDK in prompt
    assert "Paper 1: Tensor Fusion Network" in prompt and "(no abstract available)" in prompt
    assert answer.answer == "A tensor fusion model." and not answer.abstained and answer.chunks == 1
    titles = answer_from_papers(Scripted(answer_by_abstract), "q", [ContextPaper.of(CANDIDATES[0], with_abstract=False)])
    assert titles.abstained and titles.answer == "I don't know."


def test_chunk_answers_skip_abstentions_and_merge() -> None:
    papers = [ContextPaper.of(c) for c in CANDIDATES[:4]]
    one = Scripted(lambda p: "I don't know" if "Tensor Fusion" not in p else "tensors")
    assert answer_from_papers(one, "q", papers, chunk_chars=120).answer == "tensors"
    assert not any(p.startswith("Several readers") for p in one.prompts)
    many = Scripted(lambda p: "merged answer" if p.startswith("Several readers") else "a partial answer")
    merged = answer_from_papers(many, "q", papers, chunk_chars=120)
    assert merged.answer == "merged answer" and merged.chunks > 1 and len(merged.replies) == merged.chunks + 1
    assert "Answer 1: a partial answer" in many.prompts[-1]
    none = answer_from_papers(Scripted(lambda p: "I don't know"), "q", papers, chunk_chars=120)
    assert none.abstained and none.answer == IDK


# --- the data ---------------------------------------------------------------------------------


def test_loader_reads_the_shared_val_questions(shared: Path) -> None:
    data = load_combined(shared / "m3sciqa")
    assert len(data.questions) == 249 and len({q.key for q in data.questions}) == 249
    assert any(q.key.endswith("-2") for q in data.questions)  # one question is stored twice
    for q in data.questions:
        assert q.answer and q.image.is_file() and q.gold_id in {c.id for c in data.clusters[q.anchor_id]}
    with pytest.raises(InputError, match="unknown M3SciQA split"):
        load_combined(shared / "m3sciqa", split="train")


def test_keys_do_not_depend_on_the_line_order(data: CombinedData, tmp_path: Path) -> None:
    path = data.root / "m3sciqa" / "data" / "combined_val.jsonl"
    path.write_text("".join(reversed(path.read_text().splitlines(keepends=True))))
    reordered = load_combined(data.root)
    assert {(q.key, q.question) for q in reordered.questions} == {(q.key, q.question) for q in data.questions}


# --- the run: answers, judge, resume ------------------------------------------------------------


def test_a_run_answers_judges_and_resumes(data: CombinedData, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    backend, judge = Scripted(answer_by_abstract), Scripted(lambda p: '{"selection": "1"}', "judge-1")
    run, records = run_answers(data, backend, out, rank=rank_by_text(data), judge=GradedJudge(judge), progress=False)
    assert run.written == 4 and run.already_done == 0 and len(records) == 4
    first = records[0]
    assert first.answer == "A tensor fusion model." and first.metrics["judge"] == 1.0 and first.metrics["abstained"] == 0.0
    assert first.metrics["retrieval_hit"] == 1.0 and first.details["gold_in_context"] and first.details["gold_rank"] <= 3
    assert len(first.details["papers"]) == 3 and first.task == "m3sciqa-ranked-top3" and first.split == "m3sciqa-val"
    assert first.details["prompt_version"] == M3SCIQA_PROMPT_VERSION
    assert "titles and abstracts only" in first.messages[0]
    calls = len(backend.prompts), len(judge.prompts)
    again, same = run_answers(data, backend, out, rank=rank_by_text(data), judge=GradedJudge(judge), progress=False)
    assert again.already_done == 4 and again.written == 0 and (len(backend.prompts), len(judge.prompts)) == calls
    assert [r.to_dict() for r in same] == [r.to_dict() for r in records]
    with pytest.raises(PaperError, match="resuming only continues the same run"):
        run_answers(data, backend, out, rank=rank_by_text(data), settings=AnswerSettings(k=1), progress=False)


def test_abstentions_are_scored_zero_without_the_judge(data: CombinedData, tmp_path: Path) -> None:
    judge = Scripted(lambda p: '{"selection": "1"}', "judge-1")
    _, records = run_answers(data, Scripted(answer_by_abstract), tmp_path / "r.jsonl", judge=GradedJudge(judge),
                             settings=AnswerSettings(context="title-only"), progress=False)
    assert all(r.metrics["abstained"] == 1.0 and r.metrics["judge"] == 0.0 for r in records)
    assert judge.prompts == [] and all(r.details["papers"][0]["abstract"] is None for r in records)
    assert all("retrieval_hit" not in r.metrics and r.task == "m3sciqa-title-only" for r in records)
    summary = answer_report.summary(records)
    assert summary["abstention_rate"] == 1.0 and summary["score"] == 0.0 and summary["score_answered"] is None


def test_an_unparseable_judge_reply_keeps_the_record_and_a_rerun_judges_it(data: CombinedData, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    backend = Scripted(lambda p: "A code model.")  # never abstains: every answer goes to the judge
    mumbling = Scripted(lambda p: "Both answers look similar to me.", "mumbler")
    run, records = run_answers(data, backend, out, rank=rank_by_text(data), judge=GradedJudge(mumbling),
                               settings=AnswerSettings(context="gold"), progress=False)
    assert run.written == 4 and run.judged == 0
    for record in records:
        assert "judge" not in record.metrics and "mumbler: unparseable judge reply" in record.error
        assert StoredVerdict.from_details(record.details) == StoredVerdict("mumbler", "Both answers look similar to me.", None)
    assert len(mumbling.prompts) == 4  # judged once each, not again at the end of the same run
    assert len(read_results(out)) == 4
    fixed = Scripted(lambda p: '{"selection": "0.5"}', "mumbler")
    again, rejudged = run_answers(data, backend, out, rank=rank_by_text(data), judge=GradedJudge(fixed),
                                  settings=AnswerSettings(context="gold"), progress=False)
    assert again.written == 0 and again.judged == 4 and len(backend.prompts) == 4
    assert all(r.metrics["judge"] == 0.5 and r.error == "" for r in rejudged)
    assert all(r.metrics["judge"] == 0.5 for r in read_results(out).records)


def test_a_judge_that_cannot_be_reached_stops_the_run_and_keeps_the_answer(data: CombinedData, tmp_path: Path) -> None:
    def down(prompt: str) -> str:
        raise BackendError("cannot reach the judge server at http://127.0.0.1:9/v1", retryable=True)

    out = tmp_path / "results.jsonl"
    with pytest.raises(PaperError, match="the judge 'down' failed: cannot reach"):
        run_answers(data, Scripted(answer_by_abstract), out, judge=GradedJudge(Scripted(down, "down")),
                    settings=AnswerSettings(context="gold"), progress=False)
    kept = read_results(out).records
    assert len(kept) == 1 and kept[0].answer and kept[0].error.startswith("judge failed")


def test_a_model_that_fails_is_not_written_and_is_retried(data: CombinedData, tmp_path: Path) -> None:
    def flaky(prompt: str) -> str:
        if "41.0" in prompt:
            raise BackendError("rate limited", retryable=True)
        return answer_by_abstract(prompt)

    out = tmp_path / "results.jsonl"
    run, records = run_answers(data, Scripted(flaky), out, rank=rank_by_text(data), progress=False)
    assert run.written == 3 and [key for key, _ in run.failures] == [data.questions[1].key]
    assert "run the same command again" in run.messages()[-1]
    again, records = run_answers(data, Scripted(answer_by_abstract), out, rank=rank_by_text(data), progress=False)
    assert again.written == 1 and len(records) == 4


def test_the_results_open_in_error_analysis(data: CombinedData, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    judge = Scripted(lambda p: '{"selection": "1"}' if "tensor" in p else '{"selection": "0"}', "judge")
    run_answers(data, Scripted(answer_by_abstract), out, rank=rank_by_text(data), judge=GradedJudge(judge), progress=False)
    results = load_results(out)
    assert results.score_column == "judge" and len(results.frame) == 4
    assert set(results.frame["retrieval"]) <= {"right", "wrong"} and set(results.frame["category"]) == {"table"}
    assert results.frame["judge"].max() == 1.0 and results.records[0].details["benchmark"] == "M3SciQA stage 2"


def test_the_report_splits_abstention_by_gold_in_context() -> None:
    from spiqa_demo.evaluation.records import ResultRecord

    def record(key: str, judge: float | None, abstained: bool, hit: bool) -> ResultRecord:
        metrics = {"abstained": float(abstained), "retrieval_hit": float(hit)} | ({} if judge is None else {"judge": judge})
        return ResultRecord("a", key, "q", "gt", "x", figure_category="figure", metrics=metrics,
                            details={"reference_reasoning_type": "Critical Analysis"})

    records = [record("1", 1.0, False, True), record("2", 0.5, False, True), record("3", 0.0, True, False),
               record("4", None, False, False)]
    s = answer_report.summary(records)
    assert s["questions"] == 4 and s["judged"] == 3 and s["unjudged"] == 1
    assert s["score"] == pytest.approx(0.5) and s["score_answered"] == pytest.approx(0.75)
    assert s["abstention_rate_gold_in_context"] == 0.0 and s["abstention_rate_gold_missing"] == 0.5
    assert s["per_reference_reasoning_type"]["Critical Analysis"]["questions"] == 4
    assert "gold in context=no" in answer_report.table(records)


# --- end to end: a tiny local model answers, llama.cpp judges ----------------------------------


@pytest.fixture(scope="module")
def served_selection_judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """llama.cpp serving a tiny Llama trained to reply "0.5" to any prompt."""
    base = tmp_path_factory.getbasetemp()
    model_dir = tiny_model_dir(base, "llama", reply=SELECTION_REPLY, steps=60)
    gguf = base / "tiny-models" / "llama-selection.gguf"
    if not gguf.exists():
        write_gguf(model_dir, gguf)
    with serve_gguf(gguf, "tiny-selection", base / "llama-cpp-selection.log") as server:
        yield server


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, json.loads(out.strip().splitlines()[-1]) if code == 0 else {}, out + err


def test_cli_with_a_tiny_local_model_and_a_llamacpp_judge(
    tiny_llama: Path, served_selection_judge: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kit, out = combined_kit(tmp_path / "kit"), tmp_path / "results.jsonl"
    args = ["bench-m3sciqa-answers", "--data", str(kit), "--out", str(out), "--backend", "local", "--model", str(tiny_llama),
            "--judge-model", served_selection_judge.model, "--judge-url", served_selection_judge.base_url, "--json"]
    code, summary, text = _cli(args, capsys)
    assert code == 0, text
    assert summary["questions"] == 4 and summary["judges"] in ([], ["tiny-selection"])
    assert summary["text"] == "titles and abstracts only" and "titles and abstracts only" in text
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    for row in rows:  # a random model's reply is never "I don't know": every answer goes to the judge
        assert row["metrics"]["judge"] == 0.5 and row["details"]["judge"]["reply"].strip() == SELECTION_REPLY
    assert summary["score"] == 0.5 and summary["judged"] == 4 and summary["abstention_rate"] == 0.0
    code, again, text = _cli(args, capsys)
    assert code == 0 and "0 question(s) answered now, 4 already there" in text and again["score"] == 0.5
    assert load_results(out).score_column == "judge"


def test_cli_keeps_every_record_when_the_judge_replies_off_scale(
    tiny_llama: Path, served_gguf_judge: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kit, out = combined_kit(tmp_path / "kit"), tmp_path / "results.jsonl"
    code, summary, text = _cli(["bench-m3sciqa-answers", "--data", str(kit), "--out", str(out), "--backend", "local",
                                "--model", str(tiny_llama), "--judge-model", served_gguf_judge.model,
                                "--judge-url", served_gguf_judge.base_url, "--context", "gold", "--limit", "2", "--json"],
                               capsys)
    assert code == 0, text
    assert summary["questions"] == 2 and summary["judged"] == 0 and summary["judge_errors"] == 2 and summary["score"] is None
    assert "tiny-judge: unparseable judge reply" in text
    assert all("unparseable judge reply" in r.error for r in read_results(out).records)


def test_cli_refuses_a_folder_of_another_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-m3sciqa-answers", "--data", str(tmp_path), "--out", str(tmp_path / "r.jsonl"),
                 "--backend", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]) == 2
    assert "layout of shared/m3sciqa" in capsys.readouterr().err
