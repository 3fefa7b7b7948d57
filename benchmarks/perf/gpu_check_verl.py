"""verl GPU check: PAGE iterations of verl 0.9.1's own actor update on real LocalWeb episodes,
peak memory, step time and tokens/s against the micro-batch size and gradient checkpointing.

    # where a browser is (records the episodes, the tiny model answering, and writes them)
    python -m gui_gym.benchmarks.perf.gpu_check_verl --record-only --episodes episodes.json --max-pixels 1003520
    # one GPU (no browser needed): a random-init Qwen2.5-VL-7B (UI-TARS-1.5-7B's architecture)
    python -m gui_gym.benchmarks.perf.gpu_check_verl --size 7b --device cuda --episodes episodes.json
    # the CPU twin (its test): the tiny model, episodes recorded in the same run
    python -m gui_gym.benchmarks.perf.gpu_check_verl --micro-batches 1,2 --checkpointing on --iterations 1

One iteration is what verl's trainer does between rollout and the next rollout, each step
verl's own code: PAGE's advantage on the `DataProto` verl's agent-loop post-processing made of
the episodes (`gui_gym.trainers.verl_plugins.advantages.page_batch_advantages`, the token
advantage the ``gui_gym`` trainer computes), then ``RayPPOTrainer._compute_old_log_prob`` and
``RayPPOTrainer._update_actor`` (padding removal, mini-batches, verl's ``ActorRolloutRefWorker``
with its FSDP2 engine, LoRA as in the example config, verl's ``ppo_loss``). What runs
differently from a verl job: the worker lives in this process (one rank, a file-store process
group, the batch handed over directly instead of through Ray), so `InProcessWorkers` stands in
for Ray's worker group. The episodes are played before verl's engine is built
(`gui_gym.benchmarks.perf.verl_episodes`: our agent loop against the tiny model served by
transformers, verl's post-processing), or read from a file recorded earlier.

The model is built from a config with random weights (`gui_gym.models.tiny_qwen`, the 7B from
`gui_gym.models.qwen_scale.QWEN25_VL_7B`), so the figures are those of the architecture on
these sequences. A cell is one (micro-batch, checkpointing) setting: one worker per
checkpointing setting (verl applies it when it builds the model), the micro-batch set per
update as verl's trainer sets it (``micro_batch_size_per_gpu`` in the batch). Peak memory is
``torch.cuda.max_memory_allocated`` over the cell; a CPU run reports none. ``--budget-s``
bounds the whole run: cells not started when it is spent are listed as skipped.

On a CPU `gui_gym.benchmarks.perf.verl_cpu` makes verl run there (a CPU platform plug-in,
the FSDP2 engine registered for it); verl's Qwen2-VL attention patch for padding-free batches
imports names transformers 5.x no longer has, so ``use_remove_padding`` is off (``--remove-padding``
turns it on where verl's pinned transformers and flash-attn are installed).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch

from gui_gym.benchmarks.perf.verl_episodes import TransformersServer, load_episodes, play, save_episodes, verl_postprocess
from gui_gym.errors import UsageError


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "verl"
EXAMPLE = "page_uitars7b_osworld"
TASK = "shop.add-to-cart"


def record(folder: Path, groups: int, group_size: int, max_steps: int, seed: int) -> tuple[list[Any], list[str]]:
    """`groups` task instances of LocalWeb's shop, `group_size` episodes each, played by our
    agent loop with PAGE's oracle judge, the model in `folder` answering."""
    from gui_gym.models.transformers_model import QwenVL
    from gui_gym.trainers.verl_plugins.agent_loop import close_envs

    qwen = QwenVL(folder)
    server = TransformersServer(qwen)
    settings = {"env_kwargs": {"apps": ["shop"], "max_steps": max_steps}, "page": {"judge": "oracle"},
                "max_image_side": 1280}
    sampling = {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "repetition_penalty": 1.0, "logprobs": True}
    torch.manual_seed(seed)
    outs, uids = [], []
    try:
        for group in range(groups):
            for _ in range(group_size):
                outs.append(play(qwen, server, folder, sampling, {"task_id": TASK, "instance_seed": group},
                                 sequence_length=32768, **settings))
                uids.append(f"g{group}")
    finally:
        close_envs()
    return outs, uids


