"""Local transformers models: any chat VLM (`AutoModelForImageTextToText`) or text LM (`AutoModelForCausalLM`).

A checkpoint is loaded once per process and shared (`load_local_model` caches by name, device and
dtype); every forward pass holds that model's lock, so concurrent users of the app queue instead of
interleaving generations. Device and dtype are chosen automatically (CUDA with bf16, Apple MPS with
fp16, else CPU with fp32). Decoding is greedy, as in SPIQA's evaluations. `generate_batch` answers
several independent chats (each with its own images) in one left-padded `generate` call, with the
same replies as one by one. On ZeroGPU Spaces the model calls run inside `spaces.GPU`, each asking
for the GPU time its own request needs. Processors that would pull torchvision for videos (Qwen-VL,
SmolVLM) are built without their video part (`processors`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from spiqa_demo.errors import BackendError, InputError, PaperError
from spiqa_demo.models.base import Message, NextTokenLogprobs, TokenLogprob, Usage, count_images
from spiqa_demo.models.images import load_image
from spiqa_demo.models.processors import load_processor
from spiqa_demo.models.zerogpu import GpuBudget, GpuWork, gpu
from spiqa_demo.settings import ModelSettings

# Architectures trained on one image per prompt: SPIQA's one-image-per-turn protocol applies.
SINGLE_IMAGE_MODEL_TYPES = frozenset({"llava", "blip-2", "instructblip", "paligemma", "mllama", "fuyu"})
DEFAULT_CONTEXT_TOKENS = 4096


def pick_device(preference: str = "auto", zero_gpu: bool = False) -> str:
    """`preference` unless "auto": then CUDA, Apple MPS, or CPU, whichever exists.

    On ZeroGPU the GPU is attached only inside `spaces.GPU` calls and must not be probed before:
    weights placed on "cuda" at startup move there when a call begins.
    """
    import torch

    if preference != "auto":
        return preference
    if zero_gpu or torch.cuda.is_available():
        return "cuda"
    if torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def pick_dtype(device: str, preference: str = "auto", zero_gpu: bool = False) -> Any:
    """`preference` unless "auto": bf16 on CUDA (fp16 where unsupported), fp16 on MPS, fp32 on CPU."""
    import torch

    if preference != "auto":
        try:
            return getattr(torch, preference)
        except AttributeError:
            raise InputError(f"unknown dtype {preference!r} (use auto, bfloat16, float16 or float32)") from None
    if device.startswith("cuda"):
        # On ZeroGPU probing would initialise CUDA outside a GPU call; its GPUs (H200) all have bf16.
        return torch.bfloat16 if zero_gpu or torch.cuda.is_bf16_supported() else torch.float16
    if device.startswith("mps"):
        return torch.float16
    return torch.float32


@dataclass
class LoadedModel:
    """Weights, processor and lock of one checkpoint: shared by every backend that uses it."""

    name: str
    model: Any
    processor: Any  # a processor (VLMs) or a tokenizer (text models)
    is_vlm: bool
    device: str
    dtype: Any
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Tokenizing: a padded batch reconfigures the shared fast tokenizer, which fails ("Already
    # borrowed") while another thread encodes with it.
    encode_lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def tokenizer(self) -> Any:
        return getattr(self.processor, "tokenizer", self.processor)

    @property
    def model_type(self) -> str:
        return str(getattr(self.model.config, "model_type", ""))

    @property
    def context_tokens(self) -> int:
        """The smallest length limit the config and tokenizer declare."""
        config = self.model.config
        text_config = getattr(config, "text_config", None) or config
        limits = [
            getattr(text_config, "max_position_embeddings", None),
            getattr(self.tokenizer, "model_max_length", None),
        ]
        known = [int(n) for n in limits if isinstance(n, int) and 0 < n < 10_000_000]
        return min(known) if known else DEFAULT_CONTEXT_TOKENS


_LOADED: dict[tuple[str, str, str], LoadedModel] = {}
_LOADING = threading.Lock()


def load_local_model(name: str, device: str = "auto", dtype: str = "auto", zero_gpu: bool = False) -> LoadedModel:
    """The checkpoint `name` (hub id or folder), loaded on first use and shared afterwards."""
    with _LOADING:
        resolved = pick_device(device, zero_gpu)
        key = (name, resolved, dtype)
        if key not in _LOADED:
            _LOADED[key] = _load(name, resolved, pick_dtype(resolved, dtype, zero_gpu))
        return _LOADED[key]


def _load(name: str, device: str, dtype: Any) -> LoadedModel:
    from transformers import AutoConfig
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES

    try:
        config = AutoConfig.from_pretrained(name)
    except (OSError, ValueError) as exc:
        raise BackendError(
            f"cannot load model {name!r}: not a local folder and not downloadable from the Hugging Face "
            f"hub here ({_first_line(exc)})",
            retryable=False,
        ) from exc
    is_vlm = config.model_type in MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES
    try:
        if is_vlm:
            from transformers import AutoModelForImageTextToText

            processor = load_processor(name, config)
            model = AutoModelForImageTextToText.from_pretrained(name, dtype=dtype)
        else:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            processor = AutoTokenizer.from_pretrained(name)
            model = AutoModelForCausalLM.from_pretrained(name, dtype=dtype)
    except (OSError, ValueError, ImportError) as exc:
        raise BackendError(f"cannot load model {name!r}: {_first_line(exc)}", retryable=False) from exc
    model = model.to(device).eval()  # type: ignore[arg-type]  # transformers annotates .to() through a decorator that mistypes its argument
    tokenizer = getattr(processor, "tokenizer", processor)
    if tokenizer.pad_token is None and tokenizer.eos_token is not None:  # batches are padded (masked out)
        tokenizer.pad_token = tokenizer.eos_token
    return LoadedModel(name=name, model=model, processor=processor, is_vlm=is_vlm, device=device, dtype=dtype)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class LocalBackend:
    """A `ModelBackend` over a shared `LoadedModel`; options here do not reload weights."""

    def __init__(
        self,
        loaded: LoadedModel,
        image_size: int = 0,
        max_images: int = -1,
        gpu_budget: GpuBudget | None = None,
    ) -> None:
        self.loaded = loaded
        self.name = loaded.name
        self.image_size = image_size
        self.supports_images = loaded.is_vlm and max_images != 0
        if not self.supports_images:
            self.max_images: int | None = 0
        elif max_images > 0:
            self.max_images = max_images
        else:
            self.max_images = 1 if loaded.model_type in SINGLE_IMAGE_MODEL_TYPES else None
        self.context_tokens = loaded.context_tokens
        budget = gpu_budget or GpuBudget.from_settings(ModelSettings())
        self._generate_on_device = gpu(self._generate_impl, budget)
        self._stream_on_device = gpu(self._stream_impl, budget)
        self._logits_on_device = gpu(self._logits_impl, budget)
        # The last prompt counted, per thread: the QA flows count a prompt, then generate from it.
        self._counted = threading.local()

    def __repr__(self) -> str:
        return f"LocalBackend({self.name!r}, device={self.loaded.device!r}, max_images={self.max_images})"

    # ---- the ModelBackend interface

    def generate(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> str:
        inputs = self._encode_counted(messages, usage)
        work = GpuWork(new_tokens=max_new_tokens, images=count_images(messages))
        with self.loaded.lock:
            [(text, new_tokens)] = self._generate_on_device(inputs, work)
        if usage is not None:
            usage.completion_tokens = new_tokens
        return text

    def stream(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> Iterator[str]:
        # Encoded here, not in the generator, so a bad chat fails when the call is made.
        work = GpuWork(new_tokens=max_new_tokens, images=count_images(messages))
        return self._stream(self._encode_counted(messages, usage), work, usage)

    def generate_batch(
        self,
        requests: Sequence[list[Message]],
        max_new_tokens: int = 512,
        usages: Sequence[Usage | None] | None = None,
    ) -> list[str]:
        """Greedy replies to independent chats in one left-padded `generate` call; fills `usages[i]`.

        Each reply is the one `generate` gives that chat alone (padding is masked out); the call
        lasts as long as the longest reply. A bad chat (unreadable image, ...) fails the whole call.
        """
        if not requests:
            return []
        inputs = self._encode_batch(list(requests))
        work = GpuWork(new_tokens=max_new_tokens, images=sum(map(count_images, requests)), rows=len(requests))
        with self.loaded.lock:
            replies = self._generate_on_device(inputs, work)
        prompt_tokens = _prompt_lengths(inputs)
        for usage, (_, new_tokens), prompt in zip(usages or [None] * len(replies), replies, prompt_tokens):
            if usage is not None:
                usage.prompt_tokens, usage.completion_tokens = prompt, new_tokens
        return [text for text, _ in replies]

    def next_token_logprobs(
        self, messages: list[Message], candidates: list[str] | None = None, top_k: int = 5
    ) -> NextTokenLogprobs:
        import torch

        inputs = self._encode(messages)
        tokenizer = self.loaded.tokenizer
        encoded = {c: tokenizer.encode(c, add_special_tokens=False) for c in candidates or []}
        continuations = sorted({tuple(ids) for ids in encoded.values() if len(ids) > 1})
        # One forward pass, then one per multi-token candidate.
        work = GpuWork(new_tokens=1 + len(continuations), images=count_images(messages))
        with self.loaded.lock:
            first, sequences = self._logits_on_device(inputs, continuations, work)
        logprobs = torch.log_softmax(first, dim=-1)
        values, ids = torch.topk(logprobs, k=max(1, min(top_k, logprobs.shape[-1])))
        top = [TokenLogprob(tokenizer.decode([i]), float(v)) for v, i in zip(values.tolist(), ids.tolist())]
        exact: dict[str, float] = {}
        for candidate, token_ids in encoded.items():
            if len(token_ids) == 1:
                exact[candidate] = float(logprobs[token_ids[0]])
            elif token_ids:
                exact[candidate] = sequences[tuple(token_ids)]
        return NextTokenLogprobs(top=top, candidates=exact, model=self.name)

    def count_tokens(self, messages: list[Message]) -> int:
        inputs = self._encode(messages)
        self._counted.last = (_snapshot(messages), inputs)
        return int(inputs["input_ids"].shape[1])

    # ---- prompt encoding

    def _encode(self, messages: list[Message]) -> Any:
        """Chat-template `messages` (images in place) into model inputs on the CPU."""
        last = getattr(self._counted, "last", None)
        self._counted.last = None
        if last is not None and _same(last[0], messages):
            return last[1]
        return self._encode_batch([messages])

    def _encode_counted(self, messages: list[Message], usage: Usage | None) -> Any:
        """`_encode`, recording the prompt's length in `usage`."""
        inputs = self._encode(messages)
        if usage is not None:
            usage.prompt_tokens = int(inputs["input_ids"].shape[1])
        return inputs

    def _encode_batch(self, requests: list[list[Message]]) -> Any:
        """Chats as one batch of model inputs on the CPU, left-padded (a single chat is not padded)."""
        for messages in requests:
            if count_images(messages) and not self.supports_images:
                raise BackendError(f"model {self.name!r} is text-only and cannot read figure images", retryable=False)
        conversations = [self._conversation(self._accepted_chat(messages)) for messages in requests]
        try:
            with self.loaded.encode_lock:
                return self._apply_template(conversations)
        except Exception as exc:
            raise self._template_error(exc) from exc

    def _accepted_chat(self, messages: list[Message]) -> list[Message]:
        """`messages`, or with the system text folded into the first user turn when the template rejects system turns."""
        try:
            self._render(messages)
            return messages
        except Exception as exc:
            if not any(m.role == "system" for m in messages):
                raise self._template_error(exc) from exc
        folded = _fold_system(messages)
        try:
            self._render(folded)
        except Exception as exc:
            raise self._template_error(exc) from exc
        return folded

    def _render(self, messages: list[Message]) -> None:
        """Run the chat template on `messages` (text only, images unread): raises when it rejects them."""
        self.loaded.processor.apply_chat_template(
            self._conversation(messages, read_images=False), add_generation_prompt=True, tokenize=False
        )

    def _conversation(self, messages: list[Message], read_images: bool = True) -> list[dict[str, Any]]:
        if not self.loaded.is_vlm:
            return [{"role": m.role, "content": m.text} for m in messages]
        return [
            {
                "role": m.role,
                "content": [
                    {"type": "text", "text": p}
                    if isinstance(p, str)
                    else {"type": "image", "image": load_image(p, self.image_size)}
                    if read_images
                    else {"type": "image"}
                    for p in m.parts
                ],
            }
            for m in messages
        ]

    def _apply_template(self, conversations: list[list[dict[str, Any]]]) -> Any:
        processor = self.loaded.processor
        options = {"add_generation_prompt": True, "tokenize": True, "return_dict": True, "return_tensors": "pt"}
        if len(conversations) == 1:
            return processor.apply_chat_template(conversations[0], **options)
        left = {"padding": True, "padding_side": "left"}  # generation continues every row at its right end
        if self.loaded.is_vlm:
            return processor.apply_chat_template(conversations, processor_kwargs=left, **options)
        return processor.apply_chat_template(conversations, padding=True, tokenizer_kwargs={"padding_side": "left"}, **options)

    def _template_error(self, exc: Exception) -> PaperError:
        if isinstance(exc, PaperError):
            return exc
        return BackendError(
            f"model {self.name!r} cannot format this chat ({_first_line(exc)}); "
            "use an instruction-tuned model that ships a chat template",
            retryable=False,
        )

    def _to_device(self, inputs: Any) -> Any:
        return inputs.to(self.loaded.device, dtype=self.loaded.dtype) if self.loaded.is_vlm else inputs.to(self.loaded.device)

    # ---- model calls (run on the GPU under ZeroGPU; the caller holds the model's lock)

    def _generation_kwargs(self, max_new_tokens: int) -> dict[str, Any]:
        tokenizer = self.loaded.tokenizer
        pad = self.loaded.model.generation_config.pad_token_id
        return {
            "max_new_tokens": max_new_tokens,
            "do_sample": False,
            "pad_token_id": pad if pad is not None else tokenizer.eos_token_id,
        }

    def _generate_impl(self, inputs: Any, work: GpuWork) -> list[tuple[str, int]]:
        """(reply text, new tokens) per batch row, at most `work.new_tokens`; a row ends at its first end-of-sequence token."""
        import torch

        inputs = self._to_device(inputs)
        with torch.inference_mode():
            output = self.loaded.model.generate(**inputs, **self._generation_kwargs(work.new_tokens))
        eos = self.loaded.model.generation_config.eos_token_id
        stops = set(eos if isinstance(eos, list) else [] if eos is None else [eos])
        replies = []
        for row in output[:, inputs["input_ids"].shape[1] :].tolist():
            length = next((i + 1 for i, token in enumerate(row) if token in stops), len(row))
            replies.append((self.loaded.tokenizer.decode(row[:length], skip_special_tokens=True), length))
        return replies

    def _stream(self, inputs: Any, work: GpuWork, usage: Usage | None) -> Iterator[str]:
        with self.loaded.lock:
            pieces = 0
            for chunk in self._stream_on_device(inputs, work):
                if isinstance(chunk, int):  # the last item: how many tokens were generated
                    pieces = chunk
                elif chunk:
                    yield chunk
            if usage is not None:
                usage.completion_tokens = pieces

    def _stream_impl(self, inputs: Any, work: GpuWork) -> Iterator[str | int]:
        """Text chunks as they decode, then the number of new tokens; stops early when abandoned."""
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList, TextIteratorStreamer

        stop = threading.Event()

        class _Abandoned(StoppingCriteria):
            def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> bool:
                return stop.is_set()

        inputs = self._to_device(inputs)
        streamer = TextIteratorStreamer(self.loaded.tokenizer, skip_prompt=True, skip_special_tokens=True)
        result: dict[str, Any] = {}

        def run() -> None:
            try:
                with torch.inference_mode():
                    output = self.loaded.model.generate(
                        **inputs,
                        **self._generation_kwargs(work.new_tokens),
                        streamer=streamer,
                        stopping_criteria=StoppingCriteriaList([_Abandoned()]),
                    )
                result["new_tokens"] = int(output.shape[1] - inputs["input_ids"].shape[1])
            except BaseException as exc:
                result["error"] = exc
                streamer.end()

        worker = threading.Thread(target=run, name="spiqa-generate", daemon=True)
        worker.start()
        try:
            yield from streamer
        finally:
            stop.set()
            worker.join()
        if "error" in result:
            raise result["error"]
        yield result["new_tokens"]

    def _logits_impl(
        self, inputs: Any, continuations: list[tuple[int, ...]], work: GpuWork
    ) -> tuple[Any, dict[tuple[int, ...], float]]:
        """Float32 CPU logits of the next token, and the summed log-prob of each multi-token continuation.

        `work` only sizes the GPU time requested for the call (as in the other model calls).
        """
        import torch

        inputs = self._to_device(inputs)
        with torch.inference_mode():
            first = self.loaded.model(**inputs).logits[0, -1].float().cpu()
            sequences = {}
            for token_ids in continuations:
                extended = _extend(inputs, token_ids)
                logits = self.loaded.model(**extended).logits[0].float()
                start = inputs["input_ids"].shape[1] - 1
                steps = torch.log_softmax(logits[start : start + len(token_ids)], dim=-1)
                targets = torch.tensor(token_ids, device=steps.device)
                sequences[token_ids] = float(steps.gather(1, targets[:, None]).sum())
        return first, sequences


