"""OSWorld setup steps (``config`` and ``evaluator.postconfig``), run through the desktop's
server protocol.

Types: ``launch``, ``open``, ``execute``/``command`` (with OSWorld's screen placeholders and
``until``), ``sleep``, ``activate_window``, ``close_window``, ``upload_file``, ``download``
(from the file cache, see `context.FileCache`), ``chrome_open_tabs``/``chrome_close_tabs``
(through Chrome's debugging port inside the desktop, where Chrome runs),
``update_browse_history`` (OSWorld's history database, filled and put in Chrome's profile). A ``sleep`` does not
sleep blindly: it waits until the screen has reacted to the previous step and holds still,
for at most the given seconds. Unknown types raise `TaskConfigError`; types that need
accounts gui-gym cannot provide (Google Drive, logins) raise `MissingResourceError`.
"""

from __future__ import annotations

import datetime
import json
import shutil
import sqlite3
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.suites.osworld.context import EpisodeContext
from gui_gym.suites.osworld.loader import SetupStep
from gui_gym.runtime.waiting import wait_until

UNTIL_TIMEOUT_S = 60.0
STEP_TYPES: dict[str, str] = {
    "launch": "launch", "open": "open", "execute": "execute", "command": "execute", "sleep": "sleep",
    "activate_window": "activate_window", "close_window": "close_window", "upload_file": "upload_file",
    "download": "download", "chrome_open_tabs": "chrome_open_tabs", "chrome_close_tabs": "chrome_close_tabs",
    "update_browse_history": "update_browse_history",
}
"""Setup step type -> the `SetupRunner` method that runs it."""
UNAVAILABLE = {
    "googledrive": "Google Drive credentials", "login": "website logins (Google accounts)",
    "change_wallpaper": "a GNOME desktop",
    "proxy": "OSWorld's proxy pool", "tidy_desktop": "OSWorld's unimplemented tidy_desktop",
}
"""Step types OSWorld defines that need something gui-gym does not provide."""

CDP = "http://localhost:9222"
HISTORY_TEMPLATE = ("https://huggingface.co/datasets/xlangai/ubuntu_osworld_file_cache/resolve/main/chrome/"
                    "44ee5668-ecd5-4366-a6ce-c1c9b8d4e938/history_empty.sqlite?download=true")
"""OSWorld's empty Chrome history database, which ``update_browse_history`` fills."""
CHROME_EPOCH = datetime.datetime(1601, 1, 1)
VISIT_TRANSITION = 805306368
"""Chrome's transition code OSWorld records (a typed link that started a chain)."""
CHROME_OPEN = (
    "import json, urllib.parse as p, urllib.request as u\n"
    "for url in json.loads({urls!r}):\n"
    "    u.urlopen(u.Request('{cdp}/json/new?' + p.quote(url, safe=':/?&=%#'), method='PUT'), timeout=60)\n")
CHROME_CLOSE = (
    "import json, urllib.request as u\n"
    "wanted = json.loads({urls!r})\n"
    "for tab in json.load(u.urlopen('{cdp}/json/list', timeout=30)):\n"
    "    if tab.get('type') == 'page' and any(tab.get('url', '').startswith(w) for w in wanted):\n"
    "        u.urlopen('{cdp}/json/close/' + tab['id'], timeout=30)\n")


