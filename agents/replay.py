"""`ReplayAgent`: actions read from a file, or from a folder of recorded episodes.

Two sources:
- a JSONL file, one line per task: ``{"task_id": ..., "seed": 0, "actions": [...]}``, where
  an action is a canonical action object (``{"kind": "click", "x": 10, "y": 20}``) or a
  string in the agent's `action_format`; ``seed`` is optional (the line then serves every
  seed of the task);
- a folder of episodes written by `TrajectoryRecorder` (a `gui-bench` results folder, or any
  folder under it): each step's parsed actions are replayed as canonical JSON, exact to the
  pixel. A step whose output did not parse is replayed as that same unparseable text, so it
  costs a step with an ``action_error`` as it did the first time.

Episodes are matched by (task id, reset seed). When the recorded actions run out before the
episode ends, the agent says done.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Union

from gui_gym.agents.base import BaseAgent
from gui_gym.actions import Action
from gui_gym.errors import ActionParseError, AgentError, TaskConfigError
from gui_gym.records import TRAJECTORY_FILE, TrajectoryStep, iter_jsonl, load_episode

Recorded = Union[Action, str]
"""One replayed step: an action, or text for the env to parse."""


class ReplayAgent(BaseAgent):
    """Replay recorded actions.

    Args:
        path: a JSONL file of actions per task, or a folder of recorded episodes.
        action_format: the format of string actions in a JSONL file ("json" by default);
            a folder is always replayed as canonical JSON.
    """

    def __init__(self, path: str, action_format: str = "json"):
        super().__init__()
        source = Path(path).expanduser()
        if source.is_dir():
            if action_format != "json":
                raise AgentError(f"replay: a recorded folder replays canonical JSON actions; "
                                 f"received action_format={action_format!r}")
            self._episodes = _read_folder(source)
        elif source.is_file():
            self._episodes = _read_jsonl(source)
        else:
            raise AgentError(f"replay: expected a JSONL file of actions or a folder of recorded episodes, "
                             f"received {str(source)!r}, which does not exist")
        if not self._episodes:
            raise AgentError(f"replay: {str(source)!r} holds no recorded episodes")
        self.action_format = action_format
        self._queue: list[Recorded] = []

    def reset(self, task_info: dict[str, Any]) -> None:
        super().reset(task_info)
        task_id, seed = str(task_info.get("task_id")), task_info.get("reset_seed")
        for key in ((task_id, seed), (task_id, None)):
            if key in self._episodes:
                self._queue = list(self._episodes[key])
                return
        seeds = sorted(str(s) for t, s in self._episodes if t == task_id)
        raise AgentError(f"replay: no recorded actions for task {task_id!r} with seed {seed}; "
                         f"recorded seeds for it: {seeds or 'none'}")

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> Recorded:
        return self._queue.pop(0) if self._queue else Action.done()


def _read_jsonl(path: Path) -> dict[tuple[str, Any], list[Recorded]]:
    episodes: dict[tuple[str, Any], list[Recorded]] = {}
    try:
        entries = list(iter_jsonl(path, cut_short_ok=False))
    except TaskConfigError as exc:
        raise AgentError(f"replay: {exc}") from exc
    for number, entry in entries:
        where = f"replay: {path.name} line {number}"
        if "task_id" not in entry or not isinstance(entry.get("actions"), list):
            raise AgentError(f"{where}: expected {{\"task_id\": ..., \"seed\": ..., \"actions\": [...]}}, "
                             f"received {json.dumps(entry, ensure_ascii=False)[:80]!r}")
        actions: list[Recorded] = []
        for action in entry["actions"]:
            if isinstance(action, str):
                actions.append(action)
            else:
                try:
                    actions.append(Action.from_dict(action))
                except ActionParseError as exc:
                    raise AgentError(f"{where}: {exc}") from exc
        episodes[(str(entry["task_id"]), entry.get("seed"))] = actions
    return episodes


def _read_folder(root: Path) -> dict[tuple[str, Any], list[Recorded]]:
    episodes: dict[tuple[str, Any], list[Recorded]] = {}
    for traj in sorted(root.rglob(TRAJECTORY_FILE)):
        try:
            episode = load_episode(traj.parent, screenshots=False)
        except TaskConfigError as exc:
            raise AgentError(f"replay: {exc}") from exc
        if episode.task_id or episode.steps:
            episodes[(episode.task_id, episode.seed)] = [_replayable(step) for step in episode.steps]
    return episodes


def _replayable(step: TrajectoryStep) -> str:
    if step.parsed_action is not None:
        return json.dumps(step.parsed_action, ensure_ascii=False)
    raw = str(step.action if step.action is not None else "")
    try:
        json.loads(raw)
    except json.JSONDecodeError:
        return raw
    return "unparsed output: " + raw  # valid JSON that did not parse in its own format must not run now
