"""Qwen2.5-VL, Qwen3-VL and SmolVLM2 on the local backend without torchvision, as tiny offline models.

Their processors normally pull a video processor that needs torchvision (never installed here);
`spiqa_demo.models.processors` builds them from the image processor, tokenizer and chat template.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from test_models_local import figure_prompt, manual_inputs
from tiny_models import tiny_qwen2_5_vl, tiny_qwen3_vl, tiny_smolvlm

from spiqa_demo.cli import main
from spiqa_demo.extraction import load_paper
from spiqa_demo.models import load_backend
from spiqa_demo.models.base import Usage
from spiqa_demo.models.local import LocalBackend
from spiqa_demo.models.processors import VIDEO_PROCESSOR
from spiqa_demo.settings import get_settings

ARCHITECTURES = ["qwen2_5_vl", "qwen3_vl", "smolvlm"]
QUESTION = "How does the equal error rate of ECAPA-TDNN compare with the x-vector baseline?"


@pytest.fixture(scope="module", params=ARCHITECTURES)
def vlm(request: pytest.FixtureRequest) -> LocalBackend:
    backend = load_backend(backend="local", model=str(request.getfixturevalue(f"tiny_{request.param}")))
    assert isinstance(backend, LocalBackend)
    return backend


def test_torchvision_is_absent_and_the_processor_is_built_without_videos(vlm: LocalBackend) -> None:
    from transformers import AutoProcessor
    from transformers.utils import is_torchvision_available

    assert not is_torchvision_available()
    with pytest.raises(OSError, match="video processor"):  # why the generic path cannot be used here
        AutoProcessor.from_pretrained(vlm.name)
    processor = vlm.loaded.processor
    assert VIDEO_PROCESSOR not in processor.get_attributes()
    assert type(processor).__name__ == type(processor).__mro__[1].__name__  # saved and reloaded as the original
    assert type(processor.image_processor).__name__.endswith("Pil")
    # Qwen-VL and SmolVLM read many images per prompt (no one-image-per-turn protocol).
    assert vlm.supports_images and vlm.max_images is None


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
    image_token_id = vlm.loaded.model.config.image_token_id
    placeholders = int((inputs["input_ids"][0] == image_token_id).sum())
    assert placeholders >= n_images  # every image reached the prompt as its placeholder tokens


def test_batches_streams_and_log_probs_agree_with_single_calls(vlm: LocalBackend) -> None:
    chats = [figure_prompt(1), figure_prompt(3), figure_prompt(2)]
    assert vlm.generate_batch(chats, max_new_tokens=5) == [vlm.generate(c, max_new_tokens=5) for c in chats]
    assert "".join(vlm.stream(chats[1], max_new_tokens=6)) == vlm.generate(chats[1], max_new_tokens=6)
    result = vlm.next_token_logprobs(chats[1], candidates=["Yes", "No"], top_k=3)
    inputs = manual_inputs(vlm, chats[1])
    with torch.inference_mode():
        reference = torch.log_softmax(vlm.loaded.model(**inputs).logits[0, -1].float(), dim=-1)
    assert [t.logprob for t in result.top] == pytest.approx(torch.topk(reference, 3).values.tolist(), abs=1e-5)
    (yes,) = vlm.loaded.tokenizer.encode("Yes", add_special_tokens=False)
    assert result.candidates["Yes"] == pytest.approx(reference[yes].item(), abs=1e-5)


@pytest.fixture
def _no_configured_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "SPIQA_API_KEY", "SPIQA_MODEL", "SPIQA_BACKEND", "SPIQA_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()


@pytest.mark.usefixtures("_no_configured_model")
@pytest.mark.parametrize("arch", ["qwen2_5_vl", "smolvlm"])
def test_ask_answers_in_cot_on_a_shared_paper(arch: str, shared: Path, request: pytest.FixtureRequest,
                                              capsys: pytest.CaptureFixture) -> None:
    model = request.getfixturevalue(f"tiny_{arch}")
    pdf = shared / "papers" / "ecapa-tdnn-interspeech2020-2005.07143.pdf"
    command = ["ask", str(pdf), QUESTION, "--task", "cot", "--backend", "local", "--model", str(model), "--max-new-tokens", "16", "--json"]
    assert main(command) == 0
    answer = json.loads(capsys.readouterr().out)
    paper = load_paper(pdf, get_settings().extraction)
    assert answer["task"] == "cot" and answer["model"] == str(model)
    assert answer["raw_response"] and 0 < answer["completion_tokens"] <= 16
    # Random weights reply gibberish: the reply is kept as the answer and the best retrieved
    # figure is shown, unless the gibberish happens to name a shown image.
    assert answer["answered"] and answer["answer"]
    assert answer["figure_source"] == ("model" if answer["parse"] != "failed" else "retrieval")
    assert answer["figure"]["id"] in {item.id for item in paper.items}
    assert len(answer["candidates"]) >= 2 and answer["prompt_tokens"] > 0
