"""The question-answering flows: SPIQA's tasks and ablations, plus retrieval only when no model answers.

- `cot` (the main flow): the top-k retrieved figures/tables (k <= 8, SPIQA's protocol) are shown
  as "Image i" with captions; the model picks the most helpful one, says why, and answers.
- `direct`: all figures and tables (up to `max_prompt_images`, best-retrieved first) with captions;
  the model answers in `{'Answer': ...}` form.
- `full`: the paper's text (cut to the model's context, with a visible note) plus the figures;
  text-only models get the figures as captions.
- `caption-only`, `image-only`: `direct` with the captions alone (any model, text-only included) or
  the images alone: SPIQA's ablations of what the figures' captions contribute.
- no model (or the model failed): the best retrieved figure with its caption, and a message.
Models that read one image per prompt get SPIQA's open-model protocol automatically: each candidate
is judged alone ("is this image and caption helpful? Yes or No", scored by P(Yes)), then the model
answers from the best one.

`ask` returns an `Answer`; `ask_stream` yields the reply's text as it is generated, then the
`Answer`. Bad input raises `PaperError` (an empty question); everything that goes wrong with the
model ends up in `Answer.messages`, and the retrieved figure is always there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, replace
from time import perf_counter

from spiqa_demo.errors import PaperError
from spiqa_demo.models.base import Message, ModelBackend, Usage, closed_after
from spiqa_demo.models.stopping import Stopped
from spiqa_demo.qa import prompts
from spiqa_demo.qa.answer import TASKS, Answer, Candidate, Task
from spiqa_demo.qa.parsing import clean_answer, parse_cot, parse_direct
from spiqa_demo.questions import SPIQA_MAX_CANDIDATES, check_k, check_question
from spiqa_demo.settings import QASettings
from spiqa_demo.types import Figure, Paper

# (paper, question, k) -> the k best figures/tables, best first, with their retrieval scores.
Shortlister = Callable[[Paper, str, int], list[Candidate]]

CONTEXT_MARGIN_TOKENS = 16  # chat-template tokens a count may miss

Steps = Generator[str, None, None]  # a flow step: yields streamed text, returns when done


@dataclass
class _Options:
    question: str
    k: int
    use_captions: bool
    max_new_tokens: int
    max_prompt_images: int
    stream: bool


def ask(
    paper: Paper,
    question: str,
    backend: ModelBackend | None,
    *,
    task: Task = "cot",
    k: int | None = None,
    shortlist: Shortlister | None = None,
    use_captions: bool | None = None,
    max_new_tokens: int | None = None,
    notice: str = "",
    settings: QASettings | None = None,
) -> Answer:
    """Answer `question` about `paper` with `backend` (None: retrieval only; `notice` says why)."""
    events = _run(paper, question, backend, task, k, shortlist, use_captions, max_new_tokens, notice, settings, False)
    return _last(events)


def ask_stream(
    paper: Paper,
    question: str,
    backend: ModelBackend | None,
    *,
    task: Task = "cot",
    k: int | None = None,
    shortlist: Shortlister | None = None,
    use_captions: bool | None = None,
    max_new_tokens: int | None = None,
    notice: str = "",
    settings: QASettings | None = None,
) -> Generator[str | Answer, None, None]:
    """Like `ask`, streaming: yields the model's reply as text chunks, then the final `Answer`."""
    return _run(paper, question, backend, task, k, shortlist, use_captions, max_new_tokens, notice, settings, True)


def _last(events: Iterator[str | Answer]) -> Answer:
    result = None
    for event in events:
        result = event
    assert isinstance(result, Answer)
    return result


