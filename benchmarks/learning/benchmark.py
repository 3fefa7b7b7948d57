"""The learning benchmark, the papers' claims in small: from a pretrained base that already
solves part of its RL tasks, PAGE's progress-aware advantages beat GRPO's outcome advantage on
long tasks whose difficulty compounds, and BEPA's assimilation of expert trajectories beats
GRPO where the base alone never succeeds, at the same episode budget, over many seeds.

- **Stage 0, the base.** `ElementPolicy(prior_scale=0)` (no hand-set task knowledge) is
  behaviour-cloned (`gui_gym.trainers.sft`) on the oracle's trajectories of *pretraining* templates,
  once; every RL run starts from that base, as every paper run starts from one checkpoint.
  BEPA's base also saw half its demonstrations acted on the expert plan, on templates where
  only the plan names the right element, so it learns to follow a plan from its input.
- **Stage 1, the tasks.** RL trains on other templates, unseen in pretraining. PAGE's table:
  "learnable" ones (one hidden stage: the base succeeds sometimes) and "compound" ones (two
  hidden stages: rollouts stop at different milestones). BEPA's table: the base is measured on
  candidate templates (`gui_gym.benchmarks.learning.tasks`: sampled success, progress mean and spread,
  plan-conditioned success; cached in the results folder) and trains on the *expert-only* ones
  (base ~0 alone, moderate on the plan), half of them covered by the expert, half held out.
  The env is TextWeb (`gui_gym.benchmarks.learning.textweb`): browser-free pages in the a11y tree's text form,
  so a seed costs seconds, not the hour LocalWeb's Chromium would need on this scale.
- **Stage 2, RL.** Each arm trains the base for the same number of episodes on a fixed set of
  instances per task, then is evaluated greedily; the base is measured the same way.
- **Statistics.** Per-seed success per split; one-sided Welch t-tests of each arm against
  GRPO with Holm's correction, bootstrap 95 % intervals of the gap, the power at the seeds
  run and the seeds 80 % power needs (`gui_gym.benchmarks.learning.stats`).

    python -m gui_gym.benchmarks.learning --quick          # 3 seeds of GRPO and PAGE: checks the direction
    python -m gui_gym.benchmarks.learning                  # PAGE's table: 12 seeds per arm
    python -m gui_gym.benchmarks.learning --table bepa     # BEPA's ablation, off-distribution expert: 10 seeds per arm
    python -m gui_gym.benchmarks.learning --table bepa --quick   # GRPO, replacement and BEPA with it: 3 seeds
    python -m gui_gym.benchmarks.learning --resume --seeds 26 --arms page   # 14 more seeds of GRPO and PAGE
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from gui_gym.benchmarks.learning.report import (TABLES, comparison_pairs, family, plot, selection_table, stats_lines,
                                                table)
from gui_gym.records import append_jsonl, read_jsonl
from gui_gym.runtime.processes import die_with_parent
from gui_gym.trainers import metrics
from gui_gym.trainers.metrics import RunRecords

ARMS: dict[str, tuple[str, dict[str, Any]]] = {
    "grpo": ("grpo", {}),
    "page": ("page", {}),
    "page-std": ("page", {"inter_norm_std": True}),
    "page-inter": ("page", {"lam": 0.0}),
    "page-intra": ("page", {"inter_weight": 0.0}),
    "page-oracle": ("page-judged", {"rounds": 1}),
    "page-noisy1": ("page-noisy", {"rounds": 1, "aggregate": "majority"}),
    "page-noisy3": ("page-noisy", {"rounds": 3, "aggregate": "majority"}),
    "page-noisy5": ("page-noisy", {"rounds": 5, "aggregate": "majority"}),
    "grpo-progress": ("page", {"lam": 0.0, "inter_norm_std": True}),
    "page-reader": ("page-reader", {"rounds": 3, "aggregate": "mean"}),
    "page-biased": ("page-biased", {"rounds": 3, "aggregate": "mean"}),
    "replacement": ("bepa", {"seed_source": "expert", "mixing": "static"}),
    "level1": ("bepa", {"seed_source": "level1", "mixing": "static"}),
    "level2": ("bepa", {"seed_source": "expert", "mixing": "dynamic"}),
    "bepa": ("bepa", {"seed_source": "level1", "mixing": "dynamic"}),
    "replacement-kb": ("bepa", {"seed_source": "expert", "mixing": "static", "expert": "keyboard"}),
    "level1-kb": ("bepa", {"seed_source": "level1", "mixing": "static", "expert": "keyboard"}),
    "level2-kb": ("bepa", {"seed_source": "expert", "mixing": "dynamic", "expert": "keyboard"}),
    "bepa-kb": ("bepa", {"seed_source": "level1", "mixing": "dynamic", "expert": "keyboard"}),
}
"""Arm name -> (method, config overrides). "page" is PAGE's default (A_inter unnormalized,
centered A_intra, lambda 0.5); "page-std" divides A_inter by the group's std (docs/algorithms.md,
PAGE definition 3 taken literally); "page-inter" drops the subtask term (lambda 0), "page-intra"
the progress term. The judged arms run PAGE's own wrappers (`gui_gym.trainers.page.wrap_env`) instead
of the env's report: "page-oracle" with the exact `OracleJudge` (its subtask spans end at the
first milestone missed), "page-noisyK" with `NoisyOracleJudge` (each criterion's mark flipped
with probability `Setting.judge_flip_prob`, per round), K rounds, majority per criterion.
BEPA's ablation is {the expert's own trajectory, LEVEL-1's self-rolls} x {static mixing into
every group, LEVEL-2's all-fail injection with refresh}: "replacement" (expert, static),
"level1" (self-rolls, static), "level2" (expert, dynamic), "bepa" (both); there the expert is the
oracle acting through the policy's own candidates (in-distribution). The "-kb" arms are the same
four rows with an off-distribution expert, `KeyboardExpert` (Tab and Enter, never a click):
its traces converted into the policy's action space, or its plans re-executed by LEVEL-1.
"grpo-progress" is GRPO on PAGE's progress reward: the group's std-normalized advantage of the
progress, no subtask term; against it, "page" isolates PAGE's own additions. "page-reader" and
"page-biased" judge through PAGE's wrappers with `ReaderJudge`, which sees only the pages the
agent saw and its actions, on criteria the project's extraction derived from the base's
successful episodes: 3 rounds, each mark flipped with `Setting.reader_flip_prob`, mean per
criterion as PAGE aggregates; "page-biased" adds the systematic errors (misses the criteria
of unnamed elements, credits near misses). Their subtask spans are the reader's too."""


