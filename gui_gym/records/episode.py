"""Typed episode records: a trajectory in memory (what judges read, what trainers train on) and
the ``result.json`` of a recorded one.

`Trajectory` is one episode: the task, the first screen, and one `TrajectoryStep` per env
step (the agent's output, the action as the env parsed it, the screen after it, the env's
``info``). Success, score, progress and infrastructure errors are read from the last step's
``info``, as the env reported them, so a trajectory recorded live (a wrapper's keeper, a
trainer's rollout) and one read back from its folder (`load_episode`) answer alike. The
trainers' `Rollout` is a `Trajectory` whose steps also carry the tokens the policy generated.

`EpisodeResult` is ``result.json``: written last by the recorder (or by the harness for a
worker that died), so its presence marks an episode complete. `read_result` reads one and
names the file and the field when it is malformed.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import numpy as np

from gui_gym.errors import TaskConfigError
from gui_gym.records.files import RESULT_FILE, TRAJECTORY_FILE, final_answer
from gui_gym.records.jsonl import iter_jsonl

ImageLike = Union[np.ndarray, bytes]
"""A screenshot: a uint8 array (HxW, HxWx3 or HxWx4) or PNG-encoded bytes."""


@dataclass
class TrajectoryStep:
    """One env step. `parsed_action` is ``info["parsed_action"]`` (a dict, or a list of dicts
    when the output held several actions), `screenshot` the screen after the step, `probe` a
    judge's look at the live env after it (kept in memory, never written)."""

    parsed_action: Any = None
    screenshot: ImageLike | None = None
    action_error: str | None = None
    probe: Any = None
    action: Any = None
    """The agent's output as given: text in its format, or an `Action`."""
    reward: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)
    url: str | None = None
    thought: str | None = None
    """The model's reasoning for the action, when the agent reported one."""
    screenshot_file: str | None = None
    """The screenshot's file name in the episode folder, for a trajectory read from one."""


@dataclass
class Trajectory:
    """One episode. Step indices are 0-based: step t is the t-th action."""

    task_id: str
    instruction: str
    start_screenshot: ImageLike | None = None
    start_probe: Any = None
    steps: list[TrajectoryStep] = field(default_factory=list)
    seed: int | None = None
    start_url: str | None = None
    start_screenshot_file: str | None = None

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def final_info(self) -> dict[str, Any]:
        """The last step's ``info`` ({} before the first step)."""
        return self.steps[-1].info if self.steps else {}

    @property
    def success(self) -> bool:
        return bool(self.final_info.get("success", False))

    @property
    def score(self) -> float:
        """The env's evaluator score (0 when the episode ended without one)."""
        return float(self.final_info.get("score") or 0.0)

    @property
    def progress(self) -> float | None:
        """``info["progress"]`` at the end (`ProgressReward`), None without the wrapper or
        when the judge failed."""
        value = self.final_info.get("progress")
        return None if value is None else float(value)

    @property
    def infra_error(self) -> str | None:
        """Why the infrastructure cut the episode short, if it did: such an episode is no
        evidence about the agent."""
        return next((s.info["infra_error"] for s in self.steps if s.info.get("infra_error")), None)

    @property
    def final_answer(self) -> str | None:
        """The text of a closing answer/done action, if the agent gave one."""
        return final_answer(self.steps[-1].parsed_action) if self.steps else None


@dataclass
class EpisodeResult:
    """``result.json``: the outcome of one recorded episode, and (for `gui-bench`) which attempt
    of which job it was. An `error` means no verdict on the agent: the episode is counted
    apart from failures (`error_kind` "agent", "env", "infra", "crash" or "timeout")."""

    task_id: str
    seed: int | None = None
    instance_seed: int | None = None
    instruction: str | None = None
    domain: str | None = None
    score: float | None = None
    success: bool = False
    steps: int = 0
    terminated: bool = False
    truncated: bool = False
    final_answer: str | None = None
    error: str | None = None
    error_kind: str | None = None
    timings: dict[str, Any] = field(default_factory=dict)
    started_at: str | None = None
    finished_at: str | None = None
    key: str | None = None
    """The harness's job: the episode's folder name, its attempt, earlier errors, where its
    retry budget counts from, and the suite's facts about the task (`meta`)."""
    attempt: int = 1
    previous_errors: list[str] = field(default_factory=list)
    retries_from: int = 1
    meta: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    """Fields a caller added that this record does not name; kept and written back."""

    @property
    def outcome(self) -> str:
        """"success", "failure" or "error": an error is never counted as a failure."""
        if self.error:
            return "error"
        return "success" if self.success else "failure"

    def to_dict(self) -> dict[str, Any]:
        """The JSON object written to ``result.json``."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "extra"}
        return {**values, **self.extra}

    @classmethod
    def from_dict(cls, data: Any, where: str = "result") -> "EpisodeResult":
        """The record `data` holds; `TaskConfigError` naming `where` and the field when a field
        has the wrong type."""
        if not isinstance(data, dict) or not isinstance(data.get("task_id"), str):
            raise TaskConfigError(f"{where}: expected a JSON object with 'task_id' as a string, received "
                                  f"{str(data)[:200]}")
        known = {f.name: f for f in dataclasses.fields(cls) if f.name != "extra"}
        values = {name: data[name] for name in known if name in data and data[name] is not None}
        for name, expected in _TYPES.items():
            if name in values and not isinstance(values[name], expected):
                raise TaskConfigError(f"{where}: field {name!r} expected {_type_names(expected)}, received "
                                      f"{values[name]!r}")
        if "score" in values:
            values["score"] = float(values["score"])
        values["previous_errors"] = [str(e) for e in values.get("previous_errors", [])]
        extra = {k: v for k, v in data.items() if k not in known}
        return cls(**values, extra=extra)


_TYPES: dict[str, type | tuple[type, ...]] = {
    "seed": int, "instance_seed": int, "instruction": str, "domain": str, "score": (int, float), "success": bool,
    "steps": int, "terminated": bool, "truncated": bool, "final_answer": str, "error": str, "error_kind": str,
    "timings": dict, "started_at": str, "finished_at": str, "key": str, "attempt": int, "previous_errors": list,
    "retries_from": int, "meta": dict,
}
"""Each named field's JSON type (None is allowed wherever the default is None)."""


