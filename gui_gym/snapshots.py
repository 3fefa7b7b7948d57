"""Episode snapshots: save an episode mid-way as plain data, and continue it later, in the
same env or another one of the same id (another process, another Ray worker).

`GUIEnv.snapshot()` returns a JSON-able dict: the task (id, instance seed, instruction), the
step count, the actions so far (grouped by step), the suite's server-side world, what the
backend reads of its screen, the milestones reached and a digest of the last screenshot.
`GUIEnv.restore(snapshot)` makes the same task instance and brings the screen to that state
in one of two ways, by what the backend declares (`Backend.snapshot_kind`):

- "replay": the episode's actions are executed again from the task's start, step by step as
  `step` did (a step's later actions are skipped after a terminal one or one that failed,
  and the screen is observed after each step).
  LocalWeb, Demo and the static suites are deterministic given (task, seed, actions), and a
  page's script state cannot be read any other way. Oracle calls are replayed at the same
  points, so `oracle_action` continues where it was.
- "native": the backend loads the state it saved (the emulator's ``avd snapshot load``).

Then the suite loads the snapshot's server-side world (what the replay could not reproduce of
it, a request log that depends on typing speed, is the original's), and the restore checks
what it can: the world, the backend's readable state (URL, cookies, storage, form fields,
focus, scroll) and the milestones must equal the snapshot's, or `SnapshotError` says which
did not. A restore that returns is exact: every later reward is the original episode's, and
observations are those the env gives for these actions (``info["screenshot_exact"]`` says
whether the first is bit-identical; a real browser may paint a few pixels of anti-aliasing
differently when the same actions run twice, restore or not).

The URL of the env's own server is stored as `ORIGIN`, and a server's token cookie is never
read, so a snapshot carries no secret and a second env restores it against its own server.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np

from gui_gym.actions import Action
from gui_gym.errors import ActionParseError, SnapshotError, SnapshotUnsupportedError

if TYPE_CHECKING:
    from gui_gym.env import GUIEnv

logger = logging.getLogger(__name__)

FORMAT = 1
"""Version of the snapshot layout; a restore refuses any other."""
ORIGIN = "{gui-gym-origin}"
"""Stands for the env's own server URL inside a snapshot."""
FIELDS = ("format", "env_id", "suite", "task_id", "seed", "instruction", "steps", "done", "kind", "step_actions",
          "actions", "oracle_calls", "backend", "world", "milestones", "screenshot_digest")


def plain(value: Any) -> Any:
    """`value` as JSON gives it back (tuples become lists): the form snapshots compare in."""
    return json.loads(json.dumps(value))


def screenshot_digest(screenshot: np.ndarray | None) -> str | None:
    """BLAKE2b (fast, 128 bits) of a screenshot's shape and pixels (None for a text-only
    observation)."""
    if screenshot is None:
        return None
    digest = hashlib.blake2b(repr(screenshot.shape).encode(), digest_size=16)
    digest.update(np.ascontiguousarray(screenshot).tobytes())
    return digest.hexdigest()


def env_id(env: "GUIEnv") -> str | None:
    """The registered id the env was made with (None for an env built by hand)."""
    return env.spec.id if env.spec is not None else None


def refusal(env: "GUIEnv") -> str | None:
    """Why `env` cannot snapshot its episodes, or None."""
    if env.suite.snapshot_refusal:
        return env.suite.snapshot_refusal
    if env.backend.snapshot_kind not in ("replay", "native"):
        return env.backend.snapshot_refusal
    return None


def take(env: "GUIEnv") -> dict[str, Any]:
    """The snapshot of `env`'s current episode (see the module docstring)."""
    reason = refusal(env)
    if reason is not None:
        raise SnapshotUnsupportedError(f"{env_id(env) or env.suite.name}: {reason}")
    if env.task is None or env.episode is None or env._last_obs is None:
        raise gym.error.ResetNeeded("call reset() before snapshot(): there is no episode to save")
    snapshot = {
        "format": FORMAT, "env_id": env_id(env), "suite": env.suite.name, "task_id": env.task.task_id,
        "seed": env.episode.seed, "instruction": env.task.instruction, "steps": env._steps, "done": env._done,
        "kind": env.backend.snapshot_kind, "step_actions": list(env._step_actions),
        "actions": [action.to_dict() for action in env.episode.actions], "oracle_calls": list(env._oracle_calls),
        "backend": env.backend.save_state(), "world": env.suite.snapshot_world(env.task),
        "milestones": milestones_reached(env), "screenshot_digest": screenshot_digest(env._last_obs.screenshot),
    }
    origin = env.suite.snapshot_origin()
    return plain(_swap(snapshot, origin, ORIGIN) if origin else snapshot)


