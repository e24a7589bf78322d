"""Tiny random-weight chat models built offline: the tests' fixtures and the batching benchmark's default model.

Each model is a 2-layer transformers checkpoint with a byte-level BPE tokenizer trained here by
`tokenizers`, so it loads through the same generic API as a real hub model (`AutoProcessor` +
`AutoModelForImageTextToText`, or `AutoTokenizer` + `AutoModelForCausalLM`) and nothing is
downloaded. `train` runs a few optimiser steps so a model always replies with one fixed text,
which makes flow tests deterministic. `tiny_model_dir` builds a checkpoint once under a folder.

Architectures: llava (CLIP + Llama; one image per prompt), idefics3 (SmolVLM-style; many images),
qwen2_5_vl and qwen3_vl (Qwen-VL: dynamic resolution, M-RoPE), smolvlm (SmolVLM2), llama (text
only). The Qwen-VL and SmolVLM processors are saved without their video processor, whose
torchvision is never installed here: loading them through `AutoProcessor` fails as it does for the
hub checkpoints, and `spiqa_demo.models.processors` is what reads them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

# The reply the "CoT" model is trained to give: SPIQA's format, picking Image 1. Its pieces are
# added tokens, so a 2-layer model learns the sequence in a few dozen steps.
COT_PIECES = ["{'Image': 1, 'Rationale': '", "Image 1 shows the results.", "'}\nThe answer is: ", "Yes"]
COT_REPLY = "".join(COT_PIECES)

_CORPUS = [
    "Yes", "No", "Yes.", "No.", " Yes", " No", COT_REPLY,
    "You are given a question, a few input images, and a caption corresponding to each input image.",
    "First, please determine which image and caption is most helpful to answer the question.",
    "Image 0: Caption 0: Figure 1: Accuracy of the model over training epochs.",
    "Table 2 reports precision, recall and F1 on the test set. The answer is: Yes",
    "Is the input image and caption helpful to answer the following question. Answer in one word - Yes or No.",
    "Please provide a brief answer to the following question after looking into the input image and caption.",
    "system user assistant image caption figure table chart plot axis legend paper question answer",
    "0 1 2 3 4 5 6 7 8 9 10 100 2024 % , . : ; ! ? ( ) [ ] { } - + = / * \" '",
]

_PARTS = (
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for c in message['content'] %}"
    "{% if c['type'] == 'image' %}IMG{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}"
    "{% endfor %}{% endif %}"
)
CHAT_LLAVA = (
    "{% for message in messages %}<|{{ message['role'] }}|>\n" + _PARTS.replace("IMG", "<image>\n")
    + "<|end|>\n{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
CHAT_IDEFICS3 = (
    "<|im_start|>{% for message in messages %}{{ message['role'] | capitalize }}:"
    + _PARTS.replace("IMG", "<image>")
    + "<end_of_utterance>\n{% endfor %}{% if add_generation_prompt %}Assistant:{% endif %}"
)
CHAT_TEXT = CHAT_LLAVA.replace("<image>\n", "")
CHAT_QWEN = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    + _PARTS.replace("IMG", "<|vision_start|><|image_pad|><|vision_end|>")
    + "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
QWEN_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
                 "<|image_pad|>", "<|video_pad|>"]
IDEFICS3_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<end_of_utterance>", "<fake_token_around_image>", "<image>",
                     "<global-img>"] + [f"<row_{i}_col_{j}>" for i in range(1, 7) for j in range(1, 7)]

IMAGE_PX, PATCH_PX = 32, 8


def _tokenizer(special_tokens: list[str], chat_template: str, vocab_size: int = 600, **kwargs):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=special_tokens,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False,
    )
    tk.train_from_iterator(_CORPUS * 20, trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, chat_template=chat_template, **kwargs)
    tok.model_max_length = 8192
    tok.add_tokens(COT_PIECES[:-1])
    return tok


def _llama_config(tok, bos: str, eos: str, pad: str):
    from transformers import LlamaConfig

    ids = tok.convert_tokens_to_ids
    return LlamaConfig(
        vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
        bos_token_id=ids(bos), eos_token_id=ids(eos), pad_token_id=ids(pad),
    )


def build(arch: str):
    """(model, processor or tokenizer) with random weights, seeded."""
    import torch
    import transformers as T

    torch.manual_seed(0)
    if arch == "llava":
        from transformers.models.llava.image_processing_pil_llava import LlavaImageProcessorPil

        tok = _tokenizer(
            ["<pad>", "<s>", "</s>", "<image>", "<|user|>", "<|assistant|>", "<|system|>", "<|end|>"], CHAT_LLAVA,
            bos_token="<s>", eos_token="<|end|>", pad_token="<pad>", extra_special_tokens={"image_token": "<image>"},
        )
        vision = T.CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                                    image_size=IMAGE_PX, patch_size=PATCH_PX, projection_dim=32)
        config = T.LlavaConfig(
            vision_config=vision, text_config=_llama_config(tok, "<s>", "<|end|>", "<pad>"),
            image_token_index=tok.convert_tokens_to_ids("<image>"), image_seq_length=(IMAGE_PX // PATCH_PX) ** 2,
            vision_feature_select_strategy="default", vision_feature_layer=-1,
        )
        model = T.LlavaForConditionalGeneration(config)
        images = LlavaImageProcessorPil(size={"shortest_edge": IMAGE_PX}, crop_size={"height": IMAGE_PX, "width": IMAGE_PX})
        proc = T.LlavaProcessor(image_processor=images, tokenizer=tok, patch_size=PATCH_PX,
                                num_additional_image_tokens=1, vision_feature_select_strategy="default",
                                chat_template=CHAT_LLAVA, image_token="<image>")
    elif arch == "idefics3":
        from transformers.models.idefics3.configuration_idefics3 import Idefics3VisionConfig
        from transformers.models.idefics3.image_processing_pil_idefics3 import Idefics3ImageProcessorPil

        tok = _tokenizer(IDEFICS3_SPECIALS, CHAT_IDEFICS3, vocab_size=700, bos_token="<|im_start|>",
                         eos_token="<end_of_utterance>", pad_token="<|endoftext|>")
        scale = 2
        vision = Idefics3VisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=2, image_size=IMAGE_PX, patch_size=PATCH_PX)
        config = T.Idefics3Config(
            vision_config=vision, text_config=_llama_config(tok, "<|im_start|>", "<end_of_utterance>", "<|endoftext|>"),
            image_token_id=tok.convert_tokens_to_ids("<image>"), scale_factor=scale,
        )
        model = T.Idefics3ForConditionalGeneration(config)
        images = Idefics3ImageProcessorPil(size={"longest_edge": 2 * IMAGE_PX}, max_image_size={"longest_edge": IMAGE_PX},
                                           do_image_splitting=False)
        proc = T.Idefics3Processor(image_processor=images, tokenizer=tok, chat_template=CHAT_IDEFICS3,
                                   image_seq_len=(IMAGE_PX // PATCH_PX) ** 2 // scale**2)
    elif arch in ("qwen2_5_vl", "qwen3_vl"):
        model, proc = _qwen_vl(arch)
    elif arch == "smolvlm":
        model, proc = _smolvlm()
    elif arch == "llama":
        tok = _tokenizer(["<pad>", "<s>", "</s>", "<|user|>", "<|assistant|>", "<|system|>", "<|end|>"], CHAT_TEXT,
                         bos_token="<s>", eos_token="<|end|>", pad_token="<pad>")
        model = T.LlamaForCausalLM(_llama_config(tok, "<s>", "<|end|>", "<pad>"))
        proc = tok
    else:
        raise ValueError(f"unknown arch {arch!r}")
    tok = getattr(proc, "tokenizer", proc)
    gc = model.generation_config
    gc.eos_token_id, gc.pad_token_id, gc.bos_token_id = tok.eos_token_id, tok.pad_token_id, tok.bos_token_id
    return model.eval(), proc


def _qwen_vl(arch: str):
    """Qwen2.5-VL or Qwen3-VL: a patch-merging ViT and a Qwen text model with multimodal RoPE."""
    import transformers as T
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    from spiqa_demo.models.processors import without_video

    tok = _tokenizer(QWEN_SPECIALS, CHAT_QWEN, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    ids = tok.convert_tokens_to_ids
    # head_dim 16: M-RoPE splits its 8 frequency pairs over time, height and width.
    text = dict(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, head_dim=16, max_position_embeddings=4096, bos_token_id=None,
                eos_token_id=ids("<|im_end|>"), pad_token_id=ids("<|endoftext|>"))
    vision = dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, patch_size=PATCH_PX,
                  spatial_merge_size=2, temporal_patch_size=2, out_hidden_size=64)
    tokens = dict(image_token_id=ids("<|image_pad|>"), video_token_id=ids("<|video_pad|>"),
                  vision_start_token_id=ids("<|vision_start|>"), vision_end_token_id=ids("<|vision_end|>"))
    if arch == "qwen2_5_vl":
        text["rope_parameters"] = {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]}
        vision.update(window_size=2 * PATCH_PX * 2, fullatt_block_indexes=[1])
        model = T.Qwen2_5_VLForConditionalGeneration(T.Qwen2_5_VLConfig(text_config=text, vision_config=vision, **tokens))
        processor_class = T.Qwen2_5_VLProcessor
    else:
        text["rope_parameters"] = {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3],
                                   "mrope_interleaved": True}
        vision.update(num_position_embeddings=64, deepstack_visual_indexes=[1])
        model = T.Qwen3VLForConditionalGeneration(T.Qwen3VLConfig(text_config=text, vision_config=vision, **tokens))
        processor_class = T.Qwen3VLProcessor
    # Images are resized to between 2x2 and 4x4 merged patches (Qwen's min/max pixels, scaled down).
    pixels = (2 * PATCH_PX) ** 2
    images = Qwen2VLImageProcessorPil(patch_size=PATCH_PX, merge_size=2, temporal_patch_size=2,
                                      size={"shortest_edge": 4 * pixels, "longest_edge": 16 * pixels})
    return model, without_video(processor_class)(image_processor=images, tokenizer=tok, chat_template=CHAT_QWEN)


def _smolvlm():
    """SmolVLM2: a SigLIP-style encoder, pixel shuffle, and a Llama (SmolLM2) text model; its own chat template."""
    import transformers as T
    from transformers.models.smolvlm.image_processing_pil_smolvlm import SmolVLMImageProcessorPil
    from transformers.models.smolvlm.processing_smolvlm import DEFAULT_CHAT_TEMPLATE

    from spiqa_demo.models.processors import without_video

    tok = _tokenizer(IDEFICS3_SPECIALS, DEFAULT_CHAT_TEMPLATE, vocab_size=700, bos_token="<|im_start|>",
                     eos_token="<end_of_utterance>", pad_token="<|endoftext|>")
    scale = 2
    vision = T.SmolVLMVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                                   image_size=IMAGE_PX, patch_size=PATCH_PX)
    config = T.SmolVLMConfig(
        vision_config=vision, text_config=_llama_config(tok, "<|im_start|>", "<end_of_utterance>", "<|endoftext|>"),
        image_token_id=tok.convert_tokens_to_ids("<image>"), scale_factor=scale,
    )
    images = SmolVLMImageProcessorPil(size={"longest_edge": 2 * IMAGE_PX}, max_image_size={"longest_edge": IMAGE_PX},
                                      do_image_splitting=False)
    proc = without_video(T.SmolVLMProcessor)(image_processor=images, tokenizer=tok, chat_template=DEFAULT_CHAT_TEMPLATE,
                                              image_seq_len=(IMAGE_PX // PATCH_PX) ** 2 // scale**2)
    return T.SmolVLMForConditionalGeneration(config), proc


def make_image(i: int = 0, size: tuple[int, int] = (120, 90)):
    """A small distinct test image (a coloured box with a label)."""
    from PIL import Image, ImageDraw

    im = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(im)
    draw.rectangle([10 + 5 * i, 20, 60, 80], fill=(200, (40 * i) % 255, 40))
    draw.text((5, 5), f"fig {i}", fill="black")
    return im


def train(model, proc, reply: str, steps: int, lr: float = 3e-3) -> float:
    """AdamW steps until the model replies `reply` (then eos) to any prompt with 0-3 images."""
    import torch

    tok = getattr(proc, "tokenizer", proc)
    target = tok.encode(reply, add_special_tokens=False) + [tok.eos_token_id]
    is_vlm = hasattr(proc, "image_processor")
    prompts = ["Does the caption match the figure? Answer Yes or No.", "Which image answers the question?",
               "Caption 0: accuracy over epochs. Question: is it better?", " ".join(_CORPUS[7:])]
    batches = []
    for k, prompt in enumerate(prompts * 2):
        n_images = (k % 4) if is_vlm else 0
        content = [{"type": "image", "image": make_image(k + j)} for j in range(n_images)] if is_vlm else prompt
        if is_vlm:
            content.append({"type": "text", "text": prompt})
        inputs = dict(proc.apply_chat_template([{"role": "user", "content": content}], add_generation_prompt=True,
                                               tokenize=True, return_dict=True, return_tensors="pt"))
        ids = torch.cat([inputs["input_ids"], torch.tensor([target])], 1)
        labels = ids.clone()
        labels[:, : inputs["input_ids"].shape[1]] = -100
        inputs.update(input_ids=ids, attention_mask=torch.ones_like(ids), labels=labels)
        if "mm_token_type_ids" in inputs:  # Qwen-VL: which tokens are image placeholders (the reply's are text)
            types = inputs["mm_token_type_ids"]
            inputs["mm_token_type_ids"] = torch.cat([types, torch.zeros(1, len(target), dtype=types.dtype)], 1)
        batches.append(inputs)
    model.train()
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr)
    for step in range(steps):
        loss = model(**batches[step % len(batches)]).loss
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
    model.eval()
    return float(loss.detach())


def tiny_model_dir(base: Path, arch: str, reply: str | None = None, steps: int = 60) -> Path:
    """The saved checkpoint (built on first call, reused afterwards)."""
    name = arch if reply is None else f"{arch}-{hashlib.sha1(f'{reply}|{steps}'.encode()).hexdigest()[:10]}"
    out = base / "tiny-models" / name
    if not (out / "config.json").exists():
        model, proc = build(arch)
        if reply is not None:
            train(model, proc, reply, steps)
        model.save_pretrained(out)
        proc.save_pretrained(out)
    return out
