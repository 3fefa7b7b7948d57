"""The names a training run records per iteration, the iteration's record as the loop builds
it, and the records read back: the one contract between the trainers, which write the
metrics, and the learning benchmarks and ``gui-train``, which read them.

Names are namespaced as CleanRL's are: ``charts/`` (what the rollouts did: episodes, success,
progress, groups without signal), ``tasks/<task_id>/`` (the same per task of a multi-task run),
``losses/`` (the update's loss terms and diagnostics), ``branch/`` (branched groups) and
``bepa/`` (BEPA's seeding, injections and log-prob gap). The values written under them are
the metrics.jsonl lines; a writer and a reader import the name, never retype it.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

if TYPE_CHECKING:
    from gui_gym.trainers.rollout import BranchPoint, Rollout

# ---- charts/: the iteration's rollouts; episodes and env steps are the run's totals so far ----
EPISODES = "charts/episodes"
ENV_STEPS = "charts/env_steps"
SUCCESS_RATE = "charts/success_rate"
PROGRESS = "charts/progress"
SCORE = "charts/score"
EPISODE_LENGTH = "charts/episode_length"
CRASHED_GROUPS = "charts/crashed_groups"
"""Groups whose every episode crashed (skipped)."""
INFRA_ERRORS = "charts/infra_errors"
"""Episodes the infrastructure cut short (left out of their group)."""
NO_SIGNAL_GROUPS = "charts/no_signal_groups"
"""Groups whose scores are all equal: GRPO's advantage is 0 on every rollout."""
EQUAL_PROGRESS_GROUPS = "charts/equal_progress_groups"
"""Groups whose progress is all equal: PAGE's A_inter is 0 on every rollout."""
ROLLOUT_TIME_S = "charts/rollout_time_s"
UPDATE_TIME_S = "charts/update_time_s"

# ---- losses/: the update (means over its gradient steps) ----------------------------------
POLICY_LOSS = "losses/policy_loss"
APPROX_KL = "losses/approx_kl"
CLIPFRAC = "losses/clipfrac"
ENTROPY = "losses/entropy"
KL_REF = "losses/kl_ref"
GRAD_NORM = "losses/grad_norm"

# ---- branch/: continuations of stuck groups -------------------------------------------------
BRANCH_GROUPS = "branch/groups"
BRANCH_FROM_STEP = "branch/from_step"
BRANCH_MILESTONES = "branch/milestones"
BRANCH_SUCCESS_RATE = "branch/success_rate"

# ---- bepa/: BEPA's seeding (the record of iteration 0), mixing and update diagnostics --------
LEVEL1_EPISODES = "bepa/level1_episodes"
LEVEL1_SUCCESSES = "bepa/level1_successes"
LEVEL1_CRASHED_GROUPS = "bepa/level1_crashed_groups"
CACHE_TASKS = "bepa/cache_tasks"
CACHE_INSTANCES = "bepa/cache_instances"
ALL_FAIL_GROUPS = "bepa/all_fail_groups"
INJECTIONS = "bepa/injections"
OFF_POLICY_TOKENS = "bepa/off_policy_tokens"
CACHED_LOGP = "bepa/cached_logp"
CACHED_LOW_PROB_SHARE = "bepa/cached_low_prob_share"
ON_POLICY_LOGP = "bepa/on_policy_logp"
ON_POLICY_LOW_PROB_SHARE = "bepa/on_policy_low_prob_share"
SEEDED_LOGP = "bepa/seeded_logp"
SEEDED_LOW_PROB_SHARE = "bepa/seeded_low_prob_share"


def task_metric(task_id: str, chart: str) -> str:
    """A ``charts/`` name for one task: ``task_metric("shop.x", SUCCESS_RATE)`` is
    ``tasks/shop.x/success_rate``."""
    return f"tasks/{task_id}/{chart.split('/', 1)[1]}"


