"""Gymnasium wrappers for any GUI env: they add to ``info`` and never change the base env's
keys. Each loads on first use, so ``import gui_gym.wrappers`` pulls in no judge client, model
or image library."""

from __future__ import annotations

import importlib
from typing import Any

_LAZY: dict[str, str] = {
    "TrajectoryRecorder": "gui_gym.wrappers.recorder",
    "ProgressReward": "gui_gym.wrappers.progress",
    "SubtaskAnnotation": "gui_gym.wrappers.subtasks",
    "WebJudgeReward": "gui_gym.wrappers.webjudge_reward",
}
"""Public name -> the module defining it."""

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'gui_gym.wrappers' has no attribute {name!r}; expected one of {__all__}")
    return getattr(importlib.import_module(_LAZY[name]), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
