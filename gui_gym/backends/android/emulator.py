"""Android emulators gui-gym starts itself: one per env, with its own ports, AVD copy and adb
server, stopped at ``close()``.

Given an Android SDK (``emulator/emulator``, ``platform-tools/adb``) and an AVD, `Emulator`:

1. takes a free *slot* (a lock file under `instances_dir`, so concurrent workers on one host
   never share one); slot n uses console port ``first_console_port + 2n`` and adb port + 1,
   outside the 5554-5585 range adb servers scan, so no other server attaches to it;
2. keeps a copy of the AVD per slot (its ``config.ini``, in `instances_dir`), since one AVD
   cannot run twice; the copy's disk and snapshots are its own;
3. starts its own adb server (``adb -P <port> nodaemon server``, loopback only, mDNS off) and
   the emulator headless (``-no-window -no-audio -no-boot-anim``, ``-no-snapshot-save``),
   from the copy's ready snapshot when it has one, else wiped, and registers it with that
   server (``host:emulator:<adb port>``);
4. waits for readiness, not a fixed time: the device listed as ``device``,
   ``sys.boot_completed`` = 1, the package manager answering;
5. saves and loads snapshots through the emulator console (``avd snapshot save|load``), and
   stops with the console's ``kill`` (then SIGTERM, then SIGKILL), and the adb server after it.

`EmulatorBackend` is the Android backend on such an emulator: its ``fresh`` flag says whether
it booted without the ready snapshot (the suite then prepares the device and calls
`save_ready_snapshot`), and every new episode loads that snapshot, a reset in seconds.
"""

from __future__ import annotations

import dataclasses
import fcntl
import logging
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gui_gym.backends.android.backend import AndroidBackend, AndroidConfig, _client_class
from gui_gym.backends.android.console import EmulatorConsole
from gui_gym.errors import InfraError, MissingResourceError, SnapshotError
from gui_gym.runtime.loopback import free_port, port_free
from gui_gym.runtime.processes import signal_quietly
from gui_gym.runtime.waiting import wait_until

logger = logging.getLogger(__name__)
READY_SNAPSHOT = "gui_gym_ready"


@dataclass
class EmulatorConfig:
    """Where the SDK and AVD are and how to run the emulator; units in the names."""

    avd: str | None = None
    """The AVD to run (as `emulator -list-avds` names it); None: $GUI_GYM_AVD."""
    sdk_root: str | None = None
    """The Android SDK; None: $ANDROID_SDK_ROOT, else $ANDROID_HOME."""
    avd_home: str | None = None
    """Where the AVD lives; None: $ANDROID_AVD_HOME, else ~/.android/avd."""
    instances_dir: str | None = None
    """Where per-slot AVD copies and lock files live; None: ~/.cache/gui-gym/android."""
    first_console_port: int = 5600
    max_instances: int = 64
    boot_timeout_s: float = 600.0
    snapshot_timeout_s: float = 120.0
    stop_timeout_s: float = 30.0
    snapshot: str = READY_SNAPSHOT
    reset_from_snapshot: bool = True
    """Load the ready snapshot at every new episode."""
    gpu: str = "swiftshader_indirect"
    emulator_args: tuple[str, ...] = ()
    """Extra emulator flags (``-memory 4096``, ``-cores 4``, ...)."""
    env: dict[str, str] = field(default_factory=dict)
    """Extra environment for the emulator process."""

    FIELDS = ("avd", "sdk_root", "avd_home", "instances_dir", "first_console_port", "max_instances", "boot_timeout_s",
              "snapshot_timeout_s", "stop_timeout_s", "snapshot", "reset_from_snapshot", "gpu", "emulator_args", "env")

    @classmethod
    def pop_from(cls, kwargs: dict[str, Any]) -> "EmulatorConfig":
        return cls(**{k: kwargs.pop(k) for k in list(kwargs) if k in cls.FIELDS})

    def sdk(self) -> Path:
        root = self.sdk_root or os.environ.get("ANDROID_SDK_ROOT") or os.environ.get("ANDROID_HOME")
        if not root:
            raise MissingResourceError("provider='emulator' needs an Android SDK: give sdk_root= or set $ANDROID_SDK_ROOT "
                                       "(docs/android.md says how to install one)")
        return Path(root).expanduser()

    def avd_name(self) -> str:
        name = self.avd or os.environ.get("GUI_GYM_AVD")
        if not name:
            raise MissingResourceError("provider='emulator' needs an AVD: give avd= or set $GUI_GYM_AVD (create one with "
                                       "avdmanager, see docs/android.md)")
        return name

    def avd_dir(self) -> Path:
        home = Path(self.avd_home or os.environ.get("ANDROID_AVD_HOME") or "~/.android/avd").expanduser()
        pointer = home / f"{self.avd_name()}.ini"
        if not pointer.is_file():
            known = sorted(p.stem for p in home.glob("*.ini")) if home.is_dir() else []
            raise MissingResourceError(f"no AVD {self.avd_name()!r} in {home} (AVDs there: {known}); create it with "
                                       "avdmanager or give avd_home=")
        for line in pointer.read_text().splitlines():
            if line.startswith("path="):
                return Path(line[len("path="):].strip())
        return home / f"{self.avd_name()}.avd"

    def instances(self) -> Path:
        return Path(self.instances_dir or "~/.cache/gui-gym/android").expanduser()


