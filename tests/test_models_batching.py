"""Batched local generation: one left-padded `generate` call gives the same greedy replies as one by one.

On the tiny random-weight LLaVA, Idefics3 and text Llama (random weights make every chat's reply
different, so equality means something): `LocalBackend.generate_batch` directly, `BatchingBackend`
fed by concurrent threads, and `evaluate --batch-size` end to end (same lines as unbatched, resumable).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from tiny_models import tiny_idefics3, tiny_llama, tiny_llava

from evalsuite.tiny_models import make_image
from spiqa_demo.cli import main
from spiqa_demo.errors import PaperError
from spiqa_demo.models import load_backend
from spiqa_demo.models.base import Message, Usage
from spiqa_demo.models.batching import BatchingBackend, can_batch
from spiqa_demo.models.local import LocalBackend
from spiqa_demo.settings import get_settings

NEW_TOKENS = 24
# Images per chat: a multi-image model gets 0-3, a one-image model 0-1 (LLaVA), a text model none.
IMAGE_COUNTS = {"idefics3": [2, 0, 3, 1], "llava": [1, 0, 1, 1], "llama": [0, 0, 0, 0]}


def chats(arch: str) -> list[list[Message]]:
    """Independent chats of different lengths and images; one has a system turn."""
    out = []
    for i, n in enumerate(IMAGE_COUNTS[arch]):
        parts: list = []
        for j in range(n):
            parts += [f"Image {j}: ", make_image(3 * i + j), f" Caption {j}: accuracy over epochs.\n"]
        parts.append("Question: " + "is the proposed method better? " * (i + 1))
        chat = [Message("user", parts)]
        if i == 1:
            chat.insert(0, Message("system", ["You answer questions about papers."]))
        out.append(chat)
    return out


@pytest.fixture(scope="module", params=["llava", "idefics3", "llama"])
def arch_backend(request: pytest.FixtureRequest) -> tuple[str, LocalBackend]:
    backend = load_backend(backend="local", model=str(request.getfixturevalue(f"tiny_{request.param}")))
    assert isinstance(backend, LocalBackend) and can_batch(backend)
    return request.param, backend


def one_by_one(backend: LocalBackend, requests: list[list[Message]]) -> tuple[list[str], list[Usage]]:
    usages = [Usage() for _ in requests]
    replies = [backend.generate(r, NEW_TOKENS, usage=u) for r, u in zip(requests, usages)]
    return replies, usages


def all_queued(batching: BatchingBackend, calls: list[Callable[[], None]]) -> None:
    """Run `calls` (each a `batching.generate`) in threads that all queue up while the model is busy,
    then free the model: the batches are then the same on any machine, however late a thread starts."""
    queue = batching._queue
    threads = [threading.Thread(target=call, daemon=True) for call in calls]  # a failed test leaves none behind
    with queue.changed:
        queue.running = True  # as if an earlier batch were still generating
        for thread in threads:
            thread.start()
        assert queue.changed.wait_for(lambda: len(queue.pending) == len(calls), timeout=60)
        queue.running = False
        queue.changed.notify_all()
    for thread in threads:
        thread.join(timeout=120)


def test_a_batch_gives_the_replies_of_one_by_one(arch_backend: tuple[str, LocalBackend]) -> None:
    arch, backend = arch_backend
    requests = chats(arch)
    expected, expected_usage = one_by_one(backend, requests)
    assert len(set(expected)) == len(expected)  # distinct replies: the comparison below has teeth
    usages = [Usage() for _ in requests]
    assert backend.generate_batch(requests, NEW_TOKENS, usages=usages) == expected
    assert usages == expected_usage  # prompt tokens without padding, reply tokens up to end-of-sequence
    assert backend.generate_batch(requests[2:3], NEW_TOKENS) == expected[2:3]
    assert backend.generate_batch([], NEW_TOKENS) == []


def test_concurrent_callers_are_batched_with_unchanged_replies(
    arch_backend: tuple[str, LocalBackend], monkeypatch: pytest.MonkeyPatch
) -> None:
    arch, backend = arch_backend
    requests = chats(arch)
    expected, _ = one_by_one(backend, requests)
    sizes: list[int] = []
    real = backend.generate_batch
    monkeypatch.setattr(backend, "generate_batch", lambda rs, *a, **k: sizes.append(len(rs)) or real(rs, *a, **k))
    batching = BatchingBackend(backend, batch_size=3)
    replies: dict[int, str] = {}

    def call(i: int) -> None:
        replies[i] = batching.generate(requests[i], NEW_TOKENS)

    all_queued(batching, [partial(call, i) for i in range(len(requests))])
    assert [replies[i] for i in range(len(requests))] == expected
    assert sizes == [3]  # 4 callers, batches of at most 3: the fourth ran alone, as a plain `generate`


def test_a_bad_chat_fails_only_its_own_caller(tiny_idefics3: Path, tmp_path: Path) -> None:
    backend = load_backend(backend="local", model=str(tiny_idefics3))
    assert isinstance(backend, LocalBackend)
    good = chats("idefics3")[:2]
    bad = [Message("user", ["Image 0: ", tmp_path / "missing.png", " What is shown?"])]
    with pytest.raises(PaperError, match="figure image not found"):
        backend.generate_batch([good[0], bad, good[1]], NEW_TOKENS)

    batching = BatchingBackend(backend, batch_size=3)
    outcomes: dict[int, object] = {}

    def call(i: int, chat: list[Message]) -> None:
        try:
            outcomes[i] = batching.generate(chat, NEW_TOKENS)
        except PaperError as exc:
            outcomes[i] = exc

    all_queued(batching, [partial(call, i, c) for i, c in enumerate([good[0], bad, good[1]])])  # one batch
    assert [outcomes[0], outcomes[2]] == one_by_one(backend, good)[0]
    assert isinstance(outcomes[1], PaperError) and "figure image not found" in str(outcomes[1])
    with pytest.raises(PaperError, match="at least 1"):
        BatchingBackend(backend, batch_size=0)


# ---- evaluate --batch-size --------------------------------------------------------------------------

PAPERS = {"1611.05742v3": ["Figure1-1", "Table1-1", "Figure2-1"], "1702.01234v1": ["Figure1-1", "Figure2-1"]}
QUESTIONS = ["Is the proposed method better?", "What is plotted on the x axis?", "Which table has F1?"]


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A test-A-shaped file (2 papers x 3 questions) and its images laid out as SPIQA's archive."""
    root = tmp_path_factory.mktemp("spiqa-batching")
    images = root / "images"
    data = {}
    for p, (pid, names) in enumerate(PAPERS.items()):
        (images / pid).mkdir(parents=True)
        figures = {}
        for k, name in enumerate(names):
            make_image(3 * p + k, size=(64, 48)).save(images / pid / f"{pid}-{name}.png")
            figures[f"{pid}-{name}.png"] = {"caption": f"{name.split('-')[0]}: results {k}.", "content_type": "figure",
                                            "figure_type": "plot"}
        qa = [{"question": q, "answer": "Yes", "explanation": "", "reference": f"{pid}-{names[i % len(names)]}.png"}
              for i, q in enumerate(QUESTIONS)]
        data[pid] = {"paper_id": pid, "all_figures": figures, "qa": qa}
    dataset = root / "SPIQA_testA_batching.json"
    dataset.write_text(json.dumps(data))
    return dataset, images


