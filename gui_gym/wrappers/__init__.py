"""Gymnasium wrappers for any GUI env: they add to ``info`` and never change the base env's
keys. Each loads on first use, so ``import gui_gym.wrappers`` pulls in no judge client, model
or image library."""

from __future__ import annotations

from gui_gym.lazy_names import lazy_names

_LAZY: dict[str, str] = {
    "TrajectoryRecorder": "gui_gym.wrappers.recorder",
    "ProgressReward": "gui_gym.wrappers.progress",
    "SubtaskAnnotation": "gui_gym.wrappers.subtasks",
    "WebJudgeReward": "gui_gym.wrappers.webjudge_reward",
}
"""Public name -> the module defining it."""

__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_names(__name__, _LAZY)
