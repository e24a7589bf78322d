"""L3Score with an OpenAI-compatible judge that returns log-probs: llama.cpp's server on 127.0.0.1.

The judge is a tiny Llama converted to GGUF (tests/tiny_gguf.py) and served by `python -m
llama_cpp.server`; the project's `OpenAIBackend` asks it for `top_logprobs=5`, exactly as it would ask
GPT-4o. The same weights loaded by transformers give the reference distribution, so the server's
log-probs are checked for correctness, not just shape.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from tiny_gguf import served_gguf_judge, tiny_gguf_judge
from tiny_models import Server

from spiqa_demo.cli import main
from spiqa_demo.evaluation.metrics.l3score import CANDIDATES, L3Judge, l3_prompt, load_judge
from spiqa_demo.evaluation.records import ResultRecord
from spiqa_demo.models import load_backend
from spiqa_demo.models.base import Message, TokenLogprob
from spiqa_demo.models.openai_api import OpenAIBackend
from spiqa_demo.settings import Settings

CASES = [
    ("Is the proposed method better than the baseline?", "Yes, by 3 points of F1.", "Yes."),
    ("What is plotted on the x axis of Figure 2?", "The number of training epochs.", "Accuracy (%) over 100 epochs"),
]


def judge_messages(question: str, ground_truth: str, candidate: str) -> list[Message]:
    return [Message("user", [l3_prompt(question, ground_truth, candidate)])]


def by_hand(top: list[TokenLogprob]) -> float:
    """SPIQA's reference rule, written out: first yes-side and first no-side token of the top-5, then the ratio."""
    p_yes = next(math.exp(t.logprob) for t in top if t.token.strip().lower() in ("yes", "yeah"))
    p_no = next(math.exp(t.logprob) for t in top if t.token.strip().lower() == "no")
    return p_yes / (p_yes + p_no)


@pytest.fixture(scope="module")
def api_judge(served_gguf_judge: Server) -> OpenAIBackend:
    backend = load_backend(backend="openai", model=served_gguf_judge.model, base_url=served_gguf_judge.base_url,
                           max_images=0)
    assert isinstance(backend, OpenAIBackend)
    return backend


def test_the_server_returns_well_formed_top5_logprobs(api_judge: OpenAIBackend) -> None:
    reply = api_judge.next_token_logprobs(judge_messages(*CASES[0]), candidates=CANDIDATES, top_k=5)
    assert reply.note == "" and reply.model == "tiny-judge"
    assert len(reply.top) == 5 and len({t.token for t in reply.top}) == 5
    logprobs = [t.logprob for t in reply.top]
    assert all(isinstance(t.token, str) and math.isfinite(t.logprob) and t.logprob <= 0 for t in reply.top)
    assert logprobs == sorted(logprobs, reverse=True) and sum(math.exp(lp) for lp in logprobs) <= 1 + 1e-6
    # An API reports exact values only for the candidates it returned in its top-k.
    assert {"Yes", "No"} <= set(reply.candidates) and set(reply.candidates) <= {t.token for t in reply.top}


@pytest.mark.parametrize("case", CASES)
def test_server_logprobs_are_the_models_own(
    api_judge: OpenAIBackend, tiny_gguf_judge: tuple[Path, Path], case: tuple[str, str, str]
) -> None:
    """llama.cpp's top-5 equals the top-5 of the same weights run by transformers (the GGUF conversion is exact)."""
    model_dir, _ = tiny_gguf_judge
    local = load_backend(backend="local", model=str(model_dir))
    assert local is not None
    served = api_judge.next_token_logprobs(judge_messages(*case), top_k=5).top
    reference = local.next_token_logprobs(judge_messages(*case), top_k=5).top
    assert [t.token for t in served] == [t.token for t in reference]
    assert [t.logprob for t in served] == pytest.approx([t.logprob for t in reference], abs=1e-3)


@pytest.mark.parametrize("case", CASES)
def test_l3score_from_the_server_equals_the_hand_computation(api_judge: OpenAIBackend, case: tuple[str, str, str]) -> None:
    result = L3Judge(api_judge).score(*case)
    assert result.judge == "tiny-judge" and result.case == "both" and result.exact is None
    assert len(result.top) == 5
    assert result.score == pytest.approx(by_hand(result.top), rel=1e-12)
    assert 0.5 < result.score < 1  # this judge leans to Yes (Yes ~0.05, No ~0.02 of the first token)


def test_load_judge_picks_the_openai_backend_from_a_base_url(served_gguf_judge: Server) -> None:
    judge = load_judge(Settings(), model=served_gguf_judge.model, base_url=served_gguf_judge.base_url)
    assert judge is not None and isinstance(judge.backend, OpenAIBackend)
    assert judge.score(*CASES[1]).case == "both"


def test_score_command_with_the_llamacpp_judge(served_gguf_judge: Server, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.jsonl"
    records = [ResultRecord(paper_id="1611.05742", question_key=f"q{i}", question=q, ground_truth=gt, answer=answer,
                            split="test-A", task="direct", model="some-model")
               for i, (q, gt, answer) in enumerate([*CASES, ("Which table reports F1?", "Table 2.", "")])]
    results.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in records))
    scored = tmp_path / "scored.jsonl"
    code = main(["score", "--responses", str(results), "--judge", served_gguf_judge.model, "--judge-backend", "openai",
                 "--judge-base-url", served_gguf_judge.base_url, "--out", str(scored), "--no-bertscore", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    rows = [json.loads(line) for line in scored.read_text().splitlines()]
    verdicts = {r["question_key"]: r["l3"][0] for r in rows}
    assert all(v["judge"] == "tiny-judge" for v in verdicts.values())
    assert verdicts["q2"]["case"] == "empty" and verdicts["q2"]["score"] == 0.0  # an empty answer is not judged
    expected = [by_hand([TokenLogprob(tok, lp) for tok, lp in verdicts[k]["top"]]) for k in ("q0", "q1")]
    assert summary["judge"] == "tiny-judge" and "L3Score-exact" not in summary
    assert summary["L3Score"] == pytest.approx((sum(expected) + 0.0) / 3, rel=1e-9)
    assert "L3Score" in out
