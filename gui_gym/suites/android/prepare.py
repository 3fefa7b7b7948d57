"""Preparing a device for AndroidWorld's tasks: its APKs installed, each app's first run done,
each app's data saved as the snapshot tasks restore (AndroidWorld's ``setup_device``).

`prepare_device` installs the apps missing from the device from a folder of AndroidWorld's
APKs (named as AndroidWorld publishes them, see `apps.APPS`; `download_apks` fetches them),
then for each app clears its data, grants its runtime permissions, opens it and taps through
its first-run screens (the buttons AndroidWorld's set-up taps; a button that does not appear
is skipped), copies its data files (OsmAnd's offline map), and saves its data snapshot;
Simple SMS Messenger becomes the default SMS app. On an emulator gui-gym started (``provider="emulator"``), the suite does this
when the emulator boots without its ready snapshot and then saves that snapshot, so it
happens once per emulator slot.

``python -m gui_gym.suites.android.prepare --avd NAME --apk-dir DIR [--download]`` prepares an
emulator slot ahead of a run and prints how long each stage took.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
import urllib.request
from pathlib import Path
from typing import Sequence

from gui_gym.errors import ActionExecutionError, MissingResourceError
from gui_gym.suites.android.apps import APK_BASE_URL, APP_DATA_FILES, APPS, App, installed_apps
from gui_gym.suites.android.device import Device

logger = logging.getLogger(__name__)
APK_DIR_ENV = "GUI_GYM_ANDROIDWORLD_APKS"
FIRST_RUN_TAPS: dict[str, tuple[str, ...]] = {
    "camera": ("NEXT",),
    "chrome": ("Accept & continue", "No thanks", "No thanks"),
    "contacts": ("Skip", "Don't allow"),
    "markor": ("NEXT", "NEXT", "NEXT", "NEXT", "DONE", "OK", "Allow access to manage all files"),
    "clipper": ("Continue", "OK"),
    "simple gallery pro": ("All files", "Allow access to manage all files"),
    "simple sms messenger": ("SMS Messenger", "Set as default"),
    "pro expense": ("NEXT", "CONTINUE"),
    "osmand": ("SKIP DOWNLOAD",),
    "open tracks sports tracker": ("Allow",),
    "vlc": ("Skip", "GRANT PERMISSION", "OK", "Allow access to manage all files"),
}
"""The first-run screens' buttons AndroidWorld taps, in order."""
SMS_APP = "com.simplemobiletools.smsmessenger"
VLC_VIDEOS = "/storage/emulated/0/VLCVideos"


def apk_dir(explicit: str | os.PathLike | None) -> Path | None:
    value = explicit if explicit is not None else os.environ.get(APK_DIR_ENV)
    return Path(value).expanduser() if value else None