def fill_placeholders(command: str | Sequence[str], ctx: EpisodeContext) -> str | list[str]:
    """OSWorld's placeholders in ``execute`` commands."""
    width, height = ctx.screen_size
    values = {"{CLIENT_PASSWORD}": ctx.client_password, "{SCREEN_WIDTH_HALF}": str(width // 2),
              "{SCREEN_HEIGHT_HALF}": str(height // 2), "{SCREEN_WIDTH}": str(width), "{SCREEN_HEIGHT}": str(height)}

    def fill(text: str) -> str:
        for key, value in values.items():
            text = text.replace(key, value)
        return text
    return fill(command) if isinstance(command, str) else [fill(str(part)) for part in command]


class SetupRunner:
    """Runs setup steps for one episode. A ``download`` of a path in `hold` stays on the host
    (`EpisodeContext.held`, see `held_files`), and an ``open`` of it is skipped."""

    def __init__(self, ctx: EpisodeContext, hold: frozenset[str] = frozenset()):
        self.ctx = ctx
        self.hold = hold

    def run(self, steps: Sequence[SetupStep]) -> None:
        for index, step in enumerate(steps):
            handler = getattr(self, STEP_TYPES[step.type]) if step.type in STEP_TYPES else None
            if handler is None:
                if step.type in UNAVAILABLE:
                    raise MissingResourceError(f"task {self.ctx.spec.id}: setup step {step.type!r} needs "
                                               f"{UNAVAILABLE[step.type]}, which gui-gym does not provide")
                raise TaskConfigError(f"{self.ctx.spec.path}: unknown setup step type {step.type!r} "
                                      f"(step {index}); supported: {sorted(STEP_TYPES)}")
            if step.type != "sleep":
                self.ctx.backend.mark_screen()
            try:
                handler(**step.parameters)
            except TypeError as exc:
                raise TaskConfigError(f"{self.ctx.spec.path}: setup step {index} ({step.type}) has bad "
                                      f"parameters {sorted(step.parameters)}: {exc}") from exc

    # ---- step types -------------------------------------------------------------------------

    def launch(self, command: str | list[str], shell: bool = False) -> None:
        self.ctx.client.launch(command, shell)

    def open(self, path: str) -> None:
        if self.ctx.held and self.ctx.desktop_path(path) in self.ctx.held:
            return  # kept on the host: nothing to open on the desktop
        self.ctx.client.open_file(path)

    def execute(self, command: str | list[str], shell: bool = False, stdout: str = "", stderr: str = "",
                until: dict[str, Any] | None = None) -> None:
        command = fill_placeholders(command, self.ctx)
        outcome: dict[str, Any] = {}

        def attempt() -> bool:
            outcome.update(self.ctx.client.execute(command, shell=shell, setup=True))
            if not until:
                return True
            return (("returncode" in until and outcome.get("returncode") == until["returncode"])
                    or ("stdout" in until and until["stdout"] in (outcome.get("output") or ""))
                    or ("stderr" in until and until["stderr"] in (outcome.get("error") or "")))
        if not wait_until(attempt, UNTIL_TIMEOUT_S, interval_s=0.3, max_interval_s=1.0):
            raise TimeoutError(f"setup command {command!r} did not reach {until} within {UNTIL_TIMEOUT_S} s")
        for name, key in ((stdout, "output"), (stderr, "error")):
            if name:
                (self.ctx.scratch / name).write_text(outcome.get(key) or "")

    def sleep(self, seconds: float) -> None:
        self.ctx.backend.wait_for_screen(float(seconds))

    def activate_window(self, window_name: str, strict: bool = False, by_class: bool = False) -> None:
        self.ctx.client.activate_window(window_name, strict, by_class)

    def close_window(self, window_name: str, strict: bool = False, by_class: bool = False) -> None:
        self.ctx.client.close_window(window_name, strict, by_class)

    def upload_file(self, files: list[dict[str, str]]) -> None:
        for entry in files:
            local = self.ctx.local_path(entry["local_path"])
            if not local.is_file():
                raise MissingResourceError(f"task {self.ctx.spec.id}: upload_file source {local} does not exist")
            self.ctx.client.upload(entry["path"], local.read_bytes())

    def download(self, files: list[dict[str, str]]) -> None:
        for entry in files:
            url, path = entry["url"], entry["path"]
            cached = self.ctx.cache.fetch(url, self.ctx.cache.download_path(self.ctx.spec.id, url, path))
            if path in self.hold:
                self.ctx.held[self.ctx.desktop_path(path)] = cached
            else:
                self.ctx.client.upload(path, cached.read_bytes())

    def chrome_open_tabs(self, urls_to_open: list[str]) -> None:
        self._in_vm_python(CHROME_OPEN.format(urls=json.dumps(urls_to_open), cdp=CDP), "chrome_open_tabs")

    def chrome_close_tabs(self, urls_to_close: list[str]) -> None:
        self._in_vm_python(CHROME_CLOSE.format(urls=json.dumps(urls_to_close), cdp=CDP), "chrome_close_tabs")

    def update_browse_history(self, history: list[dict[str, Any]]) -> None:
        """Chrome's history database with these visits (``url``, ``title``,
        ``visit_time_from_now_in_seconds``), put where Chrome keeps it, as OSWorld does."""
        template = self.ctx.cache.fetch(HISTORY_TEMPLATE, self.ctx.task_cache / "history_new.sqlite")
        with tempfile.TemporaryDirectory(prefix="gui-gym-history-") as folder:
            database = Path(folder) / "History"
            shutil.copyfile(template, database)
            with sqlite3.connect(database) as connection:
                for item in history:
                    visited = datetime.datetime.now() - datetime.timedelta(seconds=item["visit_time_from_now_in_seconds"])
                    stamp = int((visited - CHROME_EPOCH).total_seconds() * 1000000)
                    url_id = connection.execute(
                        "INSERT INTO urls (url, title, visit_count, typed_count, last_visit_time, hidden) "
                        "VALUES (?, ?, ?, ?, ?, ?)", (item["url"], item["title"], 1, 0, stamp, 0)).lastrowid
                    connection.execute("INSERT INTO visits (url, visit_time, from_visit, transition, segment_id, "
                                       "visit_duration) VALUES (?, ?, ?, ?, ?, ?)",
                                       (url_id, stamp, 0, VISIT_TRANSITION, 0, 0))
            self.ctx.client.upload(f"{self.ctx.home}/.config/google-chrome/Default/History", database.read_bytes())

    def _in_vm_python(self, code: str, what: str) -> None:
        result = self.ctx.desktop_python(code, setup=True)
        if result.get("returncode") != 0:
            raise MissingResourceError(f"setup step {what} needs Chrome with its debugging port {CDP} inside "
                                       f"the desktop: {str(result.get('error'))[-300:]}")