def verl_config(folder: Path, *, checkpointing: bool, groups: int, group_size: int, remove_padding: bool,
                intra_mode: str) -> Any:
    """The example PAGE config (`examples/verl/page_uitars7b_osworld.yaml`, LoRA) on the model in
    `folder`, one GPU, fixed-size micro-batches, one mini-batch (one optimizer step) per iteration."""
    from hydra import compose, initialize_config_dir

    if not EXAMPLES.is_dir():
        raise UsageError(f"the verl example configs are not at {EXAMPLES}: run from the repository's checkout")
    overrides = [
        f"actor_rollout_ref.model.path={folder}", "+actor_rollout_ref.model.override_config.attn_implementation=sdpa",
        f"actor_rollout_ref.model.use_remove_padding={remove_padding}",
        f"actor_rollout_ref.model.enable_gradient_checkpointing={checkpointing}",
        "actor_rollout_ref.actor.strategy=fsdp2", "actor_rollout_ref.actor.use_dynamic_bsz=false",
        "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=false", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1",
        f"actor_rollout_ref.actor.ppo_mini_batch_size={groups}", f"actor_rollout_ref.rollout.n={group_size}",
        f"algorithm.page_intra_mode={intra_mode}", "trainer.n_gpus_per_node=1"]
    with initialize_config_dir(config_dir=str(EXAMPLES), version_base=None):
        return compose(config_name=EXAMPLE, overrides=overrides)


class InProcessWorkers:
    """Ray's worker group for one actor worker in this process: the trainer's calls go to the
    worker directly. One repair on the way, of a verl 0.9.1 bug: ``left_right_2_no_padding``
    builds the mRoPE position ids with ``as_nested_tensor``, which makes the ragged dimension
    the first when every sequence of the batch has the same length, and the worker's
    ``maybe_fix_3d_position_ids`` then declares it the last, so splitting the batch fails; the
    ids are rebuilt ragged along the sequence, as verl means them."""

    def __init__(self, worker: Any):
        self.worker = worker

    def compute_log_prob(self, data: Any) -> Any:
        return self.worker.compute_log_prob(self._ragged_positions(data))

    def update_actor(self, data: Any) -> Any:
        return self.worker.update_actor(self._ragged_positions(data))

    @staticmethod
    def _ragged_positions(data: Any) -> Any:
        from verl.utils.tensordict_utils import nested_tensor_from_tensor_list

        positions = data["position_ids"]
        if positions.is_nested and positions.dim() == 3 and positions._ragged_idx == 1:
            data["position_ids"] = nested_tensor_from_tensor_list(list(positions.unbind()), ragged_idx=2)
        return data


def start_process_group(device: str, folder: Path) -> None:
    """One rank, its rendezvous a file (nothing listens); the environment verl's ``Worker`` reads."""
    import torch.distributed as dist

    for key, value in {"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1",
                       "MASTER_PORT": "0"}.items():  # read by verl's Worker; the group below uses no port
        os.environ.setdefault(key, value)
    if not dist.is_initialized():
        backend = "cpu:gloo,cuda:nccl" if device.startswith("cuda") else "gloo"
        dist.init_process_group(backend, init_method=f"file://{folder / 'process-group'}", rank=0, world_size=1)


def trainable(worker: Any) -> dict[str, torch.Tensor]:
    """The actor's trainable (LoRA) parameters, whole, on the CPU."""
    out = {}
    for name, parameter in worker.actor.engine.module.named_parameters():
        if parameter.requires_grad:
            value = parameter.detach()
            out[name] = (value.full_tensor() if hasattr(value, "full_tensor") else value).float().cpu().clone()
    return out