@dataclass(frozen=True)
class Setting:
    """One benchmark configuration; every arm runs with all of it."""

    seeds: int = 10
    """Evaluation seeds per arm (`evaluation_seeds`), fixed before any run: the comparisons' sample."""
    first_seed: int = 0
    """The first evaluation seed. Runs are deterministic, so a test after results on seeds
    0..n-1 were seen takes new ones (``--first-seed 200``): more seeds from 0 would contain the
    seen ones (optional stopping)."""
    arms: tuple[str, ...] = ("grpo", "grpo-progress", "page", "page-reader", "page-biased")
    lr_grid: tuple[float, ...] = (0.01, 0.02, 0.05)
    """Each arm's learning rate is the grid's value with the best selection score."""
    selection_seeds: tuple[int, ...] = (100, 101)
    """Seeds of the selection runs (disjoint from the evaluation seeds)."""
    pretrain_templates: int = 12
    pretrain_instances: int = 8
    """Oracle demonstrations per pretraining template."""
    pretrain_epochs: int = 2
    rl_templates: int = 6
    """Half learnable (one hidden stage), half compound (two)."""
    instances: int = 4
    """Training instances per RL task (`GRPOConfig.instance_seeds`)."""
    eval_instances: int = 8
    """Held-out instances per RL task."""
    episodes: int = 192
    """Env episodes per RL run."""
    group_size: int = 8
    update_epochs: int = 2
    table: str = "page"
    """"page": the RL tasks are `rl_templates` (3 learnable, 3 compound, by construction);
    "bepa": Stage 1's expert-only candidates (`gui_gym.benchmarks.learning.tasks`)."""
    pretrain_plan_share: float = 0.0
    """Share of the pretraining demonstrations acted on the expert plan (`gui_gym.trainers.sft`)."""
    pretrain_varying: int = 0
    """Pretraining templates whose hidden stages change with the instance (`pretrain_templates`)."""
    candidates: int = 36
    """Stage 1's candidate templates."""
    bepa_tasks: int = 3
    """BEPA: expert-covered tasks, and as many held-out ones (the expert-only split's first)."""
    level1_group_size: int = 4
    """BEPA: LEVEL-1 rollouts per covered training instance (their episodes count in the budget)."""
    judge_flip_prob: float = 0.2
    """The noisy judge's chance of flipping one criterion's mark in one round."""
    reader_flip_prob: float = 0.1
    """`ReaderJudge`'s chance of flipping one criterion's mark in one round (its temperature)."""
    extraction_episodes: int = 16
    """Sampled episodes of the base per training instance of each RL task, whose successes
    the criteria are extracted from (once, shared by every run)."""

    def __post_init__(self) -> None:
        if len(self.lr_grid) < 1 or any(lr <= 0 for lr in self.lr_grid):
            raise ValueError(f"lr_grid must hold learning rates > 0, received {self.lr_grid}")
        if self.first_seed < 0:
            raise ValueError(f"first_seed must be >= 0, received {self.first_seed}")
        if set(self.selection_seeds) & set(self.evaluation_seeds):
            raise ValueError(f"selection seeds {self.selection_seeds} overlap the evaluation seeds "
                             f"{self.first_seed}..{self.first_seed + self.seeds - 1}")

    @property
    def evaluation_seeds(self) -> range:
        """The evaluation runs' seeds: `seeds` of them from `first_seed`."""
        return range(self.first_seed, self.first_seed + self.seeds)


QUICK = Setting(seeds=3, arms=("grpo", "page", "page-reader"), selection_seeds=(100,))
"""The direction in under 15 minutes on 2 cores: GRPO, PAGE and PAGE with the reader judge,
the full grid on one selection seed (the full run's first), 3 evaluation seeds."""
BEPA = Setting(table="bepa", seeds=10, arms=("grpo", "replacement-kb", "level1-kb", "level2-kb", "bepa-kb"),
               pretrain_plan_share=0.5, pretrain_varying=12)
"""BEPA's table: a base that also saw plan-conditioned demonstrations (it learns to follow a
plan from its input), trained on Stage 1's expert-only tasks, half of them covered by the
off-distribution keyboard expert; the ablation's four rows against GRPO."""
BEPA_QUICK = dataclasses.replace(BEPA, seeds=3, arms=("grpo", "replacement-kb", "bepa-kb"), selection_seeds=(100,))