class Emulator:
    """One emulator process (and its adb server), started by `start` and ended by `stop`."""

    def __init__(self, config: EmulatorConfig) -> None:
        self.config = config
        self.slot: int | None = None
        self.console_port = self.adb_port = self.server_port = 0
        self.serial = ""
        self.fresh = False
        self.start_s = 0.0
        self._lock_file = None
        self._process: subprocess.Popen | None = None
        self._server: subprocess.Popen | None = None
        self._log_path: Path | None = None

    # ---- slots and AVD copies ----------------------------------------------------------------

    def _take_slot(self) -> None:
        folder = self.config.instances()
        folder.mkdir(parents=True, exist_ok=True)
        for slot in range(self.config.max_instances):
            console = self.config.first_console_port + 2 * slot
            handle = open(folder / f"slot-{slot}.lock", "w")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            if port_free(console) and port_free(console + 1):
                self.slot, self.console_port, self.adb_port, self._lock_file = slot, console, console + 1, handle
                self.serial = f"emulator-{console}"
                return
            handle.close()
        raise InfraError(f"all {self.config.max_instances} emulator slots under {folder} are taken or their ports "
                         f"({self.config.first_console_port}+) are in use; raise max_instances or free them")

    @property
    def instance_name(self) -> str:
        return f"{self.config.avd_name()}-gui-gym-{self.slot}"

    def _prepare_avd(self) -> Path:
        """This slot's copy of the AVD: its own config (the emulator builds the disks)."""
        base = self.config.avd_dir()
        if not (base / "config.ini").is_file():
            raise MissingResourceError(f"{base} holds no config.ini: is {self.config.avd_name()!r} a complete AVD?")
        home = self.config.instances()
        copy = home / f"{self.instance_name}.avd"
        copy.mkdir(parents=True, exist_ok=True)
        config = (base / "config.ini").read_text()
        if not (copy / "config.ini").is_file() or (copy / "config.ini").read_text() != config:
            shutil.rmtree(copy / "snapshots", ignore_errors=True)  # snapshots hold only for the config they were made with
            (copy / "config.ini").write_text(config)
        (home / f"{self.instance_name}.ini").write_text(f"avd.ini.encoding=UTF-8\npath={copy}\n"
                                                        f"path.rel=avd/{self.instance_name}.avd\n")
        return copy

    def has_snapshot(self, name: str) -> bool:
        return (self.config.instances() / f"{self.instance_name}.avd" / "snapshots" / name).is_dir()

    # ---- processes ---------------------------------------------------------------------------

    def start(self) -> None:
        started = time.monotonic()
        sdk = self.config.sdk()
        emulator, adb = sdk / "emulator" / "emulator", sdk / "platform-tools" / "adb"
        for tool in (emulator, adb):
            if not os.access(tool, os.X_OK):
                raise MissingResourceError(f"{tool} is missing or not executable: install the SDK's emulator and "
                                           "platform-tools packages (sdkmanager \"emulator\" \"platform-tools\")")
        self._take_slot()
        try:
            self._prepare_avd()
            self._start_server(adb)
            self._start_emulator(emulator, sdk)
            self._register()
            self.wait_ready(self.config.boot_timeout_s)
        except BaseException:
            self.stop()
            raise
        self.start_s = time.monotonic() - started
        logger.info("emulator %s ready in %.1f s (%s)", self.serial, self.start_s, "cold boot" if self.fresh else "snapshot")

    def _start_server(self, adb: Path) -> None:
        self.server_port = free_port()
        env = {**os.environ, "ADB_MDNS": "0"}  # no multicast discovery: the server stays on loopback
        self._server = subprocess.Popen([str(adb), "-P", str(self.server_port), "nodaemon", "server"], env=env,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
        if not wait_until(lambda: not port_free(self.server_port) or self._server.poll() is not None, 30, 0.05):
            raise InfraError(f"the adb server did not listen on port {self.server_port} within 30 s")
        if self._server.poll() is not None:
            raise InfraError(f"the adb server exited at once (code {self._server.returncode})")

    def _start_emulator(self, emulator: Path, sdk: Path) -> None:
        self.fresh = not self.has_snapshot(self.config.snapshot)
        args = [str(emulator), "-avd", self.instance_name, "-ports", f"{self.console_port},{self.adb_port}",
                "-no-window", "-no-audio", "-no-boot-anim", "-no-snapshot-save", "-gpu", self.config.gpu]
        args += ["-no-snapshot-load", "-wipe-data"] if self.fresh else ["-snapshot", self.config.snapshot]
        args += list(self.config.emulator_args)
        env = {**os.environ, "ANDROID_AVD_HOME": str(self.config.instances()), "ANDROID_SDK_ROOT": str(sdk),
               "ANDROID_ADB_SERVER_PORT": str(self.server_port), **self.config.env}
        self._log_path = self.config.instances() / f"{self.instance_name}.log"
        log = open(self._log_path, "wb")
        try:
            self._process = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                             start_new_session=True)
        finally:
            log.close()

    def _register(self) -> None:
        """Tell our adb server where the emulator's adbd listens (the emulator does so too,
        once it is up; this covers its ports being outside the scanned range)."""
        def listening() -> bool:
            self._check_running()
            return not port_free(self.adb_port)
        if not wait_until(listening, self.config.boot_timeout_s, 0.1, 1.0):
            raise InfraError(f"emulator {self.serial} never opened its adb port {self.adb_port}")
        request = f"host:emulator:{self.adb_port}".encode()
        with socket.create_connection(("127.0.0.1", self.server_port), timeout=10) as s:
            s.sendall(b"%04x" % len(request) + request)

    def _check_running(self) -> None:
        if self._process is not None and self._process.poll() is not None:
            tail = self._log_path.read_text(errors="replace")[-2000:] if self._log_path and self._log_path.exists() else ""
            raise InfraError(f"emulator {self.serial} exited with code {self._process.returncode}:\n{tail}")

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def client(self):
        return _client_class()("127.0.0.1", self.server_port, socket_timeout=30.0)

    def wait_ready(self, timeout_s: float) -> None:
        """Until the device is online, booted and its package manager answers."""
        client = self.client()

        def ready() -> bool:
            self._check_running()
            try:
                if not any(i.serial == self.serial and i.state == "device" for i in client.list()):
                    return False
                device = client.device(self.serial)
                return (device.shell(["getprop", "sys.boot_completed"], timeout=10).strip() == "1"
                        and "package:" in device.shell(["pm", "path", "android"], timeout=10))
            except Exception:  # noqa: BLE001 - offline, restarting, or not answering yet: poll again
                return False
        if not wait_until(ready, timeout_s, 0.1, 2.0):
            raise InfraError(f"emulator {self.serial} did not finish booting within {timeout_s:g} s "
                             f"(log: {self._log_path})")

    def console(self) -> EmulatorConsole:
        return EmulatorConsole(self.console_port, timeout_s=self.config.snapshot_timeout_s)

    def save_snapshot(self, name: str | None = None) -> None:
        with self.console() as console:
            console.command(f"avd snapshot save {name or self.config.snapshot}")

    def load_snapshot(self, name: str | None = None) -> None:
        with self.console() as console:
            console.command(f"avd snapshot load {name or self.config.snapshot}")
        self.wait_ready(self.config.snapshot_timeout_s)

    def stop(self) -> None:
        """The emulator (console kill, then signals), then the adb server; the slot freed."""
        if self._process is not None and self._process.poll() is None:
            try:
                with EmulatorConsole(self.console_port, timeout_s=5) as console:
                    console.command("kill")
            except Exception as exc:  # noqa: BLE001 - fall back to signals
                logger.warning("emulator %s did not take the console's kill (%s); sending SIGTERM", self.serial, exc)
            _end(self._process, self.config.stop_timeout_s)
        self._process = None
        if self._server is not None:
            _end(self._server, 10, asked=False)
            self._server = None
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None


