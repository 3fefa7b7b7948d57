"""A stand-in for the Android SDK's ``emulator`` executable: a virtual phone behind the real
emulator's console and adb protocols.

``python -m tests.fakes.emulator -avd NAME -ports CONSOLE,ADB [flags]`` reads the AVD from
``$ANDROID_AVD_HOME/NAME.ini``, boots (``sys.boot_completed`` turns 1 after
``$GUI_GYM_FAKE_EMULATOR_BOOT_S`` seconds, a tenth of that from a snapshot), serves the console
on CONSOLE (auth token from ``~/.emulator_console_auth_token``, written if missing) and adbd on
ADB (adb's transport protocol, `adbd_transport`), tells the adb server at
``$ANDROID_ADB_SERVER_PORT`` about itself, and exits on the console's ``kill`` or SIGTERM.
Snapshots live in the AVD folder (``snapshots/<name>``), like the real emulator's; ``-snapshot
NAME`` starts from one, ``-wipe-data`` from a new device. Installed packages start as the
stock ones; ``pm install`` adds the package an APK stand-in names (``package=<name>``).
Flags it does not know make it fail, as the real one does.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import socket
import sys
import threading
import time
from pathlib import Path

from .adbd_transport import AdbdServer
from .emulator_console import ConsoleServer
from .stock_apps import STOCK_APPS
from .virtual_device import VirtualDevice

BOOT_ENV = "GUI_GYM_FAKE_EMULATOR_BOOT_S"


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="emulator", allow_abbrev=False)
    parser.add_argument("-avd", required=True)
    parser.add_argument("-ports")
    parser.add_argument("-port", type=int)
    parser.add_argument("-snapshot")
    parser.add_argument("-gpu")
    parser.add_argument("-memory")
    parser.add_argument("-cores")
    for flag in ("-no-window", "-no-audio", "-no-boot-anim", "-no-snapshot-save", "-no-snapshot-load", "-wipe-data",
                 "-read-only", "-no-snapshot"):
        parser.add_argument(flag, action="store_true")
    return parser.parse_args(argv)


def avd_folder(name: str) -> Path:
    home = Path(os.environ.get("ANDROID_AVD_HOME") or Path.home() / ".android" / "avd")
    pointer = home / f"{name}.ini"
    if not pointer.is_file():
        sys.exit(f"emulator: ERROR: Unknown AVD name [{name}], use -list-avds to see valid list.")
    for line in pointer.read_text().splitlines():
        if line.startswith("path="):
            return Path(line[5:].strip())
    return home / f"{name}.avd"


def console_token() -> str:
    path = Path.home() / ".emulator_console_auth_token"
    if not path.is_file():
        path.write_text(secrets.token_urlsafe(12))
    return path.read_text().strip()


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    folder = avd_folder(args.avd)
    if not (folder / "config.ini").is_file():
        sys.exit(f"emulator: ERROR: {folder}/config.ini is missing")
    console_port, adb_port = (map(int, args.ports.split(","))) if args.ports else (args.port or 5554, (args.port or 5554) + 1)
    device = VirtualDevice(serial=f"emulator-{console_port}")
    device.installed = {app.package for app in STOCK_APPS} | {"com.android.chrome", "com.android.camera2",
                                                              "com.google.android.dialer"}
    snapshots = folder / "snapshots"
    from_snapshot = bool(args.snapshot and not args.no_snapshot_load and (snapshots / args.snapshot).is_dir())
    if from_snapshot:
        device.load_snapshot(snapshots / args.snapshot)
    boot_s = float(os.environ.get(BOOT_ENV, "1.0")) * (0.1 if from_snapshot else 1.0)
    device.boot_completed = False
    stop = threading.Event()
    console = ConsoleServer(device, console_token(), snapshots, port=console_port, avd_name=args.avd, on_kill=stop.set)
    adbd = AdbdServer(device, adb_port)
    console.start()
    adbd.start()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print(f"emulator: {args.avd} on console port {console_port}, adb port {adb_port}"
          f"{' from snapshot ' + args.snapshot if from_snapshot else ''}", flush=True)
    server_port = os.environ.get("ANDROID_ADB_SERVER_PORT")
    if server_port:  # as the emulator does, announce itself to the adb server
        try:
            with socket.create_connection(("127.0.0.1", int(server_port)), timeout=5) as s:
                request = f"host:emulator:{adb_port}".encode()
                s.sendall(b"%04x" % len(request) + request)
        except OSError as exc:
            print(f"emulator: WARNING: could not reach the adb server on {server_port}: {exc}", flush=True)
    if not stop.wait(boot_s):
        with device.lock:
            device.boot_completed = True
        print("emulator: boot completed", flush=True)
    stop.wait()
    adbd.stop()
    console.stop()
    device.close()
    print("emulator: stopped", flush=True)
    time.sleep(0.05)
    return 0


if __name__ == "__main__":
    sys.exit(main())
