"""Episode snapshots: the format of an episode saved mid-way as plain data, its checks, and
restoring one through an env's wrappers. Taking and restoring the episode is `GUIEnv`'s own
work (`GUIEnv.snapshot`, `GUIEnv.restore`: it owns the episode's state); this module is what
both sides of a snapshot agree on, and imports no env.

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
from typing import Any, Callable, Protocol, runtime_checkable

import gymnasium as gym
import numpy as np

from gui_gym.actions import Action
from gui_gym.errors import ActionParseError, SnapshotError, SnapshotUnsupportedError

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


def refusal(suite: Any, backend: Any) -> str | None:
    """Why an env of `suite` on `backend` cannot snapshot its episodes, or None."""
    if suite.snapshot_refusal:
        return suite.snapshot_refusal
    if backend.snapshot_kind not in ("replay", "native"):
        return backend.snapshot_refusal
    return None


def encode(fields: dict[str, Any], origin: str | None) -> dict[str, Any]:
    """The snapshot of an episode's `fields` (every name of `FIELDS` but "format"): plain data,
    the env's own server URL `origin` written as `ORIGIN`."""
    snapshot = {"format": FORMAT, **fields}
    return plain(_swap(snapshot, origin, ORIGIN) if origin else snapshot)


def decode(snapshot: dict[str, Any], origin: str | None) -> tuple[dict[str, Any], list[Action]]:
    """A checked snapshot read against this env's server URL `origin`, and its actions."""
    if origin:
        snapshot = _swap(snapshot, ORIGIN, origin)
    try:
        return snapshot, [Action.from_dict(a) for a in snapshot["actions"]]
    except ActionParseError as exc:
        raise SnapshotError(f"the snapshot holds an action that does not parse: {exc}") from None


def check(snapshot: Any, *, env_id: str | None, suite: str, task_ids: list[str], kind: str) -> None:
    """Raise `SnapshotError` unless `snapshot` is well formed and of an env like this one
    (`env_id`, `suite`'s name, its `task_ids`, its backend's snapshot `kind`)."""
    if not isinstance(snapshot, dict):
        raise SnapshotError(f"expected a snapshot dict from GUIEnv.snapshot(), received {type(snapshot).__name__}")
    missing = [name for name in FIELDS if name not in snapshot]
    if missing:
        raise SnapshotError(f"the snapshot lacks {missing}; expected one made by GUIEnv.snapshot()")
    if snapshot["format"] != FORMAT:
        raise SnapshotError(f"snapshot format {snapshot['format']!r} is not this version's ({FORMAT})")
    if snapshot["suite"] != suite or (env_id and snapshot["env_id"] and snapshot["env_id"] != env_id):
        raise SnapshotError(f"the snapshot is of env {snapshot['env_id'] or snapshot['suite']!r}, this env is "
                            f"{env_id or suite!r}: restore it into an env of the same id")
    if snapshot["task_id"] not in task_ids:
        raise SnapshotError(f"the snapshot is of task {snapshot['task_id']!r}, which is not among this env's tasks")
    if snapshot["kind"] != kind:
        raise SnapshotError(f"the snapshot was taken by {snapshot['kind']!r}, this backend restores by {kind!r}")
    sizes, count = snapshot["step_actions"], len(snapshot["actions"])
    if (not isinstance(snapshot["seed"], int) or not isinstance(snapshot["steps"], int)
            or not isinstance(sizes, list) or not all(isinstance(n, int) and n >= 0 for n in sizes)
            or sum(sizes) != count or len(sizes) > snapshot["steps"]):
        raise SnapshotError("the snapshot's seed, steps or step_actions are malformed (expected integers, step sizes "
                            f"summing to its {count} actions)")


def check_restored(snapshot: dict[str, Any], *, world: Any, backend_state: Any, milestones: list[bool]) -> None:
    """Raise `SnapshotError` naming what of the restored state (the suite's `world`, the
    backend's readable `backend_state`, the `milestones` reached) differs from the snapshot's."""
    differs = []
    if plain(world) != snapshot["world"]:
        differs.append("the server-side world")
    if snapshot["kind"] == "replay" and plain(backend_state) != snapshot["backend"]:
        differs.append("the backend's state")
    if milestones != snapshot["milestones"]:
        differs.append("the milestones reached")
    if differs:
        raise SnapshotError(f"the restore of task {snapshot['task_id']!r} at step {snapshot['steps']} is not exact: "
                            f"{', '.join(differs)} differ(s) from the snapshot's; reset() before stepping")


