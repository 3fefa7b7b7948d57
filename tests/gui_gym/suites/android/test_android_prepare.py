"""Preparing a device for AndroidWorld: APKs fetched (from a loopback HTTP server standing in
for AndroidWorld's bucket) and installed, first-run screens tapped through, app snapshots."""

from __future__ import annotations

import functools
import http.server
import threading

import pytest

from tests.fakes.android_world import fake_phone
from gui_gym.errors import MissingResourceError
from gui_gym.suites.android.device import Device
from gui_gym.suites.android.prepare import download_apks, first_run, install_apps, prepare_device
from gui_gym.suites.android.apps import app, installed_apps


@pytest.fixture
def bucket(tmp_path):
    """An HTTP server on loopback holding every APK and data file."""
    files = tmp_path / "bucket"
    files.mkdir()
    for a in installed_apps():
        (files / a.apk).write_text(f"package={a.package}\n")
    (files / "Liechtenstein_europe.obf").write_bytes(b"map")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(files)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_download_fetches_what_is_missing(bucket, tmp_path):
    folder = tmp_path / "apks"
    fetched = download_apks(folder, base_url=bucket)
    assert len(fetched) == len(installed_apps()) + 1 and not list(folder.glob(".*.part"))
    assert download_apks(folder, base_url=bucket) == []  # nothing left to fetch


def test_prepare_installs_taps_and_snapshots(bucket, tmp_path):
    folder = tmp_path / "apks"
    download_apks(folder, base_url=bucket)
    with fake_phone() as phone:
        device = Device(phone.backend)
        phone.device.installed = {"com.android.settings", "com.google.android.deskclock", "com.google.android.contacts",
                                  "com.google.android.documentsui", "com.android.chrome", "com.android.camera2",
                                  "com.google.android.dialer"}
        with pytest.raises(MissingResourceError, match=r"the device lacks .*give apk_dir="):
            install_apps(device, None)
        with pytest.raises(MissingResourceError, match=r"lacks \['net.gsantner.markor_146.apk'"):
            install_apps(device, tmp_path)
        markor = phone.device.apps["net.gsantner.markor"]
        markor.onboarding = ["NEXT", "NEXT", "DONE"]  # its first-run screens
        timings = prepare_device(device, folder, tap_timeout_s=0.05)
        assert set(timings) == {"install_s", "first_run_s"}
        assert all(phone.device.is_installed(a.package) for a in installed_apps())
        assert phone.device.settings["secure"]["sms_default_application"] == "com.simplemobiletools.smsmessenger"
        assert ("com.simplemobiletools.calendar.pro", "android.permission.READ_CALENDAR") in phone.device.granted
        assert phone.device.host_path("/sdcard/Android/data/net.osmand/files/Liechtenstein_europe.obf").read_bytes() == b"map"
        assert phone.device.host_path("/data/data/android_world/snapshots/com.arduia.expense").is_dir()
        assert install_apps(device, folder) == []  # all there now

        assert markor.pending == []  # tapped through
        taps = sum(e[0] == "tap" for e in phone.device.events)
        first_run(device, app("markor"), tap_timeout_s=0.05)  # data cleared: the first-run screens again
        assert markor.pending == [] and sum(e[0] == "tap" for e in phone.device.events) == taps + 3
