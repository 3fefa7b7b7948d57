"""GUI/Android-v0 end to end over the fake adb server: the env contract, formats, and the
fast, helpful failure when no device is there."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gui_gym  # noqa: F401  (registers the ids)
from tests.fakes.adb_server import FakeAdbServer
from tests.fakes.virtual_device import VirtualDevice
from gui_gym.errors import MissingResourceError
from gui_gym.runtime.loopback import free_port


@pytest.fixture
def server():
    with FakeAdbServer([VirtualDevice()]) as s:
        yield s


def test_importing_gui_gym_and_the_offline_env_needs_no_adbutils():
    code = ("import sys, gymnasium as gym, gui_gym; gym.make('GUI/AndroidControl-v0').reset(seed=0); "
            "assert 'adbutils' not in sys.modules, 'adbutils was imported'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@pytest.mark.timeout(30)
def test_reset_without_a_device_fails_fast_saying_how_to_start_one(monkeypatch):
    monkeypatch.delenv("ANDROID_SERIAL", raising=False)
    env = gym.make("GUI/Android-v0", adb_port=free_port())
    with pytest.raises(MissingResourceError, match=r"emulator -avd <name>.*`adb devices` lists it as `device`"):
        env.reset(seed=0)
    with FakeAdbServer([]) as empty:
        env = gym.make("GUI/Android-v0", adb_port=empty.port, screen_size=(1080, 2400))
        with pytest.raises(MissingResourceError, match=r"no Android device or emulator is ready"):
            env.reset(seed=0)


def test_observations_carry_the_app_and_the_element_tree(server):
    env = gym.make("GUI/Android-v0", adb_port=server.port, observe_a11y=True, render_mode="rgb_array")
    obs, info = env.reset(options={"task_id": "SystemWifiTurnOn"})
    assert set(obs) == {"screenshot", "instruction", "a11y_tree", "app"}
    assert obs["screenshot"].shape == (800, 360, 3) and env.observation_space.contains(obs)
    assert obs["app"] == "com.google.android.apps.nexuslauncher" and obs["instruction"] == "Turn wifi on."
    assert info["task_id"] == "SystemWifiTurnOn" and info["domain"] == "settings"
    obs, *_ = env.step('{"action_type": "open_app", "app_name": "Settings"}')
    assert obs["app"] == "com.android.settings" and '"Wi-Fi"' in obs["a11y_tree"]
    assert np.array_equal(env.render(), obs["screenshot"])
    env.close()
    env.close()


def test_uitars_mobile_actions(server):
    env = gym.make("GUI/Android-v0", adb_port=server.port, action_format="uitars",
                   format_context={"coordinates": "absolute"})
    env.reset(options={"task_id": "SystemWifiTurnOff"})
    for action in ("Action: open_app(app_name='Settings')", "Action: click(start_box='(140,106)')"):
        _obs, _r, _t, _tr, info = env.step(action)
        assert info["action_error"] is None
    assert server.devices["emulator-5554"].settings["global"]["wifi_on"] == "0"
    _obs, *_ = env.step("Action: press_back()")
    obs, *_ = env.step("Action: press_home()")
    assert obs["app"] == "com.google.android.apps.nexuslauncher"
    _obs, reward, terminated, _tr, info = env.step("Action: finished(content='done')")
    assert terminated and reward == 1.0 and info["success"]


def test_bad_outputs_are_action_errors_not_crashes(server):
    env = gym.make("GUI/Android-v0", adb_port=server.port)
    env.reset(options={"task_id": "SystemWifiTurnOn"})
    _obs, reward, terminated, truncated, info = env.step('{"action_type": "click", "index": 42}')
    assert "element index 42 does not exist" in info["action_error"] and not (terminated or truncated)
    _obs, _r, _t, _tr, info = env.step("tap the wifi")
    assert "expected an AndroidWorld action" in info["action_error"]


def test_the_env_passes_gymnasiums_checker(server):
    # check_env resets without a seed too: keep the draw to tasks this adb-only fake can set up
    # (an SMS task needs the emulator console, which the `server` fixture does not run)
    env = gym.make("GUI/Android-v0", adb_port=server.port, settle_timeout_s=1.0,
                   task_ids=["SystemWifiTurnOn", "SystemBluetoothTurnOff", "OpenAppTaskEval"])
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_androidworld_json_actions_run_as_androidworld_executes_them(server):
    """google-research/android_world env/actuation.py:74-110 (input_text with clear_text:
    focus, ctrl+a and delete, type, Enter) and 138-167 (scroll: `if action.index:`, so index
    0 scrolls the whole screen from its centre to its top edge); fields the type does not use
    are ignored, with a note in info["action_warnings"]."""
    phone = next(iter(server.devices.values()))
    env = gym.make("GUI/Android-v0", adb_port=server.port, observe_a11y=True)
    try:
        env.reset(options={"task_id": "ContactsAddContact"})
        env.step({"action_type": "open_app", "app_name": "Contacts"})
        backend = env.unwrapped.backend
        create = next(i for i, e in enumerate(backend.elements()) if e.label == "Create contact")
        env.step({"action_type": "click", "index": str(create)})
        field = next(i for i, e in enumerate(backend.elements()) if e.label == "First name")
        start = len(phone.events)
        _, _, _, _, info = env.step({"action_type": "input_text", "text": "Ann", "index": float(field),
                                     "clear_text": True, "direction": "up"})
        assert info["action_error"] is None and len(info["parsed_action"]) == 4
        assert info["action_warnings"] == ["AndroidWorld: input_text does not use ['direction']; "
                                           "ignored, as AndroidWorld ignores them"]
        events = [e for e in phone.events[start:] if e[0] != "tap"]
        assert events == [("keycombination", "KEYCODE_CTRL_LEFT", "KEYCODE_A"), ("key", "KEYCODE_DEL"),
                          ("text", "Ann"), ("key", "KEYCODE_ENTER")]
        _, _, _, _, info = env.step({"action_type": "scroll", "direction": "down", "index": 0})
        assert phone.events[-1] == ("swipe", 180, 400, 180, 0, 300)
        assert "index 0 scrolls the whole screen" in info["action_warnings"][0]
    finally:
        env.close()
