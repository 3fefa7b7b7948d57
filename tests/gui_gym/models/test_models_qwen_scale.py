"""The 7B architecture built on the meta device (exact parameter count, no memory) and the
training-memory estimate's arithmetic."""

from __future__ import annotations

import pytest

from gui_gym.models.qwen_scale import GIB, build_on_meta, parameter_counts, qwen25_vl_7b_config, training_memory


@pytest.mark.slow
def test_the_7b_architecture_builds_on_meta_with_the_published_parameter_count():
    from peft import LoraConfig, get_peft_model

    from gui_gym.agents.policies.vlm import LORA_DEFAULTS

    config = qwen25_vl_7b_config()
    model = build_on_meta(config)
    assert all(p.is_meta for p in model.parameters())
    counts = parameter_counts(model)
    assert counts == {"total": 8_292_166_656, "vision": 676_550_144, "language": 7_615_616_512}  # "8.29B"
    lora = sum(p.numel() for p in get_peft_model(model, LoraConfig(**LORA_DEFAULTS)).parameters() if p.requires_grad)
    assert lora == 28 * 16 * (2 * (3584 + 3584) + 2 * (3584 + 512))  # q, o square; k, v to the 4 kv heads
    full = training_memory(config, counts["total"], trainable=counts["total"], micro_batch_tokens=2500,
                           checkpointing=True)
    adapter = training_memory(config, counts["total"], trainable=lora, micro_batch_tokens=2500, checkpointing=True)
    assert full.total_gib > 120 > 20 > adapter.total_gib  # full fine-tuning needs sharding; LoRA fits one GPU


def test_the_memory_estimate_counts_what_it_says():
    config = qwen25_vl_7b_config()
    h, i, kv, layers, vocab = 3584, 18944, 512, 28, 152064
    layer = 2 * (5 * h + 2 * kv) + 2 * (2 * h + 4 * i)
    kept = training_memory(config, 1000, trainable=10, micro_batch_tokens=100, checkpointing=False)
    assert kept.weights_gib == pytest.approx(2000 / GIB) and kept.gradients_gib == pytest.approx(20 / GIB)
    assert kept.optimizer_gib == pytest.approx(120 / GIB)
    assert kept.activations_gib == pytest.approx(100 * (layers * layer + 2 * vocab) / GIB)
    recomputed = training_memory(config, 1000, trainable=10, micro_batch_tokens=100, checkpointing=True)
    assert recomputed.activations_gib == pytest.approx(100 * (layers * 2 * h + layer + 2 * vocab) / GIB)
    assert recomputed.total_gib < kept.total_gib
