"""How gui-gym touches a screen. A backend knows nothing of benchmarks: it starts a screen,
executes canonical actions on it, and observes it."""

from gui_gym.backends.base import Backend, Observation

__all__ = ["Backend", "Observation"]