def _prompt_lengths(inputs: Any) -> list[int]:
    """Prompt tokens of each batch row, padding excluded."""
    if "attention_mask" in inputs:
        return [int(n) for n in inputs["attention_mask"].sum(dim=1).tolist()]
    return [int(inputs["input_ids"].shape[1])] * int(inputs["input_ids"].shape[0])


def _extend(inputs: Any, token_ids: tuple[int, ...]) -> dict[str, Any]:
    """`inputs` with `token_ids` appended (teacher forcing): per-token tensors grow to match."""
    import torch

    length = inputs["input_ids"].shape[1]
    extra = torch.tensor([token_ids], dtype=inputs["input_ids"].dtype, device=inputs["input_ids"].device)
    extended = dict(inputs)
    for key, value in inputs.items():
        if not (hasattr(value, "dim") and value.dim() == 2 and value.shape[1] == length):
            continue
        if key == "input_ids":
            extended[key] = torch.cat([value, extra], dim=1)
        else:  # attention_mask grows with ones; token-type style tensors with zeros (text)
            fill = torch.ones_like(extra) if key == "attention_mask" else torch.zeros_like(extra)
            extended[key] = torch.cat([value, fill.to(value.dtype)], dim=1)
    return extended


def _snapshot(messages: list[Message]) -> list[tuple[str, list[Any]]]:
    return [(m.role, list(m.parts)) for m in messages]


def _same(snapshot: list[tuple[str, list[Any]]], messages: list[Message]) -> bool:
    """True when `messages` still hold exactly the snapshot's roles and part objects."""
    return len(snapshot) == len(messages) and all(
        role == m.role and len(parts) == len(m.parts) and all(a is b for a, b in zip(parts, m.parts))
        for (role, parts), m in zip(snapshot, messages)
    )


def _fold_system(messages: list[Message]) -> list[Message]:
    system = "\n\n".join(m.text for m in messages if m.role == "system")
    rest = [m for m in messages if m.role != "system"]
    if rest and rest[0].role == "user":
        rest[0] = Message("user", [system + "\n\n", *rest[0].parts])
    else:
        rest.insert(0, Message("user", [system]))
    return rest
