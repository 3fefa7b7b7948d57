"""Playwright Chromium backend: one browser per env, one context reused across episodes.

Episodes reuse the browser context (a fresh one costs ~100 ms) with everything an episode
could leave behind cleared at the next reset: cookies (the env's own server tokens are set
again), every origin's storage (localStorage, IndexedDB, cache storage, service workers,
file systems), the HTTP cache and granted permissions; each episode gets a new page, so
sessionStorage, history and the page's scripts end with the last one. `strict_isolation`
keeps a fresh context per episode instead. The clipboard and the selection buffer belong to
the browser process, shared by every context: each reset empties them (`_reset_clipboard`).

Input is real (Playwright's mouse and keyboard, dispatched through the DevTools protocol as
trusted events); nothing an agent writes is evaluated as code. After each action the backend
settles by readiness instead of sleeping: work the action deferred (a timer, a frame callback,
a message, a form submission) has had its turn, the document has loaded, no request is in
flight, no finite CSS animation is running, and the DOM has been quiet for one animation
frame; all bounded by `settle_timeout_s`. The turn is one task of the page's, taken only when
the page deferred something since the last check (the init script counts it): right after
input the renderer runs a task only after its next frame, ~8 ms on average.

Screenshots come from the DevTools protocol with ``optimizeForSpeed`` (a fast PNG encoder,
still lossless), decoded once to a numpy array; the text caret is hidden, as Playwright's own
screenshots do, so identical states give identical pixels.

What the browser may reach is one `AccessPolicy` (see `web_access`), applied at the agent's
``goto`` (an ``action_error``), in the route every request passes, in the WebSocket route,
and, for documents no request route sees (``chrome:``, ``view-source:``), before each
observation. A restricted context also gets a proxy that is a closed port, with only the
allowed origins bypassing it, so a connection no route sees (a redirect's next hop, a
preconnect, a worker's WebSocket) goes nowhere. Each server a suite registers
(`allow_server`) gets its token cookie in every context, so the server can refuse any other
browser. docs/security.md says what this guarantees and what it does not.

Calls that can block are bounded (`Backend.bounded`): each action with its settling and each
observation by `step_timeout_s`, and closing a context or the browser and opening a fresh
context (which have no timeout in Playwright) by `close_timeout_s`. Past its bound a call is
aborted by killing the browser's process tree (its pid is asked of the browser at launch), so
Playwright fails it at once; when even that does not free it, the Playwright driver is killed
too. A dead driver is noticed (the browser still reports itself connected), so its failures
are infrastructure errors and the relaunch starts a fresh driver.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import logging
import os
import re
import secrets
import socket
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from PIL import Image

from gui_gym.a11y_text import format_elements
from gui_gym.actions import Action
from gui_gym.backends.base import DEFAULT_STEP_TIMEOUT_S, Backend, Observation
from gui_gym.backends.browser.page_scripts import (AWAIT_SCROLL_JS, BOX_JS, CLIPBOARD_RESET_JS, ELEMENTS_JS,
                                           INIT_JS, NO_ANIMATIONS_JS, PASTE_GUARD_JS, READY_JS,
                                           READY_WITH_ELEMENTS_JS, SCROLL_STATE_JS, on_element)
from gui_gym.backends.browser.playwright_driver import DRIVERS, QUIET_FLAGS, WEBRTC_FLAGS, Driver, find_chromium
from gui_gym.backends.browser.web_access import AccessPolicy
from gui_gym.errors import ActionExecutionError, InfraError
from gui_gym.runtime.processes import kill_tree, parent

logger = logging.getLogger(__name__)

SCROLL_NOTCH_PX = 100
SCREENSHOT_FORMATS = ("png", "jpeg")
SCROLL_WAIT_FRAMES = 4
"""Frames to wait for a wheel scroll to land; one suffices in practice, the rest are for a
page at the end of its scroll range, which never moves."""
CAPTURE_RETRY_MS = 25
"""Wait between screenshot attempts while a page swaps its renderer (an error page commits)."""
NOT_WEB = re.compile(r"^(?!(?:https?|data|blob):)", re.IGNORECASE)
"""URLs an unrestricted context still routes to the filter: anything not on the web."""

_KEY_NAMES = {
    "ctrl": "Control", "shift": "Shift", "alt": "Alt", "meta": "Meta", "enter": "Enter",
    "esc": "Escape", "tab": "Tab", "backspace": "Backspace", "delete": "Delete",
    "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
    "pageup": "PageUp", "pagedown": "PageDown", "home": "Home", "end": "End",
    "insert": "Insert", " ": "Space", "capslock": "CapsLock", "printscreen": "PrintScreen",
}


def playwright_key(key: str) -> str:
    """A canonical key name (see `gui_gym.actions.normalize_key`) in Playwright's spelling."""
    if key in _KEY_NAMES:
        return _KEY_NAMES[key]
    if len(key) > 1 and key[0] == "f" and key[1:].isdigit():
        return key.upper()
    if len(key) == 1:
        return key
    raise ActionExecutionError(f"the browser has no key named {key!r}")


