"""The bundled OSWorld sample on the local provider, end to end (one env for the module):
every task scores 1 with its oracle and 0 untouched (an idle agent's DONE), the host's
files are untouched, and no process outlives close()."""

from __future__ import annotations

import os
from pathlib import Path

import gymnasium as gym
import psutil
import pytest

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.actions import Action
from gui_gym.suites.base import Episode

WRITTEN = ("notes.txt", "archive", "count.txt", "expr.txt", "todo.txt", "letter.txt", "settings.ini",
           "sales.xlsx", "scores.xlsx", "cities.csv", "report.docx", "essay.docx")
"""Files the sample's tasks write into /home/user."""


@pytest.fixture(scope="module")
def env():
    env = gym.make("GUI/OSWorld-v0", provider="local", tasks="sample", screen_size=(1280, 800))
    yield env
    env.close()


def host_listing() -> dict[str, list[str]]:
    folders = [Path("/home"), Path.home(), Path("/home/user")]
    return {str(f): sorted(os.listdir(f)) for f in folders if f.is_dir()}


@pytest.mark.slow
def test_every_sample_task_scores_one_with_its_oracle_and_zero_untouched(env):
    base = env.unwrapped
    before = host_listing()
    results = {}
    for task_id in base.task_ids:
        obs, info = env.reset(options={"task_id": task_id})
        assert obs["screenshot"].shape == (800, 1280, 3) and info["task_id"] == task_id
        untouched = base.task.evaluate(base.backend, Episode(task_id, 0, [Action.done()]))
        terminated = truncated = False
        while not (terminated or truncated):
            obs, reward, terminated, truncated, info = env.step(base.oracle_action())
            assert info["action_error"] is None and info["infra_error"] is None, info
        results[task_id] = (untouched, reward, base.task.last_evaluation.details)
    wrong = {t: r for t, r in results.items() if r[0] != 0.0 or r[1] != 1.0}
    assert not wrong, wrong
    assert len(results) >= 15
    assert host_listing() == before
    assert not any((Path(folder) / name).exists() for folder in before for name in WRITTEN)


@pytest.mark.slow
def test_no_process_outlives_close(env):
    env.reset(options={"task_id": "sample-calc-infeasible-macro-store"})
    started = psutil.Process().children(recursive=True)
    assert {"Xvfb", "openbox", "dbus-daemon"} <= {p.name() for p in started}
    assert any("soffice" in p.name() for p in started)
    env.close()
    assert not [p for p in started if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    env.close()
