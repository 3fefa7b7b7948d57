"""The element policy: a small torch network over the accessibility tree's candidate actions
(`candidates`: what the page offers; `policy`: how they are scored), a trainable agent that
learns LocalWeb tasks on a CPU in minutes."""

from gui_gym.agents.policies.element.policy import ElementPolicy

__all__ = ["ElementPolicy"]