@dataclass
class BrowserConfig:
    """Settings of a browser backend; units in the names."""

    viewport: tuple[int, int] = (1280, 720)
    screen: tuple[int, int] | None = None
    """The part of the viewport the agent sees, from its top-left corner: screenshots and the
    element list are clipped to it, and positions are read in it (the same pixels, as it
    starts at the corner). None is the whole viewport. For pages whose task occupies a corner
    of a larger layout (MiniWoB's 160x210 task area beside its score display)."""
    executable_path: str | None = None
    headless: bool = True
    allowed_hosts: frozenset[str] | None = None
    """When set, the browser reaches only these hosts ("host": any port; "host:port": one
    origin) and the servers registered with `BrowserBackend.allow_server`; every other request,
    navigation and WebSocket is aborted. None: any host. Either way only http(s) is opened."""
    settle_timeout_s: float = 2.0
    navigation_timeout_s: float = 15.0
    step_timeout_s: float | None = DEFAULT_STEP_TIMEOUT_S
    """Bound on each action (with its settling) and each observation; past it the browser is
    killed and relaunched at the next reset (`gui_gym.backends.base`). None: unbounded."""
    close_timeout_s: float = 30.0
    """Bound on closing a context or the browser and on opening a fresh context (calls with
    no timeout of their own); past it the browser is killed and relaunched. Generous: it only
    catches a hang, and a spurious kill on a loaded machine costs a relaunch."""
    locale: str = "en-US"
    timezone: str = "UTC"
    extra_args: tuple[str, ...] = field(default_factory=tuple)
    keep_page: bool = False
    """Episodes share one context and page instead of a fresh context each: for suites whose
    pages restart their own episodes (MiniWoB), where a fresh page per episode is most of the
    reset's cost. Cookies, storage and page state carry over; a crashed or closed page is
    still replaced."""
    strict_isolation: bool = False
    """A fresh browser context per episode (the most isolated, ~100 ms more per reset)
    instead of the reused, cleared one (see the module docstring)."""
    disable_animations: bool = False
    """Turn CSS transitions and animations off in every page, so a step never waits for
    one to end. For suites whose pages are ours and whose tasks do not test motion."""
    screenshot_format: str = "png"
    """"png" (lossless) or "jpeg" (smaller and faster to decode; lossy)."""
    jpeg_quality: int = 80
    screenshot_size: tuple[int, int] | None = None
    """(width, height) to capture at, scaled by the browser (for models that resize the
    screen anyway); None: the viewport's size. Actions stay in viewport pixels."""

    @classmethod
    def pop_from(cls, kwargs: dict[str, Any], **defaults: Any) -> "BrowserConfig":
        """Take this config's fields out of an env factory's kwargs (the rest go to GUIEnv);
        `defaults` are the suite's own settings, which the kwargs may override."""
        names = {f.name for f in dataclasses.fields(cls)}
        values = {**defaults, **{k: kwargs.pop(k) for k in list(kwargs) if k in names}}
        for name in ("viewport", "screen"):
            if values.get(name) is not None:
                values[name] = tuple(values[name])
        if values.get("allowed_hosts") is not None:
            values["allowed_hosts"] = frozenset(values["allowed_hosts"])
        if values.get("screenshot_size") is not None:
            values["screenshot_size"] = tuple(values["screenshot_size"])
        return cls(**values)

    def check(self) -> None:
        """ValueError naming the field when the screenshot settings cannot work."""
        if self.screenshot_format not in SCREENSHOT_FORMATS:
            raise ValueError(f"screenshot_format must be one of {SCREENSHOT_FORMATS}, received {self.screenshot_format!r}")
        if not (isinstance(self.jpeg_quality, int) and 1 <= self.jpeg_quality <= 100):
            raise ValueError(f"jpeg_quality must be an int in [1, 100], received {self.jpeg_quality!r}")
        size = self.screenshot_size
        if size is not None and (len(size) != 2 or not all(isinstance(v, int) and v > 0 for v in size)):
            raise ValueError(f"screenshot_size must be (width, height) in positive pixels or None, received {size!r}")


