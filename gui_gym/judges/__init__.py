"""Judges: models that answer questions about GUI trajectories, for PAGE's progress reward
and subtask annotation (and any LVLM-judged evaluation).

- chat judges (`Judge`: messages of text and images in, text out): `OpenAIJudge` for any
  OpenAI-compatible endpoint, `TransformersJudge` for a local checkpoint (torch is imported
  only when one is built), and `CachedJudge` in front of either;
- trajectory judges (`TrajectoryJudge`: criteria marks, subtask spans): `LVLMJudge` over a
  chat judge, and `OracleJudge`, exact and free, from a task's milestones;
- `judge_progress` / `aggregate_rounds` turn judging rounds into progress, and
  `CriteriaStore` / `extract_criteria` / `build_criteria` make and keep the criteria.
"""

from __future__ import annotations

from gui_gym.errors import JudgeError, JudgeFormatError
from gui_gym.judges.aggregation import ProgressEstimate, aggregate_rounds, judge_progress
from gui_gym.judges.base import Judge, Message
from gui_gym.judges.cache import CachedJudge
from gui_gym.judges.criteria import CriteriaStore, build_criteria, extract_criteria
from gui_gym.judges.lvlm import LVLMJudge
from gui_gym.judges.openai_judge import OpenAIJudge
from gui_gym.judges.oracle import NoisyOracleJudge, OracleJudge
from gui_gym.judges.parsing import ask
from gui_gym.judges.trajectory import Subtask, Trajectory, TrajectoryJudge, TrajectoryStep, as_trajectory_judge
from gui_gym.judges.transformers_judge import TransformersJudge

__all__ = [
    "Judge", "Message", "JudgeError", "JudgeFormatError", "OpenAIJudge", "TransformersJudge", "CachedJudge",
    "LVLMJudge", "OracleJudge", "NoisyOracleJudge", "TrajectoryJudge", "Trajectory", "TrajectoryStep", "Subtask",
    "as_trajectory_judge", "ask", "aggregate_rounds", "judge_progress", "ProgressEstimate", "CriteriaStore",
    "extract_criteria", "build_criteria",
]

