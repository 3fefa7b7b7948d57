"""The judges of PAGE's judged arms: set up once per results folder from the base's own episodes,
measured against the env's truth, and made for each run.

- `ReaderJudge` (``page-reader``, ``page-biased``): criteria extracted from the base's
  successful sampled episodes on the training instances (`gui_gym.judges.criteria.extract_criteria`),
  kept in ``<folder>/criteria``;
- `LearnedJudge` (``page-learned``): a model trained on *held-apart* episodes of the base:
  instances no run trains or is evaluated on (`judge_instances`), sampled from a seed of their
  own; the labels are those episodes' milestones, the inputs their pages. Kept in
  ``<folder>/learned_judge.pt``.

Then every judge marks the same fresh sampled episodes of the base through PAGE's own
wrappers (3 rounds, mean), and `gui_gym.benchmarks.learning.judging.agreement` compares its marks with the
milestones, per kind of criterion.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

import gymnasium as gym

JUDGE_FIRST_INSTANCE = 900_000
"""The learned judge's episodes play instances from here: no training instance (0..3), no
held-out instance (drawn above 2**20 with near certainty; `check_judge_instances` makes sure)."""
JUDGE_SAMPLING_SEED = 900_000
"""The seed of those episodes' sampling, used by nothing else."""
JUDGED_ARMS = ("page-reader", "page-biased", "page-learned")
LEARNED_JUDGE = "learned_judge.pt"


def judge_instances(count: int) -> list[int]:
    """The instance seeds the learned judge is trained on."""
    return list(range(JUDGE_FIRST_INSTANCE, JUDGE_FIRST_INSTANCE + count))


def check_judge_instances(count: int, used: Sequence[int]) -> None:
    """Refuse judge instances that any run plays (`used`: every training and held-out instance)."""
    shared = sorted(set(judge_instances(count)) & set(used))
    if shared:
        raise ValueError(f"the learned judge's instances {shared[:5]} are played by runs too")


def make_judge(method: str, setting: Any, seed: int, judge_dir: str | None) -> Any:
    """The judge a judged arm wraps its envs with (None: the env reports progress itself), from
    what `prepare_judges` left in `judge_dir`."""
    from gui_gym.judges import CriteriaStore, NoisyOracleJudge, OracleJudge

    if method == "page-judged":
        return OracleJudge()
    if method == "page-noisy":
        return NoisyOracleJudge(setting.judge_flip_prob, seed)
    if method in ("page-reader", "page-biased", "page-learned") and judge_dir is None:
        raise ValueError(f"arm {method} judges with what the results folder prepared: expected its folder")
    if method in ("page-reader", "page-biased"):
        from gui_gym.benchmarks.learning.reader import ReaderJudge

        return ReaderJudge(setting.reader_flip_prob, seed, systematic=method == "page-biased",
                           store=CriteriaStore(Path(judge_dir) / "criteria"))
    if method == "page-learned":
        return learned_judge(Path(judge_dir), seed)
    return None


def learned_judge(folder: Path, seed: int) -> Any:
    import torch

    from gui_gym.benchmarks.learning.learned_judge import JudgeModel, LearnedJudge

    return LearnedJudge(JudgeModel.from_state(torch.load(folder / LEARNED_JUDGE, weights_only=True)), seed)


