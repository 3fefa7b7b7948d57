"""`RandomAgent`: valid actions on the screen it is shown, reproducible per task and seed."""

from __future__ import annotations

import numpy as np
import pytest

from gui_gym.agents.random_agent import RandomAgent
from gui_gym.errors import AgentError
from gui_gym.spaces import ActionSpace

OBS = {"screenshot": np.zeros((300, 400, 3), np.uint8), "instruction": "anything"}


def _draw(agent: RandomAgent, task_id: str, seed: int, n: int = 30):
    agent.reset({"task_id": task_id, "reset_seed": seed})
    return [agent.act(OBS, {}) for _ in range(n)]


def test_actions_are_valid_and_inside_the_screen():
    space = ActionSpace((400, 300))
    actions = _draw(RandomAgent(seed=1), "t", 0, 200)
    assert all(space.contains(a) for a in actions)
    assert not any(a.is_terminal for a in actions)
    assert {a.kind for a in actions} >= {"click", "type", "scroll"}


def test_draws_repeat_for_the_same_task_and_seed_and_differ_otherwise():
    agent = RandomAgent(seed=1)
    first = _draw(agent, "a", 0)
    assert _draw(agent, "a", 0) == first
    assert _draw(agent, "b", 0) != first
    assert _draw(agent, "a", 1) != first
    assert _draw(RandomAgent(seed=2), "a", 0) != first


def test_kinds_can_be_restricted_from_the_command_line():
    actions = _draw(RandomAgent(kinds="click, scroll"), "a", 0)
    assert {a.kind for a in actions} == {"click", "scroll"}
    with pytest.raises(AgentError, match=r"cannot draw 'done' actions; expected kinds from"):
        RandomAgent(kinds=["click", "done"])
    with pytest.raises(AgentError, match="kinds must name at least one action kind"):
        RandomAgent(kinds="")
    with pytest.raises(AgentError, match="seed must be an int, received '3'"):
        RandomAgent(seed="3")
