"""L3Score: the SPIQA paper's log-probability answer metric, as its reference implementation computes it.

A judge model reads the question, the ground-truth answer and the candidate answer (the prompt of
the paper's Appendix F) and is asked for one word, Yes or No. From the top-5 log-probabilities of
its first token (temperature 0), the highest-ranked "yes"-side token ({"yes", "yeah"} after
strip + lower) and "no"-side token ({"no"}) give p_yes and p_no, and the score is
p_yes / (p_yes + p_no). Neither in the top-5: 0. Only one: the missing probability is
min(lowest top-5 probability, 1 - sum of the top-5), floored at 1e-8. Scores are in [0, 1]; the
paper reports the plain mean x100.

A local judge also knows the full next-token distribution: `L3Result.exact` is the same ratio from
the exact probabilities of the best yes-side and no-side tokens (no top-5 approximation). Scores
from different judges are not comparable, so every result carries the judge's model name.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from spiqa_demo.errors import BackendError, InputError
from spiqa_demo.evaluation.prompts import L3SCORE_PROMPT, L3SCORE_PROMPT_VERSION
from spiqa_demo.models.base import Message, ModelBackend, TokenLogprob
from spiqa_demo.settings import EvaluationSettings, Settings

YES_TOKENS = frozenset({"yes", "yeah"})
NO_TOKENS = frozenset({"no"})
TOP_K = 5
MISSING_PROB_FLOOR = 1e-8
# Spellings whose exact first-token log-probability a local judge is asked for.
CANDIDATES = [
    f"{space}{word}"
    for word in ("Yes", "yes", "YES", "Yeah", "yeah", "No", "no", "NO")
    for space in ("", " ")
]

Case = Literal["both", "yes_only", "no_only", "neither", "empty"]


@dataclass
class L3Result:
    """One L3Score: `score` (paper-compatible, top-5) and `exact` (full distribution, local judges).

    `prompt_version` names the judge prompt's wording ("" in verdicts stored before it was recorded).
    """

    score: float
    judge: str
    case: Case
    exact: float | None = None
    top: list[TokenLogprob] = field(default_factory=list)
    prompt_version: str = L3SCORE_PROMPT_VERSION

    def to_dict(self) -> dict[str, Any]:
        """The JSON form result files keep: `top` as [token, log-probability] pairs."""
        return {
            "score": self.score,
            "exact": self.exact,
            "judge": self.judge,
            "case": self.case,
            "top": [[t.token, t.logprob] for t in self.top],
            "prompt_version": self.prompt_version,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> L3Result:
        """A verdict from `to_dict` output; ValueError when it is not one."""
        if not isinstance(data, dict):
            raise ValueError(f"an L3Score verdict is {type(data).__name__}, not an object")
        missing = [k for k in ("score", "judge", "case") if k not in data]
        if missing:
            raise ValueError(f"an L3Score verdict misses {', '.join(missing)}")
        if data["case"] not in get_args(Case):
            raise ValueError(f"an L3Score verdict has the unknown case {data['case']!r}")
        exact = data.get("exact")
        return cls(
            score=float(data["score"]),
            judge=str(data["judge"]),
            case=data["case"],
            exact=None if exact is None else float(exact),
            top=[TokenLogprob(str(token), float(logprob)) for token, logprob in data.get("top") or []],
            prompt_version=str(data.get("prompt_version", "")),
        )


def l3_prompt(question: str, ground_truth: str, candidate: str) -> str:
    """The judge prompt of the SPIQA paper (Appendix F)."""
    return L3SCORE_PROMPT.format(question=question, ground_truth=ground_truth, candidate=candidate)


def _normalize(token: str) -> str:
    return token.strip().lower()


def _ratio(logp_yes: float, logp_no: float) -> float:
    """p_yes / (p_yes + p_no) computed in log space (log-softmax, as the reference does)."""
    top = max(logp_yes, logp_no)
    if top == -math.inf:
        return 0.0
    return math.exp(logp_yes - (top + math.log(math.exp(logp_yes - top) + math.exp(logp_no - top))))


def score_top_logprobs(top: Sequence[TokenLogprob]) -> tuple[float, Case]:
    """The L3Score of one judge reply from its first token's top-k list, and which case applied."""
    if not top:
        raise BackendError("the judge returned no log-probabilities for its first token", retryable=False)
    ranked = sorted(top, key=lambda t: t.logprob, reverse=True)  # APIs already sort; be sure
    yes = next((t.logprob for t in ranked if _normalize(t.token) in YES_TOKENS), None)
    no = next((t.logprob for t in ranked if _normalize(t.token) in NO_TOKENS), None)
    if yes is not None and no is not None:
        return _ratio(yes, no), "both"
    if yes is None and no is None:
        return 0.0, "neither"
    probs = [math.exp(t.logprob) for t in ranked]
    missing = math.log(max(min(probs[-1], 1.0 - sum(probs)), MISSING_PROB_FLOOR))
    if no is None:
        assert yes is not None  # both absent returned above
        return _ratio(yes, missing), "yes_only"
    return _ratio(missing, no), "no_only"


