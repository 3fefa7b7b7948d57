"""Device state over adb, as AndroidWorld's tasks set it up and read it back.

Success is read from where Android keeps state, never from pixels: the settings tables
(``settings get``), content providers (``content query``), files (adb sync), app databases
(pulled over adb sync, see `device_sqlite`), the focused activity (``dumpsys window``) and the
UI element list. Set-up writes state the same ways, plus the device clock (``date``, every task
starts on 15 October 2023 at 15:34 UTC), the clipboard (through the Clipper app's broadcasts),
incoming SMS (through the emulator console, as ``adb emu sms send``) and app data snapshots.
Everything goes through the backend's shell and sync calls; nothing here imports adbutils.
"""

from __future__ import annotations

import datetime
import logging
import re
import shlex
from typing import Sequence

from gui_gym.actions import Action
from gui_gym.backends.android.backend import AndroidBackend, ShellResult
from gui_gym.backends.android.console import EmulatorConsole
from gui_gym.backends.android.elements import UIElement
from gui_gym.errors import ActionExecutionError, InfraError
from gui_gym.suites.android.apps import App, app
from gui_gym.suites.android.device_files import STORAGE, FileOps
from gui_gym.suites.android.device_sqlite import DatabaseOps
from gui_gym.suites.android.matching import digits, levenshtein
from gui_gym.runtime.waiting import wait_until

__all__ = ["Device", "STORAGE", "DEVICE_TIME", "SNAPSHOTS"]

logger = logging.getLogger(__name__)
DEVICE_TIME = datetime.datetime(2023, 10, 15, 15, 34, 0, tzinfo=datetime.timezone.utc)
"""AndroidWorld's clock at the start of every task (the device runs on UTC)."""
SNAPSHOTS = "/data/data/android_world/snapshots"
"""Where app data snapshots live (AndroidWorld's location, so its prepared devices work too)."""
CONTACTS_PROVIDER = "com.android.providers.contacts"
PHONES_URI = "content://contacts/phones/"
_ROW = re.compile(r"(?:^|\n)Row: \d+ ")


def _date_command(when: datetime.datetime) -> tuple[str, str]:
    return "date", when.astimezone(datetime.timezone.utc).strftime("%m%d%H%M%y.%S")


