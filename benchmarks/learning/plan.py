"""Pre-registration: a run's plan, written and committed before the run, then read by it.

A plan is a markdown file (the hypotheses, why the sample is the size it is, what counts as a
null) holding one fenced ``toml`` block that the benchmark reads:

    table = "page"                      # the benchmark's table
    arms = ["grpo", "page", ...]
    first_seed = 2000                   # the evaluation seeds: `seeds` of them from here
    seeds = 40
    used_seeds = [[0, 11], [100, 103]]  # seed ranges run before (inclusive): none may be reused
    [learning_rates]                    # every arm's rate, fixed in advance (no selection runs)
    grpo = 0.01
    [primary]                           # the one primary endpoint
    arm = "page"
    baseline = "grpo"
    split = "train"
    alpha = 0.05                        # two-sided Welch t-test
    gap = 0.07                          # the gap the sample was sized for, and its per-seed sd
    sd = 0.10
    [secondary]
    alpha = 0.05                        # every other comparison, two-sided, Holm over them

`--plan FILE` runs the table's setting with the plan's arms, seeds and rates; the report
decides the primary endpoint by the plan's rule and records in ``results.json`` the plan's
text digest, the commit that last changed it and whether the working copy differs from it
(`provenance`), with the machine the runs ran on (`machine`): a reader checks in git that the
plan's commit precedes the results'.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from gui_gym.benchmarks.learning import stats

BLOCK = re.compile(r"^```toml\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Endpoint:
    """The primary comparison: `arm` against `baseline` on `split`, two-sided at `alpha`; the
    sample was sized to detect `gap` with per-seed sd `sd`."""

    arm: str
    baseline: str
    split: str
    alpha: float
    gap: float
    sd: float


@dataclass(frozen=True)
class Plan:
    path: Path
    digest: str
    """sha256 of the plan file's text."""
    table: str
    arms: tuple[str, ...]
    first_seed: int
    seeds: int
    learning_rates: tuple[tuple[str, float], ...]
    primary: Endpoint
    secondary_alpha: float
    used_seeds: tuple[tuple[int, int], ...]

    @property
    def evaluation_seeds(self) -> range:
        return range(self.first_seed, self.first_seed + self.seeds)

    def setting_changes(self) -> dict[str, Any]:
        """What the plan fixes of the table's setting."""
        return {"arms": self.arms, "first_seed": self.first_seed, "seeds": self.seeds,
                "learning_rates": self.learning_rates}


