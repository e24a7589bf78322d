"""Batched local generation: questions per second, one by one vs `generate_batch`, and the speed-up ratio.

Every prompt is a SPIQA-CoT-shaped chat (3 figure images with captions and a question); the replies
are checked to be identical to one-by-one generation before any time is printed. Greedy decoding,
a fixed number of new tokens (`--new-tokens`) unless the model stops earlier.

Usage, from the repository root: `python -m benchmarks.eval_batching [--model FOLDER_OR_HUB_ID] [--questions 16]
[--new-tokens 32]` (without --model: the tests' tiny random-weight Idefics3, `evalsuite.tiny_models`, built
in a temp folder).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from evalsuite.tiny_models import make_image, tiny_model_dir
from spiqa_demo.models import load_backend
from spiqa_demo.models.base import Message
from spiqa_demo.models.local import LocalBackend


def prompts(n: int) -> list[list[Message]]:
    out = []
    for i in range(n):
        parts: list = ["You are given a question, a few input images, and a caption for each image.\n"]
        for j in range(3):
            parts += [f"Image {j}: ", make_image((i + j) % 8), f" Caption {j}: Figure {j + 1}: results of run {i}.\n"]
        parts.append(f"Question: which method is best in experiment {i}? " + "Explain briefly. " * (i % 4))
        out.append([Message("user", parts)])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a local model folder or hub id (default: the tests' tiny Idefics3)")
    parser.add_argument("--questions", type=int, default=16)
    parser.add_argument("--new-tokens", type=int, default=32)
    parser.add_argument("--batch-sizes", default="2,4,8")
    args = parser.parse_args()
    model = args.model
    if model is None:
        model = str(tiny_model_dir(Path(tempfile.mkdtemp(prefix="bench-batching-")), "idefics3"))
    backend = load_backend(backend="local", model=model)
    assert isinstance(backend, LocalBackend)
    chats = prompts(args.questions)
    backend.generate(chats[0], args.new_tokens)  # warm-up

    started = time.perf_counter()
    expected = [backend.generate(chat, args.new_tokens) for chat in chats]
    single_s = time.perf_counter() - started
    print(f"model {model} on {backend.loaded.device}; {len(chats)} questions, {args.new_tokens} new tokens")
    print(f"one by one        {len(chats) / single_s:7.2f} q/s")
    for size in (int(s) for s in args.batch_sizes.split(",")):
        started = time.perf_counter()
        replies = [r for k in range(0, len(chats), size) for r in backend.generate_batch(chats[k : k + size], args.new_tokens)]
        batch_s = time.perf_counter() - started
        assert replies == expected, f"batch size {size}: replies differ from one-by-one generation"
        print(f"batch size {size:<6} {len(chats) / batch_s:7.2f} q/s  speed-up x{single_s / batch_s:.2f} (same replies)")


if __name__ == "__main__":
    main()