def pretrain_templates(setting: Setting) -> list[Any]:
    """Pretraining's templates; with `pretrain_varying`, also templates whose hidden stages
    change with the instance, where only the plan tells the right element: a plan-conditioned
    demonstration of them teaches the base to follow a plan, from its input."""
    from gui_gym.benchmarks.learning.textweb import CONVENTIONS, make_templates

    return (make_templates(setting.pretrain_templates, seed=100, conventions=CONVENTIONS[:8])
            + make_templates(setting.pretrain_varying, seed=150, hidden=(1, 2), conventions=CONVENTIONS[:8],
                             hidden_kind="varying"))


def rl_templates(setting: Setting) -> list[Any]:
    from gui_gym.benchmarks.learning.textweb import CONVENTIONS, make_templates

    return make_templates(setting.rl_templates, seed=200, hidden=(1, 2), conventions=CONVENTIONS[8:])


def candidate_templates(setting: Setting) -> list[Any]:
    """Stage 1's candidates: unseen conventions, longer chains (6-8 stages) with two to four
    hidden stages: harder than PAGE's tasks, so that some are out of the base's reach alone."""
    from gui_gym.benchmarks.learning.textweb import CONVENTIONS, make_templates

    return make_templates(setting.candidates, seed=300, hidden=(2, 3, 4), stages=(6, 8), conventions=CONVENTIONS[8:])


def make_env(setting: Setting) -> Any:
    from gui_gym.benchmarks.learning.textweb import TextWebEnv

    return TextWebEnv(pretrain_templates(setting) + rl_templates(setting) + candidate_templates(setting))


def select_tasks(setting: Setting, base_dir: Path, out: Path) -> tuple[list[Any], dict[str, list[str]]]:
    """Stage 1: the base on the candidates (cached in the results folder) and their splits."""
    from gui_gym.agents.policies.element import ElementPolicy
    from gui_gym.benchmarks.learning.tasks import cached_selection, measure_candidates

    def measure_base() -> list[Any]:
        policy = ElementPolicy(prior_scale=0.0, checkpoint=str(base_dir))
        return measure_candidates(policy, lambda: make_env(setting), [t.task_id for t in candidate_templates(setting)],
                                  setting.instances, 8)
    return cached_selection(out / "task_selection.json", measure_base)


