"""The ``GUI/*`` ids. Entry points are ``"module:function"`` strings, so specs stay
serializable and nothing heavy is imported until `gym.make`."""

from __future__ import annotations

import gymnasium as gym

ENV_IDS: dict[str, str] = {}
"""id -> entry point; filled by `register_all`."""


def register_all() -> None:
    """Register every id once (idempotent: a second import does not warn)."""
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point, disable_env_checker=True)
