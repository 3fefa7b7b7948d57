"""The learning benchmark's report: each arm's learning rate selected on its selection runs, the
papers' table and the family of comparisons, on hand-made run records (the runs themselves are
`python -m gui_gym.benchmarks.learning`)."""

import json
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from gui_gym.benchmarks.learning.benchmark import Preparation, Setting, Study, report, select_lr, table
from gui_gym.benchmarks.learning.report import comparison_pairs, family, plot


def run(arm, seed, train, held_out, lr=0.02, stage="eval"):
    return {"arm": arm, "seed": seed, "train": train, "held_out": held_out, "curve": [(8, train), (16, held_out)],
            "stage": stage, "learning_rate": lr}


RUNS = [run("grpo", 0, 0.5, 0.25), run("grpo", 1, 0.5, 0.5), run("grpo", 2, 0.25, 0.25),
        run("page", 0, 0.75, 0.5), run("page", 1, 1.0, 0.5), run("page", 2, 0.75, 0.75)]
GRID = (0.01, 0.02, 0.05)


def selection_runs(arm, best=0.02, seeds=(100, 101)):
    """Selection runs of `arm` on the grid, the `best` rate scoring highest."""
    return [run(arm, seed, 0.6 if lr == best else 0.3, 0.4 if lr == best else 0.2, lr, "selection")
            for lr in GRID for seed in seeds]
BASE = {"train": 0.125, "held_out": 0.25, "train_sampled": 0.1, "held_out_sampled": 0.05}


def test_table_is_method_by_split_with_the_base_first_and_each_arms_tokens_and_judge_calls():
    lines = table(RUNS, BASE, ("grpo", "page"))
    assert lines[0] == ("| method | train (greedy) | held-out instances (greedy) | groups with A_inter = 0 | "
                        "trained tokens per run | judge calls per run |")
    assert lines[2:4] == ["| base (BC), greedy | 12.5 | 25.0 | | | |", "| base (BC), sampled | 10.0 | 5.0 | | | |"]
    # grpo train: mean 5/12 = 41.7, sd sqrt(((1/12)^2 * 2 + (1/6)^2) / 2) = 14.4
    assert lines[4] == "| grpo (3 seeds) | 41.7 +- 14.4 | 33.3 +- 14.4 | - | - | - |"
    assert lines[5] == "| page (3 seeds) | 83.3 +- 14.4 | 58.3 +- 14.4 | - | - | - |"
    counted = [dict(r, groups=24, equal_progress_groups=6, trained_tokens=1000 + r["seed"],
                    judge_calls=96 * (r["arm"] == "page")) for r in RUNS]
    assert table(counted, BASE, ("grpo", "page"))[4].endswith("| 25 % | 1001 | 0 |")
    assert table(counted, BASE, ("grpo", "page"))[5].endswith("| 25 % | 1001 | 96 |")
    with_templates = {**BASE, "held_out_templates": 0.5, "held_out_templates_sampled": 0.25}
    runs = [dict(r, held_out_templates=0.5) for r in RUNS]
    lines = table(runs, with_templates, ("grpo", "page"))
    assert "| held-out templates (greedy) |" in lines[0] and lines[2].startswith("| base (BC), greedy | 12.5 | 25.0 | 50.0 |")


def test_bepas_table_has_the_covered_and_held_out_tasks_and_the_log_prob_gap():
    runs = [dict(r, expert_covered=r["train"], held_out_tasks=r["held_out"], injections=2 * (r["arm"] == "page"),
                 cached_logp=-3.0 if r["arm"] == "page" else None, on_policy_logp=-1.0 if r["arm"] == "page" else None)
            for r in RUNS]
    base = {"expert_covered": 0.0, "held_out_tasks": 0.125, "expert_covered_sampled": 0.0,
            "held_out_tasks_sampled": 0.05}
    runs = [dict(r, cached_low_prob_share=0.5, on_policy_low_prob_share=0.125, seeded_logp=-2.5)
            if r["arm"] == "page" else r for r in runs]
    lines = table(runs, base, ("grpo", "page"), "bepa")
    assert lines[0].startswith("| method | expert-covered (greedy) | held-out tasks (greedy) | cached log-prob |")
    assert lines[2] == "| base (BC), greedy | 0.0 | 12.5 | | | | | | | | | |"
    assert lines[4] == "| grpo (3 seeds) | 41.7 +- 14.4 | 33.3 +- 14.4 | - | - | - | - | - | - | 0.0 | - | - |"
    assert lines[5] == ("| page (3 seeds) | 83.3 +- 14.4 | 58.3 +- 14.4 | -3.00 | -1.00 | -2.00 | 50.0 % | 12.5 % | -2.50 "
                        "| 2.0 | - | - |")