class Device(FileOps, DatabaseOps):
    """What a task reads and sets on the phone, over its `AndroidBackend`.

    `interaction_cache`: the agent's last answer (AndroidWorld's ``env.interaction_cache``),
    which question-answering tasks score."""

    def __init__(self, backend: AndroidBackend, interaction_cache: str | None = None) -> None:
        if not isinstance(backend, AndroidBackend):
            raise TypeError(f"Android tasks need an AndroidBackend, received {type(backend).__name__}")
        self.backend = backend
        self.interaction_cache = interaction_cache
        self._rooted = False

    # ---- shell -------------------------------------------------------------------------------

    def shell(self, *argv: str) -> str:
        """Run one command (arguments quoted for the device shell); its stdout. A non-zero
        exit raises ActionExecutionError."""
        return self.backend.shell([str(a) for a in argv]).stdout

    def run(self, *argv: str) -> ShellResult:
        """Run one command; its exit code and output, whatever the exit."""
        return self.backend.shell([str(a) for a in argv], check=False)

    def shell_all(self, *commands: Sequence[str]) -> str:
        """Run several commands in one shell line (``a && b && ...``, each argument quoted),
        saving adb round trips; stops at the first failure, which raises."""
        return self.backend.shell(" && ".join(" ".join(shlex.quote(str(a)) for a in c) for c in commands)).stdout

    def ensure_root(self, timeout_s: float = 30.0) -> None:
        """adbd as root (``adb root``), as AndroidWorld needs for app data and the clock."""
        if self._rooted or self.run("id", "-u").stdout.strip() == "0":
            self._rooted = True
            return
        answer = self.backend.adb_root()
        if "cannot run as root" in answer:
            raise InfraError(f"adbd cannot run as root on {self.backend.serial} ({answer.strip()}); AndroidWorld's "
                             "tasks need an emulator image without Google Play (google_apis)")

        def rooted() -> bool:
            try:
                return self.run("id", "-u").stdout.strip() == "0"
            except (InfraError, ActionExecutionError):
                return False  # adbd is restarting
        if not wait_until(rooted, timeout_s, interval_s=0.1):
            raise InfraError(f"adbd on {self.backend.serial} did not come back as root within {timeout_s:g} s")
        self._rooted = True

    # ---- settings, radios and the clock --------------------------------------------------------

    def setting(self, namespace: str, key: str) -> str:
        """``settings get``: the value as text, "null" when unset."""
        return self.shell("settings", "get", namespace, key).strip()

    def put_setting(self, namespace: str, key: str, value: str) -> None:
        self.shell("settings", "put", namespace, key, value)

    def set_radio(self, service: str, on: bool) -> None:
        """Turn "wifi" or "bluetooth" on or off through ``svc``, as AndroidWorld does."""
        self.shell("svc", service, "enable" if on else "disable")

    def set_auto_time(self, on: bool) -> None:
        self.shell_all(*(("settings", "put", "global", key, "1" if on else "0") for key in ("auto_time", "auto_time_zone")))

    def setup_datetime(self, when: datetime.datetime | None = None) -> None:
        """The clock made reproducible: no network time, 24-hour format, UTC; and set to
        `when` if given."""
        self.ensure_root()
        commands = [("settings", "put", "global", "auto_time", "0"), ("settings", "put", "global", "auto_time_zone", "0"),
                    ("settings", "put", "system", "time_12_24", "24"), ("service", "call", "alarm", "3", "s16", "UTC")]
        if when is not None:
            commands.append(_date_command(when))
        self.shell_all(*commands)

    def set_datetime(self, when: datetime.datetime) -> None:
        self.ensure_root()
        self.shell(*_date_command(when))

    def now_s(self) -> int:
        """The device clock, in seconds since the epoch."""
        return int(self.shell("date", "+%s").strip())

    def advance_time(self, delta: datetime.timedelta) -> None:
        self.set_datetime(datetime.datetime.fromtimestamp(self.now_s(), datetime.timezone.utc) + delta)

    # ---- apps ---------------------------------------------------------------------------------

    @staticmethod
    def app(name: str) -> App:
        return app(name)

    def launch(self, name: str) -> None:
        """Start an app by its AndroidWorld name (its launch activity) or package."""
        try:
            activity = app(name).activity
        except KeyError:
            self.shell("monkey", "-p", name, "1")
            return
        self.shell("am", "start", "-n", activity)

    @staticmethod
    def package_of(name: str) -> str:
        """The package of an app given by its AndroidWorld name, or the package itself."""
        try:
            return app(name).package
        except KeyError:
            return name

    def close_app(self, name: str) -> None:
        """Force-stop an app by its AndroidWorld name or package."""
        self.shell("am", "force-stop", self.package_of(name))

    def force_stop(self, package: str) -> None:
        self.shell("am", "force-stop", package)

    def clear_app_data(self, package: str) -> None:
        self.shell("pm", "clear", package)

    def grant_permission(self, package: str, permission: str) -> None:
        self.shell("pm", "grant", package, permission)

    def foreground(self) -> tuple[str, str]:
        """(package, activity) in focus."""
        return self.backend.foreground()

    def ui_elements(self) -> list[UIElement]:
        return self.backend.elements(fresh=True)

    def go_home(self) -> None:
        self.backend.go_home()

    def press_back(self) -> None:
        self.backend.execute(Action("navigate_back"))

    def find_and_click(self, label: str, timeout_s: float = 10.0) -> None:
        """Tap the element whose text or content description is `label` (case aside, one edit
        allowed), waiting for it to appear, as AndroidWorld's set-up code taps buttons."""
        target = label.lower()

        def find() -> int | None:
            best, best_distance = None, 2
            for n, element in enumerate(self.ui_elements()):
                for text in (element.text, element.content_description):
                    if text is not None and (distance := levenshtein(target, text.lower())) < best_distance:
                        best, best_distance = n, distance
            return best
        found: list[int] = []

        def appeared() -> bool:
            index = find()
            if index is not None:
                found.append(index)
            return index is not None
        if not wait_until(appeared, timeout_s, interval_s=0.05, max_interval_s=0.5):
            raise ActionExecutionError(f"no element labelled {label!r} appeared within {timeout_s:g} s")
        self.backend.execute(Action.click_element(found[-1]))

    def close_recents(self) -> None:
        """Remove every task from the recents screen."""
        result = self.run("dumpsys", "activity", "recents")
        if result.exit_code != 0:
            return
        for task_id in re.findall(r"id=(\d+)", result.stdout):
            self.run("am", "stack", "remove", task_id)

    def save_app_snapshot(self, name: str) -> None:
        """Copy an app's data aside, to restore before and after each task."""
        package = app(name).package
        self.ensure_root()
        self.remove(f"{SNAPSHOTS}/{package}")
        self.copy_dir(f"/data/data/{package}", f"{SNAPSHOTS}/{package}")

    def restore_app_snapshot(self, name: str) -> bool:
        """Put an app's saved data back (the app is stopped first); False when none was saved."""
        package = app(name).package
        self.close_app(name)
        self.ensure_root()
        snapshot, data = f"{SNAPSHOTS}/{package}", f"/data/data/{package}"
        if not self.exists(snapshot):
            return False
        self.clear_directory(data)
        self.shell_all(("mkdir", "-p", data), ("cp", "-a", f"{snapshot}/.", f"{data}/"), ("restorecon", "-RD", data),
                       ("chmod", "777", "-R", data))
        return True

    # ---- intents and providers ----------------------------------------------------------------

    def broadcast(self, action: str, data_uri: str | None = None, extras: dict[str, str] | None = None) -> str:
        argv = ["am", "broadcast", "-a", action]
        if data_uri:
            argv += ["-d", data_uri]
        for key, value in (extras or {}).items():
            argv += ["--es", key, value]
        return self.shell(*argv)

    def content_query(self, uri: str, projection: Sequence[str] | None = None) -> list[dict[str, str]]:
        """Rows of ``content query --uri ...`` as {column: text}. With a projection, values
        keep any ", " they hold; without, a value is cut where ", <name>=" follows."""
        argv = ["content", "query", "--uri", uri]
        if projection:
            argv += ["--projection", ":".join(projection)]
        output = self.shell(*argv).replace("\r", "")
        names = "|".join(re.escape(c) for c in projection) if projection else r"[A-Za-z_][A-Za-z0-9_]*"
        rows = []
        for chunk in _ROW.split(output)[1:]:
            chunk = chunk.rstrip("\n")
            fields = re.split(rf", (?=(?:{names})=)", chunk)
            rows.append(dict(field.split("=", 1) for field in fields if "=" in field))
        return rows

    def content_delete(self, uri: str) -> None:
        self.shell("content", "delete", "--uri", uri)

    # ---- contacts -----------------------------------------------------------------------------

    def contacts(self) -> list[tuple[str, str]]:
        """(display name, digits of the number) of every phone entry, as AndroidWorld lists them."""
        return [(row.get("display_name", ""), digits(row.get("number", "")))
                for row in self.content_query(PHONES_URI, ("display_name", "number"))]

    def clear_contacts(self) -> None:
        self.clear_app_data(CONTACTS_PROVIDER)

    def add_contact(self, name: str, phone: str, timeout_s: float = 10.0) -> None:
        """Create a contact the way AndroidWorld does: the contacts app's insert screen,
        filled by intent extras, then its Save button."""
        self.shell("am", "start", "-a", "android.intent.action.INSERT", "-t", "vnd.android.cursor.dir/contact",
                   "-e", "name", name, "-e", "phone", phone)
        self.find_and_click("SAVE", timeout_s)
        self.press_back()

    # ---- clipboard, SMS, calls ----------------------------------------------------------------

    def _clipper(self, action: str, extras: list[str]) -> str | None:
        self.launch("clipper")
        if not wait_until(lambda: self.foreground()[0] == app("clipper").package, 10.0, interval_s=0.05):
            raise InfraError("the Clipper app (ca.zgrs.clipper), which reads and writes the clipboard, did not come "
                             "to the foreground; is it installed?")
        output = self.shell("am", "broadcast", "-a", action, *extras)
        self.press_back()
        match = re.search(r"Broadcast completed: result=(-?\d+)(?:, data=\"(.*)\")?", output, re.DOTALL)
        if match is None or match.group(1) != "-1":
            raise InfraError(f"Clipper did not answer {action} ({output.strip()!r}); grant it its permissions by "
                             "opening it once")
        return match.group(2)

    def set_clipboard(self, text: str) -> None:
        self._clipper("clipper.set", ["-e", "text", text])

    def clipboard(self) -> str:
        return self._clipper("clipper.get", []) or ""

    def console(self) -> EmulatorConsole:
        """The emulator console of this device (from its serial, emulator-<port>)."""
        provided = getattr(self.backend, "console", None)
        return provided() if callable(provided) else EmulatorConsole.for_serial(self.backend.serial or "")

    def receive_sms(self, number: str, text: str) -> None:
        """An SMS from `number` arrives (``adb emu sms send``): emulators only."""
        with self.console() as console:
            console.command(f"sms send {re.sub(r'[^0-9+]', '', number)} {text}")

    def sent_sms(self) -> list[dict[str, str]]:
        """Messages in the sent box, newest first."""
        return self.content_query("content://sms/sent", ("_id", "thread_id", "address", "date", "body"))

    def received_sms(self) -> list[dict[str, str]]:
        return self.content_query("content://sms/inbox", ("_id", "thread_id", "address", "date", "body"))

    def clear_sms(self) -> None:
        """Every message and conversation gone from the telephony provider."""
        db = "/data/data/com.android.providers.telephony/databases/mmssms.db"
        self.sqlite_on_device(db, "DELETE FROM sms;")
        self.sqlite_on_device(db, "DELETE FROM threads;")

    def send_sms_intent(self, number: str, text: str) -> None:
        """Open the default SMS app on a message to `number` holding `text`."""
        self.shell("am", "start", "-a", "android.intent.action.SENDTO", "-d", f"sms:{number}", "--es", "sms_body", text)
