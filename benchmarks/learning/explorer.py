"""BEPA's off-distribution expert on TextWeb: an agent that finds its own way by trial and error.

BEPA's premise is a valid expert behaviour that is improbable under the learner: another
agent's traces, which reach the goal by a route the learner would not take. `ExploringExpert`
acts on its own, from what any agent sees (the instruction and the pages), never from the env's
solution (`oracle_action`) or its expert plan (`expert_plan`). On each page it clicks first the
elements the instruction names, in the instruction's order, then the others in page order,
each at most once per page; an error page (or the save's rejection of a hidden mistake) tells
it a click was wrong, and it clicks Back and tries the next element. It has a step limit of its
own (`max_steps`: a framework's budget, as framework agents get more steps than a policy's
rollout), within which it solves every TextWeb task.

Its traces differ from the expert plan in two ways: they hold its failed tries and the Backs
after them, and where a stage has a second right element (`gui_gym.benchmarks.learning.textweb.Stage.alternate`)
it takes whichever of the two it tries first, which depends on the page's order, so about half
of its routes through such a stage are not the plan's. Every action is a click on an element of
the page it saw, so the policy can spell all of it (`gui_gym.trainers.bepa.rollout_from_trace`
drops nothing). Its plan (`ExploringExpert.plan`, LEVEL-1's input) is abstracted from its own
trace: one line per click that the next page accepted, naming that element as the page showed
it.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from gui_gym.a11y_text import Element, parse_elements
from gui_gym.actions import Action
from gui_gym.trainers.bepa import ExpertTrace

ERROR_PAGE = ("Back", "Help")
"""What TextWeb's error page (and the save's rejection) shows: the expert's only feedback."""


class ExploringExpert:
    """Tries the page's elements (the instruction's first) until one is accepted; Back after an error."""

    def __init__(self, max_steps: int = 100):
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, received {max_steps}")
        self.max_steps = max_steps

    def trace(self, env: gym.Env, task_id: str, seed: int) -> ExpertTrace:
        """The expert's episode on (task id, instance seed), as it saw and acted."""
        obs, info = env.reset(seed=seed, options={"task_id": task_id, "instance_seed": seed,
                                                  "max_steps": self.max_steps})
        instruction = str(info.get("instruction", ""))
        trace = ExpertTrace(task_id, seed, instruction, [], [], {})
        tried: dict[tuple[str, tuple[str, ...]], set[str]] = {}
        for _ in range(self.max_steps):
            elements = parse_elements(obs["a11y_tree"])
            if is_error(elements):
                choice = elements[[e.name for e in elements].index("Back")]
            else:
                page = (str(obs.get("url", "")), tuple(e.name for e in elements))
                untried = [e for e in by_preference(elements, instruction) if e.name not in tried.get(page, set())]
                if not untried:  # every element failed here: nothing left to try
                    break
                choice = untried[0]
                tried.setdefault(page, set()).add(choice.name)
            action = Action.click_element(choice.index)
            trace.observations.append(obs)
            trace.actions.append(action)
            obs, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                trace.final_info = dict(info)
                break
        return trace

    def plan(self, trace: ExpertTrace) -> list[str]:
        """LEVEL-1's abstraction of a trace, read from its own pages: "click the <name> <role>"
        for each click the next page accepted (not an error page; the last click when the
        episode succeeded), in order."""
        lines = []
        for t, (obs, action) in enumerate(zip(trace.observations, trace.actions)):
            elements = parse_elements(obs["a11y_tree"])
            if is_error(elements) or action.element is None or not 0 <= action.element < len(elements):
                continue
            accepted = (not is_error(parse_elements(trace.observations[t + 1]["a11y_tree"]))
                        if t + 1 < len(trace.observations) else trace.success)
            if accepted:
                element = elements[action.element]
                lines.append(f"click the {element.name} {element.role}")
        return lines


def is_error(elements: list[Element]) -> bool:
    return tuple(e.name for e in elements) == ERROR_PAGE


def by_preference(elements: list[Element], instruction: str) -> list[Element]:
    """The page's elements in the order the expert tries them: those the instruction names,
    in the instruction's order, then the rest in page order."""
    text = instruction.lower()

    def position(element: Element) -> Any:
        at = text.find(element.name.lower())
        return (0, at) if at >= 0 else (1, element.index)
    return sorted(elements, key=position)
