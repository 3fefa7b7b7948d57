"""Qwen2.5-VL at the papers' size without its weights: the published 7B architecture (UI-TARS-1.5-7B
shares it) built from its config on the meta device, and a memory estimate for training it.

The papers train 7-8B models; nothing here downloads them. `qwen25_vl_7b_config` is the
architecture of Qwen2.5-VL-7B-Instruct's ``config.json``; `build_on_meta` instantiates it with
no storage, so the parameter count is exact and costs nothing; `training_memory` turns that
count and a micro-batch's tokens into GiB for one GPU. The activation term is an estimate (the
tensors a bf16 decoder layer keeps for its backward pass, flash attention, no sequence
parallelism), to choose ``micro_batch_steps`` and gradient checkpointing before a run, not a
measurement: ``benchmarks/perf/gpu_check.py`` is for measuring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

GIB = 1024 ** 3

QWEN25_VL_7B: dict[str, Any] = {
    "text_config": {"vocab_size": 152064, "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
                    "num_attention_heads": 28, "num_key_value_heads": 4, "max_position_embeddings": 128000,
                    "rms_norm_eps": 1e-6, "tie_word_embeddings": False, "bos_token_id": 151643, "eos_token_id": 151645,
                    "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0,
                                        "mrope_section": [16, 24, 24]}},
    "vision_config": {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "num_heads": 16,
                      "out_hidden_size": 3584, "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2,
                      "window_size": 112, "fullatt_block_indexes": [7, 15, 23, 31], "in_chans": 3,
                      "hidden_act": "silu"},
    "image_token_id": 151655, "video_token_id": 151656, "vision_start_token_id": 151652,
    "vision_end_token_id": 151653, "eos_token_id": 151645, "tie_word_embeddings": False,
}
"""Qwen2.5-VL-7B-Instruct's architecture (UI-TARS-1.5-7B is a fine-tune of it)."""


def qwen25_vl_7b_config() -> Any:
    """The 7B architecture as a transformers `Qwen2_5_VLConfig`."""
    from transformers import Qwen2_5_VLConfig

    return Qwen2_5_VLConfig(**QWEN25_VL_7B)


def build_on_meta(config: Any) -> Any:
    """The model of `config` on the meta device: every parameter has its shape and dtype and
    no storage, so a 7B model is built in seconds and in no memory."""
    import torch
    from transformers import Qwen2_5_VLForConditionalGeneration

    with torch.device("meta"):
        return Qwen2_5_VLForConditionalGeneration._from_config(config, dtype=torch.bfloat16)


def parameter_counts(model: Any) -> dict[str, int]:
    """Parameters of the whole model, of its vision tower and of the rest (the language model
    and its head)."""
    total = sum(p.numel() for p in model.parameters())
    vision = sum(p.numel() for name, p in model.named_parameters() if ".visual." in f".{name}")
    return {"total": total, "vision": vision, "language": total - vision}


@dataclass(frozen=True)
class MemoryEstimate:
    """One GPU's training memory, in GiB, by what holds it."""

    weights_gib: float
    gradients_gib: float
    optimizer_gib: float
    activations_gib: float

    @property
    def total_gib(self) -> float:
        return self.weights_gib + self.gradients_gib + self.optimizer_gib + self.activations_gib


def training_memory(config: Any, parameters: int, *, trainable: int, micro_batch_tokens: int,
                    checkpointing: bool) -> MemoryEstimate:
    """Estimated memory to train `trainable` of `parameters` (bf16 weights and gradients, Adam
    with fp32 moments and an fp32 master copy of the trainable weights: 14 bytes per trained
    parameter beyond the weights) on one micro-batch of `micro_batch_tokens` tokens.

    Activations per token and decoder layer, in bf16 bytes, are what the backward pass reads:
    attention 2 x (5 h + 2 kv) (norm input, projections' inputs and q/k/v, the output and its
    projection input; flash attention keeps no score matrix) and the SwiGLU MLP 2 x (2 h + 4 i)
    (norm input, gate and up inputs and outputs, their product); plus the bf16 logits over the
    vocabulary for every token (transformers computes them all). With checkpointing only each
    layer's input (2 h) is kept, and one layer's full set is live during its recomputation.
    The vision tower's activations are left out (~1 k image tokens per screenshot against a
    prompt's several thousand, and 1280 wide against 3584).
    """
    text = config.text_config
    h, i, layers = text.hidden_size, text.intermediate_size, text.num_hidden_layers
    kv = h // text.num_attention_heads * text.num_key_value_heads
    per_layer = 2 * (5 * h + 2 * kv) + 2 * (2 * h + 4 * i)
    logits = 2 * text.vocab_size
    per_token = (layers * 2 * h + per_layer if checkpointing else layers * per_layer) + logits
    return MemoryEstimate(weights_gib=2 * parameters / GIB, gradients_gib=2 * trainable / GIB,
                          optimizer_gib=12 * trainable / GIB, activations_gib=per_token * micro_batch_tokens / GIB)
