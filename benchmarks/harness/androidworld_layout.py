"""AndroidWorld's own results layout, written from a recorded episode.

AndroidWorld's ``run.py`` keeps a run in a checkpoint folder (``--checkpoint_dir``): one
``<TaskName>_<instance>.pkl.gz`` per task instance, a gzip-compressed pickle of a list of
episode dicts (``checkpointer.IncrementalCheckpointer``). It reads that folder back to resume a
run and to print its results table (``suite_utils.process_episodes``: per task the trials,
the mean of ``is_successful``, the mean ``episode_length``, the run time, the episodes that
raised). This module writes the same for every episode of an AndroidWorld run under
``<results>/androidworld/``, with the keys of AndroidWorld's ``constants.EpisodeConstants``;
the instance is the episode's seed (``--seed 0 --repeats n`` gives AndroidWorld's instances 0
to n-1). An episode that ended in an error has ``is_successful`` and ``episode_length`` NaN
and the error in ``exception_info``, as AndroidWorld records an episode that raised, so its
table counts it among the failed trials and out of the success rate.

The files hold plain data only (strings, numbers, a datetime, lists, dicts); a pickle is what
AndroidWorld's reader takes.
"""

from __future__ import annotations

import gzip
import math
import pickle
from datetime import datetime
from pathlib import Path
from typing import Any

from gui_gym.records import atomic_write, read_result, read_trajectory

ANDROIDWORLD_DIR = "androidworld"
ANDROIDWORLD_ENV_IDS = frozenset({"GUI/Android-v0"})
"""The env ids whose runs get the layout."""


def episode_file(results_root: str | Path, task_id: str, seed: int) -> Path:
    return Path(results_root) / ANDROIDWORLD_DIR / f"{task_id}_{seed}.pkl.gz"


def write_from_episode(episode_dir: str | Path, results_root: str | Path, agent_name: str) -> Path | None:
    """Write the recorded episode in `episode_dir` as AndroidWorld's checkpoint file of its task
    instance under `results_root`; the file, or None when the episode has no result yet."""
    episode_dir = Path(episode_dir)
    result = read_result(episode_dir)
    if result is None:
        return None
    steps = [r for r in read_trajectory(episode_dir) if r.get("event") != "reset"]
    failed = bool(result.error)
    episode = {
        "goal": result.instruction,
        "task_template": result.task_id,
        "instance_id": result.seed or 0,
        "episode_data": math.nan if failed else {"step_number": [r.get("step") for r in steps],
                                                  "action_output": [r.get("action") for r in steps],
                                                  "response": [r.get("response") for r in steps]},
        "is_successful": math.nan if failed else float(result.score if result.score is not None else 0.0),
        "run_time": float(result.timings.get("total_s") or 0.0),
        "finish_dtime": _datetime(result.finished_at),
        "episode_length": math.nan if failed else len(steps),
        "exception_info": result.error,
        "aux_data": None,
        "seed": result.instance_seed,
        "agent_name": agent_name,
    }
    path = episode_file(results_root, result.task_id, result.seed or 0)
    atomic_write(path, gzip.compress(pickle.dumps([episode]), compresslevel=5))
    return path


def _datetime(iso: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(iso))
    except ValueError:
        return None
