"""BEPA: bi-level expert-to-policy assimilation (see reference/algorithms.md).

LEVEL-1 turns expert traces into plans, lets the base policy act on the plan, and keeps only
the successes ("self-rolled reachable" trajectories, stored without the plan). LEVEL-2 keeps
one per-task cache, seeded by LEVEL-1, injected into a GRPO group **only when every rollout of
the group fails**, and refreshed with the policy's own successes.

The cache rules sit at the top as small pure pieces, checked in tests/test_bepa.py.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Generic, Hashable, Sequence, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class CacheEntry(Generic[T]):
    """A successful trajectory kept for a task, and where it came from."""

    trajectory: T
    source: str
    """"level1" (plan-conditioned self-roll) or "on_policy" (the policy's own success)."""


class TaskCache(Generic[T]):
    """LEVEL-2: per-task successful trajectories. `capacity=1` (default) keeps the newest
    only; a larger capacity is a FIFO whose newest entry is injected."""

    def __init__(self, capacity: int = 1):
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, received {capacity}")
        self.capacity = capacity
        self._entries: dict[Hashable, deque[CacheEntry[T]]] = {}

    def put(self, task_key: Hashable, trajectory: T, source: str) -> None:
        if source not in ("level1", "on_policy"):
            raise ValueError(f"source must be 'level1' or 'on_policy', received {source!r}")
        self._entries.setdefault(task_key, deque(maxlen=self.capacity)).append(CacheEntry(trajectory, source))

    def get(self, task_key: Hashable) -> CacheEntry[T] | None:
        entries = self._entries.get(task_key)
        return entries[-1] if entries else None

    def __contains__(self, task_key: Hashable) -> bool:
        return bool(self._entries.get(task_key))

    def __len__(self) -> int:
        return sum(1 for entries in self._entries.values() if entries)


@dataclass
class MixResult(Generic[T]):
    rollouts: list[T]
    scores: list[float]
    injected: bool
    all_failed: bool


def mix_group(task_key: Hashable, rollouts: Sequence[T], scores: Sequence[float], cache: TaskCache[T],
              cached_score: float = 1.0, inject_index: int = 0, success_threshold: float = 1.0) -> MixResult[T]:
    """LEVEL-2 injection: when no rollout of the group succeeded and the cache holds a
    trajectory for the task, it replaces rollout `inject_index`; GRPO advantages are then
    computed on the mixed group. A group with any success is left untouched, and its successes
    refresh the cache (newest last)."""
    if len(rollouts) != len(scores):
        raise ValueError(f"expected one score per rollout, received {len(scores)} for {len(rollouts)}")
    mixed, mixed_scores = list(rollouts), list(scores)
    successes = [r for r, s in zip(rollouts, scores) if s >= success_threshold]
    all_failed = not successes
    injected = False
    if all_failed:
        entry = cache.get(task_key)
        if entry is not None and mixed:
            mixed[inject_index] = entry.trajectory
            mixed_scores[inject_index] = cached_score
            injected = True
    for trajectory in successes:
        cache.put(task_key, trajectory, "on_policy")
    return MixResult(mixed, mixed_scores, injected, all_failed)


def luffy_weight(prob: "float", gamma: float = 0.1) -> float:
    """Option `luffy`: off-policy tokens are reweighted by p / (p + gamma) (policy shaping),
    which keeps low-probability expert tokens from dominating the gradient."""
    return prob / (prob + gamma)