def _end(process: subprocess.Popen, timeout_s: float, asked: bool = True) -> None:
    """Wait for `process` to exit (`asked`: it was told to), then SIGTERM its group, then SIGKILL."""
    for sig in ((None,) if asked else ()) + (signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            signal_quietly(process.pid, sig, group=True)
        try:
            process.wait(timeout=timeout_s if sig is None else 10)
            return
        except subprocess.TimeoutExpired:
            logger.warning("process %s did not exit%s", process.pid, f" after {sig.name}" if sig else "")


EPISODE_SNAPSHOT_PREFIX = "gui_gym_episode_"
"""Names of the snapshots `GUIEnv.snapshot` takes (the ready snapshot is `READY_SNAPSHOT`)."""


class EmulatorBackend(AndroidBackend):
    """An `AndroidBackend` on an emulator it starts (see `Emulator`)."""

    snapshot_kind = "native"
    """Episode snapshots are the emulator's own (``avd snapshot save|load``): the whole device."""

    def __init__(self, config: AndroidConfig | None = None, emulator: EmulatorConfig | None = None) -> None:
        self.emulator_config = emulator or EmulatorConfig()
        self.emulator: Emulator | None = None
        config = config or AndroidConfig()
        if config.screen_size is None:
            config = dataclasses.replace(config, screen_size=self._avd_screen_size())
        super().__init__(config)

    def _avd_screen_size(self) -> tuple[int, int] | None:
        """The AVD's screen (hw.lcd.width/height), so the spaces are right before it boots."""
        try:
            text = (self.emulator_config.avd_dir() / "config.ini").read_text()
        except (MissingResourceError, OSError):
            return None
        values = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
        try:
            return int(values["hw.lcd.width"].strip()), int(values["hw.lcd.height"].strip())
        except (KeyError, ValueError):
            return None

    def _probe_screen_size(self) -> tuple[int, int]:
        from gui_gym.backends.android.backend import DEFAULT_SCREEN_SIZE

        return DEFAULT_SCREEN_SIZE  # nothing is running yet; the AVD's size was read in __init__

    @property
    def fresh(self) -> bool:
        """Whether the emulator booted without the ready snapshot (so it needs preparing)."""
        return self.emulator is not None and self.emulator.fresh

    def _start(self) -> None:
        self.emulator = Emulator(self.emulator_config)
        self.emulator.start()
        self.config = dataclasses.replace(self.config, adb_host="127.0.0.1", adb_port=self.emulator.server_port,
                                          serial=self.emulator.serial)
        super()._start()

    def save_ready_snapshot(self) -> None:
        """The device as it is now becomes what every new episode starts from."""
        self.emulator.save_snapshot()
        self.emulator.fresh = False

    def _new_episode(self) -> None:
        if self.emulator_config.reset_from_snapshot and self.emulator.has_snapshot(self.emulator_config.snapshot):
            self.emulator.load_snapshot()
            self._xml = self._elements = None
        super()._new_episode()

    def console(self) -> EmulatorConsole:
        return self.emulator.console()

    def _save_state(self) -> dict[str, Any]:
        name = f"{EPISODE_SNAPSHOT_PREFIX}{uuid.uuid4().hex[:16]}"
        self.emulator.save_snapshot(name)
        return {"emulator_snapshot": name, "avd": self.emulator_config.avd_name(),
                "instance": self.emulator.instance_name}

    def _load_state(self, state: dict[str, Any]) -> None:
        name, avd, instance = state.get("emulator_snapshot"), state.get("avd"), state.get("instance")
        if not isinstance(name, str) or not name.startswith(EPISODE_SNAPSHOT_PREFIX) or "/" in name:
            raise SnapshotError(f"expected an emulator snapshot name {EPISODE_SNAPSHOT_PREFIX}..., received {name!r}")
        if avd != self.emulator_config.avd_name():
            raise SnapshotError(f"the snapshot was saved on AVD {avd!r}, this env runs {self.emulator_config.avd_name()!r}")
        if not self.emulator.has_snapshot(name):
            # another slot's copy of the same AVD on this host: its snapshot folder is valid here too
            source = self.emulator_config.instances() / f"{instance}.avd" / "snapshots" / name
            if not isinstance(instance, str) or "/" in instance or not source.is_dir():
                raise SnapshotError(f"emulator snapshot {name!r} is neither on this emulator nor on slot {instance!r} "
                                    "of this host; restore it on the host whose emulator saved it")
            shutil.copytree(source, self.config_snapshots_dir() / name)
        self.emulator.load_snapshot(name)
        self._xml = self._elements = None

    def config_snapshots_dir(self) -> Path:
        """This emulator's snapshot folder (in its slot's AVD copy)."""
        return self.emulator_config.instances() / f"{self.emulator.instance_name}.avd" / "snapshots"

    def _alive(self) -> bool:
        return self.emulator is not None and self.emulator.alive and super()._alive()

    def _close(self) -> None:
        super()._close()
        if self.emulator is not None:
            self.emulator.stop()
            self.emulator = None
