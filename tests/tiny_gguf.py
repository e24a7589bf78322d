"""A tiny text Llama as a GGUF file, served by llama.cpp's OpenAI-compatible server (which returns log-probs).

The model is the 2-layer Llama of `evalsuite.tiny_models` (byte-level BPE tokenizer trained offline), trained a
few steps towards "Yes" and then "No" so both words sit in the top-5 of its first reply token (the
L3Score case that uses both), saved as a transformers folder and converted here to GGUF with the
`gguf` package: the same weights (f32; Q/K rows permuted into llama.cpp's rotary layout) and the same
tokenizer (GPT-2 pre-tokenizer, merges, added tokens) and chat template. `served_gguf_judge` runs
`python -m llama_cpp.server` (llama-cpp-python, requirements-dev.txt) on a free 127.0.0.1 port, once
per test session. Import the fixtures you need (`from tiny_gguf import served_gguf_judge`).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tiny_models import Server

from evalsuite.local_servers import ServerDidNotStart, free_port, server_process, wait_until_answering
from evalsuite.tiny_models import build, train

# Training of the judge, in order: "Yes" first, then a little "No" (measured: first-token top-5 holds
# Yes ~0.05 and No ~0.02, the rest byte-level fragments).
JUDGE_TRAINING = (("Yes", 30), ("No", 8))


def judge_model_dir(base: Path) -> Path:
    """The transformers folder of the tiny Yes/No judge (built on first call)."""
    out = base / "tiny-models" / "llama-yes-no"
    if not (out / "config.json").exists():
        model, tokenizer = build("llama")
        for reply, steps in JUDGE_TRAINING:
            train(model, tokenizer, reply, steps)
        model.save_pretrained(out)
        tokenizer.save_pretrained(out)
    return out


def _permute_rotary(weights, n_head: int):
    """transformers' rotate-half Q/K rows -> llama.cpp's interleaved rotary pairs (its converter's `permute`)."""
    return weights.reshape(n_head, 2, weights.shape[0] // n_head // 2, *weights.shape[1:]).swapaxes(1, 2).reshape(weights.shape)


def write_gguf(model_dir: Path, out: Path) -> Path:
    """Convert a transformers Llama folder with a byte-level BPE tokenizer to an f32 GGUF file."""
    import gguf
    from transformers import AutoTokenizer, LlamaForCausalLM

    model = LlamaForCausalLM.from_pretrained(model_dir)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    config = model.config
    head_dim = config.hidden_size // config.num_attention_heads
    rope_theta = (getattr(config, "rope_parameters", None) or {}).get("rope_theta") or getattr(config, "rope_theta", 10000.0)

    writer = gguf.GGUFWriter(out, "llama")
    writer.add_name(model_dir.name)
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_block_count(config.num_hidden_layers)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_head_count(config.num_attention_heads)
    writer.add_head_count_kv(config.num_key_value_heads)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(float(rope_theta))
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)

    vocab = tokenizer.get_vocab()
    tokens = [""] * len(vocab)
    for token, index in vocab.items():
        tokens[index] = token
    added = {index: t for index, t in tokenizer.added_tokens_decoder.items()}
    types = [
        (gguf.TokenType.CONTROL if added[i].special else gguf.TokenType.USER_DEFINED) if i in added else gguf.TokenType.NORMAL
        for i in range(len(tokens))
    ]
    merges = json.loads(tokenizer.backend_tokenizer.to_str())["model"]["merges"]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")  # the ByteLevel pre-tokenizer's regex is GPT-2's
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in merges])
    writer.add_bos_token_id(tokenizer.bos_token_id)
    writer.add_eos_token_id(tokenizer.eos_token_id)
    writer.add_pad_token_id(tokenizer.pad_token_id)
    writer.add_add_bos_token(False)  # like transformers' chat template here: no BOS before the prompt
    writer.add_chat_template(tokenizer.chat_template)

    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, config.num_hidden_layers)
    for name, tensor in model.state_dict().items():
        data = tensor.float().numpy()
        if name.endswith("q_proj.weight"):
            data = _permute_rotary(data, config.num_attention_heads)
        elif name.endswith("k_proj.weight"):
            data = _permute_rotary(data, config.num_key_value_heads)
        mapped = names.get_name(name, try_suffixes=(".weight",))
        assert mapped is not None, f"no GGUF name for {name}"
        writer.add_tensor(mapped, data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out


@pytest.fixture(scope="session")
def tiny_gguf_judge(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(transformers folder, GGUF file) of the same tiny Yes/No judge."""
    base = tmp_path_factory.getbasetemp()
    model_dir = judge_model_dir(base)
    gguf_file = base / "tiny-models" / "llama-yes-no.gguf"
    if not gguf_file.exists():
        write_gguf(model_dir, gguf_file)
    return model_dir, gguf_file


@contextmanager
def serve_gguf(gguf_file: Path, alias: str, log: Path) -> Iterator[Server]:
    """llama.cpp's OpenAI-compatible server (llama-cpp-python) on a free 127.0.0.1 port, serving `gguf_file` as `alias`."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.fail("llama-cpp-python[server] is missing: it is in requirements-dev.txt (run `make setup`)")
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_file), "--host", "127.0.0.1",
               "--port", str(port), "--model_alias", alias, "--n_ctx", "2048", "--n_threads", "2"]
    with server_process(command, log) as process:
        try:
            wait_until_answering(f"http://127.0.0.1:{port}/v1/models", process, log)
        except ServerDidNotStart as exc:
            pytest.fail(f"llama_cpp.server did not start: {exc}")
        yield Server(base_url=f"http://127.0.0.1:{port}/v1", model=alias, log=log)


@pytest.fixture(scope="session")
def served_gguf_judge(tiny_gguf_judge: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """llama.cpp's OpenAI-compatible server (llama-cpp-python) on 127.0.0.1 with the tiny GGUF judge."""
    _, gguf_file = tiny_gguf_judge
    with serve_gguf(gguf_file, "tiny-judge", tmp_path_factory.getbasetemp() / "llama-cpp-server.log") as server:
        yield server
