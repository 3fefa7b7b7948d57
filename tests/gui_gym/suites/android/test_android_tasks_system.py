"""System tasks set up and checked on the virtual phone as AndroidWorld does: settings, the
clipboard through Clipper, the focused app, composite scores (the mean of their parts)."""

from __future__ import annotations

import pytest

from tests.fakes.android_world import fake_phone
from gui_gym.suites.android.tasks import TASKS

TOGGLES = [name for name in TASKS if name.startswith(("SystemWifi", "SystemBluetooth", "SystemBrightness"))]


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


def flip(phone, task_id: str, towards_goal: bool) -> None:
    """Write the setting an agent would change, towards the goal or away from it."""
    cls = TASKS[task_id]
    goal = cls.target if towards_goal else {"on": "off", "off": "on", "max": "min", "min": "max"}[cls.target]
    if "Brightness" in task_id:
        phone.device.settings["system"]["screen_brightness"] = {"max": "255", "min": "1"}[goal]
    else:
        phone.device.settings["global"]["wifi_on" if "Wifi" in task_id else "bluetooth_on"] = "1" if goal == "on" else "0"


@pytest.mark.parametrize("task_id", TOGGLES)
def test_toggles(phone, task_id):
    task = phone.task(task_id)
    verify = task_id.endswith("Verify")  # the device starts in the goal state
    assert phone.score(task) == float(verify)
    flip(phone, task_id, towards_goal=not verify)
    assert phone.score(task) == float(not verify)
    task.teardown(phone.backend)


def test_wifi_reads_2_as_on_with_airplane_mode(phone):
    task = phone.task("SystemWifiTurnOn")
    phone.device.settings["global"]["wifi_on"] = "2"
    assert phone.score(task) == 1.0


def test_clipboard_is_read_through_clipper(phone):
    task = phone.task("SystemCopyToClipboard", seed=4)
    assert phone.device.clipboard == "~~~RESET~~~" and phone.score(task) == 0.0
    phone.device.clipboard = task.params["clipboard_content"].lower() + "."  # fuzzy: case and one character
    assert phone.score(task) == 1.0
    task.teardown(phone.backend)
    assert phone.device.clipboard == "~~~RESET~~~"


def test_open_app_and_its_composite(phone):
    seed = next(s for s in range(50) if TASKS["OpenAppTaskEval"].from_seed(s).params["app_name"] == "contacts")
    task = phone.task("OpenAppTaskEval", seed)
    assert phone.score(task) == 0.0
    phone.device.show("com.google.android.contacts")
    assert phone.score(task) == 1.0

    task = phone.task("TurnOnWifiAndOpenApp", seed)
    assert phone.device.settings["global"]["wifi_on"] == "0" and phone.score(task) == 0.0
    phone.device.settings["global"]["wifi_on"] = "1"
    assert phone.score(task) == 0.5
    phone.device.show("com.google.android.contacts")
    assert phone.score(task) == 1.0
    task.teardown(phone.backend)


def test_wifi_off_and_bluetooth_on_score_half_each(phone):
    task = phone.task("TurnOffWifiAndTurnOnBluetooth")
    assert phone.score(task) == 0.0
    phone.device.settings["global"]["wifi_on"] = "0"
    assert phone.score(task) == 0.5
    phone.device.settings["global"]["bluetooth_on"] = "1"
    assert phone.score(task) == 1.0


def test_every_task_starts_at_androidworlds_time(phone):
    task = phone.task("SystemBrightnessMax")
    assert abs(phone.device.now() - task.device_time.timestamp()) < 5
    assert phone.device.settings["system"]["time_12_24"] == "24" and phone.device.timezone == "UTC"
    assert phone.device.foreground == "com.google.android.apps.nexuslauncher"  # the agent starts at home


def test_only_a_finished_episode_scores(phone):
    from gui_gym.actions import Action
    from gui_gym.suites.base import Episode

    task = phone.task("SystemWifiTurnOff")
    phone.device.settings["global"]["wifi_on"] = "0"
    ran_out = Episode(task.task_id, 0, [Action.click(5, 5)])  # the step budget ran out after a tap
    assert task.evaluate(phone.backend, ran_out) == 0.0 and phone.score(task) == 1.0
