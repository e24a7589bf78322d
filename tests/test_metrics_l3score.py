"""L3Score: the reference implementation's four cases, by hand and as properties over random top-5 lists."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from spiqa_demo.errors import BackendError, PaperError
from spiqa_demo.evaluation.metrics.l3score import (
    CANDIDATES,
    L3Judge,
    l3_prompt,
    score_exact,
    score_top_logprobs,
)
from spiqa_demo.models.base import NextTokenLogprobs, TokenLogprob


def top(*pairs: tuple[str, float]) -> list[TokenLogprob]:
    """A top-k list from (token, probability) pairs."""
    return [TokenLogprob(tok, math.log(p)) for tok, p in pairs]


# ---- hand cases -------------------------------------------------------------------------------


def test_prompt_is_the_papers_appendix_f_prompt() -> None:
    assert l3_prompt("Q?", "GT.", "Cand.") == (
        "You are given a question, ground-truth answer, and a candidate answer. Question: Q? \n"
        "Ground-truth answer: GT. \nCandidate answer: Cand. \n"
        "Is the semantic meaning of the ground-truth and candidate answers similar? "
        "Answer in one word - Yes or No."
    )


def test_both_present_is_the_ratio() -> None:
    value, case = score_top_logprobs(top(("Yes", 0.6), ("No", 0.3), ("The", 0.05)))
    assert case == "both"
    assert value == pytest.approx(0.6 / 0.9)


def test_tokens_are_stripped_and_lowered_and_yeah_counts_as_yes() -> None:
    assert score_top_logprobs(top((" YES\n", 0.5), (" no ", 0.5)))[0] == pytest.approx(0.5)
    assert score_top_logprobs(top(("Yeah", 0.2), ("NO", 0.6)))[0] == pytest.approx(0.25)
    # "Yes." and "nope" are different tokens: neither side.
    assert score_top_logprobs(top(("Yes.", 0.5), ("nope", 0.4))) == (0.0, "neither")


def test_highest_ranked_match_is_used_without_summing() -> None:
    value, _ = score_top_logprobs(top(("Yes", 0.5), ("No", 0.2), ("yes", 0.15), (" no", 0.1), ("yeah", 0.04)))
    assert value == pytest.approx(0.5 / 0.7)


def test_only_yes_uses_the_smaller_of_lowest_and_remaining_probability() -> None:
    # remaining 1 - 0.995 = 0.005 < lowest 0.01
    value, case = score_top_logprobs(top(("Yes", 0.9), ("A", 0.05), ("B", 0.02), ("C", 0.015), ("D", 0.01)))
    assert case == "yes_only"
    assert value == pytest.approx(0.9 / (0.9 + 0.005))
    # lowest 0.01 < remaining 0.5
    value, _ = score_top_logprobs(top(("Yes", 0.4), ("A", 0.05), ("B", 0.02), ("C", 0.02), ("D", 0.01)))
    assert value == pytest.approx(0.4 / 0.41)


def test_only_no_mirrors_only_yes() -> None:
    value, case = score_top_logprobs(top(("No", 0.7), ("A", 0.1), ("B", 0.1), ("C", 0.05), ("D", 0.02)))
    assert case == "no_only"
    assert value == pytest.approx(0.02 / 0.72)


def test_missing_probability_is_floored() -> None:
    # The top-5 sum to (slightly over) 1: the remaining probability is <= 0, floored at 1e-8.
    value, _ = score_top_logprobs(top(("Yes", 0.999999), ("A", 1e-6), ("B", 1e-6), ("C", 1e-6), ("D", 1e-6)))
    assert value == pytest.approx(0.999999 / (0.999999 + 1e-8))
    value, _ = score_top_logprobs(top(("No", 0.999999), ("A", 1e-6), ("B", 1e-6), ("C", 1e-6), ("D", 1e-6)))
    assert value == pytest.approx(1e-8 / (0.999999 + 1e-8))


def test_neither_is_zero_and_no_logprobs_is_an_error() -> None:
    assert score_top_logprobs(top(("The", 0.5), ("Maybe", 0.3))) == (0.0, "neither")
    with pytest.raises(PaperError, match=r"no log-probabilities"):
        score_top_logprobs([])


def test_exact_value_needs_every_candidate() -> None:
    everything = {c: math.log(1e-6) for c in CANDIDATES}
    everything.update({"Yes": math.log(0.3), " yes": math.log(0.1), "No": math.log(0.1)})
    assert score_exact(everything) == pytest.approx(0.75)
    assert score_exact({"Yes": math.log(0.3), "No": math.log(0.1)}) is None  # an API's partial view


# ---- properties over random top-5 lists ---------------------------------------------------------

YES = ["Yes", " yes", "YES", "yeah", " Yeah "]
NO = ["No", " no", "NO ", "no"]
OTHER = ["The", "Maybe", "Yes.", "nope", "I", " ", "Y", "n"]


@st.composite
def top5(draw: st.DrawFn) -> list[TokenLogprob]:
    """A sorted top-5 list whose probabilities sum to at most 1."""
    tokens = draw(st.lists(st.sampled_from(YES + NO + OTHER), min_size=5, max_size=5))
    weights = draw(st.lists(st.floats(1e-6, 1.0), min_size=6, max_size=6))  # 6th: the rest
    total = sum(weights)
    probs = sorted((w / total for w in weights[:5]), reverse=True)
    return [TokenLogprob(t, math.log(p)) for t, p in zip(tokens, probs)]


def _side(tokens: list[TokenLogprob], words: set[str]) -> float | None:
    return next((math.exp(t.logprob) for t in tokens if t.token.strip().lower() in words), None)


@settings(max_examples=300, deadline=None)
@given(top5())
def test_score_is_a_probability_and_follows_its_case(tokens: list[TokenLogprob]) -> None:
    value, case = score_top_logprobs(tokens)
    assert 0.0 <= value <= 1.0
    p_yes, p_no = _side(tokens, {"yes", "yeah"}), _side(tokens, {"no"})
    probs = [math.exp(t.logprob) for t in tokens]
    missing = max(min(probs[-1], 1 - sum(probs)), 1e-8)
    if p_yes is None and p_no is None:
        assert (value, case) == (0.0, "neither")
    elif p_yes is not None and p_no is not None:
        assert case == "both" and value == pytest.approx(p_yes / (p_yes + p_no))
    elif p_yes is not None:
        assert case == "yes_only" and value == pytest.approx(p_yes / (p_yes + missing))
    else:
        assert case == "no_only" and value == pytest.approx(missing / (missing + p_no))


@settings(max_examples=300, deadline=None)
@given(top5(), st.integers(0, 4), st.sampled_from(YES), st.floats(0.0, 1.0))
def test_score_is_monotone_in_p_yes(tokens: list[TokenLogprob], position: int, yes: str, t: float) -> None:
    """Raising the best yes token's probability (order and total kept valid) never lowers the score."""
    # Put the best yes token at `position`: no yes-side token ranks above it.
    tokens = [
        TokenLogprob(tok.token if tok.token.strip().lower() not in {"yes", "yeah"} else "No", tok.logprob)
        if i < position
        else TokenLogprob(yes if i == position else tok.token, tok.logprob)
        for i, tok in enumerate(tokens)
    ]
    probs = [math.exp(tok.logprob) for tok in tokens]
    # The yes probability may rise up to its upper neighbour and up to what keeps the sum <= 1.
    ceiling = min(probs[position - 1] if position else 1.0, probs[position] + (1.0 - sum(probs)))
    assume(ceiling > probs[position])
    before, _ = score_top_logprobs(tokens)
    tokens[position].logprob = math.log(probs[position] + t * (ceiling - probs[position]))
    after, _ = score_top_logprobs(tokens)
    assert after >= before - 1e-12


