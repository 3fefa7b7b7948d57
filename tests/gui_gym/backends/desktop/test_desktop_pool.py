"""The warm desktop pool (`pool.py`) on the local provider, for real: a pooled reset sets a task
up exactly as a cold one does, nothing of an episode reaches the next, and close ends every
process the pool started (checked by host PID)."""

from __future__ import annotations

import os
import threading

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.backends.desktop import DesktopBackend, DesktopConfig
from gui_gym.backends.desktop.pool import SandboxPool
from gui_gym.backends.desktop.sandbox import SandboxSpec
from gui_gym.errors import InfraError
from gui_gym.runtime.processes import descendants, running
from gui_gym.runtime.waiting import wait_until

TASK = "sample-editor-replace-name"
"""Uploads letter.txt and opens it in Mousepad."""
STATE_SCRIPT = ("cd ~ && find . -path ./.cache -prune -o -print | sort; echo ---; cat letter.txt; echo ---; "
                "wmctrl -l -x | awk '{$1=\"\"; $4=\"\"; print}'; echo ---; ps -e -o comm= | sort")
"""What a task's start state is made of: the home's paths, the task's file, the windows (class
and title), the running programs."""


def pids_of(sandbox) -> set[int]:
    return {sandbox.pid, *descendants(sandbox.pid)}


def start_state(env) -> str:
    return env.unwrapped.backend.client.execute(STATE_SCRIPT, shell=True)["output"]


def test_a_pooled_reset_sets_the_task_up_as_a_cold_one():
    env = gym.make("GUI/OSWorld-v0", provider="local", tasks="sample", screen_size=(800, 600), pool_size=1,
                   shell="openbox")
    try:
        cold_obs, _ = env.reset(options={"task_id": TASK})
        cold = start_state(env)
        pool = env.unwrapped.backend.provider.pool
        assert (pool.hits, pool.misses) == (0, 1)  # the first desktop boots while reset waits
        warm_obs, _ = env.reset(options={"task_id": TASK})
        assert (pool.hits, pool.misses) == (1, 1)
        assert start_state(env) == cold and "Mousepad" in cold and "Dear Sam" in cold
        assert (warm_obs["screenshot"] == cold_obs["screenshot"]).all()
    finally:
        env.close()


def test_nothing_of_an_episode_reaches_the_next_and_close_ends_every_process():
    env = gym.make("GUI/OSWorld-v0", provider="local", tasks="sample", screen_size=(800, 600), pool_size=1, shell="openbox",
                   accessibility=False)
    provider = env.unwrapped.backend.provider
    seen: set[int] = set()
    try:
        env.reset(options={"task_id": "sample-os-write-greeting"})
        for episode in range(3):  # three in a row: every episode, not every other one, is fresh
            client = env.unwrapped.backend.client
            client.execute(f"echo {episode} > ~/leak.txt && echo {episode} > /tmp/leak.txt", shell=True)
            client.launch(["sleep", "600"])
            assert wait_until(lambda: client.execute(["pgrep", "-x", "sleep"])["returncode"] == 0, 10)
            used = pids_of(provider.sandbox)
            seen |= used
            env.reset(options={"task_id": "sample-os-write-greeting"})
            client = env.unwrapped.backend.client
            assert client.get_file("/home/user/leak.txt") is None and client.get_file("/tmp/leak.txt") is None
            assert client.execute(["pgrep", "-x", "sleep"])["returncode"] == 1
            assert wait_until(lambda: not any(running(pid) for pid in used), 15)  # stopped in the background
        assert provider.pool.hits == 3
        assert wait_until(lambda: provider.pool.spares, 30)
        seen |= pids_of(provider.sandbox) | {pid for spare in provider.pool.spares for pid in pids_of(spare)}
    finally:
        env.close()
    assert not [pid for pid in seen if running(pid)]
    assert not [t for t in threading.enumerate() if t.name.startswith("gui-gym-desktop-pool")]


def test_pool_size_zero_boots_every_desktop_when_asked():
    backend = DesktopBackend(screen_size=(640, 480), accessibility=False, pool_size=0, shell="openbox")
    try:
        backend.start()
        backend.new_episode()
        first = backend.provider.sandbox
        backend.new_episode()
        pool = backend.provider.pool
        assert backend.provider.sandbox is not first and not first.alive()  # stopped before the reset returned
        assert (pool.hits, pool.misses, pool.spares) == (0, 2, [])
    finally:
        backend.close()
    with pytest.raises(ValueError, match=r"pool_size must be 0 or more, received -1"):
        DesktopConfig(pool_size=-1)
    with pytest.raises(ValueError, match=r"pool size must be 0 or more, received -2"):
        SandboxPool(SandboxSpec(), -2)


def test_a_spare_that_fails_to_boot_is_logged_and_the_take_reports_the_failure(caplog):
    spec = SandboxSpec(width=320, height=240, accessibility=False, shell="openbox", start_timeout_s=0.01)  # no desktop boots this fast
    before = set(descendants(os.getpid()))
    pool = SandboxPool(spec, 1)
    try:
        pool.fill()
        # the 0.01 s deadline runs out at whichever of the sandbox's three start stages comes first
        with pytest.raises(InfraError, match="did not enter its user namespace|bubblewrap did not start|"
                                             "did not start within 0.01 s"):
            pool.take(spec)  # the spare failed (logged), so the take boots one itself, which fails the same way
        assert "a pooled desktop failed to start" in caplog.text and (pool.hits, pool.misses) == (0, 1)
    finally:
        pool.close()
    assert not [pid for pid in set(descendants(os.getpid())) - before if running(pid)]  # both boots cleaned up
    assert not [t for t in threading.enumerate() if t.name.startswith("gui-gym-desktop-pool")]
