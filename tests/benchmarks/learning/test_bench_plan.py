"""Pre-registration: a plan file is read and checked (its seeds never used before), fixes the
run's arms, seeds and learning rates, decides its one primary endpoint by its rule, and the
results record where the plan stood in git and the machine the runs ran on."""

import json
import subprocess
from pathlib import Path

import pytest

from gui_gym.benchmarks.learning.benchmark import ARMS, Preparation, argument_parser, report, study_from
from gui_gym.benchmarks.learning.plan import decide, load_plan, machine, provenance
from gui_gym.benchmarks.learning.report import TABLES, family

PLAN = """# A plan

Why the sample is this size, what counts as a null.

```toml
table = "page"
arms = ["grpo", "page", "page-learned"]
first_seed = 2000
seeds = 3
used_seeds = [[0, 11], [100, 103], [300, 339]]

[learning_rates]
grpo = 0.01
page = 0.05
page-learned = 0.02

[primary]
arm = "page"
baseline = "grpo"
split = "train"
alpha = 0.05
gap = 0.07
sd = 0.10

[secondary]
alpha = 0.05
```
"""


def write(tmp_path, text=PLAN, name="plan.md"):
    path = tmp_path / name
    path.write_text(text)
    return path


def load(path):
    return load_plan(path, sorted(TABLES), TABLES, list(ARMS))


def test_a_plan_file_is_read_from_its_toml_block(tmp_path):
    plan = load(write(tmp_path))
    assert plan.table == "page" and plan.arms == ("grpo", "page", "page-learned")
    assert list(plan.evaluation_seeds) == [2000, 2001, 2002]
    assert dict(plan.learning_rates) == {"grpo": 0.01, "page": 0.05, "page-learned": 0.02}
    assert (plan.primary.arm, plan.primary.baseline, plan.primary.split, plan.primary.gap) == ("page", "grpo", "train", 0.07)
    assert plan.used_seeds == ((0, 11), (100, 103), (300, 339)) and len(plan.digest) == 64
    assert plan.setting_changes()["learning_rates"] == plan.learning_rates


@pytest.mark.parametrize("change, message", [
    (("first_seed = 2000", "first_seed = 330"), r"evaluation seeds 330..332 were used before"),
    (("page-learned = 0.02\n", ""), "exactly the plan's arms"),
    (('arm = "page"', 'arm = "page-reader"'), "primary endpoint page-reader vs grpo"),
    (('split = "train"', 'split = "expert_covered"'), "not among the plan's arms and the table's splits"),
    (('"page-learned"]', '"page-learnt"]'), r"unknown arms \['page-learnt'\]"),
    (("seeds = 3", "seeds = 1"), "at least 2 seeds"),
    (("[secondary]\nalpha = 0.05\n", ""), "incomplete or malformed"),
    (("```toml", "```"), "expected one ```toml block"),
])
def test_a_plan_that_reuses_seeds_or_misses_a_field_is_refused(tmp_path, change, message):
    with pytest.raises(ValueError, match=message):
        load(write(tmp_path, PLAN.replace(*change)))


def test_the_plan_fixes_the_run_and_nothing_on_the_command_line_may_change_it(tmp_path):
    path = write(tmp_path)
    study = study_from(argument_parser().parse_args(["--plan", str(path), "--out", str(tmp_path / "out")]))
    assert study.setting.arms == ("grpo", "page", "page-learned") and study.setting.first_seed == 2000
    assert dict(study.setting.learning_rates) == {"grpo": 0.01, "page": 0.05, "page-learned": 0.02}
    assert study.name == "plan" and study.plan.digest == load(path).digest
    with pytest.raises(ValueError, match="--plan fixes the run; --seeds would change it"):
        study_from(argument_parser().parse_args(["--plan", str(path), "--seeds", "10"]))


def runs(gap_train):
    """Eval runs of the plan's arms on its seeds: page ahead of grpo on train by `gap_train`."""
    out = []
    for arm, lr in (("grpo", 0.01), ("page", 0.05), ("page-learned", 0.02)):
        for k, seed in enumerate((2000, 2001, 2002)):
            train = 0.5 + 0.05 * k + (gap_train if arm == "page" else 0)
            out.append({"arm": arm, "seed": seed, "stage": "eval", "learning_rate": lr, "train": train,
                        "held_out": 0.4 + 0.1 * (k % 2), "held_out_templates": 0.2 + 0.05 * k,
                        "curve": [(8, train)]})
    return out


def test_the_primary_endpoint_is_decided_by_the_plans_rule_and_the_rest_get_holm_among_themselves(tmp_path):
    plan = load(write(tmp_path))
    rows = family(runs(0.2), [("page", "grpo"), ("page-learned", "grpo")], TABLES["page"])
    decision = decide(rows, plan)
    primary = next(r for r in rows if (r["arm"], r["split"]) == ("page", "train"))
    assert primary["p"] < 0.05 and primary["p_holm"] == primary["p"]  # taken as it is: one primary endpoint
    assert decision["decision"] == "page above grpo on train" and decision["n"] == 3
    # 3 seeds for a 7-point gap at sd 10: shift .07 / (.10 sqrt(2/3)) = .857; Phi(.857 - 1.960) + Phi(-.857 - 1.960)
    assert decision["power_at_planned_gap"] == pytest.approx(0.1375, abs=1e-3)
    secondary = [r for r in rows if r is not primary]
    assert len(secondary) == 5 and all(r["p_holm"] >= r["p"] for r in secondary)
    null = decide(family(runs(0.0), [("page", "grpo")], ("train",)), plan)
    assert null["decision"] == "no difference detected between page and grpo on train (a null)"
    worse = decide(family(runs(-0.2), [("page", "grpo")], ("train",)), plan)
    assert worse["decision"] == "page below grpo on train"


def test_a_planned_report_records_the_plans_commit_the_decision_and_the_machine(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    path = write(repo)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "plan.md"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "plan"], cwd=repo, check=True)
    committed = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    study = study_from(argument_parser().parse_args(["--plan", str(path), "--out", str(tmp_path / "out")]))
    study.out.mkdir()
    base = {"train": 0.1, "held_out": 0.1, "held_out_templates": 0.1, "train_sampled": 0.1, "held_out_sampled": 0.1,
            "held_out_templates_sampled": 0.1}
    out = report(study, Preparation({}, base, [], []), runs(0.2), 1.0)
    saved = json.loads((study.out / "results.json").read_text())
    assert saved["plan"]["commit"] == committed and saved["plan"]["modified_since"] is False
    assert saved["plan"]["path"] == "plan.md"  # in the repository, not this machine's path
    assert saved["plan"]["decision"]["decision"] == "page above grpo on train" == out["plan"]["decision"]["decision"]
    assert saved["machine"]["cores"] >= 1 and saved["machine"]["torch"] and saved["machine"]["python"]
    assert saved["selection"]["page"] == {"selected_lr": 0.05, "fixed": True}
    assert "primary endpoint (page vs grpo on train" in (study.out / "tables.md").read_text()
    path.write_text(PLAN + "\nedited after the commit\n")
    assert provenance(path)["modified_since"] is True
    assert provenance(Path("/") / "nowhere" / "plan.md")["commit"] is None


def test_the_machine_is_recorded_with_its_cpu_and_torch_build():
    found = machine()
    assert set(found) >= {"cpu", "cores", "python", "torch", "torch_git", "torch_cpu_capability", "torch_blas", "numpy"}