def _run(
    paper: Paper,
    question: str,
    backend: ModelBackend | None,
    task: Task,
    k: int | None,
    shortlist: Shortlister | None,
    use_captions: bool | None,
    max_new_tokens: int | None,
    notice: str,
    settings: QASettings | None,
    stream: bool,
) -> Generator[str | Answer, None, None]:
    started = perf_counter()
    settings = settings or QASettings()
    if task not in TASKS:
        raise PaperError(f"unknown task {task!r}: use one of {', '.join(TASKS)}")
    checked = check_question(question, settings)
    question = checked.text
    messages = checked.notes
    k = check_k(settings.shortlist_k if k is None else k)
    if k > SPIQA_MAX_CANDIDATES:
        messages.append(f"SPIQA shows at most {SPIQA_MAX_CANDIDATES} candidate figures: using {SPIQA_MAX_CANDIDATES}")
        k = SPIQA_MAX_CANDIDATES
    options = _Options(
        question=question,
        k=k,
        use_captions=settings.use_captions if use_captions is None else use_captions,
        max_new_tokens=max_new_tokens or settings.max_new_tokens,
        max_prompt_images=max(1, settings.max_prompt_images),
        stream=stream,
    )
    answer = Answer(
        question=question,
        task=task,
        model=backend.name if backend is not None else None,
        prompt_version=prompts.PROMPT_VERSION,
        messages=messages,
    )
    if notice:
        messages.append(notice)

    ranking = _rank(paper, question, shortlist, answer)
    answer.candidates = ranking[:k]
    if not paper.items:
        messages.append("no figures or tables were found in this paper")
    if backend is None:
        if not notice:
            messages.append("no model is configured: showing the most relevant figure (retrieval only)")
    else:
        flow = _FLOWS[task]
        if task == "image-only":
            options = replace(options, use_captions=False)
        try:
            yield from flow(answer, paper, ranking, backend, options)
        except Stopped:
            raise  # nobody waits for this answer
        except PaperError as exc:
            messages.append(f"the model could not answer: {exc}")
        answer.answered = bool(answer.answer)
    answer.timings["total"] = perf_counter() - started
    yield answer


def _rank(paper: Paper, question: str, shortlist: Shortlister | None, answer: Answer) -> list[Candidate]:
    """Every figure/table, best first; the best one is the evidence until a model picks another."""
    if not paper.items:
        return []
    if shortlist is None:
        from spiqa_demo.qa.shortlist import retrieval_shortlist

        shortlist = retrieval_shortlist()
    started = perf_counter()
    ranking = shortlist(paper, question, len(paper.items))
    answer.timings["retrieval"] = perf_counter() - started
    if ranking:
        answer.figure, answer.figure_source = ranking[0].figure, "retrieval"
    return ranking


# ---- the tasks


def _cot(answer: Answer, paper: Paper, ranking: list[Candidate], backend: ModelBackend, o: _Options) -> Steps:
    if not ranking:
        return
    _require_images(backend, "the CoT task")
    shown = ranking[: o.k]
    if backend.max_images == 1:
        yield from _one_image_per_turn(answer, shown, backend, o)
        return
    shown = _cap_images(shown, backend, answer)
    shown, request = _fit(backend, shown, lambda items: prompts.cot_messages(o.question, items, o.use_captions), o, answer)
    answer.candidates = shown
    raw = yield from _generate(backend, request, o, answer)
    reply = parse_cot(raw)
    answer.answer, answer.rationale, answer.parse, answer.chosen_index = (
        reply.answer, reply.rationale, reply.method, reply.image
    )
    if reply.image is not None and 0 <= reply.image < len(shown):
        answer.figure, answer.figure_source = shown[reply.image].figure, "model"
    elif reply.image is not None:
        answer.messages.append(
            f"the model picked Image {reply.image}, but only Images 0-{len(shown) - 1} were shown: "
            "showing the best retrieved figure instead"
        )
    elif reply.method == "declined":
        answer.messages.append("the model found none of the shown figures helpful: showing the best retrieved one")
    else:
        answer.messages.append("the model's reply names no image: showing the best retrieved figure instead")
    _note_empty(answer, raw)


def _direct(answer: Answer, paper: Paper, ranking: list[Candidate], backend: ModelBackend, o: _Options) -> Steps:
    if not ranking:
        return
    _require_images(backend, "the direct task")
    if backend.max_images == 1:
        yield from _one_image_per_turn(answer, ranking[: o.k], backend, o)
        return
    shown = _paper_order(_cap_images(_most_relevant(ranking, o, answer), backend, answer))
    shown, request = _fit(
        backend, shown, lambda items: prompts.direct_messages(o.question, items, o.use_captions), o, answer
    )
    answer.candidates = shown
    raw = yield from _generate(backend, request, o, answer)
    answer.answer, answer.parse = parse_direct(raw), "direct"
    _note_empty(answer, raw)


def _caption_only(answer: Answer, paper: Paper, ranking: list[Candidate], backend: ModelBackend, o: _Options) -> Steps:
    """SPIQA's caption-only ablation: every caption, no image, so text-only models answer it too."""
    if not ranking:
        return
    shown = _paper_order(_most_relevant(ranking, o, answer))
    shown, request = _fit(backend, shown, lambda items: prompts.caption_only_messages(o.question, items), o, answer)
    answer.candidates = shown
    raw = yield from _generate(backend, request, o, answer)
    answer.answer, answer.parse = parse_direct(raw), "direct"
    _note_empty(answer, raw)