def test_evaluate_batch_size_writes_the_same_lines_and_resumes(
    split: tuple[Path, Path], tiny_idefics3: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SPIQA_MAX_NEW_TOKENS", str(NEW_TOKENS))
    get_settings.cache_clear()
    dataset, images = split

    def run(out: Path, *extra: str) -> str:
        code = main(["evaluate", "--dataset", str(dataset), "--backend", "local", "--model", str(tiny_idefics3),
                     "--images", str(images), "--out", str(out), "--judge", "none", "--no-bertscore", *extra])
        err = capsys.readouterr().err
        assert code == 0, err
        return err

    def answers(out: Path) -> dict[tuple[str, str], str]:
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert len(rows) == len({(r["paper_id"], r["question_key"]) for r in rows})  # one line per question
        return {(r["paper_id"], r["question_key"]): r["raw_response"] for r in rows}

    run(tmp_path / "single.jsonl", "--batch-size", "1")
    run(tmp_path / "batched.jsonl", "--batch-size", "4", "--limit", "4")
    err = run(tmp_path / "batched.jsonl", "--batch-size", "4")  # resumes: only the last 2 questions
    assert "2 question(s) answered now, 4 already there" in err
    single = answers(tmp_path / "single.jsonl")
    assert len(single) == 6 and len(set(single.values())) > 1
    assert answers(tmp_path / "batched.jsonl") == single

    main(["evaluate", "--dataset", str(dataset), "--out", str(tmp_path / "x.jsonl"), "--batch-size", "0"])
    assert "--batch-size must be at least 1" in capsys.readouterr().err