def test_the_learning_rate_is_the_grid_value_that_scores_best_on_the_selection_seeds():
    runs = selection_runs("grpo", best=0.05) + RUNS  # the eval runs never count
    chosen = select_lr(runs, "grpo", GRID, (100, 101), ("train", "held_out"))
    assert chosen["selected_lr"] == 0.05
    assert chosen["scores"] == {"0.01": pytest.approx(0.25), "0.02": pytest.approx(0.25), "0.05": pytest.approx(0.5)}
    assert chosen["selection_seeds"] == [100, 101]


def test_a_tie_goes_to_the_smaller_learning_rate_and_a_missing_selection_run_is_refused():
    tied = [run("page", seed, 0.5, 0.5, lr, "selection") for lr in GRID for seed in (100, 101)]
    assert select_lr(tied, "page", GRID, (100, 101), ("train", "held_out"))["selected_lr"] == 0.01
    with pytest.raises(ValueError, match=r"arm 'page' at lr 0.05 has no selection run for seeds \[101\]"):
        select_lr(tied[:-1], "page", GRID, (100, 101), ("train", "held_out"))


def test_selection_seeds_must_not_be_evaluation_seeds():
    with pytest.raises(ValueError, match=r"selection seeds \(3, 100\) overlap the evaluation seeds 0..9"):
        Setting(seeds=10, selection_seeds=(3, 100))
    with pytest.raises(ValueError, match=r"selection seeds \(100, 101, 102, 103\) overlap the evaluation seeds 95..104"):
        Setting(seeds=10, first_seed=95)
    with pytest.raises(ValueError, match="first_seed must be >= 0"):
        Setting(first_seed=-1)


def test_a_fresh_test_takes_new_evaluation_seeds_and_the_report_reads_only_those(tmp_path, capsys):
    """Seeds 0..n-1 once seen, more of them would contain them: ``--first-seed`` moves the
    sample, and the report compares only the runs on the setting's seeds."""
    moved = [{**r, "seed": r["seed"] + 200} for r in RUNS]
    runs = selection_runs("grpo") + selection_runs("page") + RUNS + moved
    setting = Setting(seeds=3, first_seed=200, arms=("grpo", "page"), lr_grid=GRID, selection_seeds=(100, 101))
    assert list(setting.evaluation_seeds) == [200, 201, 202]
    out = report(Study(setting, "full", tmp_path, tmp_path / "curves.png", workers=2), Preparation({}, BASE, [], []),
                 runs, 1.0)
    assert out["evaluation_seeds"] == [200, 201, 202] and out["setting"]["first_seed"] == 200
    assert "3 of 3 evaluation seeds per arm" in capsys.readouterr().out


def test_the_family_is_each_arm_against_grpo_page_against_grpo_on_progress_and_bepa_ex_against_bepa():
    assert comparison_pairs(("grpo", "grpo-progress", "page", "page-reader")) == [
        ("grpo-progress", "grpo"), ("page", "grpo"), ("page-reader", "grpo"), ("page", "grpo-progress")]
    assert comparison_pairs(("grpo", "page")) == [("page", "grpo")]
    assert comparison_pairs(("grpo", "bepa-ex", "bepa")) == [("bepa-ex", "grpo"), ("bepa", "grpo"), ("bepa-ex", "bepa")]


def test_comparisons_are_two_sided_welch_with_holm_over_the_whole_family_bootstrap_and_power():
    (row,) = family(RUNS, [("page", "grpo")], ("train",))
    # gap 5/12, each sd .1443: t = (5/12) / sqrt(2 * .1443^2 / 3) = 3.536, df 4; two-sided p = 2 x .0120551
    assert row["diff"] == pytest.approx(5 / 12) and row["t"] == pytest.approx(3.5355, abs=1e-3)
    assert row["df"] == pytest.approx(4.0) and row["p"] == pytest.approx(0.0241102, abs=1e-6) and row["n"] == 3
    assert row["p_holm"] == row["p"] and row["baseline"] == "grpo"  # one comparison: nothing to adjust
    lo, hi = row["ci95"]
    assert 0 < lo <= 5 / 12 <= hi
    assert 0.8 < row["power"] <= 1 and row["seeds_needed"] == 3
    (worse,) = family(RUNS, [("grpo", "page")], ("train",))  # the same gap seen from the other side
    assert worse["diff"] == pytest.approx(-5 / 12) and worse["p"] == pytest.approx(row["p"])
    both = family(RUNS, [("page", "grpo")], ("train", "held_out"))  # two tests: Holm doubles the smaller p
    smaller = min(both, key=lambda r: r["p"])
    assert smaller["p_holm"] == pytest.approx(2 * smaller["p"])


