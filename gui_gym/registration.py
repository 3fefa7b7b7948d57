"""The ``GUI/*`` ids. Entry points are ``"module:function"`` strings, so specs stay
serializable and nothing heavy is imported until `gym.make`."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym

ENV_IDS: dict[str, str] = {
    "GUI/Demo-v0": "gui_gym.suites.demo:make_env",
    "GUI/LocalWeb-v0": "gui_gym.suites.localweb:make_env",
    "GUI/OSWorld-v0": "gui_gym.suites.osworld:make_env",
    "GUI/OnlineMind2Web-v0": "gui_gym.suites.mind2web:make_env",
    "GUI/MiniWoB-v0": "gui_gym.suites.miniwob:make_env",
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


def parse_kwarg(text: str) -> tuple[str, Any]:
    """One ``KEY=VALUE`` env (or agent, policy, trainer) argument from a command line: the
    value is read as JSON when it is JSON (numbers, booleans, lists, objects), else kept as
    text. Raises ValueError without a key or an ``=``."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"expected KEY=VALUE, received {text!r}")
    try:
        return key.strip(), json.loads(raw)
    except json.JSONDecodeError:
        return key.strip(), raw
