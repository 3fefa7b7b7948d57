"""Branching rollouts: a group of G continuations of one episode from a shared state, instead
of G whole episodes, where a group got stuck.

GRPO learns nothing from a group whose rollouts all fail alike; resampling the whole episode
G times to learn the one hard step wastes every step before it. With
``GRPOConfig.branching="unreached_milestone"``, after such a group (no rollout succeeded) the
loop picks the state just after the deepest milestone any of its rollouts reached, at the
first step it was reached (so the next milestone is the first one the whole group failed to
reach), and rolls out G continuations from that env snapshot (`gui_gym.snapshots`). The
continuations form a group of their own, credited as the method credits any group (GRPO's
outcome advantage over their scores, PAGE's progress and subtask credit over their steps);
their rollouts hold only the steps after the snapshot, so the prefix's tokens, trained with
the parent episode, are not trained twice. A restore replays the prefix on replay backends,
and the loop counts those steps against ``step_budget``.
"""

from __future__ import annotations

from typing import Any, Sequence

from gui_gym.trainers.rollout import BranchPoint, Rollout

BRANCHING = ("off", "unreached_milestone")


def branch_point(group: Sequence[Rollout]) -> BranchPoint | None:
    """Where to branch a group from: None when a rollout succeeded or none reached a
    milestone; else the earliest point (fewest steps) reaching the most milestones any
    rollout reached, the first rollout's on a tie."""
    if any(r.success for r in group):
        return None
    best: BranchPoint | None = None
    for rollout in group:
        for point in rollout.branch_points:
            if best is None or (point.milestones, -point.step) > (best.milestones, -best.step):
                best = point
    return best


def continuation_steps(rollouts: Sequence[Rollout]) -> int:
    """Env steps a set of rollouts cost: each one's own steps, plus, for a continuation, the
    prefix its restore replayed."""
    return sum(len(r) + (r.branch.step if r.branch is not None else 0) for r in rollouts)


def tree_record(iteration: int, group: Sequence[Rollout], point: BranchPoint,
                branched: Sequence[Rollout]) -> dict[str, Any]:
    """A branched group as a tree, plain data: the whole episodes (the parent among them, with
    the step it branched at) and the continuations hanging from that step."""
    def episode(rollout: Rollout) -> dict[str, Any]:
        return {"steps": len(rollout), "score": rollout.score, "success": rollout.success,
                "actions": [_action_text(step.parsed_action) for step in rollout.steps],
                "milestones_at": [[p.step, p.milestones] for p in rollout.branch_points]}
    parent = next((i for i, r in enumerate(group) if any(p is point for p in r.branch_points)), point.parent)
    return {"iteration": iteration, "task_id": point.snapshot["task_id"], "seed": point.snapshot["seed"],
            "parent": parent, "from_step": point.step, "milestones": point.milestones,
            "episodes": [episode(r) for r in group], "continuations": [episode(r) for r in branched]}


def _action_text(parsed: Any) -> str:
    """One action as short text: its kind and the fields that are set."""
    if not parsed:
        return "(unparsed)"
    actions = parsed if isinstance(parsed, list) else [parsed]
    return "; ".join(" ".join([a.get("kind", "?")] + [f"{k}={v}" for k, v in a.items() if k != "kind"])
                     for a in actions)
