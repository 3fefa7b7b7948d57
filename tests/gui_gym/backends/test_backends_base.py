"""The step deadline of `gui_gym.backends.base` on every real backend: a call that hangs (a
page whose script spins, a frozen X server, a device that never answers) is aborted after
``step_timeout_s``, fails as an infrastructure error, and the backend is relaunched and works
at the next reset, leaving no process behind."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401 - registers the GUI/* ids
from tests.fakes.adb_server import FakeAdbServer
from tests.fakes.virtual_device import VirtualDevice
from gui_gym import Action
from gui_gym.backends.android.backend import AndroidBackend, AndroidConfig
from gui_gym.errors import InfraError
from gui_gym.runtime.processes import descendants, running
from gui_gym.runtime.waiting import wait_until

DEADLINE_S = 5.0
"""Short for a test, long enough for a loaded machine to take a screenshot."""
HANG_BOUND_S = 40.0
"""Generous: the deadline plus the abort must return well within this; a hang never does."""


def test_a_spinning_page_truncates_the_step_and_the_browser_is_relaunched():
    before = set(descendants(os.getpid()))
    env = gym.make("GUI/Demo-v0", step_timeout_s=DEADLINE_S)
    try:
        env.reset(seed=0, options={"task_id": "demo.press-button"})
        backend = env.unwrapped.backend
        old_browser = backend.browser_pid
        assert old_browser is not None and running(old_browser)
        backend.evaluate("document.addEventListener('mousedown', () => { for (;;) {} })")  # the click never returns
        started = time.monotonic()
        _obs, reward, terminated, truncated, info = env.step(Action.click(10, 10))
        assert time.monotonic() - started < HANG_BOUND_S
        assert truncated and not terminated and reward == 0.0 and info["action_error"] is None
        assert info["infra_error"] == ("BrowserBackend: a click action did not finish within step_timeout_s=5 s; "
                                       "the backend was aborted and is relaunched at the next reset")
        assert backend.aborts == 1 and not backend.healthy
        assert wait_until(lambda: not running(old_browser), timeout_s=10)
        env.reset(seed=0, options={"task_id": "demo.press-button"})
        assert backend.relaunches == 1 and backend.browser_pid != old_browser
        _obs, reward, terminated, _truncated, info = env.step(env.unwrapped.oracle_action())
        _obs, reward, terminated, _truncated, info = env.step(Action.done())
        assert terminated and info["success"] and info["infra_error"] is None
        driver = backend._driver
    finally:
        env.close()
    assert driver.users == 0, "the closed env still uses its Playwright driver"
    # the driver itself is the test module's, held between its envs (tests/conftest.py)
    assert wait_until(lambda: set(descendants(os.getpid())) - {driver.pid} <= before, timeout_s=10), \
        "the env left processes behind"


def _xvfb(sandbox_pid: int) -> int:
    return next(pid for pid in descendants(sandbox_pid)
                if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"Xvfb"))


@pytest.mark.slow
def test_a_frozen_x_server_is_cut_off_at_the_deadline_and_the_desktop_relaunched():
    from gui_gym.backends.desktop import DesktopBackend

    desktop = DesktopBackend(screen_size=(640, 480), accessibility=False, shell="openbox", step_timeout_s=DEADLINE_S)
    try:
        desktop.start()
        desktop.new_episode()
        old_sandbox = desktop.provider.sandbox.pid
        os.kill(_xvfb(old_sandbox), signal.SIGSTOP)  # the display stops answering; input calls wait forever
        started = time.monotonic()
        with pytest.raises(InfraError, match=r"DesktopBackend: a click action did not finish within step_timeout_s=5 s"):
            desktop.execute(Action.click(10, 10))
        assert time.monotonic() - started < HANG_BOUND_S and not desktop.healthy
        desktop.new_episode()
        assert desktop.relaunches == 1 and desktop.provider.sandbox.pid != old_sandbox and not running(old_sandbox)
        desktop.execute(Action.click(20, 20))
        assert desktop.observe().screenshot.shape == (480, 640, 3)
    finally:
        desktop.close()


class _HangingPhone(VirtualDevice):
    """A phone whose first tap never finishes, until the test lets it."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def tap(self, x: int, y: int) -> None:
        if not self.release.is_set():
            self.release.wait()
        super().tap(x, y)


def test_a_device_that_never_answers_is_cut_off_at_the_deadline_and_reconnected():
    phone = _HangingPhone()
    with FakeAdbServer([phone]) as server:
        backend = AndroidBackend(AndroidConfig(adb_port=server.port, settle_timeout_s=1.0, step_timeout_s=DEADLINE_S,
                                               command_timeout_s=60.0))
        try:
            backend.start()
            backend.new_episode()
            started = time.monotonic()
            with pytest.raises(InfraError, match=r"AndroidBackend: a click action did not finish within step_timeout_s=5 s"):
                backend.execute(Action.click(100, 100))
            assert time.monotonic() - started < HANG_BOUND_S, "the abort did not beat the 60 s adb timeout"
            phone.release.set()
            backend.new_episode()
            assert backend.relaunches == 1 and backend.healthy
            backend.execute(Action.click(100, 100))
            assert phone.events[-1] == ("tap", 100, 100)
        finally:
            phone.release.set()
            backend.close()
