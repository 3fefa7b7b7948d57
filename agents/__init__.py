"""Agents: the one protocol `gui-bench` and the trainers speak (`Agent`, and `TrainableAgent`
for those that also generate with token ids and log-probs), the built-in agents (random,
oracle, replay, openai; the trainable element and vlm policies in `gui_gym.agents.policies`), their
prompt formats, and the loader behind ``--agent`` and ``--policy``. Built-in agents import on
first use."""

from gui_gym.installed_names import refuse_bare_name

refuse_bare_name(__name__)

from gui_gym.agents.base import Act, Agent, BaseAgent, Context, PolicyAgent, TrainableAgent
from gui_gym.agents.loader import BUILTIN_AGENTS, env_kwargs_for, load_agent, load_trainable_agent, resolve_agent

__all__ = ["Act", "Agent", "BaseAgent", "Context", "PolicyAgent", "TrainableAgent", "BUILTIN_AGENTS", "env_kwargs_for",
           "load_agent", "load_trainable_agent", "resolve_agent"]
