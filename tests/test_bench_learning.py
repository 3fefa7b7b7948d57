"""The learning benchmark's tables: the curves by episodes spent and the final summary,
on hand-made run records (the runs themselves are `python -m benchmarks.learning`)."""

import math
import subprocess
import sys
from pathlib import Path

import psutil

from benchmarks.learning import curves_table, summary


def run(algo, seed, curve, final, held_out):
    return {"algo": algo, "seed": seed, "curve": curve, "episodes": curve[-1][0], "final": final,
            "held_out": held_out, "train_last": sum(s for _, s in curve[-3:]) / len(curve[-3:])}


def test_curves_average_runs_per_span_and_leave_spans_without_an_iteration_empty():
    results = [run("grpo", 0, [(8, 0.0), (16, 0.0), (24, 0.0), (32, 0.0)], 0.0, 0.0),
               run("page", 0, [(8, 0.0), (16, 0.5), (24, 1.0), (32, 1.0)], 1.0, 0.5),
               run("page", 1, [(8, 0.0), (16, 0.0), (24, 0.5), (32, 1.0)], 1.0, 0.0),
               run("bepa", 0, [(24, 0.25), (32, 0.5)], 0.5, 0.0)]
    edges, table = curves_table(results, buckets=8)
    assert edges == [8.0, 16.0, 24.0, 32.0]  # no more spans than a run has iterations
    assert table["grpo"] == [0.0, 0.0, 0.0, 0.0]
    assert table["page"] == [0.0, 0.25, 0.75, 1.0]
    assert math.isnan(table["bepa"][0]) and math.isnan(table["bepa"][1]) and table["bepa"][2:] == [0.25, 0.5]


def test_summary_reports_mean_and_std_over_seeds_per_column():
    rows = [run("page", 0, [(8, 0.0), (16, 1.0)], 1.0, 0.5), run("page", 1, [(8, 0.0), (16, 0.0)], 0.0, 0.5),
            {"algo": "random", "seed": 0, "final": 0.0, "held_out": 0.0}]
    lines = summary(rows, ("random", "page", "bepa"))
    assert lines[0].split() == ["method", "training", "instances", "held-out", "instances", "last", "training", "iters"]
    assert lines[1].split() == ["random", "0.00", "+-", "0.00", "0.00", "+-", "0.00", "-"]
    assert lines[2].split() == ["page", "0.50", "+-", "0.71", "0.50", "+-", "0.00", "0.25", "+-", "0.35"]
    assert len(lines) == 3  # a method without runs is left out


def test_final_success_scores_training_and_held_out_instances_per_task():
    import gymnasium as gym

    import gui_gym  # noqa: F401 - registers the ids
    from agents.policies.element import ElementPolicy
    from benchmarks.learning import Setting, final_success
    from trainers.rollout import EnvPool

    setting = Setting(tasks=("demo.press-button", "demo.read-code"), episodes=8, instances=1, eval_instances=2)
    with EnvPool(lambda: gym.make("GUI/Demo-v0", observe_a11y=True, max_steps=2), 2) as pool:
        success = final_success(pool, ElementPolicy(), setting, seed=0)
    assert success["final_per_task"] == {"demo.press-button": 1.0, "demo.read-code": 0.0}
    assert success["held_out_per_task"] == {"demo.press-button": 1.0, "demo.read-code": 0.0}
    assert success["final"] == success["held_out"] == 0.5


POOL_PARENT = """
import multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
from gui_gym.processes import die_with_parent

with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=die_with_parent) as pool:
    print(pool.submit(os.getpid).result(), flush=True)
    time.sleep(120)
"""


def test_the_runs_pool_workers_die_with_a_killed_parent():
    """`benchmarks.learning` trains in a spawn pool with this initializer: ``kill -9`` of the
    benchmark must not leave its workers (and their browsers) running."""
    parent = subprocess.Popen([sys.executable, "-c", POOL_PARENT], stdout=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[1])
    try:
        worker = psutil.Process(int(parent.stdout.readline()))
        assert worker.is_running()
    finally:
        parent.kill()
        parent.wait()
    gone, alive = psutil.wait_procs([worker], timeout=20)
    assert not alive
