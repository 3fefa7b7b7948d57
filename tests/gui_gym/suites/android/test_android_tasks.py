"""Android tasks solved end to end through the env and the screen (taps, typing, swipes on
the virtual phone's apps), success read from device state over adb. The per-app test files
(test_android_tasks_<app>.py) check every task's set-up and check; these drive a few through
the agent's path."""

from __future__ import annotations

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401  (registers the ids)
from tests.fakes.adb_server import FakeAdbServer
from tests.fakes.virtual_device import VirtualDevice
from gui_gym.actions import Action
from gui_gym.suites.android.tasks import TASKS
from gui_gym.suites.android.tasks.system import OpenAppTaskEval

pytestmark = pytest.mark.slow  # drives apps through the screen, settling after every action


@pytest.fixture(scope="module")
def server():
    with FakeAdbServer([VirtualDevice()]) as s:
        yield s


@pytest.fixture(scope="module")
def env(server):
    e = gym.make("GUI/Android-v0", adb_port=server.port, settle_timeout_s=5.0)
    yield e
    e.close()


def step(env, action) -> tuple[float, bool]:
    _obs, reward, terminated, truncated, info = env.step(action)
    assert info["action_error"] is None, info["action_error"]
    return reward, terminated or truncated


def index(env, label: str) -> int:
    elements = env.unwrapped.backend.elements()
    return next(i for i, e in enumerate(elements) if label in (e.text, e.content_description, e.hint_text))


def tap(env, label: str) -> None:
    step(env, {"action_type": "click", "index": index(env, label)})


def enter(env, field: str, text: str) -> None:
    step(env, {"action_type": "input_text", "text": text, "index": index(env, field)})


def finish(env) -> float:
    reward, done = step(env, {"action_type": "status", "goal_status": "complete"})
    assert done
    return reward


def start(env, task_id: str, seed: int = 0):
    _obs, info = env.reset(options={"task_id": task_id, "instance_seed": seed})
    return env.unwrapped.task


def toggle(env, label: str) -> None:
    step(env, {"action_type": "open_app", "app_name": "Settings"})
    tap(env, label)


def slide(env, to_x: int) -> None:
    step(env, {"action_type": "open_app", "app_name": "Settings"})
    bar = env.unwrapped.backend.elements()[index(env, "Brightness level") + 2].bbox_pixels
    step(env, Action.drag(*bar.center, to_x, bar.center[1]))


def change(env, task_id: str, towards_goal: bool) -> None:
    """Flip the task's setting through the Settings screen, towards its goal or away from it."""
    if "Brightness" in task_id:
        slide(env, 359 if (TASKS[task_id].target == "max") == towards_goal else 0)
    else:
        toggle(env, "Wi-Fi" if "Wifi" in task_id else "Bluetooth")


@pytest.mark.parametrize("task_id", ["SystemWifiTurnOff", "SystemBluetoothTurnOnVerify", "SystemBrightnessMax"])
def test_settings_toggles(env, task_id):
    verify = task_id.endswith("Verify")  # the device starts in the goal state
    start(env, task_id)
    assert finish(env) == float(verify)
    start(env, task_id)
    change(env, task_id, towards_goal=not verify)
    assert finish(env) == float(not verify)


def test_two_settings_score_half_each(env):
    start(env, "TurnOffWifiAndTurnOnBluetooth")
    toggle(env, "Wi-Fi")
    assert finish(env) == 0.5
    start(env, "TurnOffWifiAndTurnOnBluetooth")
    toggle(env, "Wi-Fi")
    tap(env, "Bluetooth")
    assert finish(env) == 1.0


def test_open_app(env):
    seed = next(s for s in range(100) if OpenAppTaskEval.from_seed(s).params["app_name"] == "clock")
    start(env, "OpenAppTaskEval", seed)
    step(env, {"action_type": "open_app", "app_name": "Clock"})
    assert finish(env) == 1.0
    start(env, "OpenAppTaskEval", seed)
    step(env, {"action_type": "open_app", "app_name": "Contacts"})
    assert finish(env) == 0.0


@pytest.mark.parametrize("right_number", [True])
def test_add_contact(env, server, right_number):
    server.devices["emulator-5554"].contacts.append(("Old Entry", "1"))  # cleared by the task's set-up
    task = start(env, "ContactsAddContact", seed=3)
    first, last = task.params["name"].split()
    step(env, {"action_type": "open_app", "app_name": "Contacts"})
    tap(env, "Create contact")
    enter(env, "First name", first)
    enter(env, "Last name", last)
    enter(env, "Phone", task.params["number"] if right_number else "555-0000")
    tap(env, "Save")
    assert finish(env) == float(right_number)
    assert len(server.devices["emulator-5554"].contacts) == 1


@pytest.mark.parametrize("delete_the_right_one", [True, False])
def test_delete_file(env, server, delete_the_right_one):
    phone = server.devices["emulator-5554"]
    for seed in range(20):  # a folder short enough that the file manager shows every file without scrolling
        task = start(env, "FilesDeleteFile", seed=seed)
        folder = phone.host_path(f"/sdcard/{task.params['subfolder']}")
        everything = {p.name for p in folder.iterdir()}
        if len(everything) <= 10:
            break
    target = task.params["file_name"] if delete_the_right_one else sorted(everything - {task.params["file_name"]})[0]
    step(env, {"action_type": "open_app", "app_name": "Files"})
    tap(env, task.params["subfolder"])
    step(env, {"action_type": "long_press", "index": index(env, target)})
    tap(env, "Delete")
    assert finish(env) == float(delete_the_right_one)
    assert {p.name for p in folder.iterdir()} == everything - {target}
    env.reset(options={"task_id": "SystemWifiTurnOn"})  # the next episode tears this one down
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("start_it", [False, True])
def test_timer_entry(env, start_it):
    task = start(env, "ClockTimerEntry", seed=2)
    digits = f"{task.params['hours']:02d}{task.params['minutes']:02d}{task.params['seconds']:02d}".lstrip("0")
    step(env, {"action_type": "open_app", "app_name": "Clock"})
    tap(env, "Timer")
    for digit in digits:
        tap(env, digit)
    if start_it:  # the goal says not to
        tap(env, "Start")
    assert finish(env) == float(not start_it)


@pytest.mark.parametrize("task_id, press_start, expected", [
    ("ClockStopWatchRunning", True, 1.0), ("ClockStopWatchPausedVerify", True, 0.0),
])
def test_stopwatch(env, task_id, press_start, expected):
    start(env, task_id)
    step(env, {"action_type": "open_app", "app_name": "Clock"})
    tap(env, "Stopwatch")
    if press_start:
        tap(env, "Start")
    assert finish(env) == expected


def test_step_budget_is_ten_times_complexity(env):
    assert start(env, "FilesDeleteFile").max_steps == 22  # complexity 2.2
    task = start(env, "SystemWifiTurnOn")
    assert task.max_steps == 10
    for _ in range(9):
        _obs, _r, terminated, truncated, _info = env.step({"action_type": "navigate_home"})
        assert not truncated
    _obs, reward, terminated, truncated, info = env.step({"action_type": "navigate_home"})
    assert truncated and not terminated and reward == 0.0 and info["success"] is False
