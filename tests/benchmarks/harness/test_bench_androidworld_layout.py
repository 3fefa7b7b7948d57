"""AndroidWorld's own results layout written from recorded episodes: one checkpoint file per
task instance, read as AndroidWorld's checkpointer and results table read a run's folder, with
the success rate gui-bench reports (errors out of both)."""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import pickle

import pandas as pd

from gui_gym.benchmarks.harness.androidworld_layout import write_from_episode
from gui_gym.benchmarks.harness.outside_layouts import RunLayouts
from gui_gym.benchmarks.harness.results import summarize
from gui_gym.records import read_result

METADATA_FIELDS = ["goal", "task_template", "instance_id", "is_successful", "episode_length", "run_time",
                   "exception_info", "aux_data"]
"""The fields AndroidWorld's ``suite_utils._run_task_suite`` loads from a checkpoint folder."""


def androidworld_table(directory):
    """What AndroidWorld makes of a checkpoint folder, and nothing more: it mirrors
    ``IncrementalCheckpointer.load(fields=...)`` (every ``*.pkl.gz``, gunzipped and unpickled, a
    list of episodes each, cut to the fields) and the aggregation of
    ``suite_utils.process_episodes`` (per ``task_template``: the count and mean of
    ``is_successful``, which leave NaN out, and the episodes with ``exception_info``), from
    google-research/android_world. android_world is not on a package registry, so it is
    mirrored here rather than imported."""
    episodes = []
    for filename in sorted(os.listdir(directory), key=lambda x: x.split("_")[0]):
        if filename.endswith(".pkl.gz"):
            with open(os.path.join(directory, filename), "rb") as f:
                with gzip.open(io.BytesIO(f.read()), "rb") as f_in:
                    group = pickle.load(f_in)
            episodes.extend({field: episode[field] for field in METADATA_FIELDS} for episode in group)
    df = pd.DataFrame(episodes)
    table = df.groupby("task_template", dropna=True).agg({
        "is_successful": ["count", "mean"], "episode_length": "mean", "run_time": "sum",
        "exception_info": [("none_count", lambda x: x.notnull().sum())]})
    table.columns = ["num_complete_trials", "mean_success_rate", "mean_episode_length", "total_runtime_s",
                     "num_fail_trials"]
    return table


def _episode(folder, task, *, steps, score=None, error=None, seed=0):
    folder.mkdir(parents=True)
    records = [{"step": 0, "event": "reset"}] + [{"step": n, "action": '{"action_type": "click", "index": 1}',
                                                   "response": "I tap it"} for n in range(1, steps + 1)]
    (folder / "traj.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / "result.json").write_text(json.dumps({
        "task_id": task, "seed": seed, "instance_seed": 1234, "instruction": f"Do {task}.", "domain": "android",
        "score": score, "success": score == 1.0, "steps": steps, "error": error, "error_kind": "infra" if error else None,
        "timings": {"total_s": 12.5}, "finished_at": "2026-01-02T03:04:05+00:00"}))
    return folder


def test_androidworlds_reading_of_the_checkpoint_folder_gives_gui_benchs_rates(tmp_path):
    episodes = [("SystemWifiTurnOn", 1.0, None, 0), ("SystemWifiTurnOn", 0.0, None, 1),
                ("ContactsAddContact", 1.0, None, 0), ("ContactsAddContact", None, "adb went away", 1)]
    results = []
    for task, score, error, seed in episodes:
        folder = _episode(tmp_path / "tasks" / f"{task}__seed{seed}", task, steps=3, score=score, error=error, seed=seed)
        assert write_from_episode(folder, tmp_path / "run", "my_agent") == \
            tmp_path / "run" / "androidworld" / f"{task}_{seed}.pkl.gz"
        results.append(read_result(folder))
    table = androidworld_table(tmp_path / "run" / "androidworld")
    assert table.loc["SystemWifiTurnOn", "mean_success_rate"] == 0.5
    assert table.loc["ContactsAddContact", "num_complete_trials"] == 1  # the error is no trial
    assert table.loc["ContactsAddContact", "num_fail_trials"] == 1 and table.loc["ContactsAddContact", "mean_success_rate"] == 1.0
    assert table.loc["SystemWifiTurnOn", "mean_episode_length"] == 3 and table.loc["SystemWifiTurnOn", "total_runtime_s"] == 25.0
    summary = summarize(results)["overall"]
    successes = (table["mean_success_rate"] * table["num_complete_trials"]).sum()
    assert successes / table["num_complete_trials"].sum() == summary["success_rate"] == 2 / 3
    with gzip.open(tmp_path / "run" / "androidworld" / "ContactsAddContact_1.pkl.gz") as f:
        failed, = pickle.load(f)
    assert failed["exception_info"] == "adb went away" and math.isnan(failed["is_successful"])
    assert failed["goal"] == "Do ContactsAddContact." and failed["agent_name"] == "my_agent" and failed["seed"] == 1234


def test_only_androidworld_runs_get_the_layout():
    assert RunLayouts.of_run({"env_id": "GUI/Android-v0", "agent": "agents/my_agent.py:Agent"}).androidworld_agent == \
        "my_agent"
    assert RunLayouts.of_run({"env_id": "GUI/AndroidControl-v0", "agent": "oracle"}) == RunLayouts()