@dataclass
class IterationStats:
    """What one iteration of the loop measured, kept apart from the algorithm: values averaged
    over the iteration (`means`: per episode, per branched group), counts summed over its
    groups (`counts`), the update's `losses`, and its times. `record` turns it into the logged
    record, with the run's totals of episodes and env steps."""

    means: dict[str, list[float]] = field(default_factory=dict)
    counts: dict[str, float] = field(default_factory=dict)
    losses: dict[str, float] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    rollout_time_s: float = 0.0

    def mean(self, name: str, value: float) -> None:
        """One more value of `name`, logged as the mean over the iteration."""
        self.means.setdefault(name, []).append(value)

    def count(self, name: str, value: float = 1) -> None:
        """Add `value` to the iteration's count of `name`."""
        self.counts[name] = self.counts.get(name, 0) + value

    def count_all(self, counts: Mapping[str, float]) -> None:
        """Add a method's counters (`gui_gym.trainers.grpo.MixFn`'s)."""
        for name, value in counts.items():
            self.count(name, value)

    def episodes(self, task_id: str, rollouts: Sequence[Rollout]) -> None:
        """The usable episodes of one group: success and progress overall and per task, score
        and length."""
        for r in rollouts:
            for success, progress in ((SUCCESS_RATE, PROGRESS), (task_metric(task_id, SUCCESS_RATE),
                                                                 task_metric(task_id, PROGRESS))):
                self.mean(success, float(r.success))
                if r.progress is not None:
                    self.mean(progress, r.progress)
            self.mean(SCORE, r.score)
            self.mean(EPISODE_LENGTH, float(len(r)))

    def branched(self, point: BranchPoint, continuations: Sequence[Rollout]) -> None:
        """A stuck group's continuations from `point` (its usable ones): where they started, and
        their success."""
        self.count(BRANCH_GROUPS)
        self.mean(BRANCH_FROM_STEP, float(point.step))
        self.mean(BRANCH_MILESTONES, float(point.milestones))
        for r in continuations:
            self.mean(BRANCH_SUCCESS_RATE, float(r.success))

    def rollouts_done(self) -> None:
        """The iteration's rollouts are over; the update starts."""
        self.rollout_time_s = time.monotonic() - self.started

    def record(self, episodes: int, env_steps: int) -> dict[str, Any]:
        """The logged record: the run's totals, the means, the counts, the losses, the times."""
        return {EPISODES: episodes, ENV_STEPS: env_steps,
                **{name: sum(values) / len(values) for name, values in self.means.items()}, **self.counts,
                **self.losses, ROLLOUT_TIME_S: self.rollout_time_s,
                UPDATE_TIME_S: time.monotonic() - self.started - self.rollout_time_s}


class RunRecords:
    """A run's records (`gui_gym.trainers.grpo.run`'s return, one per logged iteration, BEPA's
    seeding record 0 included) read back by name."""

    def __init__(self, records: Iterable[Mapping[str, Any]]):
        self.records = list(records)

    def trained(self) -> list[Mapping[str, Any]]:
        """The records of iterations that rolled out at least one usable group."""
        return [r for r in self.records if SUCCESS_RATE in r]

    def curve(self, x: str = EPISODES, y: str = SUCCESS_RATE) -> list[tuple[Any, Any]]:
        """(x, y) of every iteration that rolled out a usable group: the on-policy learning curve."""
        return [(r[x], r[y]) for r in self.trained()]

    def total(self, name: str) -> float:
        """The sum of `name` over the records (0 where a record has none)."""
        return sum(r.get(name, 0) for r in self.records)

    def mean(self, name: str) -> float | None:
        """The mean of `name` over the records that have it; None when none does."""
        values = [r[name] for r in self.records if name in r]
        return statistics.fmean(values) if values else None

    def last(self, name: str) -> Any:
        """`name` in the last record (0 when there is no record)."""
        return self.records[-1][name] if self.records else 0