def restore(env: "GUIEnv", snapshot: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Continue `snapshot`'s episode in `env`; returns (observation, info) as reset does."""
    started = time.perf_counter()
    reason = refusal(env)
    if reason is not None:
        raise SnapshotUnsupportedError(f"{env_id(env) or env.suite.name}: {reason}")
    _check(env, snapshot)
    env._ensure_started()
    origin = env.suite.snapshot_origin()
    if origin:
        snapshot = _swap(snapshot, ORIGIN, origin)
    try:
        actions = [Action.from_dict(a) for a in snapshot["actions"]]
    except ActionParseError as exc:
        raise SnapshotError(f"the snapshot holds an action that does not parse: {exc}") from None
    env._begin(snapshot["task_id"], snapshot["seed"])
    env._last_obs = env.backend.observe(env.observe_a11y, env.observe_screenshot)  # as `reset` did
    env._done = True  # until the restore has proven exact
    if snapshot["kind"] == "native":
        env.backend.load_state(snapshot["backend"])
        env.episode.actions.extend(actions)
        env._step_actions = list(snapshot["step_actions"])
        env._oracle_calls = list(snapshot["oracle_calls"])
        env._last_obs = env.backend.observe(env.observe_a11y, env.observe_screenshot)
    else:
        _replay(env, actions, snapshot["step_actions"], snapshot["oracle_calls"])
    if env.task.instruction != snapshot["instruction"]:
        raise SnapshotError(f"task {snapshot['task_id']!r} with seed {snapshot['seed']} reads {env.task.instruction!r} "
                            f"here, the snapshot's read {snapshot['instruction']!r}: the task set differs")
    if snapshot["world"] is not None:
        env.suite.load_world(env.task, snapshot["world"])
    env._steps = snapshot["steps"]
    info = env._task_info()
    info["screenshot_exact"] = _verify(env, snapshot)
    env._done = snapshot["done"]
    info["step"] = env._steps
    info["restore_time_s"] = time.perf_counter() - started
    return env._obs(env._last_obs), info


def restore_episode(env: gym.Env, snapshot: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """`restore` through `env`'s wrappers: the unwrapped env restores, then each wrapper from
    the inside out takes up the restored episode: gymnasium's order check counts it as reset,
    its step limit counts on from the snapshot's step, its env checker compares the first step
    with the restored observation (their private fields, set as their own reset sets them),
    and gui-gym's wrappers that keep an episode's record begin one at the restored state
    (`after_restore(obs, info)`: the trajectory a judge sees starts there). A wrapper that keeps episode state and has no
    `after_restore` is refused, as its state would be another episode's."""
    chain = []
    inner = env
    while isinstance(inner, gym.Wrapper):
        chain.append(inner)
        inner = inner.env
    for wrapper in chain:
        if not hasattr(wrapper, "after_restore") and not isinstance(wrapper, _STATELESS_WRAPPERS):
            raise SnapshotUnsupportedError(f"wrapper {type(wrapper).__name__} keeps the episode's state and cannot "
                                           "take up a restored one: restore the env under it, or give it an "
                                           "after_restore(obs, info)")
    obs, info = inner.restore(snapshot)
    for wrapper in reversed(chain):
        if isinstance(wrapper, gym.wrappers.OrderEnforcing):
            wrapper._has_reset = True  # gymnasium keeps this flag private; a restore is as good as a reset
        elif isinstance(wrapper, gym.wrappers.TimeLimit):
            wrapper._elapsed_steps = info["step"]
        elif isinstance(wrapper, gym.wrappers.PassiveEnvChecker) and hasattr(wrapper, "_previous_data"):
            wrapper._previous_data = (obs, info)  # what its first step compares with, as after a reset
        elif hasattr(wrapper, "after_restore"):
            obs, info = wrapper.after_restore(obs, info)
    return obs, info


def milestones_reached(env: "GUIEnv") -> list[bool]:
    """Which of the task's ordered milestones hold now."""
    assert env.task is not None
    return [bool(milestone.check(env.backend)) for milestone in env.task.milestones()]


_STATELESS_WRAPPERS = (gym.wrappers.OrderEnforcing, gym.wrappers.TimeLimit, gym.wrappers.PassiveEnvChecker)


def _replay(env: "GUIEnv", actions: list[Action], step_actions: list[int], oracle_calls: list[int]) -> None:
    calls = Counter(oracle_calls)
    done = 0
    for size in step_actions:
        step = actions[done:done + size]
        for index in range(done, done + size):  # the oracle's calls before this step
            for _ in range(calls.pop(index, 0)):
                env.oracle_action()
        env.episode.actions.extend(step)
        env._step_actions.append(size)
        _terminated, error, _settle_s = env._run_actions(step)
        if error is not None and error[0] == "infra":
            raise SnapshotError(f"the replay failed on the infrastructure ({error[1]}); the snapshot cannot be restored "
                                "on this env now")
        done += size
        env._last_obs = env.backend.observe(env.observe_a11y, env.observe_screenshot)  # as `step` did: a recording advances when looked at
    for _ in range(calls.pop(done, 0)):
        env.oracle_action()


def _check(env: "GUIEnv", snapshot: Any) -> None:
    if not isinstance(snapshot, dict):
        raise SnapshotError(f"expected a snapshot dict from GUIEnv.snapshot(), received {type(snapshot).__name__}")
    missing = [name for name in FIELDS if name not in snapshot]
    if missing:
        raise SnapshotError(f"the snapshot lacks {missing}; expected one made by GUIEnv.snapshot()")
    if snapshot["format"] != FORMAT:
        raise SnapshotError(f"snapshot format {snapshot['format']!r} is not this version's ({FORMAT})")
    mine = env_id(env)
    if snapshot["suite"] != env.suite.name or (mine and snapshot["env_id"] and snapshot["env_id"] != mine):
        raise SnapshotError(f"the snapshot is of env {snapshot['env_id'] or snapshot['suite']!r}, this env is "
                            f"{mine or env.suite.name!r}: restore it into an env of the same id")
    if snapshot["task_id"] not in env.task_ids:
        raise SnapshotError(f"the snapshot is of task {snapshot['task_id']!r}, which is not among this env's tasks")
    if snapshot["kind"] != env.backend.snapshot_kind:
        raise SnapshotError(f"the snapshot was taken by {snapshot['kind']!r}, this backend restores by "
                            f"{env.backend.snapshot_kind!r}")
    sizes, count = snapshot["step_actions"], len(snapshot["actions"])
    if (not isinstance(snapshot["seed"], int) or not isinstance(snapshot["steps"], int)
            or not isinstance(sizes, list) or not all(isinstance(n, int) and n >= 0 for n in sizes)
            or sum(sizes) != count or len(sizes) > snapshot["steps"]):
        raise SnapshotError("the snapshot's seed, steps or step_actions are malformed (expected integers, step sizes "
                            f"summing to its {count} actions)")


def _verify(env: "GUIEnv", snapshot: dict[str, Any]) -> bool:
    """Raise unless the restored state is the snapshot's; returns whether the screenshot is
    bit-identical too. A screenshot may differ by a few pixels of anti-aliasing where a page
    was painted in a different order (the same actions from reset differ so on a real
    browser too, see `GUIEnv`), so a differing screenshot alone is logged, not refused."""
    differs = []
    if plain(env.suite.snapshot_world(env.task)) != snapshot["world"]:
        differs.append("the server-side world")
    if snapshot["kind"] == "replay" and plain(env.backend.save_state()) != snapshot["backend"]:
        differs.append("the backend's state")
    if milestones_reached(env) != snapshot["milestones"]:
        differs.append("the milestones reached")
    if differs:
        raise SnapshotError(f"the restore of task {snapshot['task_id']!r} at step {snapshot['steps']} is not exact: "
                            f"{', '.join(differs)} differ(s) from the snapshot's; reset() before stepping")
    exact = screenshot_digest(env._last_obs.screenshot) == snapshot["screenshot_digest"]
    if not exact:
        logger.info("restored task %r at step %d: state exact, screenshot differs in its paint", snapshot["task_id"],
                    snapshot["steps"])
    return exact


def _swap(value: Any, old: str, new: str) -> Any:
    """`value` with `old` replaced by `new` in every string and key."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, dict):
        return {_swap(k, old, new): _swap(v, old, new) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_swap(v, old, new) for v in value]
    return value
