"""`OracleAgent` on GUI/Demo-v0: it solves every task through the ordinary step interface."""

from __future__ import annotations

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.agents.oracle import OracleAgent
from gui_gym.errors import AgentError


def test_the_oracle_solves_every_demo_task():
    env = gym.make("GUI/Demo-v0")
    agent = OracleAgent()
    agent.bind_env(env)
    try:
        for task_id in env.unwrapped.task_ids:
            obs, info = env.reset(seed=0, options={"task_id": task_id})
            agent.reset({**info, "reset_seed": 0})
            for _ in range(20):
                obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
                if terminated or truncated:
                    break
            assert info["success"] and reward == 1.0, task_id
    finally:
        env.close()


def test_the_oracle_needs_an_env_that_has_a_solution():
    with pytest.raises(AgentError, match=r"call bind_env\(env\) before act\(\)"):
        OracleAgent().act({}, {})
    with pytest.raises(AgentError, match=r"needs an env with oracle_action\(\); object has none"):
        OracleAgent().bind_env(object())
