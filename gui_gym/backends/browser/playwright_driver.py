"""The Playwright driver and the Chromium it launches, shared by every browser in a thread.

A driver is a node process (~0.8 s of CPU to start) that Playwright's sync API allows once per
thread; `DRIVERS` hands each thread's browsers the same one and stops it with its last user.
`find_chromium` picks the browser binary (a system Chromium where Playwright's download is
absent), `QUIET_FLAGS` keeps it off the network it would otherwise probe, `WEBRTC_FLAGS` keeps
a page's WebRTC inside the env's network policy.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

from gui_gym.errors import MissingResourceError
from gui_gym.runtime.processes import kill_tree, running

logger = logging.getLogger(__name__)

CHROMIUM_ENV_VAR = "GUI_GYM_CHROMIUM"
QUIET_FLAGS = (
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run", "--disable-quic", "--disable-default-apps", "--disable-extensions",
    "--disable-features=Translate,MediaRouter,OptimizationHints,OverscrollHistoryNavigation", "--metrics-recording-only",
    "--password-store=basic", "--use-mock-keychain", "--disable-gpu", "--disable-smooth-scrolling",
)
"""Chromium flags that stop it phoning home: on a closed network it otherwise floods
connection attempts and stalls on DNS at every start. And a wheel scroll past a page's edge
is no history navigation (Chromium's overscroll gesture would go back a page)."""
WEBRTC_FLAGS = ("--webrtc-ip-handling-policy=disable_non_proxied_udp",)
"""WebRTC may use no UDP that does not pass the context's proxy (an HTTP proxy carries none),
so a peer connection sends no STUN or media packet, which no request filter would see; its
TCP goes through the proxy, which a restricted context points at a closed port. The page
scripts refuse peer connections as well (`page_scripts.INIT_JS`): this holds where a script
runs before them. (Chromium 156 reads ``--webrtc-ip-handling-policy``; the older
``--force-webrtc-ip-handling-policy`` is ignored by it.)"""


class Driver:
    """One running Playwright driver (a node process) and the number of backends using it."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        self._manager = sync_playwright()
        self.playwright = self._manager.start()
        self.users = 0
        self.dead = False
        self.pid: int | None = None
        """The driver's process id, which Playwright does not publish: the first browser
        launched from it finds it (`BrowserBackend._find_processes`)."""

    @property
    def running(self) -> bool:
        """False once the driver was killed or died (its browsers still say they are connected)."""
        return not self.dead and (self.pid is None or running(self.pid))

    def kill(self) -> None:
        """From a watchdog thread: kill the driver and the browsers under it. Every call
        waiting on it fails at once; the next `PlaywrightDrivers.acquire` starts a new one."""
        self.dead = True
        pid = self.pid
        if pid is not None:
            kill_tree(pid)

    def stop(self) -> None:
        """Stop the driver (idempotent); stopping one that died may fail, which is logged."""
        try:
            self._manager.__exit__()
        except Exception:
            if self.running:
                raise
            logger.debug("stopping a dead Playwright driver failed", exc_info=True)


class PlaywrightDrivers:
    """One Playwright driver per thread, shared by that thread's browsers.

    Playwright's sync API allows a single running instance per thread, while a process may
    hold several envs (a rollout pool, `check_env` making a second env); each env still gets
    its own browser, launched from the shared driver, which stops with its last user. A driver
    that was killed (it hung) is stopped and replaced at the next acquire; its other users find
    their browsers gone and relaunch on the new one. Inside `held`, the driver also outlives
    its last user, for the next env.
    """

    def __init__(self) -> None:
        self._local = threading.local()
        # A forked child (an AsyncVectorEnv's worker) inherits the forking thread's driver, a
        # connection to the parent's node process that it cannot use: it starts with none.
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._local = threading.local()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Keep this thread's driver running between its users until the block ends.

        A process that opens and closes envs one after another (a test module, a sweep over
        suites) otherwise starts a driver, a node process costing ~0.8 s of CPU, for each env.
        Nothing starts here: the first env starts the driver as usual, and the next env reuses
        it. A driver that dies is still replaced at the next acquire. At the end the driver
        stops, or with its last user if envs still use it."""
        local = self._local
        local.holds = getattr(local, "holds", 0) + 1
        try:
            yield
        finally:
            local.holds -= 1
            current: Driver | None = getattr(local, "driver", None)
            if not local.holds and current is not None and current.users == 0:
                self._stop(current)

    def acquire(self) -> Driver:
        local = self._local
        current: Driver | None = getattr(local, "driver", None)
        if current is not None and not current.running:
            current.stop()  # the thread holds one running instance at most
            current = None
        if current is None:
            current = local.driver = Driver()
        current.users += 1
        return current

    def release(self, driver: Driver) -> None:
        driver.users -= 1
        held = getattr(self._local, "holds", 0) and driver is getattr(self._local, "driver", None) and driver.running
        if driver.users == 0 and not held:
            self._stop(driver)

    def _stop(self, driver: Driver) -> None:
        try:
            driver.stop()
        finally:
            if getattr(self._local, "driver", None) is driver:
                self._local.driver = None


DRIVERS = PlaywrightDrivers()


def find_chromium(explicit: str | None = None) -> str | None:
    """The Chromium to launch: an explicit path, then $GUI_GYM_CHROMIUM, then None (meaning
    Playwright's own download, if present), then a system chromium on PATH.

    Raises MissingResourceError when an explicitly named browser does not exist, or when no
    browser is found at all."""
    for source, path in (("executable_path", explicit), (CHROMIUM_ENV_VAR, os.environ.get(CHROMIUM_ENV_VAR))):
        if path:
            if not Path(path).exists():
                raise MissingResourceError(f"{source} points at {path!r}, which does not exist")
            return path
    if _playwright_chromium_installed():
        return None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    raise MissingResourceError(
        "no Chromium found: install one (Debian: `apt-get install chromium`; or "
        "`playwright install chromium` where downloads work), or set "
        f"${CHROMIUM_ENV_VAR} to a Chromium/Chrome executable"
    )


def _playwright_chromium_installed() -> bool:
    root = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")
    return root.is_dir() and any(p.name.startswith("chromium-") for p in root.iterdir())