def test_report_compares_each_arm_at_its_selected_rate_and_records_the_selection(tmp_path, capsys):
    untuned = [run("grpo", s, 0.0, 0.0, lr=0.05) for s in range(3)]  # grpo's eval runs at a rate not selected
    runs = selection_runs("grpo") + selection_runs("page") + untuned + RUNS + [run("grpo", 3, 1.0, 1.0)]
    folder = tmp_path / "learning-quick"
    folder.mkdir()
    setting = Setting(seeds=4, arms=("grpo", "page"), lr_grid=GRID, selection_seeds=(100, 101))
    out = report(Study(setting, "quick", folder, folder / "curves.png", workers=2), Preparation({}, BASE, [], []),
                 runs, 1.0)
    assert out["evaluation_seeds"] == [0, 1, 2]  # seed 3: PAGE never finished
    assert out["selection"]["grpo"]["selected_lr"] == 0.02 and out["selection"]["page"]["selected_lr"] == 0.02
    printed = capsys.readouterr().out
    assert "3 of 4 evaluation seeds per arm" in printed and "| page | grpo | train | +41.7 |" in printed
    assert "| grpo (3 seeds, lr 0.02) |" in printed
    assert "| grpo | 25.0 | **50.0** | 25.0 | 0.02 |" in printed  # the selection scores per rate
    saved = json.loads((folder / "results.json").read_text())
    assert saved["setting"]["lr_grid"] == [0.01, 0.02, 0.05] and saved["setting"]["selection_seeds"] == [100, 101]
    assert saved["setting"]["seeds"] == 4
    assert {(r["stage"], r["learning_rate"]) for r in saved["runs"]} >= {("selection", 0.01), ("eval", 0.02)}
    assert [(c["arm"], c["baseline"], c["split"]) for c in saved["comparisons"]] == [
        ("page", "grpo", "train"), ("page", "grpo", "held_out")]
    assert (folder / "curves.png").is_file()


def test_an_arm_whose_runs_trained_no_iteration_is_left_out_of_the_curves(tmp_path):
    """A small episode budget can go whole to BEPA's seeding: such runs have no on-policy
    curve, and the figure shows the other arms (it once raised on an empty sequence)."""
    untrained = [{**r, "arm": "bepa", "curve": []} for r in RUNS if r["arm"] == "page"]
    plot(RUNS + untrained, ("grpo", "page", "bepa"), tmp_path / "curves.png", "some arms")
    assert (tmp_path / "curves.png").is_file()


def test_the_curves_go_into_the_results_folder_unless_told_otherwise(tmp_path):
    """`--out` elsewhere must not write into the project's docs/ (it once did)."""
    import gui_gym.benchmarks.learning.benchmark as learning

    folder = tmp_path / "sweep"
    folder.mkdir()
    (folder / "base.json").write_text(json.dumps({"pretraining": {}, "base": BASE, "tasks": [], "covered": [],
                                                  "judging": None}))
    runs = selection_runs("grpo", seeds=(100,)) + selection_runs("page", seeds=(100,)) + RUNS
    (folder / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    docs = Path(learning.__file__).resolve().parents[2] / "docs"
    before = set(docs.iterdir())
    learning.main(["--quick", "--summarize", "--arms", "page", "--out", str(folder)])
    assert (folder / "curves.png").is_file() and set(docs.iterdir()) == before
    learning.main(["--quick", "--summarize", "--arms", "page", "--out", str(folder), "--plot", str(tmp_path / "figure.png")])
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
                              cwd=Path(__file__).resolve().parents[3])
    try:
        worker = psutil.Process(int(parent.stdout.readline()))
        assert worker.is_running()
    finally:
        parent.kill()
        parent.wait()
    gone, alive = psutil.wait_procs([worker], timeout=20)
    assert not alive