def prepare_judges(setting: Any, make_env: Callable[[], gym.Env], policy: Any, kinds: dict[str, list[str]],
                   arm_configs: dict[str, Any], out: Path, arms: Sequence[str]) -> dict[str, Any]:
    """Set up the judges `arms` need (the module's steps) from `policy` (the base), then
    measure each on the same fresh sampled episodes. `kinds`: each RL task's criterion kinds
    (`gui_gym.benchmarks.learning.judging.criterion_kinds`); `arm_configs`: each judged arm's
    `PAGEConfig`. Returns the summary `judging_lines` prints."""
    from gui_gym.trainers import page
    from gui_gym.trainers.grpo import seed_everything
    from gui_gym.trainers.rollout import EnvPool, rollout_episodes

    from gui_gym.benchmarks.learning.judging import ObservedEpisode, agreement
    from gui_gym.benchmarks.learning.reader import ReaderJudge

    tasks = list(kinds)
    summary: dict[str, Any] = {}
    if {"page-reader", "page-biased"} & set(arms):
        summary.update(extract_reader_criteria(setting, make_env, policy, tasks, out / "criteria"))
    if "page-learned" in arms:
        summary["learned"] = fit_learned_judge(setting, make_env, policy, kinds, out / LEARNED_JUDGE)
    seed_everything(0)  # the checked episodes: the same draws for every judge
    checked = [(t, s) for t in tasks for s in range(setting.instances)] * 8
    summary["agreement"] = {}
    for arm in (a for a in JUDGED_ARMS if a in arms):
        judge = make_judge(arm, setting, 0, str(out))
        with EnvPool(lambda: page.wrap_env(ObservedEpisode(make_env(), ReaderJudge()), judge, arm_configs[arm]),
                     1) as pool:
            seed_everything(0)
            judged = rollout_episodes(pool, policy, checked)
        summary["agreement"][arm] = agreement(judged, kinds)
    return summary


def extract_reader_criteria(setting: Any, make_env: Callable[[], gym.Env], policy: Any, tasks: Sequence[str],
                            store_dir: Path) -> dict[str, Any]:
    """Sample the base on each task's training instances and extract criteria from its
    successes with the project's extraction (`ReaderJudge.propose_criteria`) into `store_dir`."""
    from gui_gym.judges import CriteriaStore, extract_criteria
    from gui_gym.trainers.grpo import seed_everything
    from gui_gym.trainers.rollout import EnvPool, rollout_episodes

    from gui_gym.benchmarks.learning.judging import ObservedEpisode
    from gui_gym.benchmarks.learning.reader import ReaderJudge

    seed_everything(0)  # its own draws, whatever ran before it in this process
    store = CriteriaStore(store_dir)
    plain = ReaderJudge()
    episodes = [(t, s) for t in tasks for s in range(setting.instances)] * setting.extraction_episodes
    with EnvPool(lambda: ObservedEpisode(make_env(), plain), 1) as pool:
        rollouts = rollout_episodes(pool, policy, episodes)
    summary: dict[str, Any] = {"episodes": len(rollouts), "tasks": {}}
    env = make_env()
    for task in tasks:
        env.reset(options={"task_id": task})
        wins = [r.final_info["observed_trajectory"] for r in rollouts if r.task_id == task and r.success]
        found = extract_criteria(plain, wins)
        if found.criteria:
            store.put(task, found.criteria, judge=plain.identity, stable=found.stable, errors=found.errors)
        summary["tasks"][task] = {"successes": len(wins), "used": len(found.used), "stable": found.stable,
                                  "criteria": found.criteria, "milestones": len(env.unwrapped.task.milestones())}
    missing = [t for t in tasks if store.get(t) is None]
    if missing:
        raise RuntimeError(f"the base succeeded on no sampled episode of {missing}: no criteria to extract")
    return summary


def fit_learned_judge(setting: Any, make_env: Callable[[], gym.Env], policy: Any, kinds: dict[str, list[str]],
                      path: Path) -> dict[str, Any]:
    """Sample the base on the held-apart instances (`judge_instances`), label each episode's
    criteria with its milestones, train the judge and save it at `path`."""
    import torch

    from gui_gym.trainers.grpo import seed_everything
    from gui_gym.trainers.rollout import EnvPool, rollout_episodes

    from gui_gym.benchmarks.learning.judging import ObservedEpisode
    from gui_gym.benchmarks.learning.learned_judge import JudgeModel, LearnedJudge, Labelled, seen_pages, train_judge

    instances = judge_instances(setting.judge_instances)
    recorder = LearnedJudge(JudgeModel({}))  # only its probe is used: what it reads of each page
    seed_everything(JUDGE_SAMPLING_SEED)
    episodes = [(t, s) for t in kinds for s in instances] * setting.judge_episodes
    with EnvPool(lambda: ObservedEpisode(make_env(), recorder), 1) as pool:
        rollouts = rollout_episodes(pool, policy, episodes)
    labelled = []
    for r in rollouts:
        count = len(kinds[r.task_id])
        reached = round(r.final_info["true_progress"] * count)
        labelled.append(Labelled(r.task_id, tuple(seen_pages(r.final_info["observed_trajectory"])),
                                 tuple(k < reached for k in range(count))))
    model, losses = train_judge(labelled)
    torch.save(model.state(), path)
    return {"episodes": len(labelled), "instances": [instances[0], instances[-1]], "sampling_seed": JUDGE_SAMPLING_SEED,
            "criteria": sum(len(e.labels) for e in labelled), "met_share": sum(sum(e.labels) for e in labelled)
            / max(1, sum(len(e.labels) for e in labelled)), "loss": losses}


