"""The ``GUI/*`` ids. Entry points are ``"module:function"`` strings, so specs stay
serializable and nothing heavy is imported until `gym.make`."""

from __future__ import annotations

import gymnasium as gym

ENV_IDS: dict[str, str] = {
    "GUI/Demo-v0": "gui_gym.suites.demo:make_env",
    "GUI/LocalWeb-v0": "gui_gym.suites.localweb:make_env",
    "GUI/OSWorld-v0": "gui_gym.suites.osworld:make_env",
    "GUI/OnlineMind2Web-v0": "gui_gym.suites.mind2web:make_env",
    "GUI/MMBench-GUI-L1-v0": "gui_gym.suites.mmbench:make_l1_env",
    "GUI/MMBench-GUI-L2-v0": "gui_gym.suites.mmbench:make_l2_env",
    "GUI/Android-v0": "gui_gym.suites.android:make_env",
    "GUI/AndroidControl-v0": "gui_gym.suites.android:make_androidcontrol_env",
}
"""id -> entry point."""


def register_all() -> None:
    """Register every id once (idempotent: a second import does not warn)."""
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point, nondeterministic=True)
