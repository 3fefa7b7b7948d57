"""gui-gym: standard Gymnasium environments for GUI agents.

``import gui_gym`` registers the ``GUI/*`` ids with Gymnasium and nothing else: no browser,
server or heavy dependency (torch, adbutils) is touched until an env is made.
"""

from gui_gym import registration as _registration
from gui_gym.action_formats import format_action, parse_action
from gui_gym.actions import Action

_registration.register_all()

__all__ = ["Action", "parse_action", "format_action"]
__version__ = "0.1.0"
