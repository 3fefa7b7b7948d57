"""The learning benchmark's report: the papers' tables (method x split, mean +- sd over seeds,
each arm at its learning rate, PAGE's share of equal-progress groups, BEPA's log-prob gap, the
tokens each arm trained on and its judge's calls), the family of comparisons (each arm against
GRPO, PAGE against GRPO on progress, BEPA with the exploring expert against BEPA with the env's
plan: two-sided Welch, so an arm can be found worse, Holm over the family, bootstrap, power:
`gui_gym.benchmarks.learning.stats`) and the on-policy curves."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any, Sequence

from gui_gym.benchmarks.learning import stats

TABLES = {"page": ("train", "held_out", "held_out_templates"), "bepa": ("expert_covered", "held_out_tasks")}
"""Each table's splits (the run record's keys). PAGE: the RL tasks' training instances, new
instances of the same templates, and instances of templates never trained on; BEPA: the tasks
the expert covers and those it does not (both trained on, training instances)."""
SELECTION_SPLITS = {"page": ("train", "held_out"), "bepa": ("expert_covered", "held_out_tasks")}
"""The splits a learning rate is selected on (the held-out templates never choose anything)."""


EXTRA_BASELINES = {"page": "grpo-progress", "bepa-ex": "bepa"}
"""Comparisons beyond each arm against GRPO: PAGE against GRPO on its own progress reward
(what PAGE adds to a progress reward: the subtask term and the unnormalized A_inter); BEPA
with the exploring expert against BEPA with the env's own expert plan."""


def comparison_pairs(arms: Sequence[str]) -> list[tuple[str, str]]:
    """The family of (arm, baseline) comparisons among `arms`: each arm against GRPO, and the
    `EXTRA_BASELINES`."""
    pairs = [(arm, "grpo") for arm in arms if arm != "grpo" and "grpo" in arms]
    pairs += [(arm, baseline) for arm, baseline in EXTRA_BASELINES.items() if arm in arms and baseline in arms]
    return pairs


def comparison(runs: Sequence[dict[str, Any]], arm: str, baseline: str, key: str) -> dict[str, Any]:
    """`arm` against `baseline` on split `key`: the gap, Welch's two-sided p, the bootstrap
    95 % interval, the power at the seeds run to detect a gap of the observed size (either
    sign), the seeds 80 % power would need."""
    mine = [r[key] for r in runs if r["arm"] == arm]
    theirs = [r[key] for r in runs if r["arm"] == baseline]
    test = stats.welch_two_sided(mine, theirs)
    sd = ((statistics.variance(mine) + statistics.variance(theirs)) / 2) ** 0.5  # the sd of a gap is sqrt(2 sd^2 / n)
    return {"arm": arm, "baseline": baseline, "split": key, "n": len(mine), "diff": test.diff, "sd": sd, "t": test.t,
            "df": test.df, "p": test.p, "ci95": stats.bootstrap_diff_ci(mine, theirs),
            "power": stats.power(test.diff, sd, len(mine)),
            "seeds_needed": stats.seeds_needed(test.diff, sd)}


def family(runs: Sequence[dict[str, Any]], pairs: Sequence[tuple[str, str]], keys: Sequence[str]) -> list[dict[str, Any]]:
    """Every pair on every split, with Holm-adjusted p-values over the whole family."""
    rows = [comparison(runs, arm, baseline, key) for key in keys for arm, baseline in pairs]
    for row, adjusted in zip(rows, stats.holm([row["p"] for row in rows])):
        row["p_holm"] = adjusted
    return rows


