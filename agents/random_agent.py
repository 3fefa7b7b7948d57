"""`RandomAgent`: uniformly random valid actions over the screen, the floor every benchmark
score is read against.

Bound to an env and left with the default kinds, it draws from the env's own
``action_space.sample()``, so a benchmark that defines its chance level (MMBench-GUI's answer
letters, its grounding clicks) gets exactly that; otherwise it draws the given kinds itself.

It never says done, fail or answer, so each episode runs to the step limit. Draws are
seeded per episode from (seed, task id, reset seed), so a run is reproducible and two tasks
do not see the same sequence.
"""

from __future__ import annotations

import zlib
from typing import Any, Sequence

import numpy as np

from gui_gym.agents.base import BaseAgent
from gui_gym.actions import Action
from gui_gym.errors import AgentError
from gui_gym.spaces import DEFAULT_SAMPLE_KINDS, random_action


class RandomAgent(BaseAgent):
    """Random actions of the given kinds.

    Args:
        seed: base seed of the draws.
        kinds: action kinds to draw from (a list, or a comma-separated string as given on the
            command line); default: every input kind of `gui_gym.spaces.DEFAULT_SAMPLE_KINDS`.
    """

    def __init__(self, seed: int = 0, kinds: "Sequence[str] | str" = DEFAULT_SAMPLE_KINDS):
        super().__init__()
        if isinstance(kinds, str):
            kinds = [k.strip() for k in kinds.split(",") if k.strip()]
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise AgentError(f"random agent: seed must be an int, received {seed!r}")
        if not kinds:
            raise AgentError("random agent: kinds must name at least one action kind")
        probe = np.random.default_rng(0)
        for kind in kinds:
            try:
                random_action(kind, (10, 10), probe)
            except (ValueError, TypeError) as exc:
                raise AgentError(f"random agent: cannot draw {kind!r} actions; expected kinds from "
                                 f"{list(DEFAULT_SAMPLE_KINDS)}") from exc
        self.seed = seed
        self.kinds = tuple(kinds)
        self._rng = np.random.default_rng(seed)
        self._space = None

    def bind_env(self, env: Any) -> None:
        if self.kinds == tuple(DEFAULT_SAMPLE_KINDS):
            self._space = env.action_space

    def reset(self, task_info: dict[str, Any]) -> None:
        super().reset(task_info)
        task_hash = zlib.crc32(str(task_info.get("task_id", "")).encode())
        reset_seed = task_info.get("reset_seed")
        self._rng = np.random.default_rng([self.seed, task_hash, 0 if reset_seed is None else int(reset_seed)])
        if self._space is not None:
            self._space.seed(int(self._rng.integers(2**31 - 1)))

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> Action:
        if self._space is not None:
            return self._space.sample()
        height, width = obs["screenshot"].shape[:2]
        kind = self.kinds[int(self._rng.integers(len(self.kinds)))]
        return random_action(kind, (width, height), self._rng)