def rl_tasks(setting: Setting, splits: dict[str, list[str]] | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The RL tasks and the expert-covered ones among them. BEPA: the expert-only split's
    first 2 x `bepa_tasks`, alternately covered and held out."""
    if setting.table == "page":
        return tuple(t.task_id for t in rl_templates(setting)), ()
    chosen = (splits or {}).get("expert_only", [])[:2 * setting.bepa_tasks]
    if len(chosen) < 2:
        raise RuntimeError(f"Stage 1 found {len(chosen)} expert-only tasks; BEPA's table needs at least 2")
    return tuple(chosen), tuple(chosen[::2])


def pretrain(setting: Setting, folder: Path) -> dict[str, Any]:
    """Stage 0: behaviour-clone the oracle on the pretraining templates; save the base."""
    import torch

    from gui_gym.agents.policies.element import ElementPolicy
    from gui_gym.trainers.sft import SFTConfig, fit, oracle_demonstrations

    torch.set_num_threads(1)
    torch.manual_seed(0)
    policy = ElementPolicy(prior_scale=0.0)
    episodes = [(t.task_id, s) for t in pretrain_templates(setting) for s in range(setting.pretrain_instances)]
    demos = oracle_demonstrations(make_env(setting), policy, episodes, plan_share=setting.pretrain_plan_share)
    losses = fit(policy, demos, SFTConfig(epochs=setting.pretrain_epochs))
    policy.save(str(folder))
    return {"demonstrations": len(demos), "episodes": len(episodes), "nll_per_epoch": losses}


def measure(policy: Any, setting: Setting, seed: int, tasks: Sequence[str], covered: Sequence[str] = (),
            sampled: bool = False) -> dict[str, Any]:
    """Greedy success on the RL tasks' training instances and on held-out ones, per task and
    overall; with `sampled`, also sampled success and progress on the training instances
    (what RL starts from: the base's solve rate in its own rollouts). With `covered` (BEPA),
    also the training instances' success on the expert-covered tasks and on the others."""
    from gui_gym.trainers.rollout import EnvPool, held_out_seeds, rollout_episodes

    held_out = held_out_seeds(setting.eval_instances, 1000 + seed, setting.instances)
    splits = [("train", list(range(setting.instances)), True), ("held_out", held_out, True)]
    if sampled:
        splits += [("train_sampled", list(range(setting.instances)) * 4, False), ("held_out_sampled", held_out * 2, False)]
    out: dict[str, Any] = {}
    with EnvPool(lambda: make_env(setting), 1) as pool:
        for key, seeds, greedy in splits:
            rollouts = rollout_episodes(pool, policy, [(t, s) for t in tasks for s in seeds], greedy=greedy)
            out[key] = statistics.fmean(r.success for r in rollouts)
            out[f"{key}_per_task"] = {t: statistics.fmean(r.success for r in rollouts if r.task_id == t) for t in tasks}
            if not greedy:
                out[f"{key}_progress"] = statistics.fmean(r.progress for r in rollouts)
    if covered:
        per_task = out["train_per_task"]
        for key, group in (("expert_covered", covered), ("held_out_tasks", [t for t in tasks if t not in covered])):
            out[key] = statistics.fmean(per_task[t] for t in group)
            if sampled:
                out[f"{key}_sampled"] = statistics.fmean(out["train_sampled_per_task"][t] for t in group)
    return out


def train_one(arm: str, seed: int, setting: Setting, base: str, tasks: tuple[str, ...],
              covered: tuple[str, ...] = (), learning_rate: float = 0.05, stage: str = "eval",
              criteria_store: str | None = None) -> dict[str, Any]:
    """Train one (arm, seed, learning rate) run from the base and measure it; runs in its own
    process. `stage` ("selection" or "eval") is recorded with it; the reader arms judge with
    the criteria in `criteria_store`."""
    import torch

    from gui_gym.agents.policies.element import ElementPolicy
    from gui_gym.trainers import bepa, page
    from gui_gym.trainers.config import trainer_config
    from gui_gym.trainers.grpo import run, seed_everything
    from gui_gym.trainers.rollout import EnvPool

    torch.set_num_threads(1)
    started = time.monotonic()
    method, overrides = ARMS[arm]
    algo = "page" if method.startswith("page") else method
    expert = make_expert(overrides)
    overrides = {k: v for k, v in overrides.items() if k != "expert"}
    if algo == "bepa":
        overrides = {**overrides, "expert_tasks": covered, "level1_every_instance": True,
                     "level1_group_size": setting.level1_group_size}
    if method in ("page-reader", "page-biased"):
        overrides = {**overrides, "criteria_store": criteria_store}
    cfg = trainer_config(algo, dict(
        tasks=tasks, iterations=10_000, episode_budget=setting.episodes,
        group_size=setting.group_size, minibatch_rollouts=setting.group_size, update_epochs=setting.update_epochs,
        learning_rate=learning_rate, seed=seed, instance_seeds=setting.instances, pool_size=1,
        run_dir=None, tensorboard=False, **overrides))
    seed_everything(seed)
    policy = ElementPolicy(prior_scale=0.0, checkpoint=base)
    judge = make_judge(method, setting, seed, criteria_store)
    if judge is not None:  # PAGE's own wrappers judge the episodes
        env_fn = lambda: page.wrap_env(make_env(setting), judge, cfg)  # noqa: E731
    else:  # TextWeb reports progress and subtasks itself
        env_fn = lambda: make_env(setting)  # noqa: E731
    with EnvPool(env_fn, 1) as pool:
        if algo == "bepa":
            records = RunRecords(bepa.train_on(cfg, policy, pool, expert=expert))
        else:
            records = RunRecords(run(cfg, policy, pool, advantages=page.advantage_fn(cfg) if algo == "page" else None))
    return {"arm": arm, "seed": seed, "stage": stage, "learning_rate": learning_rate, "curve": records.curve(),
            **measure(policy, setting, seed, tasks, covered),
            "no_signal_groups": records.total(metrics.NO_SIGNAL_GROUPS),
            "equal_progress_groups": records.total(metrics.EQUAL_PROGRESS_GROUPS),
            "injections": records.total(metrics.INJECTIONS), "level1_successes": records.total(metrics.LEVEL1_SUCCESSES),
            **{name.split("/")[1]: records.mean(name) for name in DISTANCE_KEYS}, "groups": len(records.trained()),
            "wall_s": time.monotonic() - started}


DISTANCE_KEYS = (metrics.CACHED_LOGP, metrics.ON_POLICY_LOGP, metrics.CACHED_LOW_PROB_SHARE,
                 metrics.ON_POLICY_LOW_PROB_SHARE, metrics.SEEDED_LOGP, metrics.SEEDED_LOW_PROB_SHARE)
"""BEPA's diagnostics a run records (without their prefix), each its mean over the records
that have it: the injected and the on-policy tokens of each update, under the weights before
it; and the seeded cache under the base (`gui_gym.trainers.bepa.train_on`)."""


def make_expert(overrides: dict[str, Any]) -> Any:
    """The arm's off-distribution expert (None: the oracle through the policy's candidates)."""
    name = overrides.get("expert")
    if name is None:
        return None
    if name != "keyboard":
        raise ValueError(f"unknown expert {name!r}; expected 'keyboard'")
    from gui_gym.benchmarks.learning.keyboard_expert import KeyboardExpert

    return KeyboardExpert()


def expert_distance(setting: Setting, base_dir: Path, covered: Sequence[str], level1_episodes: int = 8) -> dict[str, Any]:
    """The paper's measurement before training: how far each kind of expert data is from the
    base, on the covered tasks' training instances. Per source, `token_profile` under the base
    (mean log-prob, share of tokens with p < `LOW_PROB`): the base's own sampled rollouts
    ("on_policy", 4 per instance), the oracle through the policy's candidates ("oracle"), the
    keyboard expert's traces converted ("keyboard_converted", what replacement injects), and
    LEVEL-1's successes acted on the keyboard expert's plans ("keyboard_level1", stored on the
    plain prompt as BEPA stores them; `level1_episodes` plan-conditioned rollouts per instance,
    as Stage 1 measures plan-conditioned success)."""
    from gui_gym.agents.policies.element import ElementPolicy
    from gui_gym.benchmarks.learning.keyboard_expert import KeyboardExpert
    from gui_gym.trainers.bepa import LOW_PROB, rollout_from_trace, token_profile
    from gui_gym.trainers.grpo import seed_everything
    from gui_gym.trainers.rollout import EnvPool, rollout_episodes
    from gui_gym.trainers.sft import expert_rollout

    seed_everything(0)
    policy = ElementPolicy(prior_scale=0.0, checkpoint=str(base_dir))
    expert = KeyboardExpert()
    instances = [(t, s) for t in covered for s in range(setting.instances)]
    sources: dict[str, list[Any]] = {"on_policy": [], "oracle": [], "keyboard_converted": [], "keyboard_level1": []}
    level1_tried = 0
    with EnvPool(lambda: make_env(setting), 1) as pool:
        sources["on_policy"] = rollout_episodes(pool, policy, instances * 4)
        for task_id, seed in instances:
            def play(env: Any) -> tuple[Any, Any, list[str]]:
                trace = expert.trace(env, task_id, seed)
                return expert_rollout(env, policy, task_id, seed), rollout_from_trace(trace, policy), expert.plan(trace)
            oracle, converted, plan = pool.run([(0, play)])[0]
            sources["oracle"].append(oracle)
            sources["keyboard_converted"].append(converted)
            tried = rollout_episodes(pool, policy, [(task_id, seed)] * level1_episodes, plan=plan)
            level1_tried += len(tried)
            sources["keyboard_level1"] += [r for r in tried if r.success]
    out: dict[str, Any] = {"low_prob": LOW_PROB, "instances": len(instances), "level1_episodes": level1_tried}
    for name, rollouts in sources.items():
        out[name] = {**token_profile(policy, rollouts), "trajectories": len(rollouts),
                     "successes": sum(r.success for r in rollouts)}
    return out


def distance_lines(distance: dict[str, Any]) -> list[str]:
    """`expert_distance` as markdown."""
    lines = [f"expert data against the base on {distance['instances']} covered instances (p < {distance['low_prob']:g} "
             f"is low-probability; LEVEL-1: the successes of {distance['level1_episodes']} plan-conditioned episodes):", "| data | trajectories (successes) | tokens | mean log-prob | gap to on-policy | "
             "low-prob share |", "|---|---|---|---|---|---|"]
    own = distance["on_policy"]["mean_logp"]
    for name in ("on_policy", "oracle", "keyboard_converted", "keyboard_level1"):
        d = distance[name]
        if not d["tokens"]:
            lines.append(f"| {name} | {d['trajectories']} ({d['successes']}) | 0 | - | - | - |")
            continue
        lines.append(f"| {name} | {d['trajectories']} ({d['successes']}) | {d['tokens']} | {d['mean_logp']:.2f} | "
                     f"{d['mean_logp'] - own:+.2f} | {100 * d['low_prob_share']:.1f} % |")
    return lines


def make_judge(method: str, setting: Setting, seed: int, criteria_store: str | None) -> Any:
    """The judge a judged arm wraps its envs with (None: the env reports progress itself)."""
    from gui_gym.judges import CriteriaStore, NoisyOracleJudge, OracleJudge

    if method == "page-judged":
        return OracleJudge()
    if method == "page-noisy":
        return NoisyOracleJudge(setting.judge_flip_prob, seed)
    if method in ("page-reader", "page-biased"):
        from gui_gym.benchmarks.learning.reader import ReaderJudge

        if criteria_store is None:
            raise ValueError(f"arm {method} judges on extracted criteria: expected a criteria store")
        return ReaderJudge(setting.reader_flip_prob, seed, systematic=method == "page-biased",
                           store=CriteriaStore(criteria_store))
    return None


def extract_and_check(setting: Setting, base_dir: Path, tasks: Sequence[str], out: Path) -> dict[str, Any]:
    """The reader arms' setup, once per results folder: sample the base on each RL task's
    training instances, extract criteria from its successes with the project's extraction
    (`gui_gym.judges.criteria.extract_criteria`, `ReaderJudge.propose_criteria`) into
    ``out/criteria``, then judge fresh sampled episodes with the plain and the systematic
    reader (3 rounds, mean) and measure their agreement with the env's truth."""
    from gui_gym.agents.policies.element import ElementPolicy
    from gui_gym.benchmarks.learning.reader import ObservedEpisode, ReaderJudge, agreement
    from gui_gym.judges import CriteriaStore, extract_criteria
    from gui_gym.trainers import page
    from gui_gym.trainers.config import trainer_config
    from gui_gym.trainers.grpo import seed_everything
    from gui_gym.trainers.rollout import EnvPool, rollout_episodes

    seed_everything(0)  # its own draws, whatever ran before it in this process
    policy = ElementPolicy(prior_scale=0.0, checkpoint=str(base_dir))
    store_dir = out / "criteria"
    store = CriteriaStore(store_dir)
    plain = ReaderJudge()
    episodes = [(t, s) for t in tasks for s in range(setting.instances)] * setting.extraction_episodes
    with EnvPool(lambda: ObservedEpisode(make_env(setting), plain), 1) as pool:
        rollouts = rollout_episodes(pool, policy, episodes)
    summary: dict[str, Any] = {"episodes": len(rollouts), "tasks": {}}
    milestones = {}
    env = make_env(setting)
    for task in tasks:
        env.reset(options={"task_id": task})
        milestones[task] = len(env.task.milestones())
        wins = [r.final_info["observed_trajectory"] for r in rollouts if r.task_id == task and r.success]
        found = extract_criteria(plain, wins)
        if found.criteria:
            store.put(task, found.criteria, judge=plain.identity, stable=found.stable, errors=found.errors)
        summary["tasks"][task] = {"successes": len(wins), "used": len(found.used), "stable": found.stable,
                                  "criteria": found.criteria, "milestones": milestones[task]}
    missing = [t for t in tasks if store.get(t) is None]
    if missing:
        raise RuntimeError(f"the base succeeded on no sampled episode of {missing}: no criteria to extract")
    summary["agreement"] = {}
    checked = [(t, s) for t in tasks for s in range(setting.instances)] * 4
    for name, systematic in (("page-reader", False), ("page-biased", True)):
        judge = ReaderJudge(setting.reader_flip_prob, 0, systematic=systematic, store=store)
        cfg = trainer_config("page", {**ARMS[name][1], "criteria_store": str(store_dir)})
        with EnvPool(lambda: page.wrap_env(ObservedEpisode(make_env(setting), ReaderJudge()), judge, cfg), 1) as pool:
            judged = rollout_episodes(pool, policy, checked)
        summary["agreement"][name] = agreement(judged, milestones)
    return summary


def run_selection_key(run: dict[str, Any]) -> tuple[str, str, int, float]:
    return run.get("stage", "eval"), run["arm"], run["seed"], run.get("learning_rate", float("nan"))


def select_lr(runs: Sequence[dict[str, Any]], arm: str, grid: Sequence[float], seeds: Sequence[int],
              keys: Sequence[str]) -> dict[str, Any]:
    """The arm's learning rate: the grid value whose selection runs (one per selection seed)
    score best, a run's score being the mean of its success on the table's splits `keys`; a
    tie goes to the smaller rate. Every grid value needs a run on every selection seed."""
    scores = {}
    for lr in grid:
        mine = [r for r in runs if r.get("stage") == "selection" and r["arm"] == arm and r["learning_rate"] == lr]
        missing = sorted(set(seeds) - {r["seed"] for r in mine})
        if missing:
            raise ValueError(f"arm {arm!r} at lr {lr:g} has no selection run for seeds {missing}")
        scores[lr] = statistics.fmean(statistics.fmean(r[k] for k in keys) for r in mine if r["seed"] in seeds)
    best = max(scores.values())
    chosen = min(lr for lr, score in scores.items() if score == best)
    return {"selected_lr": chosen, "scores": {f"{lr:g}": score for lr, score in scores.items()},
            "selection_seeds": list(seeds)}


@dataclass(frozen=True)
class Study:
    """One invocation of the benchmark as its command line fixed it: the setting, the name of
    its results (quick, full, bepa-quick, bepa-full), the results folder, where the curves
    go, and how many runs train at once."""

    setting: Setting
    name: str
    out: Path
    png: Path
    workers: int = 2

    @property
    def base_dir(self) -> Path:
        """Where Stage 0's base is saved."""
        return self.out / "base"

    @property
    def judged_by_reader(self) -> bool:
        """Whether an arm judges with `ReaderJudge`, on criteria extracted into ``out/criteria``."""
        return any(ARMS[a][0] in ("page-reader", "page-biased") for a in self.setting.arms)


@dataclass
class Preparation:
    """What every RL run of a results folder starts from, kept in its ``base.json``: Stage 0's
    pretraining, the base measured on the RL tasks (`measure`), the RL tasks and the
    expert-covered ones among them (Stage 1), and, once an arm needs them, the reader's
    criteria check (`extract_and_check`) and the expert data's distance from the base
    (`expert_distance`)."""

    pretraining: dict[str, Any]
    base: dict[str, Any]
    tasks: Sequence[str]
    covered: Sequence[str]
    judging: dict[str, Any] | None = None
    expert_distance: dict[str, Any] | None = None

    def save(self, folder: Path) -> None:
        (folder / "base.json").write_text(json.dumps(dataclasses.asdict(self), indent=2))

    @classmethod
    def load(cls, folder: Path) -> "Preparation":
        saved = json.loads((folder / "base.json").read_text())
        return cls(saved["pretraining"], saved["base"], saved["tasks"], saved["covered"], saved.get("judging"),
                   saved.get("expert_distance"))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argument_parser()
    args = parser.parse_args(argv)
    try:
        study = study_from(args)
    except ValueError as exc:
        parser.error(str(exc))
    study.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    if args.summarize:
        return report(study, Preparation.load(study.out), read_jsonl(study.out / "runs.jsonl"), float("nan"))
    if args.resume:
        preparation, done = Preparation.load(study.out), read_jsonl(study.out / "runs.jsonl")
    else:
        preparation, done = prepare(study), []
    prepare_arms(study, preparation)
    show_preparation(study, preparation)
    runs = train_runs(study, preparation, done, selection_only=args.selection_only)
    return report(study, preparation, runs, time.monotonic() - started)


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", choices=sorted(TABLES), default="page",
                        help="page: GRPO vs PAGE's arms; bepa: BEPA's ablation on Stage 1's expert-only tasks")
    parser.add_argument("--quick", action="store_true",
                        help="3 evaluation seeds, one selection seed: GRPO, PAGE and PAGE with the reader judge "
                             "(--table bepa: GRPO, replacement-kb and bepa-kb)")
    parser.add_argument("--seeds", type=int, default=None, help="evaluation seeds per arm (fixed before the runs)")
    parser.add_argument("--first-seed", type=int, default=None,
                        help="the first evaluation seed (default 0): new seeds for a fresh pre-registered test")
    parser.add_argument("--selection-seeds", default=None, help="comma-separated seeds of the learning-rate selection")
    parser.add_argument("--lr-grid", default=None, help="comma-separated learning rates each arm is selected from")
    parser.add_argument("--arms", default=None, help=f"comma-separated arms of {list(ARMS)} (grpo always runs)")
    parser.add_argument("--episodes", type=int, default=None, help="episode budget per run")
    parser.add_argument("--workers", type=int, default=2, help="runs at once, each in its own process")
    parser.add_argument("--out", default=None, help="results folder (default runs/learning[-bepa]-{quick,full})")
    parser.add_argument("--plot", default=None,
                        help="where the curves go (default <out>/curves.png; the figures in docs/ are docs/learning_<name>.png)")
    parser.add_argument("--summarize", action="store_true",
                        help="only report the runs the folder's runs.jsonl holds (a sweep cut short)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the folder's base, criteria and runs; train only the missing runs")
    parser.add_argument("--selection-only", action="store_true",
                        help="train only the learning-rate selection runs (the evaluation runs come with --resume)")
    return parser


def study_from(args: argparse.Namespace) -> Study:
    """The study the command line asks for: the table's preset (quick or full) with the options
    given; `ValueError` names a bad one."""
    if args.table == "bepa":
        setting = BEPA_QUICK if args.quick else BEPA
    else:
        setting = QUICK if args.quick else Setting()
    changes: dict[str, Any] = {}
    if args.seeds is not None:
        changes["seeds"] = args.seeds
    if args.first_seed is not None:
        changes["first_seed"] = args.first_seed
    if args.episodes is not None:
        changes["episodes"] = args.episodes
    if args.selection_seeds:
        changes["selection_seeds"] = tuple(int(v) for v in args.selection_seeds.split(","))
    if args.lr_grid:
        changes["lr_grid"] = tuple(float(v) for v in args.lr_grid.split(","))
    if args.arms:
        unknown = set(args.arms.split(",")) - set(ARMS)
        if unknown:
            raise ValueError(f"unknown arms {sorted(unknown)}; expected some of {list(ARMS)}")
        changes["arms"] = tuple(a for a in ARMS if a == "grpo" or a in args.arms.split(","))
    setting = dataclasses.replace(setting, **changes)
    name = ("bepa-" if args.table == "bepa" else "") + ("quick" if args.quick else "full")
    out = Path(args.out or f"runs/learning-{name}")
    return Study(setting, name, out, Path(args.plot) if args.plot else out / "curves.png", args.workers)


def prepare(study: Study) -> Preparation:
    """Stages 0 and 1 from scratch: a new base (the folder's runs and task selection belong to
    the old one and are dropped), the RL tasks (BEPA's measured on the candidates), and the
    base measured on them."""
    from gui_gym.agents.policies.element import ElementPolicy

    (study.out / "runs.jsonl").unlink(missing_ok=True)
    (study.out / "task_selection.json").unlink(missing_ok=True)
    setting = study.setting
    pretraining = pretrain(setting, study.base_dir)
    splits = select_tasks(setting, study.base_dir, study.out)[1] if setting.table == "bepa" else None
    tasks, covered = rl_tasks(setting, splits)
    base = measure(ElementPolicy(prior_scale=0.0, checkpoint=str(study.base_dir)), setting, 0, tasks, covered,
                   sampled=True)
    return Preparation(pretraining, base, tasks, covered)


def prepare_arms(study: Study, preparation: Preparation) -> None:
    """What the study's arms need beyond the base, measured once per folder: the reader's
    criteria (again when the folder was copied without its store) and the expert data's
    distance; then ``base.json`` is written."""
    if study.judged_by_reader and (preparation.judging is None or not (study.out / "criteria").is_dir()):
        preparation.judging = extract_and_check(study.setting, study.base_dir, preparation.tasks, study.out)
    if preparation.expert_distance is None and any(ARMS[a][1].get("expert") for a in study.setting.arms):
        preparation.expert_distance = expert_distance(study.setting, study.base_dir, preparation.covered)
    preparation.save(study.out)


def show_preparation(study: Study, preparation: Preparation) -> None:
    """Print the base, Stage 1's measurement of the candidates, the RL tasks, the base on them,
    the reader's agreement and the expert data's distance."""
    pretraining, base = preparation.pretraining, preparation.base
    print(f"base: {pretraining['demonstrations']} oracle steps of {pretraining['episodes']} episodes on "
          f"{len(pretrain_templates(study.setting))} pretraining templates, NLL per epoch "
          + ", ".join(f"{v:.3f}" for v in pretraining["nll_per_epoch"]), flush=True)
    if (study.out / "task_selection.json").is_file():
        from gui_gym.benchmarks.learning.tasks import CandidateStats, selection_lines

        selection = json.loads((study.out / "task_selection.json").read_text())
        print("Stage 1, the base on the candidates:\n" + "\n".join(selection_lines(
            [CandidateStats(**c) for c in selection["candidates"]], selection["splits"])), flush=True)
    covered = preparation.covered
    print(f"RL tasks {list(preparation.tasks)}" + (f", expert-covered {list(covered)}" if covered else ""))
    print(f"base on the RL tasks: train greedy {base['train']:.3f}, held-out greedy {base['held_out']:.3f}, "
          f"train sampled {base['train_sampled']:.3f} (progress {base['train_sampled_progress']:.3f}), held-out "
          f"sampled {base['held_out_sampled']:.3f}", flush=True)
    if preparation.judging:
        print("\n".join(judging_lines(preparation.judging)), flush=True)
    if preparation.expert_distance:
        print("\n".join(distance_lines(preparation.expert_distance)), flush=True)


def train_runs(study: Study, preparation: Preparation, done: Sequence[dict[str, Any]],
               selection_only: bool = False) -> list[dict[str, Any]]:
    """Stage 2: every arm's selection runs at every rate of the grid, then (unless
    `selection_only`) its evaluation runs at its selected rate, `study.workers` at a time; the
    runs `done` already are kept, not trained again."""
    setting, runs = study.setting, list(done)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=study.workers, mp_context=context, initializer=die_with_parent) as executor:
        train_missing(executor, study, preparation, runs, [(arm, seed, lr, "selection") for seed in setting.selection_seeds
                                                           for lr in setting.lr_grid for arm in setting.arms])
        if selection_only:
            return runs
        keys = TABLES[setting.table]
        chosen = {arm: select_lr(runs, arm, setting.lr_grid, setting.selection_seeds, keys)["selected_lr"]
                  for arm in setting.arms}
        print("selected learning rates: " + ", ".join(f"{arm} {lr:g}" for arm, lr in chosen.items()), flush=True)
        train_missing(executor, study, preparation, runs, [(arm, seed, chosen[arm], "eval")
                                                           for seed in setting.evaluation_seeds for arm in setting.arms])
    return runs