def _full(answer: Answer, paper: Paper, ranking: list[Candidate], backend: ModelBackend, o: _Options) -> Steps:
    images = backend.supports_images and bool(ranking)
    if not backend.supports_images:
        shown = ranking
        answer.messages.append(f"model {backend.name!r} reads no images: figures and tables were given as captions")
    elif backend.max_images == 1:
        shown = ranking[:1]
        answer.messages.append("this model reads one image per prompt: it was shown the best retrieved figure")
    else:
        shown = _paper_order(_cap_images(_most_relevant(ranking, o, answer), backend, answer))
    text = "\n\n".join(p.text for p in paper.passages)
    if not text:
        answer.messages.append("no body text was extracted from this paper: answering from the figures only")
    answer.candidates = shown

    def build(paper_text: str) -> list[Message]:
        items = [c.figure for c in shown]
        return prompts.full_paper_messages(o.question, paper_text, items, o.use_captions, images=images)

    request = _fit_text(backend, text, build, o, answer)
    raw = yield from _generate(backend, request, o, answer)
    answer.answer, answer.parse = parse_direct(raw), "direct"
    _note_empty(answer, raw)


_FLOWS: dict[Task, Callable[[Answer, Paper, list[Candidate], ModelBackend, _Options], Steps]] = {
    "cot": _cot,
    "direct": _direct,
    "full": _full,
    "caption-only": _caption_only,
    "image-only": _direct,  # with the captions switched off
}


def _one_image_per_turn(answer: Answer, shown: list[Candidate], backend: ModelBackend, o: _Options) -> Steps:
    """SPIQA's open-model protocol: judge each figure alone, then answer from the most helpful one."""
    answer.messages.append(
        "this model reads one image per prompt: each figure was judged on its own, then the model "
        "answered from the most helpful one (SPIQA's open-model protocol)"
    )
    started = perf_counter()
    helpful = [_helpfulness(backend, prompts.helpful_messages(o.question, c.figure, o.use_captions)) for c in shown]
    shown = [replace(c, helpful=p) for c, p in zip(shown, helpful)]
    answer.timings["model"] = answer.timings.get("model", 0.0) + perf_counter() - started
    best = max(range(len(shown)), key=lambda i: (helpful[i], -i))
    answer.candidates = shown
    answer.chosen_index = best
    answer.figure, answer.figure_source = shown[best].figure, "model"
    answer.rationale = (
        f"Image {best} was judged the most helpful of {len(shown)}, each shown alone: "
        f"P(Yes) = {helpful[best]:.2f}."
    )
    request = prompts.brief_answer_messages(o.question, shown[best].figure, o.use_captions)
    raw = yield from _generate(backend, request, o, answer)
    answer.answer, answer.parse = clean_answer(raw), "one-image"
    _note_empty(answer, raw)


def _helpfulness(backend: ModelBackend, request: list[Message]) -> float:
    """P(Yes) / (P(Yes) + P(No)) of the first reply token; a plain Yes/No reply where no log-probs exist."""
    words = [prompts.HELPFUL_YES, prompts.HELPFUL_NO]
    spellings = [f"{space}{w}" for w in words + [w.lower() for w in words] for space in ("", " ")]
    reply = backend.next_token_logprobs(request, candidates=spellings, top_k=20)
    if not reply.top:
        text = backend.generate(request, max_new_tokens=3)
        return 1.0 if text.strip().lower().startswith("yes") else 0.0
    logprobs = {t.token: t.logprob for t in reply.top} | reply.candidates
    p_yes = sum(math.exp(lp) for tok, lp in logprobs.items() if tok.strip().lower() == "yes")
    p_no = sum(math.exp(lp) for tok, lp in logprobs.items() if tok.strip().lower() == "no")
    return p_yes / (p_yes + p_no) if p_yes + p_no > 0 else 0.0


# ---- helpers


def _require_images(backend: ModelBackend, what: str) -> None:
    if not backend.supports_images:
        raise PaperError(
            f"model {backend.name!r} is text-only, and {what} shows figure images: use the full-paper or "
            "caption-only task (--task full, --task caption-only) or a multimodal model"
        )