def table(runs: list[dict[str, Any]], base: dict[str, Any], arms: tuple[str, ...], name: str = "page",
          learning_rates: dict[str, float] | None = None) -> list[str]:
    """The papers' table: method x success (%) on the table's splits (greedy), mean +- sd over
    seeds; the base's sampled success (its solve rate in RL's own rollouts). PAGE's adds the
    share of groups with equal progress (A_inter exactly 0); BEPA's the cache's log-prob gap,
    the mean log-prob of the injected tokens vs the policy's own under the weights of each
    update (the paper's distribution-gap diagnostic), the share of each with p < 0.1
    (`gui_gym.trainers.bepa.LOW_PROB`), the seeded cache's log-prob under the base, and the
    injections per run. Both end with the tokens trained on and the judge's calls per run
    (PAGE: marks and spans asked of a judge; BEPA: plans abstracted from expert traces)."""
    keys = [k for k in TABLES[name] if k in base]  # an older base has no held-out templates
    titles = {"train": "train (greedy)", "held_out": "held-out instances (greedy)",
              "held_out_templates": "held-out templates (greedy)", "expert_covered": "expert-covered (greedy)",
              "held_out_tasks": "held-out tasks (greedy)"}
    if name == "page":
        extra = ["groups with A_inter = 0"]
    else:
        extra = ["cached log-prob", "on-policy log-prob", "gap", "cached p<0.1", "on-policy p<0.1",
                 "seeded log-prob (base)", "injections per run"]
    extra += ["trained tokens per run", "judge calls per run"]
    lines = ["| method | " + " | ".join([titles[k] for k in keys] + extra) + " |", "|---|" + "---|" * (len(keys) + len(extra))]
    pad = " |" * len(extra)  # the base has no value in the extra columns
    lines += ["| base (BC), greedy | " + " | ".join(f"{100 * base[k]:.1f}" for k in keys) + " |" + pad,
              "| base (BC), sampled | " + " | ".join(f"{100 * base[k + '_sampled']:.1f}" for k in keys) + " |" + pad]
    for arm in arms:
        mine = [r for r in runs if r["arm"] == arm]
        cells = [f"{100 * statistics.fmean(v):.1f} +- {100 * statistics.stdev(v):.1f}"
                 for v in ([r[k] for r in mine] for k in keys)]
        if name == "page":
            groups = sum(r.get("groups", 0) for r in mine)
            cells.append(f"{100 * sum(r.get('equal_progress_groups', 0) for r in mine) / groups:.0f} %" if groups else "-")
        else:
            cached, own = mean_of(mine, "cached_logp"), mean_of(mine, "on_policy_logp")
            cells += [f"{cached:.2f}" if cached is not None else "-", f"{own:.2f}" if own is not None else "-",
                      f"{cached - own:+.2f}" if cached is not None and own is not None else "-"]
            cells += [f"{100 * v:.1f} %" if v is not None else "-"
                      for v in (mean_of(mine, "cached_low_prob_share"), mean_of(mine, "on_policy_low_prob_share"))]
            seeded = mean_of(mine, "seeded_logp")
            cells.append(f"{seeded:.2f}" if seeded is not None else "-")
            cells.append(f"{statistics.fmean(r.get('injections', 0) for r in mine):.1f}")
        for key in ("trained_tokens", "judge_calls"):
            value = mean_of(mine, key)
            cells.append(f"{value:.0f}" if value is not None else "-")
        lr = f", lr {learning_rates[arm]:g}" if learning_rates and arm in learning_rates else ""
        lines.append(f"| {arm} ({len(mine)} seeds{lr}) | " + " | ".join(cells) + " |")
    return lines


def mean_of(runs: Sequence[dict[str, Any]], key: str) -> float | None:
    """The mean of `key` over the runs that recorded it (None when none did)."""
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.fmean(values) if values else None


def selection_table(selection: dict[str, dict[str, Any]]) -> list[str]:
    """Each arm's selection score (mean success over both splits, %) per learning rate, the
    selected one in bold."""
    rates = sorted({lr for entry in selection.values() for lr in entry["scores"]}, key=float)
    lines = ["| arm | " + " | ".join(f"lr {lr}" for lr in rates) + " | selected |",
             "|---|" + "---|" * (len(rates) + 1)]
    for arm, entry in selection.items():
        cells = []
        for lr in rates:
            score = entry["scores"].get(lr)
            cell = "-" if score is None else f"{100 * score:.1f}"
            cells.append(f"**{cell}**" if float(lr) == entry["selected_lr"] else cell)
        lines.append(f"| {arm} | " + " | ".join(cells) + f" | {entry['selected_lr']:g} |")
    return lines


def stats_lines(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| arm | baseline | split | gap (pts) | sd (pts) | Welch t (df) | p two-sided | p Holm | bootstrap 95 % CI | "
             "power | seeds for 80 % |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lo, hi = r["ci95"]
        lines.append(f"| {r['arm']} | {r['baseline']} | {r['split']} | {100 * r['diff']:+.1f} | {100 * r['sd']:.1f} | {r['t']:.2f} "
                     f"({r['df']:.1f}) | {r['p']:.4f} | {r['p_holm']:.4f} | [{100 * lo:+.1f}, {100 * hi:+.1f}] | "
                     f"{r['power']:.2f} | {r['seeds_needed'] or '-'} |")
    return lines


def plot(runs: list[dict[str, Any]], arms: tuple[str, ...], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for arm in arms:
        curves = [r["curve"] for r in runs if r["arm"] == arm and r["curve"]]
        if not curves:  # no run of the arm trained an iteration (BEPA's seeding took the whole budget)
            continue
        length = min(len(c) for c in curves)
        xs = [curves[0][k][0] for k in range(length)]
        ys = [statistics.fmean(c[k][1] for c in curves) for k in range(length)]
        smooth = [statistics.fmean(ys[max(0, k - 5):k + 1]) for k in range(length)]
        ax.plot(xs, smooth, linewidth=1.8, label=f"{arm} ({len(curves)} seeds)")
    ax.set_xlabel("env episodes spent")
    ax.set_ylabel("on-policy success (mean over seeds, 6-iteration mean)")
    ax.set_ylim(-0.03, 1.03)
    ax.set_title(title)
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
