"""The learning benchmark's report: the papers' table and the statistics of each arm against
GRPO, on hand-made run records (the runs themselves are `python -m gui_gym.benchmarks.learning`)."""

import json
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from gui_gym.benchmarks.learning.benchmark import Setting, comparisons, report, table


def run(arm, seed, train, held_out):
    return {"arm": arm, "seed": seed, "train": train, "held_out": held_out, "curve": [(8, train), (16, held_out)]}


RUNS = [run("grpo", 0, 0.5, 0.25), run("grpo", 1, 0.5, 0.5), run("grpo", 2, 0.25, 0.25),
        run("page", 0, 0.75, 0.5), run("page", 1, 1.0, 0.5), run("page", 2, 0.75, 0.75)]
BASE = {"train": 0.125, "held_out": 0.25, "train_sampled": 0.1, "held_out_sampled": 0.05}


def test_table_is_method_by_split_with_the_base_first():
    lines = table(RUNS, BASE, ("grpo", "page"))
    assert lines[0] == "| method | train (greedy) | held-out (greedy) | groups with A_inter = 0 |"
    assert lines[2:4] == ["| base (BC), greedy | 12.5 | 25.0 | |", "| base (BC), sampled | 10.0 | 5.0 | |"]
    # grpo train: mean 5/12 = 41.7, sd sqrt(((1/12)^2 * 2 + (1/6)^2) / 2) = 14.4
    assert lines[4] == "| grpo (3 seeds) | 41.7 +- 14.4 | 33.3 +- 14.4 | - |"
    assert lines[5] == "| page (3 seeds) | 83.3 +- 14.4 | 58.3 +- 14.4 | - |"
    counted = [dict(r, groups=24, equal_progress_groups=6) for r in RUNS]
    assert table(counted, BASE, ("grpo", "page"))[4].endswith("| 25 % |")


def test_bepas_table_has_the_covered_and_held_out_tasks_and_the_log_prob_gap():
    runs = [dict(r, expert_covered=r["train"], held_out_tasks=r["held_out"], injections=2 * (r["arm"] == "page"),
                 cached_logp=-3.0 if r["arm"] == "page" else None, on_policy_logp=-1.0 if r["arm"] == "page" else None)
            for r in RUNS]
    base = {"expert_covered": 0.0, "held_out_tasks": 0.125, "expert_covered_sampled": 0.0,
            "held_out_tasks_sampled": 0.05}
    lines = table(runs, base, ("grpo", "page"), "bepa")
    assert lines[0].startswith("| method | expert-covered (greedy) | held-out tasks (greedy) | cached log-prob |")
    assert lines[2] == "| base (BC), greedy | 0.0 | 12.5 | | | | |"
    assert lines[4] == "| grpo (3 seeds) | 41.7 +- 14.4 | 33.3 +- 14.4 | - | - | - | 0.0 |"
    assert lines[5] == "| page (3 seeds) | 83.3 +- 14.4 | 58.3 +- 14.4 | -3.00 | -1.00 | -2.00 | 2.0 |"


def test_comparisons_are_welch_against_grpo_with_holm_bootstrap_and_power():
    (row,) = comparisons(RUNS, ("grpo", "page"), "train")
    # gap 5/12, each sd .1443: t = (5/12) / sqrt(2 * .1443^2 / 3) = 3.536, df 4
    assert row["diff"] == pytest.approx(5 / 12) and row["t"] == pytest.approx(3.5355, abs=1e-3)
    assert row["df"] == pytest.approx(4.0) and row["p"] == pytest.approx(0.0120551, abs=1e-6)
    assert row["p_holm"] == row["p"]  # one comparison: nothing to adjust
    lo, hi = row["ci95"]
    assert 0 < lo <= 5 / 12 <= hi
    assert 0.8 < row["power"] <= 1 and row["seeds_needed"] == 3


def test_report_counts_only_seeds_every_arm_finished(tmp_path, capsys):
    cut = RUNS + [run("grpo", 3, 1.0, 1.0)]  # seed 3: PAGE never finished
    folder = tmp_path / "learning-quick"
    folder.mkdir()
    out = report(Setting(arms=("grpo", "page")), "quick", folder, {}, BASE, cut, 1.0, 2, folder / "curves.png")
    assert {r["seed"] for r in out["runs"]} == {0, 1, 2}
    printed = capsys.readouterr().out
    assert "3 seeds per arm" in printed and "| page | train | +41.7 |" in printed
    assert (folder / "results.json").is_file() and (folder / "curves.png").is_file()
    first = report(Setting(seeds=2, arms=("grpo", "page")), "quick", folder, {}, BASE, cut, 1.0, 2, folder / "curves.png")
    assert {r["seed"] for r in first["runs"]} == {0, 1}


def test_the_curves_go_into_the_results_folder_unless_told_otherwise(tmp_path):
    """`--out` elsewhere must not write into the project's docs/ (it once did)."""
    import gui_gym.benchmarks.learning.benchmark as learning

    folder = tmp_path / "sweep"
    folder.mkdir()
    (folder / "base.json").write_text(json.dumps({"pretraining": {}, "base": BASE, "tasks": [], "covered": []}))
    (folder / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RUNS))
    docs = Path(learning.__file__).resolve().parents[1] / "docs"
    before = set(docs.iterdir())
    learning.main(["--quick", "--summarize", "--out", str(folder)])
    assert (folder / "curves.png").is_file() and set(docs.iterdir()) == before
    learning.main(["--quick", "--summarize", "--out", str(folder), "--plot", str(tmp_path / "figure.png")])
    assert (tmp_path / "figure.png").is_file()


POOL_PARENT = """
import multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
from gui_gym.runtime.processes import die_with_parent

with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=die_with_parent) as pool:
    print(pool.submit(os.getpid).result(), flush=True)
    time.sleep(120)
"""


def test_the_runs_pool_workers_die_with_a_killed_parent():
    """`gui_gym.benchmarks.learning.benchmark` trains in a spawn pool with this initializer: ``kill -9`` of the
    benchmark must not leave its workers (and their browsers) running."""
    parent = subprocess.Popen([sys.executable, "-c", POOL_PARENT], stdout=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[2])
    try:
        worker = psutil.Process(int(parent.stdout.readline()))
        assert worker.is_running()
    finally:
        parent.kill()
        parent.wait()
    gone, alive = psutil.wait_procs([worker], timeout=20)
    assert not alive
