"""`OracleAgent`: the task's own solution, asked of the env step by step.

Suites that know how to solve their tasks (LocalWeb, the demo, bundled samples) expose it as
the env method ``oracle_action()``, resolved against the live screen; the oracle agent replays
it through the ordinary step interface, so it proves a task solvable end to end and gives the
ceiling a benchmark run is read against.
"""

from __future__ import annotations

from typing import Any

from gui_gym.agents.base import BaseAgent
from gui_gym.actions import Action
from gui_gym.errors import AgentError


class OracleAgent(BaseAgent):
    """The env's own solution of each task (where the suite has one)."""

    def __init__(self) -> None:
        super().__init__()
        self._oracle_action: Any = None

    def bind_env(self, env: Any) -> None:
        # get_wrapper_attr reaches the method through wrappers and across a remote env's actor
        try:
            oracle_action = env.get_wrapper_attr("oracle_action")
        except AttributeError:
            oracle_action = None
        if not callable(oracle_action):
            raise AgentError(f"the oracle agent needs an env with oracle_action(); {type(getattr(env, 'unwrapped', env)).__name__} has none")
        self._oracle_action = oracle_action

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> Action:
        if self._oracle_action is None:
            raise AgentError("the oracle agent reads the env's solution: call bind_env(env) before act()")
        try:
            return self._oracle_action()
        except NotImplementedError as exc:
            raise AgentError(f"oracle: {exc}") from exc
