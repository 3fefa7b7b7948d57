"""Judges: answers to questions about GUI trajectories, for PAGE's progress reward and
subtask annotation (and any LVLM-judged evaluation). The chat models they ask live in
`gui_gym.models` (`OpenAIClient`, `TransformersModel`); `CachedJudge` keeps their answers.

- trajectory judges (`TrajectoryJudge`: criteria marks, subtask spans, over a
  `gui_gym.records.Trajectory`): `LVLMJudge` over a chat model, and `OracleJudge`, exact and
  free, from a task's milestones;
- `WebJudge` (`gui_gym.judges.webjudge.judge`): Online-Mind2Web's WebJudge verdict on a web episode;
- `judge_progress` / `aggregate_rounds` turn judging rounds into progress, and
  `CriteriaStore` / `extract_criteria` / `build_criteria` make and keep the criteria;
- `ask` asks a chat model again when its answer strays from the format.
"""

from __future__ import annotations

from gui_gym.errors import JudgeError, JudgeFormatError
from gui_gym.judges.aggregation import ProgressEstimate, aggregate_rounds, judge_progress
from gui_gym.judges.cache import CachedJudge
from gui_gym.judges.criteria import build_criteria, extract_criteria
from gui_gym.judges.criteria_store import CriteriaStore
from gui_gym.judges.lvlm import LVLMJudge, as_trajectory_judge
from gui_gym.judges.oracle import NoisyOracleJudge, OracleJudge
from gui_gym.judges.parsing import ask
from gui_gym.judges.trajectory import Subtask, TrajectoryJudge

__all__ = [
    "JudgeError", "JudgeFormatError", "CachedJudge", "LVLMJudge", "OracleJudge", "NoisyOracleJudge",
    "TrajectoryJudge", "Subtask", "as_trajectory_judge", "ask", "aggregate_rounds", "judge_progress",
    "ProgressEstimate", "CriteriaStore", "extract_criteria", "build_criteria",
]
