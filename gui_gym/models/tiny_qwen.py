"""A tiny randomly initialised Qwen2.5-VL checkpoint, built from a config with a
character-level tokenizer and saved as ``save_pretrained`` writes it: nothing is downloaded.

The one builder the tests of the judges and of the VLM policy share. It has the real
architecture (vision tower, mRoPE, image tokens, chat template), so the code paths that load,
prompt, generate from and train a Qwen2.5-VL-family model all run on it, in seconds on a CPU.
"""

from __future__ import annotations

import os

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>",
           "<|video_pad|>"]
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% if m['content'] is string %}{{ m['content'] }}{% else %}"
    "{% for c in m['content'] %}{% if c['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def build_tiny_qwen25_vl(folder: str | os.PathLike[str], max_pixels: int = 112 * 112) -> None:
    """A 2-layer, 64-wide Qwen2.5-VL with a character vocabulary, written to `folder`; its image
    processor downscales an image to at most `max_pixels`."""
    build_random_qwen25_vl(folder, {
        "text_config": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                        "num_key_value_heads": 2, "max_position_embeddings": 4096,
                        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]}},
        "vision_config": {"depth": 2, "hidden_size": 64, "intermediate_size": 128, "num_heads": 4, "out_hidden_size": 64,
                          "fullatt_block_indexes": [1], "window_size": 56}}, max_pixels=max_pixels)


def build_random_qwen25_vl(folder: str | os.PathLike[str], architecture: dict, *, max_pixels: int,
                           dtype: str = "float32", device: str = "cpu", seed: int = 0) -> None:
    """A randomly initialised Qwen2.5-VL of `architecture` (``text_config`` and
    ``vision_config`` fields; `gui_gym.models.qwen_scale.QWEN25_VL_7B` for the papers' size)
    with the character tokenizer, written to `folder`. The text vocabulary is at least the
    tokenizer's; the special token ids are the tokenizer's. The weights are drawn from `seed`
    (the caller's random state untouched), so a model is the same whatever ran before: a test
    that trains it sees the same losses on every run."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    vocab = {token: i for i, token in enumerate(SPECIAL + [chr(c) for c in range(32, 127)] + ["\n"])}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<|endoftext|>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tokenizer.decoder = decoders.Fuse()
    tokenizer.add_special_tokens(SPECIAL)
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                            unk_token="<|endoftext|>", chat_template=CHAT_TEMPLATE).save_pretrained(folder)
    Qwen2VLImageProcessorPil(min_pixels=56 * 56, max_pixels=max_pixels).save_pretrained(folder)
    ids = {name: vocab[f"<|{name}|>"] for name in ("image_pad", "video_pad", "vision_start", "vision_end", "im_end",
                                                   "endoftext")}
    text = dict(architecture["text_config"])
    text.update(vocab_size=max(len(vocab), int(text.get("vocab_size", 0))), bos_token_id=ids["endoftext"],
                eos_token_id=ids["im_end"], pad_token_id=ids["endoftext"])
    config = Qwen2_5_VLConfig(
        text_config=text, vision_config=dict(architecture["vision_config"]),
        image_token_id=ids["image_pad"], video_token_id=ids["video_pad"], vision_start_token_id=ids["vision_start"],
        vision_end_token_id=ids["vision_end"], eos_token_id=ids["im_end"], pad_token_id=ids["endoftext"])
    with torch.random.fork_rng(devices=[torch.device(device)] if device != "cpu" else []), torch.device(device):
        torch.manual_seed(seed)
        model = Qwen2_5_VLForConditionalGeneration._from_config(config, dtype=getattr(torch, dtype))
    model.save_pretrained(folder)
