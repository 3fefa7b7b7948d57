"""The episode record format, shared by everything that writes or reads episodes: the
recorder wrapper, the harness's results store and report, the replay agent, the judges and
their criteria builder, the trainers' rollouts, the Online-Mind2Web layout.

- `gui_gym.records.files`: the folder layout (``traj.jsonl``, ``step_NNNN.png``,
  ``result.json``), whole-or-nothing writes, JSON-safe values, the lenient step-record reader;
- `gui_gym.records.jsonl`: the one writer and reader of JSON-lines files (each record one line
  for any line splitter, whatever text it holds);
- `gui_gym.records.episode`: the typed records, `Trajectory` / `TrajectoryStep` (one episode
  in memory) and `EpisodeResult` (``result.json``), and their readers.
"""

from gui_gym.records.episode import EpisodeResult, ImageLike, Trajectory, TrajectoryStep, load_episode, read_result
from gui_gym.records.files import (RESULT_FILE, TRAJECTORY_FILE, action_text, atomic_write, atomic_write_json,
                                   episode_key, final_answer, json_safe, read_trajectory)
from gui_gym.records.jsonl import append_jsonl, iter_jsonl, json_line, read_jsonl, write_jsonl

__all__ = ["EpisodeResult", "ImageLike", "Trajectory", "TrajectoryStep", "load_episode", "read_result",
           "RESULT_FILE", "TRAJECTORY_FILE", "action_text", "atomic_write", "atomic_write_json", "episode_key",
           "final_answer", "json_safe", "read_trajectory", "append_jsonl", "iter_jsonl", "json_line", "read_jsonl",
           "write_jsonl"]