class BrowserBackend(Backend):
    """A Chromium page driven by Playwright's sync API."""

    observation_text_keys = ("url",)
    snapshot_kind = "replay"
    """The pages' own script state cannot be read, so a snapshot replays the episode's actions
    on a fresh context; what can be read (`browser_state`) is compared after the replay."""

    def __init__(self, config: BrowserConfig | None = None, **overrides: Any):
        super().__init__()
        # a copy: the caller's config object stays as it was given (one config may make several envs)
        config = dataclasses.replace(config or BrowserConfig(), **overrides)
        if config.allowed_hosts is not None:
            config.allowed_hosts = frozenset(config.allowed_hosts)
        config.check()
        self.config = config
        self._screenshot_params = self._capture_params(config)
        self.access = AccessPolicy(config.allowed_hosts)
        self.start_url: str | None = None
        self.blocked_requests: list[str] = []
        self.browser_pid: int | None = None
        self._cookies: list[dict[str, Any]] = []
        self._paste_marker = json.dumps(f"gui-gym-clipboard-reset-{secrets.token_hex(16)}")
        """What the selection buffer holds after a reset, which no page pastes (`_reset_clipboard`)."""
        self._context_reachable: list[str] = []
        """The origins the context's proxy lets through: one registered later needs a new context."""
        self._origins: set[str] = set()
        """Every http(s) origin the context requested since it was last cleared."""
        self._settled_elements: list[dict[str, Any]] | None = None
        """The element list the last settle gathered (`expects_a11y`), until anything acts."""
        self._proxy_hole: socket.socket | None = None
        self._driver: Driver | None = None
        self._playwright = None
        self._browser = None
        self._context = None
        self._page = None
        self._cdp = None
        self._inflight: set[Any] = set()
        self._elements: list[dict[str, Any]] | None = None
        self._disconnected = False
        self._crashed = False
        self._closing_context = False
        self._servers_allowed = 0
        self._context_servers = 0
        """`_servers_allowed` when the context opened: a server registered since needs a fresh
        context (its cookie, the proxy's bypass list), even with `keep_page`."""

    @property
    def screen_size(self) -> tuple[int, int]:
        return self.config.screen or self.config.viewport

    @property
    def screenshot_size(self) -> tuple[int, int]:
        return self.config.screenshot_size or self.screen_size

    @staticmethod
    def _capture_params(config: BrowserConfig) -> dict[str, Any]:
        """Page.captureScreenshot's parameters: the format, and a clip of the viewport scaled
        to `screenshot_size` (the clip is in CSS pixels of the visual viewport, which
        ``captureBeyondViewport=False`` keeps it to)."""
        params: dict[str, Any] = {"format": config.screenshot_format, "optimizeForSpeed": True,
                                  "captureBeyondViewport": False}
        if config.screenshot_format == "jpeg":
            params["quality"] = config.jpeg_quality
        if config.screenshot_size is not None and config.screenshot_size != config.viewport:
            width, height = config.viewport
            params["clip"] = {"x": 0, "y": 0, "width": width, "height": height,
                              "scale": config.screenshot_size[0] / width}
        return params

    @property
    def step_timeout_s(self) -> float | None:  # type: ignore[override]
        return self.config.step_timeout_s

    @property
    def page(self):
        """The active Playwright page, for suites that need to read it through this backend."""
        return self._page

    # ---- what suites ask of the browser -------------------------------------------------

    def allow_server(self, url: str, cookie: tuple[str, str] | None = None) -> None:
        """Let the browser reach the server at `url` (its host and port) and send it
        `cookie` (name, value), its token, from the next episode on. Suites call it when they
        start their servers (see `gui_gym.suites.http_server.LoopbackServer.admit`); a
        server admitted again (a second env on the same suite and browser) changes nothing."""
        reachable = self.access.reachable
        self.access.allow_origin(url)
        changed = self.access.reachable != reachable
        if cookie is not None:
            name, value = cookie
            entry = {"name": name, "value": value, "url": url, "httpOnly": True, "sameSite": "Strict"}
            if entry not in self._cookies:
                self._cookies.append(entry)
                changed = True
        if changed:
            self._servers_allowed += 1

    def goto(self, url: str) -> None:
        """Open `url` in the current page and wait until it is ready."""
        self._guard(lambda: self._goto(url))

    def set_start_url(self, url: str) -> None:
        """Open `url` and remember it as the episode's home (``navigate_home`` returns here)."""
        self.start_url = url
        self.goto(url)

    def set_screen(self, screen: tuple[int, int] | None) -> None:
        """Show the agent another part of the viewport from now on (see `BrowserConfig.screen`):
        for suites whose tasks draw screens of different sizes."""
        if screen is not None:
            width, height = screen
            view_width, view_height = self.config.viewport
            if not (0 < width <= view_width and 0 < height <= view_height):
                raise ValueError(f"screen must fit the {view_width}x{view_height} viewport, received {screen}")
            screen = (int(width), int(height))
        self.config.screen = screen
        self._elements = None

    def locate(self, selector: str, nth: int = 0) -> tuple[float, float, float, float]:
        """Box (x, y, width, height) in viewport pixels of the `nth` element matching the CSS
        `selector` (waited for as `evaluate_on` does), as it is now: nothing is scrolled, so the
        box may lie outside the viewport. Oracles turn it into clicks, and into scroll actions
        when it does."""
        box = self.evaluate_on(selector, BOX_JS, nth)
        if box is None:
            raise ActionExecutionError(f"element {selector!r} is not rendered")
        return tuple(box)

    def evaluate_on(self, selector: str, expression: str, nth: int = 0) -> Any:
        """Run a JavaScript function written by the suite (never by the agent) on the `nth`
        element matching the CSS `selector`, waiting for it up to `settle_timeout_s`, in one
        round trip: a Playwright locator takes three (find, run, release), 3-7x the time of
        a plain evaluate (its bounding box the most), and oracles look before every click."""
        self._settled_elements = None

        def work() -> Any:
            timeout_s = self.config.settle_timeout_s
            deadline = time.monotonic() + timeout_s
            while True:
                remaining_ms = max(1.0, (deadline - time.monotonic()) * 1000)
                try:
                    found = self._page.evaluate(on_element(expression), [selector, nth, remaining_ms])
                    break
                except Exception as exc:  # Playwright's Error; the module does not import Playwright
                    # A navigation replaced the document mid-look (a locator would look again in
                    # the new one): wait for it to load, then look there, within the same bound.
                    if "context was destroyed" not in str(exc) or time.monotonic() >= deadline:
                        raise
                    logger.debug("a navigation interrupted a look at %r; looking in the new document", selector)
                    self._page.wait_for_load_state("load", timeout=remaining_ms)
            if not found["found"]:
                raise ActionExecutionError(f"no element #{nth} matches {selector!r} within {timeout_s} s")
            return found["value"]
        return self._guard(work)

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        """Run a JavaScript expression written by the suite (never by the agent)."""
        self._settled_elements = None
        return self._guard(lambda: self._page.evaluate(expression, arg))

    @property
    def url(self) -> str:
        return self._page.url if self._page is not None else ""

    def elements(self) -> list[dict[str, Any]]:
        """Visible interactive and text elements of the page, indexed as in the a11y tree."""
        return self._guard(self._refresh_elements)

    def _save_state(self) -> dict[str, Any]:
        from gui_gym.backends.browser.state import capture

        return capture(self._page, secret_cookies={c["name"] for c in self._cookies})

    # ---- Backend implementation -------------------------------------------------------

    def _start(self) -> None:
        executable = find_chromium(self.config.executable_path)
        self._driver = DRIVERS.acquire()
        self._playwright = self._driver.playwright
        args = list(QUIET_FLAGS) + list(WEBRTC_FLAGS) + list(self.config.extra_args)
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses its sandbox as root
        try:
            # Playwright's own download: its full Chromium (channel "chromium"), never the headless
            # shell it picks for headless by default, which ignores WEBRTC_FLAGS (docs/security.md)
            where = {"executable_path": executable} if executable is not None else {"channel": "chromium"}
            self._browser = self._playwright.chromium.launch(
                **where, headless=self.config.headless, args=args, timeout=60_000)
        except Exception:
            DRIVERS.release(self._driver)
            self._driver = self._playwright = None
            raise
        self._disconnected = False
        self._browser.on("disconnected", lambda _b: setattr(self, "_disconnected", True))
        self.browser_pid, driver_pid = self._find_processes()
        if self._driver.pid is None:
            self._driver.pid = driver_pid
        if self.access.restricted and self._proxy_hole is None:
            # A port held bound but never listening: connecting to it is refused at once, and
            # no other program can take it while we hold it.
            self._proxy_hole = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self._proxy_hole.bind(("127.0.0.1", 0))

    def _find_processes(self) -> tuple[int | None, int | None]:
        """(browser pid, Playwright driver pid): the browser names its own process over the
        DevTools protocol; the driver is the browser's ancestor that is this process's child.
        Without them a hung call cannot be aborted; everything else still works."""
        try:
            session = self._browser.new_browser_cdp_session()
            try:
                processes = session.send("SystemInfo.getProcessInfo")["processInfo"]
            finally:
                session.detach()
            browser = next(int(p["id"]) for p in processes if p.get("type") == "browser")
        except Exception as exc:  # another Chromium build, a remote browser
            logger.warning("browser: could not learn the browser's process id (%s: %s); a hung call "
                           "will not be aborted", type(exc).__name__, exc)
            return None, None
        driver, me = browser, os.getpid()
        while driver is not None and parent(driver) not in (me, None, 0, 1):
            driver = parent(driver)
        return browser, driver if driver is not None and parent(driver) == me else None

    def _bounded(self, what: str, work):
        """`work` (a Playwright call with no timeout of its own) under `close_timeout_s`."""
        return self.bounded(what, work, timeout_s=self.config.close_timeout_s, limit="close_timeout_s")

    def _abort(self, force: bool) -> None:
        """From the watchdog thread: kill the browser (with `force`, or when its pid is
        unknown, the driver too); the driver then fails every call waiting on it."""
        self._disconnected = True
        if self.browser_pid is not None:
            kill_tree(self.browser_pid)
        if (force or self.browser_pid is None) and self._driver is not None:
            self._driver.kill()

    def _new_episode(self) -> None:
        if (self.config.keep_page and self._page is not None and not self._page.is_closed() and not self._crashed
                and self._context_servers == self._servers_allowed):
            self.blocked_requests = []
            self.start_url = None
            self._elements = None
            self._settled_elements = None
            return
        self.blocked_requests = []
        self.start_url = None
        self._settled_elements = None
        if (self.config.strict_isolation or self._context is None
                or self._context_reachable != self.access.reachable):
            self._close_context()
            self._page = None
            self._bounded("opening a fresh context", self._open_context)
        else:
            self._bounded("clearing the context", self._clear_context)

    def _clear_context(self) -> None:
        """Leave nothing of the last episode in the reused context: a new page first (the old
        ones close, and with them sessionStorage, history, timers, sockets and workers), then
        the storage of every origin it requested, the HTTP cache, cookies (the servers' tokens
        set again) and permissions."""
        context, old = self._context, list(self._context.pages)
        self._closing_context = True  # the old pages' "close" must not adopt one another
        try:
            self._adopt_page(context.new_page())
            for page in old:
                page.close()
        finally:
            self._closing_context = False
        for origin in sorted(self._origins):  # "all" takes the origin's cookies too: tokens after
            self._cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        self._origins.clear()
        self._cdp.send("Network.clearBrowserCache")
        context.clear_cookies()
        if self._cookies:
            context.add_cookies(self._cookies)
        context.clear_permissions()
        self._reset_clipboard()

    def _reset_clipboard(self) -> None:
        """Leave nothing of the last episode in the clipboard, which belongs to the browser
        process, not to a context (a fresh context shares it too): on the new blank page, an
        empty copy (with a user gesture) replaces what the clipboard held, and a selection made
        with the keyboard leaves the selection buffer (middle-click paste, which only a user's
        selection sets) holding the marker that every page refuses to paste (`PASTE_GUARD_JS`).
        Playwright evaluates with a user gesture, which a copy needs."""
        if self._page.evaluate(CLIPBOARD_RESET_JS.replace("__MARKER__", self._paste_marker)) is not True:
            raise InfraError("the browser's clipboard could not be emptied at the reset (the copy was refused)")
        self._page.keyboard.press("Control+A")

    def _open_context(self) -> None:
        width, height = self.config.viewport
        options: dict[str, Any] = {}
        if self.access.restricted:
            # Everything but the allowed origins goes to a closed port (see the module docstring).
            options["proxy"] = {"server": f"http://127.0.0.1:{self._proxy_hole.getsockname()[1]}",
                                "bypass": ",".join(self.access.reachable)}
        self._context = self._browser.new_context(
            viewport={"width": width, "height": height}, device_scale_factor=1,
            locale=self.config.locale, timezone_id=self.config.timezone,
            service_workers="block", accept_downloads=False, **options)
        self._context.set_default_timeout(self.config.navigation_timeout_s * 1000)
        self._context.add_init_script(INIT_JS)
        self._context.add_init_script(PASTE_GUARD_JS.replace("__MARKER__", self._paste_marker))
        if self.config.disable_animations:
            self._context.add_init_script(NO_ANIMATIONS_JS)
        self._context_reachable = self.access.reachable
        self._origins = set()
        self._context.on("request", self._note_origin)
        if self._cookies:
            self._context.add_cookies(self._cookies)
        self._context_servers = self._servers_allowed
        if self.access.restricted:
            self._context.route("**/*", self._filter_request)
            self._context.route_web_socket(lambda url: self.access.refusal(url, navigation=False) is not None,
                                           self._refuse_socket)
        else:
            self._context.route(NOT_WEB, self._filter_request)
        self._context.on("page", self._adopt_page)
        self._adopt_page(self._context.new_page())
        self._reset_clipboard()

    def _adopt_page(self, page) -> None:
        """Make `page` the active one: new tabs and popups take over, as a user would see."""
        if page is self._page:
            return
        self._page = page
        inflight: set[Any] = set()
        self._inflight = inflight
        self._crashed = False
        self._elements = self._settled_elements = None
        page.on("request", lambda request: inflight.add(request))
        page.on("requestfinished", lambda request: inflight.discard(request))
        page.on("requestfailed", lambda request: inflight.discard(request))
        page.on("crash", lambda _p: setattr(self, "_crashed", True))
        page.on("close", self._on_page_close)
        self._cdp = self._context.new_cdp_session(page)

    def _note_origin(self, request) -> None:
        """Remember the origin of every http(s) request: the storage to clear at the next reset."""
        url = request.url
        if url.startswith(("http:", "https:")):
            parts = urlsplit(url)
            self._origins.add(f"{parts.scheme}://{parts.netloc}")

    def _on_page_close(self, page) -> None:
        if page is self._page and self._context is not None and not self._closing_context:
            others = [p for p in self._context.pages if p is not page and not p.is_closed()]
            if others:
                self._page = None
                self._adopt_page(others[-1])

    def _filter_request(self, route) -> None:
        request = route.request
        if self.access.refusal(request.url, navigation=request.is_navigation_request()) is None:
            route.continue_()
        else:
            self.blocked_requests.append(request.url)
            route.abort("blockedbyclient")

    def _refuse_socket(self, socket_route) -> None:
        """A WebSocket to a server this env may not reach (the matcher picked it): closed
        before it connects."""
        self.blocked_requests.append(socket_route.url)
        socket_route.close(code=1008, reason="blocked by gui-gym")

    def _goto(self, url: str) -> None:
        self._settled_elements = None
        self._page.goto(url, wait_until="load")
        self._settle()

    def _execute(self, action: Action) -> None:
        self._settled_elements = None
        page, kind = self._page, action.kind
        mouse, keyboard = page.mouse, page.keyboard
        if kind in ("click", "double_click", "triple_click", "right_click", "long_press",
                    "move", "mouse_down", "mouse_up", "type"):
            point = self._point(action)
        if kind == "click":
            mouse.click(*point, button=action.button or "left")
        elif kind == "double_click":
            mouse.dblclick(*point)
        elif kind == "triple_click":
            mouse.click(*point, click_count=3)
        elif kind == "right_click":
            mouse.click(*point, button="right")
        elif kind == "move":
            mouse.move(*point)
        elif kind in ("mouse_down", "mouse_up"):
            if point is not None:
                mouse.move(*point)
            (mouse.down if kind == "mouse_down" else mouse.up)(button=action.button or "left")
        elif kind == "long_press":
            mouse.move(*point)
            mouse.down()
            page.wait_for_timeout((action.duration_s or 1.0) * 1000)
            mouse.up()
        elif kind in ("drag", "swipe"):
            start, end = self._drag_points(action)
            mouse.move(*start)
            mouse.down()
            mouse.move(*end, steps=12)
            mouse.up()
        elif kind == "scroll":
            width, height = self.screen_size
            x = action.x if action.x is not None else width / 2
            y = action.y if action.y is not None else height / 2
            mouse.move(x, y)
            step = action.amount * SCROLL_NOTCH_PX
            dx, dy = {"up": (0, -step), "down": (0, step), "left": (-step, 0), "right": (step, 0)}[action.direction]
            before = page.evaluate(SCROLL_STATE_JS, [x, y])
            mouse.wheel(dx, dy)
            page.evaluate(AWAIT_SCROLL_JS, [x, y, before, SCROLL_WAIT_FRAMES])
        elif kind == "type":
            if point is not None:  # typing into a given field clicks it first
                mouse.click(*point)
            keyboard.type(action.text)
        elif kind == "key":
            keyboard.press(playwright_key(action.keys[0]))
        elif kind == "hotkey":
            keyboard.press("+".join(playwright_key(k) for k in action.keys))
        elif kind in ("key_down", "key_up"):
            (keyboard.down if kind == "key_down" else keyboard.up)(playwright_key(action.keys[0]))
        elif kind == "wait":
            page.wait_for_timeout((action.duration_s if action.duration_s is not None else 1.0) * 1000)
        elif kind == "goto":
            self._navigate(lambda: page.goto(action.text, wait_until="load"), action.text)
        elif kind == "navigate_back":
            page.go_back(wait_until="load")
        elif kind == "navigate_home":
            if self.start_url is None:
                raise ActionExecutionError("this episode has no home page to return to")
            page.goto(self.start_url, wait_until="load")
        else:
            raise ActionExecutionError(f"the browser cannot perform {kind!r}")

    def _navigate(self, go, url: str) -> None:
        reason = self.access.refusal(url, navigation=True)
        if reason is not None:
            self.blocked_requests.append(url)
            raise ActionExecutionError(f"navigation to {url!r} is blocked: {reason}")
        go()

    def _point(self, action: Action) -> tuple[float, float] | None:
        if action.element is not None:
            elements = self._elements if self._elements is not None else self._refresh_elements()
            if action.element >= len(elements):
                raise ActionExecutionError(
                    f"element index {action.element} does not exist; the screen has {len(elements)} indexed elements")
            x, y, w, h = elements[action.element]["bbox"]
            return x + w / 2, y + h / 2
        return action.point

    def _drag_points(self, action: Action) -> tuple[tuple[float, float], tuple[float, float]]:
        if action.to_x is not None:
            return (action.x, action.y), (action.to_x, action.to_y)
        width, height = self.screen_size
        x = action.x if action.x is not None else width / 2
        y = action.y if action.y is not None else height / 2
        dist = 0.3 * height
        dx, dy = {"up": (0, -dist), "down": (0, dist), "left": (-dist, 0), "right": (dist, 0)}[action.direction]
        return (x, y), (x + dx, y + dy)

    def _settle(self) -> None:
        """Wait, bounded, until loading, network, finite animations and DOM mutations are
        quiet. Returns at once when the page already is."""
        deadline = time.monotonic() + self.config.settle_timeout_s
        page_before = self._page
        script = READY_WITH_ELEMENTS_JS if self.expects_a11y else READY_JS
        elements = None
        while time.monotonic() < deadline:
            try:
                ready = self._page.evaluate(script, self.config.screen) if self.expects_a11y else self._page.evaluate(script)
                if isinstance(ready, dict):
                    ready, elements = ready["ready"], ready.get("elements")
            except Exception as exc:
                if self._crashed or self._disconnected:
                    raise InfraError("the browser page crashed") from exc
                # A navigation destroyed the context mid-check: wait for the new document.
                logger.debug("settle check interrupted (%s); waiting for the new document", exc)
                remaining_ms = max(1.0, (deadline - time.monotonic()) * 1000)
                try:
                    self._page.wait_for_load_state("load", timeout=remaining_ms)
                except Exception as load_exc:
                    logger.debug("no load event before the settle deadline: %s", load_exc)
                continue
            if ready == "popup":
                if self._page is page_before:  # not adopted yet: the "page" event adopts it
                    remaining_ms = max(1.0, (deadline - time.monotonic()) * 1000)
                    try:
                        self._context.wait_for_event("page", timeout=remaining_ms)
                    except Exception as exc:  # the popup was blocked or never came; keep the current page
                        logger.debug("an announced popup did not open: %s", exc)
                continue
            if ready and not self._inflight:
                self._settled_elements = elements
                return
            self._page.wait_for_timeout(16)
        # Timed out. A page still "leaving" after the whole bound announced a navigation that
        # never came (one the browser aborted: an unknown scheme, a 204 answer); forget it, or
        # every later step would wait the whole bound for it too.
        try:
            self._page.evaluate("window.__guiGymLeaving = false")
        except Exception as exc:  # a navigation is replacing the document after all: it has no flag
            logger.debug("the leaving flag could not be cleared: %s", exc)

    def _observe(self, a11y: bool, screenshot: bool = True) -> Observation:
        if self._crashed:
            raise InfraError("the browser page crashed")
        if self._page.is_closed():  # the agent closed the last tab: a blank one, like a browser
            self._adopt_page(self._context.new_page())
        self._refuse_documents()
        pixels, extra = self._screenshot() if screenshot else (None, {})
        tree = None
        if a11y:
            settled, self._settled_elements = self._settled_elements, None
            self._elements = settled if settled is not None else self._refresh_elements()
            tree = format_elements(self._elements)
        else:
            self._elements = None
        return Observation(screenshot=pixels, a11y_tree=tree, url=self._page.url, extra=extra)

    def _screenshot(self) -> tuple[np.ndarray, dict[str, bytes]]:
        """The viewport's pixels, and in `extra` the browser's own encoding of them ("png" or
        "jpeg"), so a recorder need not encode them again."""
        data = base64.b64decode(self._capture()["data"])
        image = Image.open(io.BytesIO(data))
        pixels = np.asarray(image.convert("RGB"))
        width, height = self.screenshot_size
        if pixels.shape[:2] != (height, width):  # a page that resized the window
            return np.asarray(image.convert("RGB").resize((width, height))), {}
        return pixels, {self.config.screenshot_format: data}

    def _refuse_documents(self) -> None:
        """Blank the page if it, or a frame in it, shows a document the policy refuses (a
        scheme no request filter sees); the agent never observes it."""
        for frame in self._page.frames:
            reason = self.access.document_refusal(frame.url)
            if reason is not None:
                logger.warning("browser: the page showed %s (%s); blanked before the observation", frame.url, reason)
                self.blocked_requests.append(frame.url)
                self._settled_elements = None
                self._page.goto("about:blank")
                return

    def _capture(self) -> dict[str, Any]:
        """One screenshot through DevTools: the viewport, or its top-left `screen` (a clip is
        in page coordinates, so it starts where the page is scrolled to), scaled to
        `screenshot_size`.
        The session detaches from a page that swaps its renderer (a cross-process navigation, the error page of a failed one) and capturing
        fails until the new document has committed: retried with a new session, within
        `settle_timeout_s`."""
        deadline_at = time.monotonic() + self.config.settle_timeout_s
        while True:
            try:
                if self.config.screen is None:
                    return self._cdp.send("Page.captureScreenshot", self._screenshot_params)
                width, height = self.config.screen
                view = self._cdp.send("Page.getLayoutMetrics")["cssVisualViewport"]
                scale = self.screenshot_size[0] / width
                clip = {"x": view["pageX"], "y": view["pageY"], "width": width, "height": height, "scale": scale}
                return self._cdp.send("Page.captureScreenshot", {**self._screenshot_params, "clip": clip})
            except Exception as exc:
                if self._crashed or self._disconnected or time.monotonic() >= deadline_at:
                    raise
                logger.debug("screenshot session lost (%s); attaching a new one", exc)
            self._page.wait_for_timeout(CAPTURE_RETRY_MS)
            self._cdp = self._context.new_cdp_session(self._page)

    def _refresh_elements(self) -> list[dict[str, Any]]:
        self._elements = self._page.evaluate(ELEMENTS_JS, self.config.screen)
        return self._elements

    def _close_context(self) -> None:
        if self._context is not None:
            self._closing_context = True
            try:
                self._bounded("closing the episode's context", self._context.close)
            finally:
                self._closing_context = False
                self._context = None

    def _alive(self) -> bool:
        return (self._browser is not None and not self._disconnected and self._browser.is_connected()
                and not self._crashed and (self._driver is None or self._driver.running))

    def _close(self) -> None:
        try:
            self._close_context()
        except Exception as exc:  # closing what is already dead (or was just killed); nothing left to release
            logger.info("the episode's context was already gone when closed: %s", exc)
        try:
            if self._browser is not None:
                self._bounded("closing the browser", self._browser.close)
        except Exception as exc:
            logger.info("the browser was already gone when closed: %s", exc)
        if self._driver is not None:
            DRIVERS.release(self._driver)
        if self._proxy_hole is not None:
            self._proxy_hole.close()
        self._context = self._browser = self._playwright = self._driver = self._page = self._cdp = None
        self._proxy_hole = None
        self.browser_pid = None
        self._elements = None