def judging_lines(judging: dict[str, Any]) -> list[str]:
    """The judges' set-up and their agreement with the truth, overall and per kind of
    criterion, as markdown."""
    lines = []
    if "tasks" in judging:
        lines += [f"criteria extracted by the reader from the base's successes ({judging['episodes']} sampled episodes):",
                  "| task | successes | used | stable | criteria | milestones |", "|---|---|---|---|---|---|"]
        for task, entry in judging["tasks"].items():
            lines.append(f"| {task} | {entry['successes']} | {entry['used']} | {entry['stable']} | "
                         f"{len(entry['criteria'] or [])} | {entry['milestones']} |")
        lines.append("")
    if "learned" in judging:
        learned = judging["learned"]
        lines += [f"learned judge: {learned['episodes']} held-apart episodes of the base (instances "
                  f"{learned['instances'][0]}-{learned['instances'][1]}, sampling seed {learned['sampling_seed']}), "
                  f"{learned['criteria']} labelled criteria ({100 * learned['met_share']:.0f} % met), log-loss "
                  + " -> ".join(f"{v:.3f}" for v in learned["loss"][::max(1, len(learned["loss"]) - 1)]), ""]
    return lines + agreement_lines(judging["agreement"])


def agreement_lines(agreements: dict[str, dict[str, Any]]) -> list[str]:
    """Each judge's agreement (`gui_gym.benchmarks.learning.judging.agreement`) as markdown: overall, then per
    kind of criterion (`per_kind_lines`)."""
    lines = ["| judge | judged episodes | per-criterion accuracy | mean abs. progress error | correlation with truth |",
             "|---|---|---|---|---|"]
    for arm, a in agreements.items():
        cells = [f"{a[k]:.3f}" if a[k] is not None else "-" for k in
                 ("criterion_accuracy", "progress_mae", "progress_correlation")]
        lines.append(f"| {arm} | {a['episodes']} | " + " | ".join(cells) + " |")
    return lines + ["", *per_kind_lines(agreements)]


def per_kind_lines(agreements: dict[str, dict[str, Any]]) -> list[str]:
    """Each judge's agreement per kind of criterion (`gui_gym.benchmarks.learning.judging.agreement`'s counts) as
    markdown: the accuracy, then the shares of false credit and false blame, and the criteria
    judged; "reached" is the share the truth says met."""
    kinds = sorted({kind for a in agreements.values() for kind in a.get("per_kind", {})})
    if not kinds:
        return []
    lines = ["per kind of criterion: accuracy (false credit / false blame), criteria judged; "
             "reached: the share the truth says met", "",
             "| criterion | reached | " + " | ".join(agreements) + " |", "|---|---|" + "---|" * len(agreements)]
    for kind in kinds:
        cells, reached = [], "-"
        for a in agreements.values():
            c = a.get("per_kind", {}).get(kind)
            if c is None:
                cells.append("-")
                continue
            n = c["criteria"]
            reached = f"{100 * c['reached'] / n:.0f} %"
            cells.append(f"{c['right'] / n:.3f} ({c['false_credit'] / n:.3f} / {c['false_blame'] / n:.3f}), {n}")
        lines.append(f"| {kind} | {reached} | " + " | ".join(cells) + " |")
    return lines