# ---- restoring through wrappers -----------------------------------------------------------

@runtime_checkable
class TakesUpRestores(Protocol):
    """A wrapper that keeps an episode's record and can begin one at a restored state (gui-gym's
    `ProgressReward` and `SubtaskAnnotation`): given the restored ``(obs, info)`` from the env
    under it, it returns them as its own reset would have."""

    def after_restore(self, obs: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]: ...


GYMNASIUM_ADAPTERS: dict[type, tuple[str, Callable[[Any, dict[str, Any]], Any]]] = {
    gym.wrappers.OrderEnforcing: ("_has_reset", lambda obs, info: True),  # a restore is as good as a reset
    gym.wrappers.TimeLimit: ("_elapsed_steps", lambda obs, info: info["step"]),  # counts on from the snapshot's step
    gym.wrappers.PassiveEnvChecker: ("_previous_data", lambda obs, info: (obs, info)),  # its first step compares with it
}
"""One adapter per wrapper `gym.make` puts around a GUI env: the field that wrapper's `reset`
sets, and its value after a restore of ``(obs, info)``. Gymnasium offers no public way to tell
a wrapper that the env under it began an episode other than through the wrapper's own `reset`,
so a restore sets what that reset sets, as it sets it. Each adapter is pinned by a test of the
installed Gymnasium (tests/gui_gym/test_env_snapshots.py), and a release that no longer keeps
the field is refused before anything is restored, rather than given a field it does not read."""


def _adapter_field(wrapper: gym.Wrapper) -> str | None:
    """The Gymnasium field `wrapper` needs set after a restore; None where it needs none (a
    Gymnasium whose env checker does not compare a reset's data with the first step's)."""
    field = GYMNASIUM_ADAPTERS[type(wrapper)][0]
    if isinstance(wrapper, gym.wrappers.PassiveEnvChecker) and "checked_data_reuse" not in vars(wrapper):
        return None
    if field not in vars(wrapper):
        raise SnapshotUnsupportedError(
            f"gymnasium {gym.__version__}'s {type(wrapper).__name__} no longer keeps {field!r}, which its reset sets "
            "and a restore must set too: update gui_gym.snapshots.GYMNASIUM_ADAPTERS for this release")
    return field


def restore_episode(env: gym.Env, snapshot: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Restore `snapshot` through `env`'s wrappers: the env under them restores it
    (`GUIEnv.restore`, or a `RemoteEnv`'s), then each wrapper from the inside out takes up the
    restored episode as its reset would have begun one: gymnasium's wrappers by their adapter
    in `GYMNASIUM_ADAPTERS` (the order check counts it as reset, the step limit counts on from
    the snapshot's step, the env checker compares the first step with the restored
    observation), gui-gym's by their `after_restore` (`TakesUpRestores`: the trajectory a judge
    sees starts there). Any other wrapper is refused before anything is restored, as the state
    it keeps would be another episode's."""
    chain = []
    inner = env
    while isinstance(inner, gym.Wrapper):
        chain.append(inner)
        inner = inner.env
    fields = {}
    for wrapper in chain:
        if type(wrapper) in GYMNASIUM_ADAPTERS:
            fields[id(wrapper)] = _adapter_field(wrapper)
        elif not isinstance(wrapper, TakesUpRestores):
            raise SnapshotUnsupportedError(f"wrapper {type(wrapper).__name__} keeps the episode's state and cannot "
                                           "take up a restored one: restore the env under it, or give it an "
                                           "after_restore(obs, info)")
    obs, info = inner.restore(snapshot)
    for wrapper in reversed(chain):
        if id(wrapper) not in fields:
            obs, info = wrapper.after_restore(obs, info)
        elif fields[id(wrapper)] is not None:
            setattr(wrapper, fields[id(wrapper)], GYMNASIUM_ADAPTERS[type(wrapper)][1](obs, info))
    return obs, info


def _swap(value: Any, old: str, new: str) -> Any:
    """`value` with `old` replaced by `new` in every string and key."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, dict):
        return {_swap(k, old, new): _swap(v, old, new) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_swap(v, old, new) for v in value]
    return value
