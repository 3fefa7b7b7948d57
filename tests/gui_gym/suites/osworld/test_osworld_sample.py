"""The bundled OSWorld sample on the local provider, end to end (one env for the module):
every task scores 1 with its oracle and 0 untouched (an idle agent's DONE), one test per
task so each has its own time limit; the host's files are untouched, and no process
outlives close()."""

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
SAMPLE = Path(gui_gym.__file__).parent / "suites" / "osworld" / "sample" / "examples"
SAMPLE_IDS = sorted(p.stem for p in SAMPLE.rglob("*.json"))


@pytest.fixture(scope="module")
def preexisting() -> set[psutil.Process]:
    """This process's children before the env exists (e.g. multiprocessing's resource tracker)."""
    return set(psutil.Process().children(recursive=True))


@pytest.fixture(scope="module")
def env(preexisting):
    env = gym.make("GUI/OSWorld-v0", provider="local", tasks="sample", screen_size=(1280, 800), shell="openbox")
    yield env
    env.close()


def host_listing() -> dict[str, list[str]]:
    folders = [Path("/home"), Path.home(), Path("/home/user")]
    return {str(f): sorted(os.listdir(f)) for f in folders if f.is_dir()}


@pytest.fixture(scope="module")
def host_before():
    before = host_listing()
    yield before
    assert host_listing() == before
    assert not any((Path(folder) / name).exists() for folder in before for name in WRITTEN)


def test_the_sample_is_the_envs_task_list(env):
    assert sorted(env.unwrapped.task_ids) == SAMPLE_IDS and len(SAMPLE_IDS) >= 15


@pytest.mark.slow
@pytest.mark.parametrize("task_id", SAMPLE_IDS)
def test_the_oracle_scores_one_and_the_untouched_desktop_zero(env, host_before, task_id):
    """Each on a desktop of its own: an evaluation ends what it scores (it stops the agent's
    leftover processes for good, docs/security.md), so the oracle plays a fresh reset."""
    base = env.unwrapped
    obs, info = env.reset(options={"task_id": task_id})
    assert obs["screenshot"].shape == (800, 1280, 3) and info["task_id"] == task_id
    untouched = base.task.evaluate(base.backend, Episode(task_id, 0, [Action.done()]))
    assert untouched == 0.0, base.task.last_evaluation.details
    env.reset(options={"task_id": task_id})
    terminated = truncated = False
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step(base.oracle_action())
        assert info["action_error"] is None and info["infra_error"] is None, info
    assert reward == 1.0, base.task.last_evaluation.details


@pytest.mark.slow
def test_no_process_outlives_close(env, preexisting):
    env.reset(options={"task_id": "sample-calc-infeasible-macro-store"})
    started = [p for p in psutil.Process().children(recursive=True) if p not in preexisting]
    assert {"Xvfb", "openbox", "dbus-daemon"} <= {p.name() for p in started}
    assert any("soffice" in p.name() for p in started)
    env.close()
    assert not [p for p in started if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    env.close()