def load_plan(path: str | os.PathLike[str], tables: Sequence[str], splits: dict[str, Sequence[str]],
              arms: Sequence[str]) -> Plan:
    """The plan in the markdown file at `path`, checked: a known table, arms, splits; a rate
    for every arm; the primary's arms among the plan's; at least 2 seeds, none of them in
    `used_seeds`. `ValueError` says what is wrong."""
    path = Path(path)
    text = path.read_text()
    blocks = BLOCK.findall(text)
    if len(blocks) != 1:
        raise ValueError(f"{path}: expected one ```toml block holding the plan, found {len(blocks)}")
    try:
        raw = tomllib.loads(blocks[0])
        primary = raw["primary"]
        plan = Plan(path, hashlib.sha256(text.encode()).hexdigest(), raw["table"], tuple(raw["arms"]),
                    int(raw["first_seed"]), int(raw["seeds"]),
                    tuple((arm, float(lr)) for arm, lr in raw["learning_rates"].items()),
                    Endpoint(primary["arm"], primary["baseline"], primary["split"], float(primary["alpha"]),
                             float(primary["gap"]), float(primary["sd"])),
                    float(raw["secondary"]["alpha"]), tuple((int(a), int(b)) for a, b in raw.get("used_seeds", [])))
    except (KeyError, TypeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: the plan block is incomplete or malformed ({type(exc).__name__}: {exc})") from exc
    if plan.table not in tables:
        raise ValueError(f"{path}: unknown table {plan.table!r}; expected one of {list(tables)}")
    unknown = sorted(set(plan.arms) - set(arms))
    if unknown:
        raise ValueError(f"{path}: unknown arms {unknown}")
    if set(dict(plan.learning_rates)) != set(plan.arms):
        raise ValueError(f"{path}: learning_rates must give exactly the plan's arms a rate")
    p = plan.primary
    if p.arm not in plan.arms or p.baseline not in plan.arms or p.split not in splits[plan.table]:
        raise ValueError(f"{path}: the primary endpoint {p.arm} vs {p.baseline} on {p.split!r} is not among the "
                         f"plan's arms and the table's splits {list(splits[plan.table])}")
    if plan.seeds < 2:
        raise ValueError(f"{path}: a two-sample test needs at least 2 seeds per arm, the plan has {plan.seeds}")
    reused = [s for s in plan.evaluation_seeds if any(lo <= s <= hi for lo, hi in plan.used_seeds)]
    if reused:
        raise ValueError(f"{path}: the evaluation seeds {reused[0]}..{reused[-1]} were used before (used_seeds)")
    return plan


def decide(rows: Sequence[dict[str, Any]], plan: Plan) -> dict[str, Any]:
    """The primary endpoint's comparison (its two-sided p taken as it is) and the plan's
    decision; the other rows get Holm's adjustment among themselves (``p_holm``, in place).
    The decision names the direction only when p < alpha; otherwise the run is a null, and
    the record says the power it had for the planned gap at the seeds run."""
    p = plan.primary
    primary = next((r for r in rows if (r["arm"], r["baseline"], r["split"]) == (p.arm, p.baseline, p.split)), None)
    if primary is None:
        raise ValueError(f"the runs have no comparison of {p.arm} against {p.baseline} on {p.split!r}")
    secondary = [r for r in rows if r is not primary]
    for row, adjusted in zip(secondary, stats.holm([r["p"] for r in secondary])):
        row["p_holm"] = adjusted
    primary["p_holm"] = primary["p"]
    n = primary["n"]
    if primary["p"] < p.alpha:
        verdict = f"{p.arm} {'above' if primary['diff'] > 0 else 'below'} {p.baseline} on {p.split}"
    else:
        verdict = f"no difference detected between {p.arm} and {p.baseline} on {p.split} (a null)"
    return {"endpoint": f"{p.arm} vs {p.baseline} on {p.split}", "alpha": p.alpha, "diff": primary["diff"],
            "p": primary["p"], "n": n, "decision": verdict, "planned_gap": p.gap, "planned_sd": p.sd,
            "power_at_planned_gap": stats.power(p.gap, p.sd, n, p.alpha),
            "power_at_observed_sd": stats.power(p.gap, primary["sd"], n, p.alpha),
            "secondary_alpha": plan.secondary_alpha}


def provenance(path: Path) -> dict[str, Any]:
    """Where a file stands in git: its path in the repository (never this machine's), the commit
    that last changed it, whether the working copy differs from that commit, and the checkout's
    HEAD (None where git or the repository is missing; then the path is the file's name)."""
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=path.parent, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    last = git("log", "-1", "--format=%H", "--", path.name)
    status = git("status", "--porcelain", "--", path.name)
    prefix = git("rev-parse", "--show-prefix")
    return {"path": (prefix or "") + path.name, "commit": last or None, "modified_since": bool(status) if status is not None else None,
            "head": git("rev-parse", "HEAD")}


def machine() -> dict[str, Any]:
    """What the runs ran on: the CPU model and core count, the load, Python, torch (version,
    build commit, CPU capability, BLAS) and numpy."""
    import numpy
    import torch

    model = platform.processor() or ""
    try:
        model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith("model name")), model)
    except OSError:
        pass
    config = torch.__config__.show()
    return {"cpu": model, "cores": os.cpu_count(), "load_average": list(os.getloadavg()),
            "platform": platform.platform(), "python": platform.python_version(), "torch": torch.__version__,
            "torch_git": torch.version.git_version, "torch_cuda": torch.version.cuda,
            "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "torch_blas": next((part.split("=", 1)[1] for part in re.split(r"[\s,]+", config)
                                if part.startswith("BLAS_INFO=")), None),
            "torch_threads": torch.get_num_threads(), "numpy": numpy.__version__}