def train_missing(executor: ProcessPoolExecutor, study: Study, preparation: Preparation, runs: list[dict[str, Any]],
                  jobs: Sequence[tuple[str, int, float, str]]) -> None:
    """Train the jobs (arm, seed, learning rate, stage) that `runs` lacks, in `executor`; each
    run joins `runs` and ``runs.jsonl`` as it finishes, in the jobs' order."""
    keys = TABLES[study.setting.table]
    store = str(study.out / "criteria") if study.judged_by_reader else None
    finished = {run_selection_key(r) for r in runs}
    futures = [executor.submit(train_one, arm, seed, study.setting, str(study.base_dir), tuple(preparation.tasks),
                               tuple(preparation.covered), lr, stage, store)
               for arm, seed, lr, stage in jobs if (stage, arm, seed, lr) not in finished]
    for future in futures:
        r = future.result()
        runs.append(r)
        print(f"  {r['stage']:<9} {r['arm']:<13} lr {r['learning_rate']:<5g} seed {r['seed']:>3}: "
              f"{keys[0]} {r[keys[0]]:.3f} {keys[1]} {r[keys[1]]:.3f} ({r['wall_s']:.0f} s)", flush=True)
        append_jsonl(study.out / "runs.jsonl", r)


def judging_lines(judging: dict[str, Any]) -> list[str]:
    """The reader's criteria and its agreement with the truth, as markdown."""
    lines = [f"criteria extracted by the reader from the base's successes ({judging['episodes']} sampled episodes):",
             "| task | successes | used | stable | criteria | milestones |", "|---|---|---|---|---|---|"]
    for task, entry in judging["tasks"].items():
        lines.append(f"| {task} | {entry['successes']} | {entry['used']} | {entry['stable']} | "
                     f"{len(entry['criteria'] or [])} | {entry['milestones']} |")
    lines += ["", "| judge | judged episodes | per-criterion accuracy | mean abs. progress error | correlation with truth |",
              "|---|---|---|---|---|"]
    for arm, a in judging["agreement"].items():
        cells = [f"{a[k]:.3f}" if a[k] is not None else "-" for k in
                 ("criterion_accuracy", "progress_mae", "progress_correlation")]
        lines.append(f"| {arm} | {a['episodes']} | " + " | ".join(cells) + " |")
    return lines


