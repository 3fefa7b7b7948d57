"""Emulators gui-gym starts itself, against a stand-in ``emulator`` (`fakes.emulator`: a virtual
phone behind the emulator console and adbd's transport protocol) and the real ``adb`` server
binary (the one adbutils ships), in a stand-in SDK folder: slots and ports per instance,
readiness waited for, snapshots saved and loaded through the console, processes stopped at
close, and a whole env run on it."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import adbutils
import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401
from gui_gym.backends.android.backend import AndroidConfig
from gui_gym.backends.android.emulator import Emulator, EmulatorBackend, EmulatorConfig
from gui_gym.errors import MissingResourceError, SnapshotError
from gui_gym.runtime.loopback import free_port, port_free
from gui_gym.suites.android.apps import installed_apps

pytestmark = pytest.mark.slow  # starts emulator processes and adb servers
REPO = Path(__file__).resolve().parents[4]
BOOT_S = 0.6


def _even_free_base() -> int:
    for _ in range(50):
        base = free_port() + 1
        base += base % 2
        if all(port_free(base + n) for n in range(8)):
            return base
    raise RuntimeError("no free port range")


@pytest.fixture
def sdk(tmp_path, monkeypatch):
    """A stand-in SDK (emulator script, the real adb), an AVD and a HOME of its own."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    root = tmp_path / "sdk"
    (root / "emulator").mkdir(parents=True)
    (root / "platform-tools").mkdir()
    script = root / "emulator" / "emulator"
    script.write_text(f"#!/bin/sh\nPYTHONPATH={REPO} exec {sys.executable} -m tests.fakes.emulator \"$@\"\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    (root / "platform-tools" / "adb").symlink_to(Path(adbutils.__file__).parent / "binaries" / "adb")
    avd_home = tmp_path / "avd"
    (avd_home / "Pixel.avd").mkdir(parents=True)
    (avd_home / "Pixel.ini").write_text(f"path={avd_home / 'Pixel.avd'}\n")
    (avd_home / "Pixel.avd" / "config.ini").write_text("hw.lcd.width=360\nhw.lcd.height=800\nhw.device.name=pixel_6\n")
    return EmulatorConfig(avd="Pixel", sdk_root=str(root), avd_home=str(avd_home), instances_dir=str(tmp_path / "inst"),
                          first_console_port=_even_free_base(), env={"GUI_GYM_FAKE_EMULATOR_BOOT_S": str(BOOT_S)},
                          boot_timeout_s=60, stop_timeout_s=10)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


def test_an_emulator_per_backend_with_its_own_slot_ports_and_server(sdk):
    first, second = EmulatorBackend(AndroidConfig(), sdk), EmulatorBackend(AndroidConfig(), sdk)
    try:
        started = time.monotonic()
        first.start()
        assert time.monotonic() - started >= BOOT_S  # waited for the boot, not just for the port
        second.start()
        a, b = first.emulator, second.emulator
        assert (a.slot, b.slot) == (0, 1) and b.console_port == a.console_port + 2 and a.adb_port == a.console_port + 1
        assert a.serial == f"emulator-{a.console_port}" and a.server_port != b.server_port
        assert first.fresh and first.screen_size == (360, 800)
        assert first.shell(["getprop", "sys.boot_completed"]).stdout.strip() == "1"
        second.shell(["settings", "put", "global", "wifi_on", "0"])
        assert first.shell(["settings", "get", "global", "wifi_on"]).stdout.strip() == "1"  # separate phones
        pids = [a._process.pid, a._server.pid, b._process.pid, b._server.pid]
        ports = [a.console_port, a.adb_port, b.console_port, b.adb_port]
    finally:
        first.close()
        second.close()
    assert all(gone(pid) for pid in pids) and all(port_free(port) for port in ports)


def test_snapshots_reset_each_episode_and_restart_the_slot_fast(sdk):
    backend = EmulatorBackend(AndroidConfig(), sdk)
    try:
        backend.start()
        cold_s = backend.emulator.start_s
        backend.shell(["settings", "put", "system", "screen_brightness", "17"])
        backend.save_ready_snapshot()
        assert not backend.fresh and backend.emulator.has_snapshot("gui_gym_ready")
        backend.shell(["settings", "put", "system", "screen_brightness", "200"])
        started = time.monotonic()
        backend.new_episode()  # the ready snapshot, loaded through the console
        reset_s = time.monotonic() - started
        assert backend.shell(["settings", "get", "system", "screen_brightness"]).stdout.strip() == "17"
    finally:
        backend.close()
    again = EmulatorBackend(AndroidConfig(), sdk)
    try:
        again.start()  # the same slot boots from its ready snapshot
        assert not again.fresh and again.emulator.slot == 0
        assert again.shell(["settings", "get", "system", "screen_brightness"]).stdout.strip() == "17"
        warm_s = again.emulator.start_s
    finally:
        again.close()
    # Booting from the snapshot (not fresh, its setting kept) is what makes the restart fast; the
    # times are printed, not compared: a loaded machine can swamp the stand-in's 10x shorter boot.
    print(f"\nstand-in emulator: cold start {cold_s:.2f} s, start from snapshot {warm_s:.2f} s, reset {reset_s:.2f} s")


def test_an_env_on_an_emulator_it_starts(sdk, tmp_path):
    apks = tmp_path / "apks"
    apks.mkdir()
    for app in installed_apps():
        (apks / app.apk).write_text(f"package={app.package}\n")  # the stand-in's APKs name their package
    env = gym.make("GUI/Android-v0", provider="emulator", apk_dir=str(apks), first_run_tap_timeout_s=0.05,
                   **{k: getattr(sdk, k) for k in EmulatorConfig.FIELDS})
    try:
        obs, info = env.reset(options={"task_id": "SimpleCalendarEventsOnDate"}, seed=3)
        backend = env.unwrapped.backend
        assert obs["screenshot"].shape == (800, 360, 3) and not backend.fresh  # prepared, then its snapshot saved
        packages = backend.shell(["pm", "list", "packages"]).stdout
        assert all(f"package:{app.package}" in packages for app in installed_apps())
        assert backend.shell(["ls", "/data/data/android_world/snapshots"]).stdout.split()  # app data snapshots
        task = env.unwrapped.task
        titles = ", ".join(i["title"] for i in task.items)
        _obs, reward, terminated, _truncated, info = env.step({"action_type": "answer", "text": titles})
        assert terminated and reward == 1.0
        env.reset(options={"task_id": "SystemWifiTurnOff"})
        _obs, reward, *_ = env.step({"action_type": "status", "goal_status": "complete"})
        assert reward == 0.0
        pid = backend.emulator._process.pid
    finally:
        env.close()
    assert gone(pid)


def test_what_is_missing_is_said(sdk, tmp_path):
    with pytest.raises(MissingResourceError, match=r"no AVD 'Nexus' in .* \(AVDs there: \['Pixel'\]\)"):
        Emulator(EmulatorConfig(**{**sdk.__dict__, "avd": "Nexus"})).start()
    with pytest.raises(MissingResourceError, match=r"emulator/emulator is missing or not executable"):
        Emulator(EmulatorConfig(**{**sdk.__dict__, "sdk_root": str(tmp_path / "nothing")})).start()


def test_an_episode_snapshot_is_the_emulators_own_and_restores_in_a_second_env_on_another_slot(sdk, tmp_path):
    apks = tmp_path / "apks"
    apks.mkdir()
    for app in installed_apps():
        (apks / app.apk).write_text(f"package={app.package}\n")
    kwargs = dict(provider="emulator", apk_dir=str(apks), first_run_tap_timeout_s=0.05,
                  **{k: getattr(sdk, k) for k in EmulatorConfig.FIELDS})
    first, second = gym.make("GUI/Android-v0", **kwargs).unwrapped, gym.make("GUI/Android-v0", **kwargs).unwrapped
    done = {"action_type": "status", "goal_status": "complete"}
    try:
        obs, _ = first.reset(options={"task_id": "SystemWifiTurnOff"}, seed=3)
        before = json.loads(json.dumps(first.snapshot()))
        assert before["kind"] == "native" and before["backend"]["emulator_snapshot"].startswith("gui_gym_episode_")
        first.backend.shell(["svc", "wifi", "disable"])  # what the agent's taps would have done
        first.step({"action_type": "wait"})
        after = json.loads(json.dumps(first.snapshot()))
        assert first.step(done)[1] == 1.0
        first.backend.shell(["svc", "wifi", "enable"])

        obs2, info = first.restore(before)  # the same emulator: wifi on again
        assert np.array_equal(obs2["screenshot"], obs["screenshot"]) and info["step"] == 0
        assert first.step(done)[1] == 0.0
        _obs, info = second.restore(after)  # another slot: the snapshot folder comes with it
        assert second.backend.emulator.slot != first.backend.emulator.slot and info["step"] == 1
        assert second.step(done)[1] == 1.0
        with pytest.raises(SnapshotError, match=r"neither on this emulator nor on slot"):
            second.restore({**after, "backend": {**after["backend"], "emulator_snapshot": "gui_gym_episode_0"}})
    finally:
        first.close()
        second.close()