def test_an_ablation_arm_with_the_exploring_expert_runs_end_to_end_at_a_tiny_size(tmp_path):
    """`replacement-ex` trains a behaviour-cloned base with the exploring expert's traces
    injected into every group of its covered task and records BEPA's diagnostics;
    `expert_distance` measures each kind of expert data against the base."""
    import gui_gym.benchmarks.learning.benchmark as learning

    setting = Setting(table="bepa", seeds=1, arms=("grpo", "replacement-ex"), lr_grid=(0.02,), selection_seeds=(100,),
                      pretrain_templates=2, pretrain_instances=2, pretrain_epochs=1, pretrain_plan_share=0.5,
                      pretrain_varying=2, candidates=2, instances=2, eval_instances=2, episodes=16, group_size=4,
                      level1_group_size=2)
    learning.pretrain(setting, tmp_path / "base")
    tasks = tuple(t.task_id for t in learning.candidate_templates(setting))
    out = learning.train_one("replacement-ex", 0, setting, str(tmp_path / "base"), tasks, tasks[:1], learning_rate=0.02)
    assert out["arm"] == "replacement-ex" and out["groups"] == 4 and out["level1_successes"] == 0
    assert 0 <= out["expert_covered"] <= 1 and 0 <= out["held_out_tasks"] <= 1
    assert out["seeded_logp"] < 0 and 0 <= out["seeded_low_prob_share"] <= 1  # the expert's traces, under the base
    assert out["injections"] >= 1 and 0 <= out["cached_low_prob_share"] <= 1 and out["cached_logp"] < 0
    assert out["episodes"] == 16 and out["trained_tokens"] > 0 and out["judge_calls"] == 0  # no plan abstracted
    level1 = learning.train_one("level1-ex", 0, setting, str(tmp_path / "base"), tasks, tasks[:1], learning_rate=0.02)
    assert level1["judge_calls"] == 2  # one plan abstracted from the expert's trace per covered instance
    distance = learning.expert_distance(setting, tmp_path / "base", tasks[:1], level1_episodes=2)
    assert distance["low_prob"] == 0.1 and distance["instances"] == 2 and distance["level1_episodes"] == 4
    assert distance["on_policy"]["trajectories"] == 8
    assert distance["oracle"]["successes"] == distance["explorer_trace"]["successes"] == 2
    # its tries and Backs: never fewer steps than the oracle's straight route, every one spelled by the policy
    assert distance["explorer_trace"]["tokens"] >= distance["oracle"]["tokens"]
    lines = learning.distance_lines(distance)
    assert lines[3].startswith("| on_policy | 8 (") and lines[3].endswith(" | +0.00 | "
                                                                            f"{100 * distance['on_policy']['low_prob_share']:.1f} % |")


def test_the_learned_judge_is_trained_only_on_instances_no_run_plays(tmp_path):
    """Its episodes play the held-apart instances alone (recorded at every reset), which are
    none of the training instances and none of the held-out ones of any selection or evaluation
    seed; the benchmark refuses a setting where they would meet."""
    import gui_gym.benchmarks.learning.benchmark as learning
    from gui_gym.agents.policies.element import ElementPolicy
    from gui_gym.benchmarks.learning.judge_setup import check_judge_instances, fit_learned_judge, judge_instances
    from gui_gym.benchmarks.learning.judging import criterion_kinds
    from gui_gym.benchmarks.learning.textweb import TextWebEnv

    setting = Setting(seeds=40, first_seed=2000, judge_instances=3, judge_episodes=1)
    played = learning.played_instances(setting)
    assert len(played) == setting.instances + setting.eval_instances * (4 + 40)
    assert not set(judge_instances(setting.judge_instances)) & set(played)
    check_judge_instances(setting.judge_instances, played)
    with pytest.raises(ValueError, match=r"instances \[900001\] are played by runs too"):
        check_judge_instances(3, [0, 1, 900_001])

    reset = []

    class Recorded(TextWebEnv):
        def reset(self, *, seed=None, options=None):
            reset.append(options["instance_seed"])
            return super().reset(seed=seed, options=options)

    templates = learning.rl_templates(setting)[:2]
    kinds = {t.task_id: criterion_kinds(t) for t in templates}
    out = fit_learned_judge(setting, lambda: Recorded(templates), ElementPolicy(prior_scale=0.0, buckets=1 << 10),
                            kinds, tmp_path / "judge.pt")
    assert sorted(set(reset)) == judge_instances(3) and out["episodes"] == 6 and (tmp_path / "judge.pt").is_file()