def run_cell(trainer: Any, data: Any, micro_batch: int, iterations: int, device: str) -> dict[str, Any]:
    """`iterations` of verl's old-log-prob and actor-update steps at `micro_batch` sequences per
    micro-batch: peak memory, mean update time, trained tokens (prompt and response) per second."""
    from verl.trainer.ppo.ray_trainer import RayPPOTrainer

    cuda = device.startswith("cuda")
    before = trainable(trainer.actor_rollout_wg.worker)
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    update_s, logprob_s, metrics = [], [], {}
    for _ in range(iterations):
        for key in ("old_log_probs", "entropys"):
            if key in data.batch.keys():
                del data.batch[key]
        data.meta_info["micro_batch_size_per_gpu"] = micro_batch  # the worker reads it from the batch
        started = time.perf_counter()
        old, _ = RayPPOTrainer._compute_old_log_prob(trainer, data)
        logprob_s.append(time.perf_counter() - started)
        data = data.union(old)
        started = time.perf_counter()
        output = RayPPOTrainer._update_actor(trainer, data)
        if cuda:
            torch.cuda.synchronize()
        update_s.append(time.perf_counter() - started)
        metrics = output.meta_info["metrics"]
    after = trainable(trainer.actor_rollout_wg.worker)
    tokens = int(data.batch["attention_mask"].sum())
    step = sum(update_s) / len(update_s)
    mean = lambda values: float(sum(values) / len(values)) if isinstance(values, list) else float(values)  # noqa: E731
    return {"micro_batch": micro_batch, "peak_gib": torch.cuda.max_memory_allocated() / 1024 ** 3 if cuda else None,
            "step_s": step, "logprob_s": sum(logprob_s) / len(logprob_s), "tokens": tokens, "tokens_per_s": tokens / step,
            "pg_loss": mean(metrics["actor/pg_loss"]), "grad_norm": mean(metrics["actor/grad_norm"]),
            "changed_parameters": sum(not torch.equal(before[n], after[n]) for n in before),
            "trainable_parameters": len(before)}


def build_model(folder: Path, size: str, max_pixels: int, dtype: str, device: str) -> None:
    from gui_gym.models.tiny_qwen import build_random_qwen25_vl, build_tiny_qwen25_vl

    if size == "tiny":
        build_tiny_qwen25_vl(folder, max_pixels=max_pixels)
    else:
        from gui_gym.models.qwen_scale import QWEN25_VL_7B

        build_random_qwen25_vl(folder, QWEN25_VL_7B, max_pixels=max_pixels, dtype=dtype, device=device)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=("tiny", "7b"), default="tiny")
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--dtype", default="bfloat16", help="the 7B checkpoint's dtype (verl loads the actor as its "
                        "config says: fp32 master weights, bf16 compute)")
    parser.add_argument("--episodes", type=Path, help="recorded episodes: read if the file exists, else recorded "
                        "(a browser is needed) and written there")
    parser.add_argument("--record-only", action="store_true", help="record the episodes into --episodes and stop")
    parser.add_argument("--groups", type=int, default=1, help="task instances recorded (verl's mini-batch)")
    parser.add_argument("--group-size", type=int, default=2, help="episodes per instance (verl's rollout.n)")
    parser.add_argument("--max-steps", type=int, default=2, help="LocalWeb steps per recorded episode")
    parser.add_argument("--max-pixels", type=int, default=112 * 112, help="the image processor's bound when "
                        "recording (1280x800 LocalWeb screenshots: 1003520)")
    parser.add_argument("--micro-batches", default="1,2", help="sequences per micro-batch, comma-separated")
    parser.add_argument("--checkpointing", choices=("off", "on", "both"), default="both")
    parser.add_argument("--iterations", type=int, default=2, help="PAGE iterations per cell")
    parser.add_argument("--intra-mode", default="signed", choices=("signed", "centered"),
                        help="PAGE's subtask term; signed: a random policy's failed spans still move the policy")
    parser.add_argument("--remove-padding", action="store_true", help="verl's padding-free attention (flash-attn and "
                        "verl's pinned transformers)")
    parser.add_argument("--budget-s", type=float, default=540.0, help="cells not started within this many seconds of "
                        "the start are skipped")
    parser.add_argument("--out", type=Path, help="write the rows, the advantages and the episodes' fields as JSON")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    args = parse(argv)
    if args.record_only and args.episodes is None:
        raise UsageError("--record-only writes the episodes to --episodes FILE: name one")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gpu-check-verl-") as tmp:
        tmp_path = Path(tmp)
        if args.episodes is not None and args.episodes.exists():
            outs, uids, max_pixels = load_episodes(args.episodes)
        else:
            max_pixels = args.max_pixels
            build_model(tmp_path / "recorder", "tiny", max_pixels, "float32", "cpu")
            outs, uids = record(tmp_path / "recorder", args.groups, args.group_size, args.max_steps, seed=0)
            if args.episodes is not None:
                save_episodes(args.episodes, outs, uids, max_pixels)
        print(f"{len(outs)} episodes of {len(set(uids))} group(s), {time.perf_counter() - started:.1f} s", flush=True)
        if args.record_only:
            return []
        return train(args, tmp_path, outs, uids, max_pixels, started)


