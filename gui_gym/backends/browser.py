"""Playwright Chromium backend: one browser per env, a fresh context per episode.

Input is real (Playwright's mouse and keyboard, dispatched through the DevTools protocol as
trusted events); nothing an agent writes is evaluated as code. After each action the backend
settles by readiness instead of sleeping: the document has loaded, no request is in flight,
no finite CSS animation is running, and the DOM has been quiet for one animation frame; all
bounded by `settle_timeout_s`.

Screenshots come from the DevTools protocol with ``optimizeForSpeed`` (a fast PNG encoder,
still lossless), decoded once to a numpy array; the text caret is hidden, as Playwright's own
screenshots do, so identical states give identical pixels.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from PIL import Image

from gui_gym.actions import Action
from gui_gym.backends.base import Backend, Observation
from gui_gym.backends.page_scripts import (AWAIT_SCROLL_JS, ELEMENTS_JS, INIT_JS, READY_JS, SCROLL_STATE_JS,
                                           element_tree_text)
from gui_gym.errors import ActionExecutionError, InfraError, MissingResourceError

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

SCROLL_NOTCH_PX = 100
SCREENSHOT_PARAMS = {"format": "png", "optimizeForSpeed": True}
SCROLL_WAIT_FRAMES = 4
"""Frames to wait for a wheel scroll to land; one suffices in practice, the rest are for a
page at the end of its scroll range, which never moves."""
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})

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


class PlaywrightDrivers:
    """One Playwright driver per thread, shared by that thread's browsers.

    Playwright's sync API allows a single running instance per thread, while a process may
    hold several envs (a rollout pool, `check_env` making a second env); each env still gets
    its own browser, launched from the shared driver, which stops with its last user.
    """

    def __init__(self) -> None:
        self._local = threading.local()

    def acquire(self):
        local = self._local
        if getattr(local, "users", 0) == 0:
            from playwright.sync_api import sync_playwright

            local.driver = sync_playwright().start()
            local.users = 0
        local.users += 1
        return local.driver

    def release(self) -> None:
        local = self._local
        local.users -= 1
        if local.users == 0:
            try:
                local.driver.stop()
            finally:
                local.driver = None


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
    """When set, every request to another host is aborted (navigation included)."""
    settle_timeout_s: float = 2.0
    navigation_timeout_s: float = 15.0
    locale: str = "en-US"
    timezone: str = "UTC"
    extra_args: tuple[str, ...] = field(default_factory=tuple)
    keep_page: bool = False
    """Episodes share one context and page instead of a fresh context each: for suites whose
    pages restart their own episodes (MiniWoB), where a fresh page per episode is most of the
    reset's cost. Cookies, storage and page state carry over; a crashed or closed page is
    still replaced."""

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
        return cls(**values)


class BrowserBackend(Backend):
    """A Chromium page driven by Playwright's sync API."""

    observation_text_keys = ("url",)

    def __init__(self, config: BrowserConfig | None = None, **overrides: Any):
        super().__init__()
        config = config or BrowserConfig()
        for key, value in overrides.items():
            if not hasattr(config, key):
                raise TypeError(f"BrowserConfig has no field {key!r}")
            setattr(config, key, value)
        if config.allowed_hosts is not None:
            config.allowed_hosts = frozenset(config.allowed_hosts)
        self.config = config
        self.start_url: str | None = None
        self.blocked_requests: list[str] = []
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

    @property
    def screen_size(self) -> tuple[int, int]:
        return self.config.screen or self.config.viewport

    @property
    def page(self):
        """The active Playwright page, for suites that need to read it through this backend."""
        return self._page

    # ---- what suites ask of the browser -------------------------------------------------

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
        """Box (x, y, width, height) in viewport pixels of the element matching a CSS or
        Playwright `selector`, as it is now: nothing is scrolled, so the box may lie outside
        the viewport. Oracles turn it into clicks, and into scroll actions when it does."""
        def work() -> tuple[float, float, float, float]:
            locator = self._page.locator(selector).nth(nth)
            box = locator.bounding_box(timeout=self.config.settle_timeout_s * 1000)
            if box is None:
                raise ActionExecutionError(f"element {selector!r} is not rendered")
            return box["x"], box["y"], box["width"], box["height"]
        return self._guard(work)

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        """Run a JavaScript expression written by the suite (never by the agent)."""
        return self._guard(lambda: self._page.evaluate(expression, arg))

    @property
    def url(self) -> str:
        return self._page.url if self._page is not None else ""

    def elements(self) -> list[dict[str, Any]]:
        """Visible interactive and text elements of the page, indexed as in the a11y tree."""
        return self._guard(self._refresh_elements)

    # ---- Backend implementation -------------------------------------------------------

    def _start(self) -> None:
        executable = find_chromium(self.config.executable_path)
        self._playwright = DRIVERS.acquire()
        args = list(QUIET_FLAGS) + list(self.config.extra_args)
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses its sandbox as root
        try:
            self._browser = self._playwright.chromium.launch(
                executable_path=executable, headless=self.config.headless, args=args,
                timeout=60_000)
        except Exception:
            DRIVERS.release()
            self._playwright = None
            raise
        self._disconnected = False
        self._browser.on("disconnected", lambda _b: setattr(self, "_disconnected", True))

    def _new_episode(self) -> None:
        if self.config.keep_page and self._page is not None and not self._page.is_closed() and not self._crashed:
            self.blocked_requests = []
            self.start_url = None
            self._elements = None
            return
        self._close_context()
        width, height = self.config.viewport
        self._context = self._browser.new_context(
            viewport={"width": width, "height": height}, device_scale_factor=1,
            locale=self.config.locale, timezone_id=self.config.timezone,
            service_workers="block", accept_downloads=False)
        self._context.set_default_timeout(self.config.navigation_timeout_s * 1000)
        self._context.add_init_script(INIT_JS)
        if self.config.allowed_hosts is not None:
            self._context.route("**/*", self._filter_request)
        self._context.on("page", self._adopt_page)
        self.blocked_requests = []
        self.start_url = None
        self._page = None
        self._adopt_page(self._context.new_page())

    def _adopt_page(self, page) -> None:
        """Make `page` the active one: new tabs and popups take over, as a user would see."""
        if page is self._page:
            return
        self._page = page
        inflight: set[Any] = set()
        self._inflight = inflight
        self._crashed = False
        self._elements = None
        page.on("request", lambda request: inflight.add(request))
        page.on("requestfinished", lambda request: inflight.discard(request))
        page.on("requestfailed", lambda request: inflight.discard(request))
        page.on("crash", lambda _p: setattr(self, "_crashed", True))
        page.on("close", self._on_page_close)
        self._cdp = self._context.new_cdp_session(page)

    def _on_page_close(self, page) -> None:
        if page is self._page and self._context is not None and not self._closing_context:
            others = [p for p in self._context.pages if p is not page and not p.is_closed()]
            if others:
                self._page = None
                self._adopt_page(others[-1])

    def _filter_request(self, route) -> None:
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about") or (parts.hostname or "") in self.config.allowed_hosts:
            route.continue_()
        else:
            self.blocked_requests.append(url)
            route.abort("blockedbyclient")

    def _goto(self, url: str) -> None:
        self._page.goto(url, wait_until="load")
        self._settle()

    def _execute(self, action: Action) -> None:
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
        host = urlsplit(url).hostname
        if self.config.allowed_hosts is not None and host not in self.config.allowed_hosts:
            raise ActionExecutionError(f"navigation to {url!r} is blocked: this env only reaches {sorted(self.config.allowed_hosts)}")
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
        while time.monotonic() < deadline:
            try:
                ready = self._page.evaluate(READY_JS)
            except Exception as exc:
                if self._crashed or self._disconnected:
                    raise InfraError("the browser page crashed") from exc
                # A navigation destroyed the context mid-check: wait for the new document.
                remaining_ms = max(1.0, (deadline - time.monotonic()) * 1000)
                try:
                    self._page.wait_for_load_state("load", timeout=remaining_ms)
                except Exception:
                    pass
                continue
            if ready == "popup":
                if self._page is page_before:  # not adopted yet: the "page" event adopts it
                    remaining_ms = max(1.0, (deadline - time.monotonic()) * 1000)
                    try:
                        self._context.wait_for_event("page", timeout=remaining_ms)
                    except Exception:
                        pass  # the popup was blocked or never came; keep the current page
                continue
            if ready and not self._inflight:
                return
            self._page.wait_for_timeout(16)

    def _observe(self, a11y: bool) -> Observation:
        if self._crashed:
            raise InfraError("the browser page crashed")
        if self._page.is_closed():  # the agent closed the last tab: a blank one, like a browser
            self._adopt_page(self._context.new_page())
        width, height = self.screen_size
        try:
            shot = self._capture(width, height)
        except Exception:
            # The DevTools session can detach from a page that swapped its renderer (a
            # cross-process navigation); a new session on the same page sees it again.
            self._cdp = self._context.new_cdp_session(self._page)
            shot = self._capture(width, height)
        png = base64.b64decode(shot["data"])
        image = Image.open(io.BytesIO(png))
        screenshot = np.asarray(image.convert("RGB"))
        extra = {"png": png}  # the encoded screenshot, so a recorder need not encode it again
        if screenshot.shape[:2] != (height, width):  # a page that resized the window
            screenshot = np.asarray(image.convert("RGB").resize((width, height)))
            extra = {}
        tree = None
        if a11y:
            tree = element_tree_text(self._refresh_elements())
        else:
            self._elements = None
        return Observation(screenshot=screenshot, a11y_tree=tree, url=self._page.url, extra=extra)

    def _capture(self, width: int, height: int) -> dict[str, Any]:
        """The screenshot: the viewport, or its top-left screen (a clip is in page
        coordinates, so it starts where the page is scrolled to)."""
        if self.config.screen is None:
            return self._cdp.send("Page.captureScreenshot", SCREENSHOT_PARAMS)
        view = self._cdp.send("Page.getLayoutMetrics")["cssVisualViewport"]
        clip = {"x": view["pageX"], "y": view["pageY"], "width": width, "height": height, "scale": 1}
        return self._cdp.send("Page.captureScreenshot", {**SCREENSHOT_PARAMS, "clip": clip})

    def _refresh_elements(self) -> list[dict[str, Any]]:
        self._elements = self._page.evaluate(ELEMENTS_JS, self.config.screen)
        return self._elements

    def _close_context(self) -> None:
        if self._context is not None:
            self._closing_context = True
            try:
                self._context.close()
            finally:
                self._closing_context = False
                self._context = None

    def _alive(self) -> bool:
        return (self._browser is not None and not self._disconnected and self._browser.is_connected()
                and not self._crashed)

    def _close(self) -> None:
        try:
            self._close_context()
            if self._browser is not None:
                self._browser.close()
        except Exception:
            pass  # closing what is already dead; nothing left to release
        if self._playwright is not None:
            DRIVERS.release()
        self._context = self._browser = self._playwright = self._page = self._cdp = None
        self._elements = None
