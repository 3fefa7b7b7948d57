"""GPU check: peak memory of one PAGE update of a randomly initialised Qwen2.5-VL against steps
per micro-batch, with and without gradient checkpointing, and generation tokens/s.

    python -m gui_gym.benchmarks.perf.gpu_check --size 7b --device cuda --dtype bfloat16   # a GPU machine
    python -m gui_gym.benchmarks.perf.gpu_check                                           # the tiny model, CPU

The model is random (no weights are downloaded): `gui_gym.models.tiny_qwen.build_random_qwen25_vl`
of the tiny or the 7B architecture (`gui_gym.models.qwen_scale`), so the figures are those of the
architecture, not of a trained model's answers. The rollouts are made up at LocalWeb's size:
`--rollouts` rollouts of `--steps` steps, each a random 1280x800 screenshot and `--answer-tokens`
answer tokens, with PAGE advantages from made-up progress and subtasks. Peak memory is
``torch.cuda.max_memory_allocated`` on a GPU and not measured on a CPU (the row shows the
update's time only). The policy is LoRA-trained as in the example configs.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from typing import Any

import numpy as np
import torch

from gui_gym.agents.base import Act, Context
from gui_gym.agents.policies.vlm import VLMPolicy
from gui_gym.models.tiny_qwen import build_random_qwen25_vl, build_tiny_qwen25_vl
from gui_gym.trainers.grpo import TrainItem, update
from gui_gym.trainers.page import PAGEConfig, page_advantages
from gui_gym.trainers.rollout import Rollout, Step


def made_up_rollouts(policy: VLMPolicy, rollouts: int, steps: int, answer_tokens: int, seed: int = 0) -> list[Rollout]:
    """Rollouts of random 1280x800 screenshots and random answers, with progress and subtasks
    in the last step's info (what PAGE reads)."""
    rng = np.random.default_rng(seed)
    out = []
    for r in range(rollouts):
        rollout, history = Rollout(task_id="check", instruction="Send the invitation", seed=0), ()
        for t in range(steps):
            screen = {"screenshot": rng.integers(0, 255, (800, 1280, 3), dtype=np.uint8)}
            prompt = policy.prompt(screen, Context(rollout.instruction, history=history))
            tokens = tuple(int(x) for x in rng.integers(7, 100, answer_tokens))
            rollout.steps.append(Step(prompt=prompt, token_ids=tokens, info={}))
            history += (Act("", "", tokens, (), detail=prompt.messages[-1].images[0]),)
        done = [bool(rng.integers(2)) for _ in range(3)]
        rollout.steps[-1].info = {"progress": sum(done) / 3, "subtasks": [{"description": f"s{m}", "completed": u}
                                                                          for m, u in enumerate(done)],
                                  "subtask_of_step": [min(t * 3 // steps, 2) for t in range(steps)]}
        out.append(rollout)
    return out


def measure_update(policy: VLMPolicy, group: list[Rollout], micro_batch_steps: int, device: str) -> dict[str, Any]:
    cfg = PAGEConfig(micro_batch_steps=micro_batch_steps, minibatch_rollouts=len(group), learning_rate=1e-5)
    items = [TrainItem(r, a) for r, a in zip(group, page_advantages(group))]
    optimizer = torch.optim.Adam(list(policy.parameters()), lr=cfg.learning_rate)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    update(policy, optimizer, items, cfg)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() / 1024 ** 3 if device.startswith("cuda") else None
    return {"micro_batch_steps": micro_batch_steps, "peak_gib": peak, "update_s": time.perf_counter() - started}


def generation_rate(policy: VLMPolicy, prompt: Any, tokens: int) -> float:
    """Sampled tokens per second of one generation of up to `tokens` tokens."""
    policy.max_new_tokens = tokens
    started = time.perf_counter()
    act = policy.generate(prompt)
    return len(act.token_ids) / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=("tiny", "7b"), default="tiny")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--rollouts", type=int, default=2)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--answer-tokens", type=int, default=64)
    parser.add_argument("--micro-batch-steps", default="1,2,4", help="comma-separated")
    parser.add_argument("--generate-tokens", type=int, default=64)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as folder:
        if args.size == "tiny":
            build_tiny_qwen25_vl(folder)
        else:
            from gui_gym.models.qwen_scale import QWEN25_VL_7B

            build_random_qwen25_vl(folder, QWEN25_VL_7B, max_pixels=1280 * 28 * 28, dtype=args.dtype, device=args.device)
        for checkpointing in (False, True):
            torch.manual_seed(0)
            policy = VLMPolicy(folder, device=args.device, dtype=args.dtype, lora={}, max_image_side=1280,
                               history_images=1, gradient_checkpointing=checkpointing)
            group = made_up_rollouts(policy, args.rollouts, args.steps, args.answer_tokens)
            for steps in (int(s) for s in args.micro_batch_steps.split(",")):
                row = {"checkpointing": checkpointing, **measure_update(policy, group, steps, args.device)}
                rows.append(row)
                print(row, flush=True)
            if not checkpointing:
                rate = generation_rate(policy, group[0].steps[0].prompt, args.generate_tokens)
                print({"generation_tokens_per_s": rate}, flush=True)
                rows.append({"generation_tokens_per_s": rate})
            del policy
            if args.device.startswith("cuda"):
                torch.cuda.empty_cache()
    return rows


if __name__ == "__main__":
    main()
