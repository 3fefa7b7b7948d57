"""`EnvHost`: what runs inside the Ray actor of a `RemoteEnv`: the real env, made by id.

A plain class: `RemoteEnv` turns it into an actor with ``ray.remote(EnvHost).options(...)``,
so importing this module needs no Ray. Its methods return what the env returns; observations
hold numpy screenshots, which Ray's serializer moves through the object store (out of band,
without a copy into the pickle), so nothing here encodes images.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import gymnasium as gym

CALLABLE = "<callable>"
"""What `get_attr` answers for a method: the client calls it through `call` instead."""


class EnvHost:
    """One env, made with ``gym.make(env_id, **env_kwargs)`` in this process, then given to
    `wrap` when there is one (wrappers that need the real env under them, such as PAGE's
    `ProgressReward` with the `OracleJudge`, which reads ``env.unwrapped.task``)."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any], wrap: Callable[[gym.Env], gym.Env] | None = None):
        import gui_gym  # noqa: F401 - registers the GUI/* ids in this worker

        self.env = gym.make(env_id, **env_kwargs)
        if wrap is not None:
            self.env = wrap(self.env)

    def describe(self) -> dict[str, Any]:
        """The env's spaces, metadata, spec and render mode, and where it runs."""
        import ray

        return {"observation_space": self.env.observation_space, "action_space": self.env.action_space,
                "metadata": dict(self.env.metadata), "spec": self.env.spec, "render_mode": self.env.render_mode,
                "pid": os.getpid(), "node_id": ray.get_runtime_context().get_node_id()}

    def reset(self, seed: int | None, options: dict[str, Any] | None) -> tuple[Any, dict[str, Any]]:
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self.env.step(action)

    def restore(self, snapshot: Any) -> tuple[Any, dict[str, Any]]:
        """`gui_gym.snapshots.restore_episode` here, through the wrappers of this side."""
        from gui_gym.snapshots import restore_episode

        return restore_episode(self.env, snapshot)

    def render(self) -> Any:
        return self.env.render()

    def get_attr(self, name: str) -> Any:
        """The attribute `name` of the env or any wrapper of it (``get_wrapper_attr``), or
        `CALLABLE` for a method."""
        value = self.env.get_wrapper_attr(name)
        return CALLABLE if callable(value) else value

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``env.<name>(*args, **kwargs)`` for any method of the env or its wrappers (``snapshot``,
        ``oracle_action``, ``expert_plan``, ...): the generic call-through."""
        return self.env.get_wrapper_attr(name)(*args, **kwargs)

    def close(self) -> None:
        self.env.close()
