"""OSWorld's own results layout, written from a recorded episode.

OSWorld's tools (``show_result.py``, its monitor, the leaderboard's submission checks) walk
``<result_dir>/<action_space>/<observation_type>/<model>/<domain>/<example_id>/`` and read
there ``result.txt`` (one float, the evaluator's score) beside ``traj.jsonl`` (one line per
step: ``step_num`` from 1, ``action_timestamp``, ``action``, ``response``, ``reward``, ``done``,
``info``, ``screenshot_file``) and the step screenshots. An example folder without
``result.txt`` is unfinished to them: OSWorld's runner writes none for an example that
raised, only a ``{"Error": ...}`` line in ``traj.jsonl``, and ``show_result.py`` leaves it out
of its rates. This module writes the same for every episode of an OSWorld run, under
``<results>/osworld/`` (``osworld/seed<n>/`` per instance seed when the run repeats tasks:
OSWorld keeps one result folder per run, one example folder per task).

So ``show_result.py --result_dir <results>/osworld --action_space A --observation_type O
--model M`` reports the run; its rate is gui-bench's mean score, errors left out of both.
"""

from __future__ import annotations

import shutil
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from gui_gym.benchmarks.harness.results import link_or_copy, slug
from gui_gym.errors import HarnessError
from gui_gym.records import TRAJECTORY_FILE, atomic_write, json_line, read_result, read_trajectory

OSWORLD_DIR = "osworld"
OSWORLD_ENV_IDS = frozenset({"GUI/OSWorld-v0"})
"""The env ids whose runs get the layout."""
RESULT_TXT = "result.txt"
TIMESTAMP_FORMAT = "%Y%m%d@%H%M%S%f"
"""OSWorld's ``action_timestamp`` (``lib_run_single``), also part of each screenshot's name."""
OBSERVATION_TYPES = {(True, False): "screenshot", (True, True): "screenshot_a11y_tree", (False, True): "a11y_tree"}
"""OSWorld's observation type for (screenshot observed, a11y tree observed)."""


@dataclass(frozen=True)
class OSWorldLayout:
    """The names OSWorld's tools are given to find a run: action space, observation type and
    model, and whether each instance seed has a result folder of its own."""

    action_space: str
    observation_type: str
    model: str
    per_seed: bool = False

    def __post_init__(self) -> None:
        for name in ("action_space", "observation_type", "model"):
            value = getattr(self, name)
            if not value or value in (".", "..") or "/" in value or "\0" in value:
                raise ValueError(f"the OSWorld layout's {name} must be a folder name, received {value!r}")

    @classmethod
    def of_run(cls, env: Any, agent_spec: str, agent_kwargs: dict[str, Any], per_seed: bool,
               **overrides: str | None) -> OSWorldLayout:
        """The names of a run from its env (action format, what it observes) and agent (its
        ``model`` argument, else the agent's name); `overrides` (None: not given) win, and
        `HarnessError` refuses one that is no folder name."""
        unwrapped = env.unwrapped
        names = {"action_space": unwrapped.action_format,
                 "observation_type": OBSERVATION_TYPES.get((unwrapped.observe_screenshot, unwrapped.observe_a11y),
                                                           "none"),
                 "model": slug(str(agent_kwargs.get("model") or agent_spec))}
        names.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls(**names, per_seed=per_seed)
        except ValueError as exc:
            raise HarnessError(str(exc)) from None

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "run.json") -> OSWorldLayout:
        """The layout recorded in a run's ``run.json``; `HarnessError` naming `where` when it is
        not one."""
        try:
            return cls(**{k: data[k] for k in ("action_space", "observation_type", "model", "per_seed") if k in data})
        except (TypeError, ValueError) as exc:
            raise HarnessError(f"{where}: field osworld_layout: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def result_dir(self, results_root: Path, seed: int) -> Path:
        """What to pass to OSWorld's tools as ``--result_dir``."""
        root = Path(results_root) / OSWORLD_DIR
        return root / f"seed{seed}" if self.per_seed else root

    def example_dir(self, results_root: Path, domain: str, example_id: str, seed: int) -> Path:
        return (self.result_dir(results_root, seed) / self.action_space / self.observation_type / self.model
                / _folder_name(domain) / _folder_name(example_id))


def write_from_episode(episode_dir: str | Path, layout: OSWorldLayout, results_root: str | Path,
                       domain: str | None = None, *, keep_written: bool = False) -> Path | None:
    """Write the recorded episode in `episode_dir` into OSWorld's layout under `results_root`
    (replacing what an earlier attempt wrote, unless `keep_written`); the example folder, or
    None (nothing written) when the episode has no result yet. An episode that ended in an
    error gets its steps and an ``{"Error": ...}`` line, and no ``result.txt``, as OSWorld's
    runner leaves such an example."""
    episode_dir = Path(episode_dir)
    result = read_result(episode_dir)
    if result is None:
        return None
    domain = result.domain or domain or "unknown"
    dest = layout.example_dir(Path(results_root), domain, result.task_id, result.seed or 0)
    if keep_written and dest.is_dir():
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    lines = []
    for record in read_trajectory(episode_dir):
        if record.get("event") == "reset":
            continue
        step = int(record.get("step") or len(lines) + 1)
        stamp = _timestamp(record.get("time"))
        shot = record.get("screenshot_file")
        name = None
        if shot and (episode_dir / shot).is_file():
            name = f"step_{step}_{stamp}{Path(shot).suffix}"
            link_or_copy(episode_dir / shot, dest / name)
        lines.append({"step_num": step, "action_timestamp": stamp, "action": record.get("action"),
                      "response": record.get("response"), "reward": record.get("reward"),
                      "done": bool(record.get("terminated") or record.get("truncated")),
                      "info": record.get("info"), "screenshot_file": name})
    if result.error:
        lines.append({"Error": result.error})
    atomic_write(dest / TRAJECTORY_FILE, "".join(json_line(line) for line in lines))
    if not result.error:
        atomic_write(dest / RESULT_TXT, f"{float(result.score if result.score is not None else 0.0)}\n")
    return dest


def _timestamp(iso: Any) -> str:
    try:
        return datetime.fromisoformat(str(iso)).astimezone().strftime(TIMESTAMP_FORMAT)
    except ValueError:
        return datetime.now().strftime(TIMESTAMP_FORMAT)


def _folder_name(name: str) -> str:
    """`name` as one folder: OSWorld's ids and domains are already safe; anything else has its
    separators replaced, so no name leaves the layout."""
    safe = str(name).replace("/", "_").replace("\0", "_")
    return "_" + safe if safe in ("", ".", "..") else safe


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
