"""The debug agent of the exported families (``cube test``'s ``make_debug_agent``): the task's
own oracle, played natively, replayed through CUBE (Android's, on a shared phone, plays a plan
read from the task instead: `gui_gym.cube.android.debug`; both are a `StepAgent`).

`OracleReplay.record` plays the task's oracle on the native env (same id, arguments and
seed as the CUBE task) and keeps the canonical actions it took; the agent then gives them to
CUBE as tool calls, one a step. A task scores 1 through CUBE only if the same actions on the
same seed score 1 natively, so ``cube test`` passing is also the check that scores through
CUBE equal gui-bench's. The native run happens when the agent is made, in the thread that
runs the episode (CUBE makes each task's agent there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cube.core import Action as CubeAction
from cube.core import ActionSchema, Observation

from gui_gym.action_formats import function_call
from gui_gym.actions import Action
from gui_gym.cube.task import GUITaskConfig
from gui_gym.registration import make


def play_oracle(env_id: str, env_kwargs: dict[str, Any], task_id: str, seed: int) -> tuple[list[Action], float]:
    """The oracle's actions on task `task_id` with instance seed `seed` of a native env, and
    the reward they got."""
    env = make(env_id, dict(env_kwargs))
    try:
        env.reset(options={"task_id": task_id, "instance_seed": seed})
        actions, reward, ended = [], 0.0, False
        while not ended:
            action = env.unwrapped.oracle_action()
            _obs, reward, terminated, truncated, _info = env.step(action)
            actions.append(action)
            ended = terminated or truncated
        return actions, float(reward)
    finally:
        env.close()


Step = Callable[[Observation], tuple[str, dict[str, Any]]]
"""One call of a debug agent: (function name, arguments), given the screen it acts on."""


def fixed(name: str, arguments: dict[str, Any] | None = None) -> Step:
    """A step that makes the same call whatever the screen shows."""
    return lambda _obs: (name, dict(arguments or {}))


class StepAgent:
    """Its steps, one a call: ``agent(obs, action_set) -> Action`` as CUBE's debug harness
    calls it."""

    def __init__(self, steps: list[Step]) -> None:
        self.steps = list(steps)
        self._next = 0

    def __call__(self, obs: Observation, action_set: list[ActionSchema]) -> CubeAction:
        if self._next >= len(self.steps):
            raise StopIteration(f"the agent's {len(self.steps)} actions are spent")
        name, arguments = self.steps[self._next](obs)
        self._next += 1
        return CubeAction(id=f"call-{self._next - 1}", name=name, arguments=arguments)


class OracleReplay(StepAgent):
    """The calls of the task's oracle played natively, replayed one per step."""

    @classmethod
    def record(cls, task_config_class: type[GUITaskConfig], metadata: Any, seed: int = 0) -> "OracleReplay":
        """The replay of the oracle's episode on the task `metadata` names, of the family of
        `task_config_class`."""
        family = task_config_class.family
        actions, _reward = play_oracle(metadata.env_id, family.env_kwargs, metadata.id, seed)
        return cls([fixed(**function_call.format(action)) for action in actions])


def debug_module(config_class: Any, task_ids: list[str]) -> tuple[Callable[[], Any], Callable[[str], OracleReplay]]:
    """``(get_debug_benchmark, make_debug_agent)`` for a family: its config narrowed to
    `task_ids`, and the oracle replay of a task (instance seed 0, as ``cube test`` runs it;
    ``GUI/CUBE-v0`` passes its episode's)."""
    def get_debug_benchmark() -> Any:
        return config_class().subset_from_list(task_ids)

    def make_debug_agent(task_id: str, seed: int = 0) -> OracleReplay:
        return OracleReplay.record(config_class.task_config_class, config_class.task_metadata[task_id], seed)

    return get_debug_benchmark, make_debug_agent