def report(study: Study, preparation: Preparation, runs: list[dict[str, Any]], wall_s: float) -> dict[str, Any]:
    """Print the tables and the statistics, plot the curves into ``study.png``, write
    ``results.json`` into ``study.out``.
    Each arm's learning rate is selected on the selection runs (`select_lr`); the tables and
    the comparisons use the evaluation runs at that rate, on the seeds every arm finished
    (`--summarize` of a sweep cut short), of the setting's (``--quick --summarize`` of a full
    run's folder reports its first 3). Holm's correction runs over the whole family: every
    comparison of both splits."""
    setting, name, base, distance = study.setting, study.name, preparation.base, preparation.expert_distance
    keys = TABLES[setting.table]
    selection = {}
    for arm in setting.arms:
        try:
            selection[arm] = select_lr(runs, arm, setting.lr_grid, setting.selection_seeds, keys)
        except ValueError as exc:
            print(f"no selection for {arm}: {exc}")
    arms = tuple(a for a in setting.arms if a in selection)
    chosen = [r for r in runs if r.get("stage") == "eval" and r["arm"] in selection
              and r["learning_rate"] == selection[r["arm"]]["selected_lr"]]
    complete = [s for s in sorted({r["seed"] for r in chosen}) if s in setting.evaluation_seeds
                and all(any(r["arm"] == a and r["seed"] == s for r in chosen) for a in arms)]
    chosen = [r for r in chosen if r["seed"] in complete]
    rows = family(chosen, comparison_pairs(arms), keys) if len(complete) >= 2 else []
    lines = table(chosen, base, arms, setting.table, {a: selection[a]["selected_lr"] for a in arms})
    print(f"\nlearning benchmark ({name}): {len(tasks_of(chosen))} RL tasks x {setting.instances} instances, "
          f"{setting.episodes} episodes per run, G={setting.group_size}, lr grid {list(setting.lr_grid)} selected on "
          f"seeds {list(setting.selection_seeds)}, {len(complete)} of {setting.seeds} evaluation seeds per arm; "
          f"success (%) mean +- sd over seeds\n")
    print("selection: each arm's mean success (%) on the selection seeds per learning rate\n")
    print("\n".join(selection_table(selection)))
    print()
    print("\n".join(lines))
    print()
    print("\n".join(stats_lines(rows)))
    if distance:
        print("\n" + "\n".join(distance_lines(distance)))
    print(f"\nwall time {wall_s:.0f} s ({study.workers} workers)")
    if chosen:
        plot(chosen, arms, study.png, f"TextWeb learning ({name}): {len(complete)} seeds per arm, lr selected per arm")
        print(f"curves: {study.png}")
    results = {"setting": dataclasses.asdict(setting), "pretraining": preparation.pretraining, "base": base,
               "judging": preparation.judging, "expert_distance": distance, "selection": selection,
               "evaluation_seeds": complete, "runs": runs, "comparisons": rows, "table": lines, "wall_s": wall_s,
               "workers": study.workers}
    (study.out / "results.json").write_text(json.dumps(results, indent=2))
    return results


def tasks_of(runs: Sequence[dict[str, Any]]) -> set[str]:
    return {t for r in runs for t in r.get("train_per_task", {})}


if __name__ == "__main__":
    main()
