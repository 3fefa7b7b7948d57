"""Agents for `gui-bench`: the `Agent` protocol, the built-in agents (random, oracle,
replay, openai) and the loader behind ``--agent``. Built-in agents import on first use."""

from agents.base import Agent, BaseAgent
from agents.loader import BUILTIN_AGENTS, load_agent, resolve_agent

__all__ = ["Agent", "BaseAgent", "BUILTIN_AGENTS", "load_agent", "resolve_agent"]