def _cap_images(shown: list[Candidate], backend: ModelBackend, answer: Answer) -> list[Candidate]:
    limit = backend.max_images
    if limit is not None and len(shown) > limit:
        answer.messages.append(f"model {backend.name!r} reads at most {limit} images: showing the best {limit}")
        return shown[:limit]
    return shown


def _most_relevant(ranking: list[Candidate], o: _Options, answer: Answer) -> list[Candidate]:
    """Every figure/table, or the best-retrieved `max_prompt_images` of them."""
    if len(ranking) > o.max_prompt_images:
        answer.messages.append(
            f"the paper has {len(ranking)} figures and tables: the model was shown the "
            f"{o.max_prompt_images} most relevant (SPIQA_MAX_PROMPT_IMAGES)"
        )
        return ranking[: o.max_prompt_images]
    return ranking


def _paper_order(ranking: list[Candidate]) -> list[Candidate]:
    return sorted(ranking, key=lambda c: (c.figure.page, c.figure.bbox[1], c.figure.bbox[0]))


def _fits(backend: ModelBackend, request: list[Message], o: _Options) -> bool:
    return backend.count_tokens(request) + o.max_new_tokens + CONTEXT_MARGIN_TOKENS <= backend.context_tokens


def _fit(
    backend: ModelBackend,
    shown: list[Candidate],
    build: Callable[[Sequence[Figure]], list[Message]],
    o: _Options,
    answer: Answer,
) -> tuple[list[Candidate], list[Message]]:
    """Drop the least relevant figures until the prompt fits the model's context."""
    least_relevant_first = sorted(range(len(shown)), key=lambda i: (shown[i].score, -i))
    kept = list(range(len(shown)))
    request = build([shown[i].figure for i in kept])
    while not _fits(backend, request, o):
        if len(kept) == 1:
            raise PaperError(f"the prompt does not fit the model's context of {backend.context_tokens} tokens")
        kept.remove(least_relevant_first.pop(0))
        request = build([shown[i].figure for i in kept])
    if len(kept) < len(shown):
        answer.messages.append(
            f"only {len(kept)} of {len(shown)} figures fit the model's context of {backend.context_tokens} tokens"
        )
    return [shown[i] for i in kept], request


def _fit_text(
    backend: ModelBackend, text: str, build: Callable[[str], list[Message]], o: _Options, answer: Answer
) -> list[Message]:
    """The full-paper prompt with the paper text cut (from the end) to fit the context, noted if cut."""
    request = build(text)
    if _fits(backend, request, o):
        return request
    fixed = backend.count_tokens(build(""))
    budget = backend.context_tokens - o.max_new_tokens - CONTEXT_MARGIN_TOKENS - fixed
    if budget <= 0:
        raise PaperError(f"the prompt does not fit the model's context of {backend.context_tokens} tokens")
    whole = backend.count_tokens([Message("user", [text])])
    keep = int(len(text) * budget / max(whole, 1))
    while keep > 0:
        request = build(text[:keep] + prompts.TRUNCATION_MARK)
        if _fits(backend, request, o):
            break
        keep = int(keep * 0.9)
    else:
        request = build("")
    words, total = len(text[:keep].split()), len(text.split())
    answer.messages.append(
        f"the paper text was cut to fit the model's context of {backend.context_tokens} tokens: "
        f"the model read the first {words:,} of {total:,} words"
    )
    return request


def _generate(backend: ModelBackend, request: list[Message], o: _Options, answer: Answer) -> Generator[str, None, str]:
    """Run the model (streaming when asked), record tokens and time, and return the whole reply."""
    usage = Usage()
    started = perf_counter()
    if o.stream:
        pieces = []
        with closed_after(backend.stream(request, o.max_new_tokens, usage=usage)) as stream:
            for piece in stream:
                pieces.append(piece)
                yield piece
        raw = "".join(pieces)
    else:
        raw = backend.generate(request, o.max_new_tokens, usage=usage)
    answer.timings["model"] = answer.timings.get("model", 0.0) + perf_counter() - started
    answer.raw_response = raw
    answer.prompt_tokens = usage.prompt_tokens
    answer.completion_tokens = usage.completion_tokens
    return raw


def _note_empty(answer: Answer, raw: str) -> None:
    if not raw.strip():
        answer.messages.append("the model returned an empty reply")
    elif not answer.answer:
        answer.messages.append("the model's reply contains no answer text")
