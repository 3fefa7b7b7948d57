"""Clock tasks on the virtual phone: the screen state AndroidWorld reads (timer set-up text,
stopwatch buttons) with the Clock in focus, and gui-gym's alarm task from the pulled database."""

from __future__ import annotations

import pytest

from tests.fakes.android_world import fake_phone

CLOCK = "com.google.android.deskclock"


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


def clock_screen(phone, tab: str):
    app = phone.device.show(CLOCK)
    app.tab = tab
    return app


def test_timer_entry_reads_the_set_up_screen(phone):
    task = phone.task("ClockTimerEntry", seed=2)
    assert phone.score(task) == 0.0
    h, m, s = (task.params[k] for k in ("hours", "minutes", "seconds"))
    app = clock_screen(phone, "Timer")
    app.digits = f"{h:02d}{m:02d}{s:02d}".lstrip("0")
    assert phone.score(task) == 1.0
    app.timer_running = True  # started: the set-up screen is gone
    assert phone.score(task) == 0.0
    task.teardown(phone.backend)


@pytest.mark.parametrize("task_id, state, expected", [
    ("ClockStopWatchRunning", "reset", 0.0), ("ClockStopWatchRunning", "running", 1.0),
    ("ClockStopWatchPausedVerify", "running", 0.0), ("ClockStopWatchPausedVerify", "reset", 1.0),
])
def test_stopwatch(phone, task_id, state, expected):
    task = phone.task(task_id)
    assert phone.score(task) == 0.0  # the home screen, not the Clock
    clock_screen(phone, "Stopwatch").stopwatch = state
    assert phone.score(task) == expected


def test_clock_data_is_cleared_before_and_after(phone):
    phone.device.add_alarm(7, 0)
    task = phone.task("ClockAddAlarm", seed=4)
    assert phone.device.alarms() == [] and phone.score(task) == 0.0
    hour, minute = (int(p) for p in task.params["time"].split(":"))
    phone.device.add_alarm(hour, minute)  # in the -wal until a checkpoint
    assert phone.score(task) == 1.0
    task.teardown(phone.backend)
    assert phone.device.alarms() == []