def train(args: argparse.Namespace, tmp_path: Path, outs: list[Any], uids: list[str], max_pixels: int,
          started: float) -> list[dict[str, Any]]:
    from gui_gym.benchmarks.perf.verl_cpu import transformers_compat, use_cpu
    from gui_gym.trainers.verl_plugins.advantages import page_batch_advantages

    folder = tmp_path / "model"
    build_model(folder, args.size, max_pixels, args.dtype, args.device)
    groups, group_size = len(set(uids)), len(uids) // len(set(uids))
    data = verl_postprocess(folder, _tokenizer_only(folder), outs, uids)
    data.batch["token_level_rewards"] = data.batch["rm_scores"]
    if not args.device.startswith("cuda"):
        use_cpu()
    transformers_compat()
    start_process_group(args.device, tmp_path)
    rows: list[dict[str, Any]] = []
    advantages = None
    micro_batches = [int(m) for m in args.micro_batches.split(",")]
    for checkpointing in {"off": [False], "on": [True], "both": [False, True]}[args.checkpointing]:
        if time.perf_counter() - started > args.budget_s:
            rows += [{"checkpointing": checkpointing, "micro_batch": m, "skipped": "over the time budget"}
                     for m in micro_batches]
            continue
        cfg = verl_config(folder, checkpointing=checkpointing, groups=groups, group_size=group_size,
                          remove_padding=args.remove_padding, intra_mode=args.intra_mode)
        if advantages is None:
            page_batch_advantages(data, cfg.algorithm)
            advantages = data.batch["advantages"]
            _trainer_meta(data, cfg)
        worker = _actor(cfg)
        trainer = SimpleNamespace(config=cfg, actor_rollout_wg=InProcessWorkers(worker), distillation_config=None)
        for micro_batch in micro_batches:
            if time.perf_counter() - started > args.budget_s:
                rows.append({"checkpointing": checkpointing, "micro_batch": micro_batch, "skipped": "over the time budget"})
                continue
            row = {"checkpointing": checkpointing, **run_cell(trainer, data, micro_batch, args.iterations, args.device)}
            rows.append(row)
            print(row, flush=True)
        del trainer, worker
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()
    print_table(rows, args, time.perf_counter() - started)
    if args.out is not None:
        args.out.write_text(json.dumps({
            "rows": rows, "advantages": [advantages[r, :len(out.response_ids)].tolist() for r, out in enumerate(outs)],
            "episodes": [{**out.extra_fields, "uid": uid} for out, uid in zip(outs, uids)]}, default=str))
    return rows


def _tokenizer_only(folder: Path) -> Any:
    """What `verl_postprocess` reads of a `QwenVL` (its tokenizer), without loading a 7B's weights."""
    from transformers import AutoTokenizer

    return SimpleNamespace(tokenizer=AutoTokenizer.from_pretrained(folder))


def _trainer_meta(data: Any, cfg: Any) -> None:
    """What verl's ``fit`` puts in the batch's meta info before the log-prob and update steps."""
    data.meta_info["temperature"] = cfg.actor_rollout_ref.rollout.temperature
    data.meta_info["global_token_num"] = torch.sum(data.batch["attention_mask"], dim=-1).tolist()
    data.meta_info["images_seqlens"] = [n for inputs in data.non_tensor_batch["multi_modal_inputs"]
                                        if "image_grid_thw" in inputs for n in inputs["images_seqlens"].tolist()]


def _actor(cfg: Any) -> Any:
    """verl's actor worker (role ``actor``: no rollout engine, no reference model), initialised."""
    from verl.workers.engine_workers import ActorRolloutRefWorker

    worker = ActorRolloutRefWorker(config=cfg.actor_rollout_ref, role="actor")
    worker.init_model()
    return worker


def print_table(rows: list[dict[str, Any]], args: argparse.Namespace, wall_s: float) -> None:
    print(f"\nverl PAGE update, {args.size} model on {args.device}, {args.iterations} iteration(s) per cell, "
          f"{wall_s:.0f} s in all")
    print("| micro-batch | checkpointing | peak GiB | step s | tokens/s |")
    print("|---|---|---|---|---|")
    for row in rows:
        if "skipped" in row:
            print(f"| {row['micro_batch']} | {'yes' if row['checkpointing'] else 'no'} | skipped: {row['skipped']} | | |")
            continue
        peak = "n/a" if row["peak_gib"] is None else f"{row['peak_gib']:.1f}"
        print(f"| {row['micro_batch']} | {'yes' if row['checkpointing'] else 'no'} | {peak} | {row['step_s']:.2f} | "
              f"{row['tokens_per_s']:.0f} |")


if __name__ == "__main__":
    main()
