"""The GPU check runs on a CPU with the tiny model: one PAGE update per micro-batch setting,
with and without checkpointing, and a generation rate."""

from __future__ import annotations

from gui_gym.benchmarks.perf.gpu_check import main


def test_the_gpu_check_runs_on_the_tiny_model_on_a_cpu():
    rows = main(["--rollouts", "2", "--steps", "2", "--answer-tokens", "4", "--micro-batch-steps", "1,4",
                 "--generate-tokens", "4"])
    updates = [row for row in rows if "micro_batch_steps" in row]
    assert [(r["checkpointing"], r["micro_batch_steps"]) for r in updates] == [(False, 1), (False, 4), (True, 1),
                                                                                (True, 4)]
    assert all(r["peak_gib"] is None and r["update_s"] > 0 for r in updates)  # no GPU: time only
    assert [r["generation_tokens_per_s"] > 0 for r in rows if "generation_tokens_per_s" in r] == [True]