def _type_names(expected: type | tuple[type, ...]) -> str:
    kinds = expected if isinstance(expected, tuple) else (expected,)
    return " or ".join(kind.__name__ for kind in kinds)


def read_result(folder: str | os.PathLike) -> EpisodeResult | None:
    """The episode's ``result.json``, or None when there is none (the episode is not done);
    `TaskConfigError` naming the file when it cannot be read or is malformed."""
    path = Path(folder) / RESULT_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TaskConfigError(f"cannot read {path}: {exc}") from exc
    return EpisodeResult.from_dict(data, str(path))


def load_episode(folder: str | os.PathLike, *, screenshots: bool = True) -> Trajectory:
    """A recorded episode folder as a `Trajectory` (the recorder's layout: ``traj.jsonl``, whose
    reset line carries the first screenshot, ``step_NNNN.png``, ``result.json``), with the
    screenshots as PNG bytes or decoded pixels (or only their file names, without `screenshots`). Each line's
    ``info`` is the env's, so success and score read as they did live. A folder with a result
    and no ``traj.jsonl`` (a worker that died before the reset) is an episode without steps; a
    last line cut short (a writer killed mid-line) ends the steps. Raises `TaskConfigError`
    naming the file and line of anything else malformed."""
    folder = Path(folder)
    traj_path = folder / TRAJECTORY_FILE
    result = read_result(folder)
    if not traj_path.exists() and result is None:
        raise TaskConfigError(f"{folder} holds no recorded episode: expected {TRAJECTORY_FILE} or {RESULT_FILE}")
    trajectory = Trajectory(task_id="", instruction="")
    for _, record in iter_jsonl(traj_path):
        name = record.get("screenshot_file")
        screenshot = _read_screenshot(folder, name, traj_path) if screenshots else None
        if record.get("event") == "reset":
            trajectory.task_id = str(record.get("task_id") or "")
            trajectory.instruction = str(record.get("instruction") or "")
            trajectory.seed = record.get("seed")
            trajectory.start_screenshot, trajectory.start_url, trajectory.start_screenshot_file = screenshot, \
                record.get("url"), name
            continue
        info = record.get("info")
        trajectory.steps.append(TrajectoryStep(
            parsed_action=record.get("parsed_action"), screenshot=screenshot, action_error=record.get("action_error"),
            action=record.get("action"), reward=float(record.get("reward") or 0.0),
            info=info if isinstance(info, dict) else {}, url=record.get("url"), thought=record.get("thought"),
            screenshot_file=name))
    if result is not None:
        trajectory.task_id = result.task_id
        trajectory.instruction = trajectory.instruction or str(result.instruction or "")
        if trajectory.seed is None:
            trajectory.seed = result.seed
    return trajectory


def _read_screenshot(folder: Path, name: Any, traj_path: Path) -> "bytes | np.ndarray | None":
    """A recorded screenshot: PNG bytes as stored, or the pixels of another format (the
    harness stores lossless WebP), which the models take as arrays."""
    if not name:
        return None
    path = folder / str(name)
    try:
        data = path.read_bytes()
        if path.suffix.lower() == ".png":
            return data
        from PIL import Image

        with Image.open(io.BytesIO(data)) as picture:
            return np.asarray(picture.convert("RGB"))
    except OSError as exc:
        raise TaskConfigError(f"screenshot {path} named in {traj_path} cannot be read: {exc}") from exc
