"""The `Agent` protocol every `gui-bench` agent speaks, and a base class with its defaults.

An agent is told the task at `reset` and answers each observation with one action: a
canonical `Action`, or a string in its declared `action_format` (which the harness hands to
the env, so the env parses and records it exactly as it would any other output).

Optional parts, read with defaults when absent:
- ``action_format``: the text format its strings are in ("uitars", "json", ...); None when
  it only returns `Action` objects, which any env accepts.
- ``format_context``: extra parser arguments for that format, e.g. the coordinate space
  ``{"coordinates": "relative1000"}`` of an older UI-TARS model.
- ``bind_env(env)``: called once before the first episode, for agents that read the env
  itself (the oracle asks it for the task's own solution).
- ``last_response`` / ``last_thought``: the model's raw output and its reasoning for the
  action just returned; the harness records them beside the action.
- ``close()``: release clients and files.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from gui_gym.actions import Action


@runtime_checkable
class Agent(Protocol):
    """What the harness calls. See the module docstring for the optional parts."""

    def reset(self, task_info: dict[str, Any]) -> None:
        """A new episode: `task_info` is the env's reset info (task_id, instruction, domain,
        instance seed) plus the suite's facts about the task and ``reset_seed``."""
        ...

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> "str | Action":
        """The next action for observation `obs` (``info`` is the last step's info)."""
        ...


class BaseAgent:
    """Defaults for the optional parts of the protocol; subclasses override `act`."""

    action_format: str | None = None
    format_context: dict[str, Any] | None = None

    def __init__(self) -> None:
        self.last_response: str | None = None
        self.last_thought: str | None = None

    def bind_env(self, env: Any) -> None:
        """Nothing to bind by default."""

    def reset(self, task_info: dict[str, Any]) -> None:
        self.last_response = self.last_thought = None

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> "str | Action":
        raise NotImplementedError(f"{type(self).__name__} must implement act(obs, info)")

    def close(self) -> None:
        """Nothing to release by default."""
