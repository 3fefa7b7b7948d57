"""Device state over adb as tasks read it: settings, providers, pulled SQLite, files."""

from __future__ import annotations

import pytest

from fakes.adb_server import FakeAdbServer
from fakes.virtual_device import ALARMS_DB, VirtualDevice
from gui_gym.backends.android import AndroidBackend, AndroidConfig
from gui_gym.errors import MissingResourceError
from gui_gym.suites.android.device import Device


@pytest.fixture
def phone():
    return VirtualDevice()


@pytest.fixture
def device(phone):
    with FakeAdbServer([phone]) as server:
        backend = AndroidBackend(AndroidConfig(adb_port=server.port))
        backend.start()
        yield Device(backend)


def test_settings_and_radios(device, phone):
    assert device.setting("global", "wifi_on") == "1"
    assert device.setting("secure", "never_set") == "null"
    device.set_radio("wifi", False)
    device.put_setting("system", "screen_brightness", "255")
    assert phone.settings["global"]["wifi_on"] == "0" and phone.settings["system"]["screen_brightness"] == "255"


def test_content_query_rows_keep_commas_inside_values(device, phone):
    phone.contacts += [("Doe, John", "555-0101"), ("Ann", "+1 (555) 0102")]
    assert device.contacts() == [("Doe, John", "555-0101"), ("Ann", "+1 (555) 0102")]
    device.clear_contacts()
    assert device.contacts() == []


def test_sqlite_query_pulls_the_write_ahead_log_too(device, phone):
    assert device.sqlite_query(ALARMS_DB, "SELECT 1") is None  # the app never created it
    phone.add_alarm(6, 45)  # the row sits in alarms.db-wal until a checkpoint
    assert device.sqlite_query(ALARMS_DB, "SELECT hour, minutes, enabled FROM alarm_templates WHERE hour = ?",
                               (6,)) == [(6, 45, 1)]


def test_app_databases_need_root(device, phone):
    phone.root = False
    with pytest.raises(MissingResourceError, match=r"reading .*alarms.db needs adbd running as root: run `adb root`"):
        device.sqlite_query(ALARMS_DB, "SELECT 1")


def test_files(device, phone):
    device.make_dirs("/sdcard/Documents/deep/er")
    device.write_file("/sdcard/Documents/deep/a.txt", b"x")
    assert device.file_exists("/storage/emulated/0/Documents/deep/a.txt")
    device.media_scan("/sdcard/Documents/deep")
    device.clear_folder("/sdcard/Documents")
    assert device.backend.list_dir("/sdcard/Documents") == [] and phone.host_path("/sdcard/Documents").is_dir()


def test_apps_and_screen(device, phone):
    device.backend.open_app("Clock")
    assert device.foreground() == ("com.google.android.deskclock", "com.android.deskclock.DeskClock")
    assert any(e.text == "Stopwatch" for e in device.ui_elements())
    device.force_stop("com.google.android.deskclock")
    assert device.foreground()[0] == "com.google.android.apps.nexuslauncher"


def test_device_needs_an_android_backend():
    with pytest.raises(TypeError, match="Android tasks need an AndroidBackend, received str"):
        Device("not a backend")
