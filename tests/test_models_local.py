"""The local transformers backend on tiny offline models: multi-image chat, streaming, exact log-probs."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import torch
from tiny_models import tiny_cot_vlm, tiny_idefics3, tiny_llama, tiny_llava

from evalsuite.tiny_models import COT_REPLY, make_image
from spiqa_demo.errors import BackendError, InputError, PaperError
from spiqa_demo.models import load_backend
from spiqa_demo.models.base import Message, ModelBackend, Usage
from spiqa_demo.models.local import LocalBackend, load_local_model, pick_device, pick_dtype


def figure_prompt(n_images: int) -> list[Message]:
    parts: list = ["You are given a question and a few input images. "]
    for i in range(n_images):
        parts += [f"Image {i}: ", make_image(i), f"Caption {i}: Figure {i + 1}: accuracy.\n\n"]
    parts.append("Question: which image shows the accuracy?")
    return [Message("system", ["You answer questions about papers."]), Message("user", parts)]


@pytest.fixture(scope="module", params=["llava", "idefics3"])
def vlm(request: pytest.FixtureRequest) -> LocalBackend:
    folder = request.getfixturevalue(f"tiny_{request.param}")
    backend = load_backend(backend="local", model=str(folder))
    assert isinstance(backend, LocalBackend)
    return backend


def manual_inputs(backend: LocalBackend, messages: list[Message]):
    """What the model sees, built here with the processor directly (the reference)."""
    conversation = [
        {"role": m.role, "content": [{"type": "text", "text": p} if isinstance(p, str) else {"type": "image", "image": p}
                                     for p in m.parts]}
        for m in messages
    ]
    return backend.loaded.processor.apply_chat_template(
        conversation, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt"
    )


def test_backends_satisfy_the_interface(vlm: LocalBackend) -> None:
    assert isinstance(vlm, ModelBackend)
    assert vlm.supports_images and vlm.context_tokens == 4096
    # LLaVA reads one image per prompt (SPIQA's open-model protocol); Idefics3 reads many.
    assert vlm.max_images == (1 if vlm.loaded.model_type == "llava" else None)
    assert repr(vlm).startswith("LocalBackend(")


@pytest.mark.parametrize("n_images", [1, 3])
def test_multi_image_generation_matches_a_manual_greedy_generate(vlm: LocalBackend, n_images: int) -> None:
    messages = figure_prompt(n_images)
    usage = Usage()
    text = vlm.generate(messages, max_new_tokens=6, usage=usage)
    inputs = manual_inputs(vlm, messages)
    with torch.inference_mode():
        out = vlm.loaded.model.generate(**inputs, max_new_tokens=6, do_sample=False)
    new = out[0, inputs["input_ids"].shape[1] :]
    assert text == vlm.loaded.tokenizer.decode(new, skip_special_tokens=True)
    assert usage.prompt_tokens == inputs["input_ids"].shape[1] == vlm.count_tokens(messages)
    assert usage.completion_tokens == len(new)
    image_token = vlm.loaded.processor.image_token
    assert str(vlm.loaded.tokenizer.decode(inputs["input_ids"][0])).count(image_token) >= n_images


def test_streaming_yields_the_same_text(vlm: LocalBackend) -> None:
    messages = figure_prompt(2)
    usage = Usage()
    chunks = list(vlm.stream(messages, max_new_tokens=8, usage=usage))
    assert "".join(chunks) == vlm.generate(messages, max_new_tokens=8)
    assert usage.completion_tokens and usage.prompt_tokens


def test_log_probs_equal_a_manual_forward_pass(vlm: LocalBackend) -> None:
    messages = figure_prompt(2)
    candidates = ["Yes", "No", " Yes", "The answer is"]
    result = vlm.next_token_logprobs(messages, candidates=candidates, top_k=5)
    inputs = manual_inputs(vlm, messages)
    tokenizer = vlm.loaded.tokenizer
    with torch.inference_mode():
        logits = vlm.loaded.model(**inputs).logits[0].float()
    reference = torch.log_softmax(logits[-1], dim=-1)
    top = torch.topk(reference, 5)
    assert [t.logprob for t in result.top] == pytest.approx(top.values.tolist(), abs=1e-5)
    assert [t.token for t in result.top] == [tokenizer.decode([i]) for i in top.indices.tolist()]
    for word in ("Yes", "No"):
        (token,) = tokenizer.encode(word, add_special_tokens=False)
        assert result.candidates[word] == pytest.approx(reference[token].item(), abs=1e-5)
    # A multi-token candidate: the exact log-probability that the reply starts with it.
    ids = tokenizer.encode("The answer is", add_special_tokens=False)
    assert len(ids) > 1
    total = reference[ids[0]].item()
    extended = dict(inputs)
    extended["input_ids"] = torch.cat([inputs["input_ids"], torch.tensor([ids])], 1)
    extended["attention_mask"] = torch.ones_like(extended["input_ids"])
    with torch.inference_mode():
        steps = torch.log_softmax(vlm.loaded.model(**extended).logits[0].float(), dim=-1)
    start = inputs["input_ids"].shape[1]
    total += sum(steps[start + j - 1, ids[j]].item() for j in range(1, len(ids)))
    assert result.candidates["The answer is"] == pytest.approx(total, abs=1e-4)
    assert result.model == vlm.name and not result.note


def test_a_trained_model_replies_exactly(tiny_cot_vlm: Path) -> None:
    backend = load_backend(backend="local", model=str(tiny_cot_vlm))
    assert backend.generate(figure_prompt(3), max_new_tokens=40) == COT_REPLY
    logprobs = backend.next_token_logprobs(figure_prompt(1), top_k=3)
    assert logprobs.top[0].logprob > -0.5


def test_models_are_loaded_once_and_shared(tiny_idefics3: Path) -> None:
    first = load_backend(backend="local", model=str(tiny_idefics3))
    second = load_backend(backend="local", model=str(tiny_idefics3), image_size=224, max_images=1)
    assert first is not second and first.loaded is second.loaded
    assert second.max_images == 1 and second.image_size == 224
    assert load_local_model(str(tiny_idefics3)) is first.loaded


def test_concurrent_users_get_uncorrupted_generations(tiny_idefics3: Path) -> None:
    backend = load_backend(backend="local", model=str(tiny_idefics3))
    prompts = [figure_prompt(n) for n in (1, 2, 3, 1, 2, 3)]
    expected = [backend.generate(p, max_new_tokens=6) for p in prompts]
    results: dict[int, str] = {}

    def run(i: int) -> None:
        if i % 2:
            results[i] = "".join(backend.stream(prompts[i], max_new_tokens=6))
        else:
            results[i] = backend.generate(prompts[i], max_new_tokens=6)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(prompts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert [results[i] for i in range(len(prompts))] == expected


def test_an_abandoned_stream_releases_the_model(tiny_idefics3: Path) -> None:
    backend = load_backend(backend="local", model=str(tiny_idefics3))
    stream = backend.stream(figure_prompt(1), max_new_tokens=200)
    next(iter(stream), None)
    stream.close()
    assert backend.loaded.lock.acquire(timeout=30)
    backend.loaded.lock.release()


def test_image_resolution_setting_resizes_what_the_model_sees(tiny_idefics3: Path, tmp_path: Path) -> None:
    from spiqa_demo.models.images import data_url, load_image

    path = tmp_path / "wide.png"
    make_image(0, (640, 200)).save(path)
    assert load_image(path, 224).size == (224, 224)
    assert load_image(path, 0).size == (640, 200)
    assert data_url(path, 32).startswith("data:image/png;base64,")
    backend = load_backend(backend="local", model=str(tiny_idefics3), image_size=224)
    assert backend.generate([Message("user", [path, "What is it?"])], max_new_tokens=2) is not None
    with pytest.raises(PaperError, match="not found"):
        backend.generate([Message("user", [tmp_path / "missing.png", "What?"])], max_new_tokens=2)


def test_text_only_models_work_on_text_and_refuse_images(tiny_llama: Path) -> None:
    backend = load_backend(model=str(tiny_llama))  # a model alone selects the local backend
    assert isinstance(backend, LocalBackend)
    assert not backend.supports_images and backend.max_images == 0
    text = [Message("system", ["Be brief."]), Message("user", ["Is the answer correct? Answer Yes or No."])]
    assert isinstance(backend.generate(text, max_new_tokens=4), str)
    assert set(backend.next_token_logprobs(text, candidates=["Yes", "No"]).candidates) == {"Yes", "No"}
    with pytest.raises(PaperError, match="text-only"):
        backend.generate(figure_prompt(1), max_new_tokens=4)


def test_loading_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="cannot load model") as caught:
        load_backend(backend="local", model=str(tmp_path / "no-such-model"))
    assert not caught.value.retryable
    with pytest.raises(PaperError, match="cannot load model"):
        load_backend(backend="local", model="someone/not-on-this-machine")
    with pytest.raises(InputError, match="no local model"):
        load_backend(backend="local")
    with pytest.raises(InputError, match="backend: expected one of local, openai, none, got 'tpu'"):
        load_backend(backend="tpu")
    assert load_backend() is None  # nothing configured: retrieval-only mode


def test_device_and_dtype_choice() -> None:
    assert pick_device("auto") in ("cuda", "mps", "cpu")
    assert pick_device("cpu") == "cpu"
    assert pick_dtype("cpu") == torch.float32
    assert pick_dtype("cuda", "auto") in (torch.bfloat16, torch.float16)
    assert pick_dtype("mps") == torch.float16
    assert pick_dtype("cpu", "bfloat16") == torch.bfloat16
    with pytest.raises(PaperError, match="unknown dtype"):
        pick_dtype("cpu", "float7")


def test_a_counted_prompt_is_encoded_once_and_edits_are_noticed(tiny_idefics3: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    backend = load_backend(backend="local", model=str(tiny_idefics3))
    encodings: list[int] = []
    original = backend._apply_template
    monkeypatch.setattr(backend, "_apply_template", lambda messages: encodings.append(1) or original(messages))
    messages = figure_prompt(2)
    n = backend.count_tokens(messages)
    usage = Usage()
    backend.generate(messages, max_new_tokens=2, usage=usage)
    assert usage.prompt_tokens == n and len(encodings) == 1
    backend.count_tokens(messages)
    messages[-1].parts.append(" And why?")
    backend.generate(messages, max_new_tokens=2, usage=usage)
    assert usage.prompt_tokens > n and len(encodings) == 3
