"""An expert that is off the policy's distribution: a keyboard agent on TextWeb.

BEPA's premise is an expert whose traces the learner could not have produced: another
framework's agent, acting in its own action space. The learning benchmark's element policy
clicks the page's candidates; `KeyboardExpert` never clicks. On each page it presses Tab until
the element it wants has the focus, then Enter (TextWeb's keyboard: `gui_gym.benchmarks.learning.textweb`),
under a step limit of its own (`max_steps`: a framework's budget, as OSWorld's agents get more
steps than a policy's rollout). It knows which element is right (it reads the env's
`oracle_action`, as a stronger agent would know), so its traces succeed; what differs from the
oracle is how it acts, and therefore what BEPA's two conversions make of its traces:

- *replacement* (`gui_gym.trainers.bepa.rollout_from_trace`): its actions spelled in the
  policy's action space. Tab has no candidate and is dropped; Enter is the policy's own
  ``enter`` candidate, prompted with the page the expert saw, where one element is flagged
  ``focused``: pages the policy never reaches and a choice it almost never makes;
- *LEVEL-1* (`KeyboardExpert.plan`): the trace abstracted into a plan in words, one line per
  activation naming the element that had the focus ("click the Billing link"), read from the
  trace's own observations (the focused element of the page Enter was pressed on), never from
  the env's expert plan. The policy then acts on the plan in its own action space.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from gui_gym.a11y_text import parse_elements
from gui_gym.actions import Action
from gui_gym.trainers.bepa import ExpertTrace

TAB, ENTER = Action.key("tab"), Action.key("enter")


class KeyboardExpert:
    """Tab to the right element, Enter; `max_steps` is its own step limit per episode."""

    def __init__(self, max_steps: int = 100):
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, received {max_steps}")
        self.max_steps = max_steps

    def trace(self, env: gym.Env, task_id: str, seed: int) -> ExpertTrace:
        """The expert's episode on (task id, instance seed), as it saw and acted."""
        obs, info = env.reset(seed=seed, options={"task_id": task_id, "instance_seed": seed,
                                                  "max_steps": self.max_steps})
        oracle_action = env.get_wrapper_attr("oracle_action")
        trace = ExpertTrace(task_id, seed, str(info.get("instruction", "")), [], [], {})
        for _ in range(self.max_steps):
            target = oracle_action().element
            focused = next((el.index for el in parse_elements(obs["a11y_tree"]) if "focused" in el.flags), None)
            action = ENTER if focused == target else TAB
            trace.observations.append(obs)
            trace.actions.append(action)
            obs, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                trace.final_info = dict(info)
                break
        return trace

    def plan(self, trace: ExpertTrace) -> list[str]:
        """LEVEL-1's abstraction of a trace: per Enter, "click the <name> <role>" of the
        element focused on the page it was pressed on (TextWeb's plans read the same way, so
        a base that learned to follow plans can follow these)."""
        return [f"click the {el.name} {el.role}" for el in map(_focused, trace.observations, trace.actions)
                if el is not None]


def _focused(obs: dict[str, Any], action: Action) -> Any:
    """The element an Enter activated on page `obs` (None for any other action)."""
    if action != ENTER:
        return None
    return next((el for el in parse_elements(obs["a11y_tree"]) if "focused" in el.flags), None)