def score_exact(candidates: dict[str, float]) -> float | None:
    """The ratio from the exact log-probabilities of the best yes-side and no-side spellings.

    Only a backend that knows the full distribution (a local model) reports every candidate; APIs
    report only those in their top-k, which is no exact value, so the result is None then.
    """
    if not set(CANDIDATES) <= candidates.keys():
        return None
    yes = [lp for tok, lp in candidates.items() if _normalize(tok) in YES_TOKENS]
    no = [lp for tok, lp in candidates.items() if _normalize(tok) in NO_TOKENS]
    return _ratio(max(yes), max(no))


class L3Judge:
    """Scores candidate answers with a judge `ModelBackend` (an API with log-probs, or a local model).

    `fallback` is used only when the judge returns no log-probabilities (and only when the user
    asked for it); the switch is sticky, so one run is scored by one judge. Without a fallback, a
    judge without log-probabilities is an error with a message saying what to do.
    """

    def __init__(self, backend: ModelBackend, fallback: ModelBackend | None = None) -> None:
        self.backend = backend
        self.fallback = fallback
        self._switch = threading.Lock()

    @property
    def name(self) -> str:
        """The model name recorded with every score."""
        return self.backend.name

    @property
    def names(self) -> set[str]:
        """Every name this judge's verdicts may carry (its own, and its fallback's)."""
        return {self.backend.name} | ({self.fallback.name} if self.fallback is not None else set())

    def score(self, question: str, ground_truth: str, candidate: str) -> L3Result:
        """The L3Score of `candidate` against `ground_truth`; an empty candidate scores 0 unjudged."""
        if not candidate.strip():
            return L3Result(score=0.0, judge=self.name, case="empty")
        messages = [Message("user", [l3_prompt(question, ground_truth, candidate)])]
        backend = self.backend
        reply = backend.next_token_logprobs(messages, candidates=CANDIDATES, top_k=TOP_K)
        if not reply.top:
            with self._switch:  # concurrent callers switch once
                if self.backend is backend and self.fallback is not None:
                    self.backend, self.fallback = self.fallback, None
            if self.backend is not backend:
                backend = self.backend
                reply = backend.next_token_logprobs(messages, candidates=CANDIDATES, top_k=TOP_K)
        if not reply.top:
            why = f" ({reply.note})" if reply.note else ""
            raise BackendError(
                f"the judge {backend.name!r} returned no log-probabilities{why}, which L3Score needs: use a "
                "server that returns top_logprobs (OpenAI, vLLM, llama.cpp server, Ollama) or ask for "
                "the local judge fallback (--judge-fallback MODEL)",
                retryable=False,
            )
        value, case = score_top_logprobs(reply.top)
        exact = score_exact(reply.candidates)
        return L3Result(score=value, judge=backend.name, case=case, exact=exact, top=list(reply.top[:TOP_K]))


def judge_kind(judging: EvaluationSettings, base_url: str) -> str:
    """The judge's backend: SPIQA_JUDGE_BACKEND, else an API with a base URL and a local model without."""
    return judging.judge_backend or ("openai" if base_url else "local")


def load_judge(
    settings: Settings,
    model: str | None = None,
    backend: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    fallback: str | None = None,
    untrusted: bool = False,
) -> L3Judge | None:
    """The configured judge (arguments override `settings.evaluation`'s judge), or None when none is set.

    The judge never inherits the answering model's server: without a judge base URL it is a local
    model (a hub id or a folder); with one, an OpenAI-compatible API. `api_key` is the key to send
    ("": none); without it, the operator's key for the endpoint it was configured for. `untrusted`: as
    in `load_backend`.
    """
    from spiqa_demo.models import load_backend
    from spiqa_demo.models.endpoints import operator_key, same_endpoint
    judging, answering = settings.evaluation, settings.models
    model = model or judging.judge_model
    if not model:
        return None
    base_url = base_url if base_url is not None else judging.judge_base_url
    kind = backend or judge_kind(judging, base_url)
    if kind not in ("local", "openai"):
        raise InputError(f"unknown judge backend {kind!r}: use local or openai")
    # Operator keys go only to the endpoints the operator configured them for.
    judge_url = base_url if kind == "openai" else ""
    judge_key = judging.judge_api_key.get_secret_value() or answering.api_key.get_secret_value()
    key = api_key if api_key is not None else operator_key(judge_url, [(judging.judge_base_url, judge_key),
                                              (answering.base_url, answering.api_key.get_secret_value())])
    # The judge's configured endpoint is the operator's as much as the answering model's: the
    # operator's organisation and project (`load_backend`) go there too.
    home = answering.with_overrides(base_url=judging.judge_base_url) if (
        kind == "openai" and judging.judge_base_url and same_endpoint(judge_url, judging.judge_base_url)) else answering
    judge = load_backend(home, untrusted, backend=kind, model=model, base_url=base_url, api_key=key, max_images=0)
    fallback = fallback or judging.judge_fallback
    spare = load_backend(answering, backend="local", model=fallback, base_url="", max_images=0) if fallback else None
    assert judge is not None
    return L3Judge(judge, fallback=spare)