# ---- the judge over a ModelBackend --------------------------------------------------------------


class ScriptedBackend:
    """A backend whose next-token distribution is given (unit tests; real models in test_evaluation)."""

    supports_images = False
    max_images = None
    context_tokens = 4096

    def __init__(self, name: str, reply: NextTokenLogprobs) -> None:
        self.name = name
        self.reply = reply
        self.prompts: list[str] = []

    def next_token_logprobs(self, messages, candidates=None, top_k=5):
        self.prompts.append(messages[0].text)
        assert top_k == 5 and candidates == CANDIDATES
        return self.reply


def test_judge_scores_and_records_its_name() -> None:
    backend = ScriptedBackend("gpt-4o", NextTokenLogprobs(top(("Yes", 0.8), ("No", 0.2)), model="gpt-4o-2024"))
    result = L3Judge(backend).score("Q?", "GT", "candidate")
    assert result.score == pytest.approx(0.8) and result.judge == "gpt-4o" and result.exact is None
    assert "Candidate answer: candidate" in backend.prompts[0]
    assert result.to_dict()["top"][0] == ["Yes", pytest.approx(math.log(0.8))]


def test_judge_reports_the_exact_value_of_a_local_model() -> None:
    candidates = {c: math.log(1e-4) for c in CANDIDATES} | {"Yes": math.log(0.5), "No": math.log(0.4)}
    backend = ScriptedBackend("tiny", NextTokenLogprobs(top(("Yes", 0.5), ("No", 0.4)), candidates=candidates))
    result = L3Judge(backend).score("Q?", "GT", "candidate")
    assert result.exact == pytest.approx(0.5 / 0.9)


def test_empty_candidate_scores_zero_without_a_call() -> None:
    backend = ScriptedBackend("j", NextTokenLogprobs(top(("Yes", 1.0))))
    assert L3Judge(backend).score("Q?", "GT", "  ").case == "empty"
    assert backend.prompts == []


def test_judge_without_logprobs_says_so_and_falls_back_only_when_asked() -> None:
    silent = ScriptedBackend("served", NextTokenLogprobs([], note="the server ignored top_logprobs"))
    with pytest.raises(BackendError, match=r"'served' returned no log-probabilities .the server ignored") as caught:
        L3Judge(silent).score("Q?", "GT", "answer")
    assert not caught.value.retryable  # the same server answers the same way
    local = ScriptedBackend("local", NextTokenLogprobs(top(("No", 0.9), ("Yes", 0.1))))
    judge = L3Judge(silent, fallback=local)
    assert judge.score("Q?", "GT", "answer").judge == "local"
    assert judge.score("Q?", "GT", "answer").judge == "local"  # sticky: one run, one judge
    assert len(silent.prompts) == 2