def download_apks(folder: str | os.PathLike, base_url: str = APK_BASE_URL, timeout_s: float = 120.0) -> list[Path]:
    """Fetch the APKs and app data files missing from `folder` (AndroidWorld's published
    ones); returns the files fetched. Each is written under a temporary name, then renamed."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    wanted = [a.apk for a in installed_apps()] + [name for files in APP_DATA_FILES.values() for name, _ in files]
    fetched = []
    for name in wanted:
        target = folder / name
        if target.is_file() and target.stat().st_size > 0:
            continue
        partial = folder / f".{name}.part"
        with urllib.request.urlopen(base_url + name, timeout=timeout_s) as response, open(partial, "wb") as out:
            while chunk := response.read(1 << 20):
                out.write(chunk)
        partial.rename(target)
        fetched.append(target)
        logger.info("fetched %s", name)
    return fetched


def install_apps(device: Device, folder: Path | None, apps: Sequence[App] = installed_apps()) -> list[str]:
    """Install the apps the device lacks from `folder`; returns the packages installed."""
    present = set(device.shell("pm", "list", "packages").replace("package:", "").split())
    missing = [a for a in apps if a.package not in present]
    if not missing:
        return []
    if folder is None:
        raise MissingResourceError(
            f"the device lacks {sorted(a.name for a in missing)}; give apk_dir= (or ${APK_DIR_ENV}) with AndroidWorld's "
            f"APKs, fetched by `python -m gui_gym.suites.android.prepare --download --apk-dir DIR`")
    absent = [a.apk for a in missing if not (folder / a.apk).is_file()]
    if absent:
        raise MissingResourceError(f"{folder} lacks {absent}; fetch them with `python -m gui_gym.suites.android.prepare "
                                   f"--download --apk-dir {folder}` (from {APK_BASE_URL})")
    installed = []
    for app in missing:
        remote = f"/data/local/tmp/{app.apk}"
        device.write_file(remote, (folder / app.apk).read_bytes())
        output = device.shell("pm", "install", "-r", "-g", remote)
        device.run("rm", "-f", remote)
        if "Success" not in output:
            raise ActionExecutionError(f"installing {app.apk} failed: {output.strip()}")
        installed.append(app.package)
    return installed


def copy_app_data(device: Device, app: App, folder: Path | None) -> None:
    """The app's data files (OsmAnd's map) from the APK folder, after its first run (which
    clears its data)."""
    for name, device_folder in APP_DATA_FILES.get(app.name, ()):
        target = f"{device_folder.rstrip('/')}/{name}"
        if folder is None or not (folder / name).is_file():
            logger.warning("%s's data file %s is not in the APK folder; its tasks will lack it", app.name, name)
            continue
        device.write_file(target, (folder / name).read_bytes(), world_writable=True)


def first_run(device: Device, app: App, tap_timeout_s: float) -> None:
    """Clear the app's data, grant its permissions, open it, tap through its first screens."""
    device.clear_app_data(app.package)
    for permission in app.permissions:
        device.run("pm", "grant", app.package, permission)
    if app.name == "simple sms messenger":
        device.put_setting("secure", "sms_default_application", SMS_APP)
    if app.name == "vlc":
        device.make_dirs(VLC_VIDEOS)
    device.launch(app.name)
    for label in FIRST_RUN_TAPS.get(app.name, ()):
        try:
            device.find_and_click(label, tap_timeout_s)
        except ActionExecutionError:
            logger.info("%s: no %r button on its first screens; skipped", app.name, label)
    device.close_app(app.name)


def prepare_device(device: Device, folder: str | os.PathLike | None = None, tap_timeout_s: float = 5.0) -> dict[str, float]:
    """Everything AndroidWorld's tasks expect of a device; seconds per stage."""
    timings: dict[str, float] = {}
    started = time.monotonic()
    device.ensure_root()
    device.go_home()
    packages = apk_dir(folder)
    install_apps(device, packages)
    timings["install_s"] = time.monotonic() - started
    started = time.monotonic()
    for app in APPS:
        first_run(device, app, tap_timeout_s)
        copy_app_data(device, app, packages)
        device.save_app_snapshot(app.name)
    device.go_home()
    timings["first_run_s"] = time.monotonic() - started
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--avd", help="the AVD (default $GUI_GYM_AVD)")
    parser.add_argument("--sdk-root", help="the Android SDK (default $ANDROID_SDK_ROOT)")
    parser.add_argument("--apk-dir", help=f"folder of AndroidWorld's APKs (default ${APK_DIR_ENV})")
    parser.add_argument("--download", action="store_true", help="fetch the APKs missing from --apk-dir first")
    parser.add_argument("--download-only", action="store_true", help="only fetch the APKs")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    folder = apk_dir(args.apk_dir)
    if args.download or args.download_only:
        if folder is None:
            parser.error("--download needs --apk-dir (or $GUI_GYM_ANDROIDWORLD_APKS)")
        print(f"fetched {len(download_apks(folder))} file(s) into {folder}")
        if args.download_only:
            return 0
    from gui_gym.backends.android.backend import AndroidConfig
    from gui_gym.backends.android.emulator import EmulatorBackend, EmulatorConfig

    backend = EmulatorBackend(AndroidConfig(), EmulatorConfig(avd=args.avd, sdk_root=args.sdk_root))
    try:
        backend.start()
        print(f"emulator {backend.emulator.serial} up in {backend.emulator.start_s:.1f} s "
              f"({'cold boot' if backend.fresh else 'from its ready snapshot'})")
        timings = prepare_device(Device(backend), folder)
        started = time.monotonic()
        backend.save_ready_snapshot()
        timings["snapshot_s"] = time.monotonic() - started
        print(" ".join(f"{k}={v:.1f}" for k, v in timings.items()))
    finally:
        backend.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
