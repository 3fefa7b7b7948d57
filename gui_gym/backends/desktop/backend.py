"""`DesktopBackend`: a desktop behind OSWorld's server protocol, driven by canonical actions.

The backend knows no benchmark. It gets a `ServerClient` from its provider (`providers.py`),
carries out canonical `Action`s, settles by screen stability and observes the screen (with
the pointer) and, when asked, the accessibility tree. On our own server (provider ``local``)
actions and settling run in the server process (``/gui-gym/input``, ``/gui-gym/settle``); on an
OSWorld VM each action is written as pyautogui code by our formatter (never the agent's text)
and run through ``/execute``, as OSWorld's own controller does, and settling polls screenshots.

Suites reach the desktop through `client` (the protocol: files, commands, windows), plus
`require_network` for tasks that need the internet.
"""

from __future__ import annotations

import logging
import dataclasses
import io
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from gui_gym.action_formats import pyautogui_code
from gui_gym.actions import MAX_WAIT_S, Action
from gui_gym.backends.base import DEFAULT_STEP_TIMEOUT_S, Backend, Observation
from gui_gym.backends.desktop.a11y import linearize
from gui_gym.backends.desktop.client import ServerClient, ServerError
from gui_gym.backends.desktop.limits import SandboxLimits
from gui_gym.backends.desktop.shell import DEFAULT_SHELL, SHELLS
from gui_gym.backends.desktop.providers import (
    PROVIDERS,
    Provider,
    ProviderConfig,
    make_provider,
)
from gui_gym.errors import ActionExecutionError, InfraError
from gui_gym.runtime.waiting import wait_until

logger = logging.getLogger(__name__)

PYAUTOGUI_PREFIX = "import pyautogui; import time; pyautogui.FAILSAFE = False\n"
UNSUPPORTED_KINDS = frozenset({"goto", "open_app", "navigate_back", "navigate_home"})


@dataclass
class DesktopConfig:
    """Settings of a desktop backend; units in the names."""

    provider: str = "local"
    screen_size: tuple[int, int] = (1920, 1080)
    accessibility: bool = True
    """Run the accessibility bus (local) so ``a11y_tree`` observations work."""
    shell: str = DEFAULT_SHELL
    """The local desktop around the apps: ``"gnome"`` (the default) is OSWorld's (GNOME Shell
    with Ubuntu's dock, desktop icons, GNOME's shortcuts and settings); ``"openbox"`` a lighter
    stand-in (openbox, a tint2 dock, ctrl+alt+t), the fast option for training. docs/osworld.md
    compares them."""
    network: bool = False
    """Give every local session the network, not only the tasks that ask for it."""
    settle_timeout_s: float = 3.0
    settle_stable_frames: int = 3
    settle_interval_s: float = 0.04
    settle_change_timeout_s: float = 0.3
    """How long to wait for the screen to react at all before calling it settled."""
    settle_launch_timeout_s: float = 10.0
    """How long to wait for the screen to show a program an action started (ctrl+alt+t, a dock
    icon) while it starts and nothing has changed on the screen yet."""
    wait_s: float = 2.0
    """How long a ``WAIT`` without a duration pauses: OSWorld's ``pause`` (2 s in
    ``DesktopEnv.step``; its runners' ``--sleep_after_execution``)."""
    step_timeout_s: float | None = DEFAULT_STEP_TIMEOUT_S
    """Bound on each action (with its settling) and each observation; past it the calls in
    flight are cut (`ServerClient.abort`) and the desktop is relaunched at the next reset."""
    host: str | None = None
    port: int = 5000
    vm_path: str | None = None
    snapshot: str = "init_state"
    boot_timeout_s: float = 300.0
    sandbox_limits: SandboxLimits = field(default_factory=SandboxLimits)
    """Processes, memory and tmpfs sizes of each local sandbox."""
    pool_size: int = 1
    """Local desktops booted ahead, in the background, for the next episodes (each still serves
    one episode only); 0 boots each episode's desktop when its reset asks for it."""

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise ValueError(f"provider must be one of {list(PROVIDERS)}, received {self.provider!r}")
        self.screen_size = (int(self.screen_size[0]), int(self.screen_size[1]))
        if min(self.screen_size) <= 0:
            raise ValueError(f"screen_size must be positive (width, height), received {self.screen_size}")
        if self.pool_size < 0:
            raise ValueError(f"pool_size must be 0 or more, received {self.pool_size}")
        if self.shell not in SHELLS:
            raise ValueError(f"shell must be one of {list(SHELLS)}, received {self.shell!r}")
        if not 0 <= self.wait_s <= MAX_WAIT_S:
            raise ValueError(f"wait_s must be within [0, {MAX_WAIT_S:g}] seconds, received {self.wait_s!r}")

    @classmethod
    def pop_from(cls, kwargs: dict[str, Any]) -> DesktopConfig:
        """Take this config's fields out of an env factory's kwargs (the rest go to GUIEnv)."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: kwargs.pop(k) for k in list(kwargs) if k in names})

    def provider_config(self) -> ProviderConfig:
        return ProviderConfig(screen_size=self.screen_size, accessibility=self.accessibility, shell=self.shell,
                              network=self.network,
                              host=self.host, port=self.port, vm_path=self.vm_path, snapshot=self.snapshot,
                              boot_timeout_s=self.boot_timeout_s, sandbox_limits=self.sandbox_limits,
                              pool_size=self.pool_size)


class DesktopBackend(Backend):
    """A desktop reached through OSWorld's server protocol."""

    snapshot_refusal = ("the OSWorld desktop cannot be snapshotted exactly: its applications' memory, open "
                        "documents and windows can be neither read nor replayed faithfully (a VM revert returns "
                        "to the task's start only); start the episode again with reset(options={'task_id': ...})")

    def __init__(self, config: DesktopConfig | None = None, **overrides: Any):
        super().__init__()
        self.config = dataclasses.replace(config or DesktopConfig(), **overrides)
        self.provider: Provider = make_provider(self.config.provider, self.config.provider_config())
        self._client: ServerClient | None = None
        self.last_settle: dict[str, Any] | None = None
        self.last_ready: dict[str, Any] | None = None
        """How the last `wait_until_ready` ended (``ready``, ``elapsed_s``, ``pending``)."""
        self.last_idle: dict[str, Any] | None = None
        """How the last `wait_until_idle` ended."""

    @property
    def screen_size(self) -> tuple[int, int]:
        return self.config.screen_size

    @property
    def step_timeout_s(self) -> float | None:  # type: ignore[override]
        return self.config.step_timeout_s

    @property
    def client(self) -> ServerClient:
        """The protocol client of the current desktop (setup steps and getters use it)."""
        if self._client is None:
            raise InfraError("the desktop is not started: call env.reset() first")
        return self._client

    @property
    def has_network(self) -> bool:
        return self.provider.network

    def require_network(self) -> None:
        """Give this episode's desktop the network (a local session is restarted with it)."""
        if not self.provider.network:
            self._client = self._guard(lambda: self.provider.new_episode(network=True))

    def mark_screen(self) -> None:
        """Remember the screen before something that should change it (a setup step)."""
        if "mark" in self.client.extensions:
            self._guard(self.client.mark)

    def wait_for_screen(self, timeout_s: float, expect_change: bool = True, quiet_s: float = 0.0) -> bool:
        """Wait until the screen holds still (for `quiet_s` seconds, or the usual few frames),
        at most `timeout_s`; with `expect_change`, first until it changed since `mark_screen`
        (OSWorld's setup ``sleep``: "give the last step time to show"). Desktops that cannot
        watch their screen (OSWorld VMs) wait the whole time when a change is expected. True
        when the screen settled."""
        if "settle" not in self.client.extensions:
            if expect_change or quiet_s:
                time.sleep(timeout_s)
            return True
        cfg = self.config
        frames = max(cfg.settle_stable_frames, math.ceil(quiet_s / cfg.settle_interval_s))
        change_timeout_s = timeout_s if expect_change else 0.0
        result = self._guard(lambda: self.client.settle(timeout_s, frames, cfg.settle_interval_s,
                                                        change_timeout_s=change_timeout_s))
        return bool(result.get("stable"))

    def wait_until_ready(self, timeout_s: float) -> dict[str, Any]:
        """Wait until the programs the episode's setup launched are up (past their splash and
        first-run work, a window mapped, idle) and the screen is still, at most `timeout_s`
        (`readiness.apps_ready`): ``{ready, elapsed_s, pending}``. Desktops that cannot watch
        their programs (OSWorld VMs) wait for a still screen only."""
        if "ready" not in self.client.extensions:
            started = time.monotonic()
            ready = self.wait_for_screen(timeout_s, expect_change=False)
            self.last_ready = {"ready": ready, "elapsed_s": time.monotonic() - started, "pending": []}
            return self.last_ready
        result = self.last_ready = self._guard(lambda: self.client.ready(timeout_s))
        if not result.get("ready"):
            logger.warning("the desktop was not ready within %g s, still waiting for %s", timeout_s,
                           ", ".join(result.get("pending", [])))
        return result

    def wait_until_idle(self, timeout_s: float) -> dict[str, Any]:
        """Wait until nothing the agent started is at work (a command in a terminal, files
        being written), at most `timeout_s` (`readiness.desktop_idle`): ``{ready, elapsed_s,
        pending}``. Desktops that cannot watch their processes (OSWorld VMs) wait the whole
        time, as OSWorld's harness does before its evaluation."""
        if "idle" not in self.client.extensions:
            time.sleep(timeout_s)
            self.last_idle = {"ready": True, "elapsed_s": timeout_s, "pending": []}
            return self.last_idle
        result = self.last_idle = self._guard(lambda: self.client.idle(timeout_s))
        if not result.get("ready"):
            logger.warning("the desktop was still at work after %g s: %s", timeout_s,
                           ", ".join(result.get("pending", [])))
        return result

    # ---- Backend implementation -------------------------------------------------------

    def _start(self) -> None:
        self._client = self.provider.start()
        self._check_screen()

    def _new_episode(self) -> None:
        self._client = self.provider.new_episode(network=False)

    def _execute(self, action: Action) -> None:
        if action.kind in UNSUPPORTED_KINDS:
            raise ActionExecutionError(f"a desktop cannot carry out a {action.kind!r} action")
        if action.kind == "wait":
            seconds = self.config.wait_s if action.duration_s is None else action.duration_s
            if seconds:
                time.sleep(seconds)  # the agent asked for this pause
            return
        if "input" in self.client.extensions:
            try:
                self.client.perform(action)
            except ServerError as exc:
                raise ActionExecutionError(exc.message) from exc
            return
        result = self.client.execute(["python", "-c", PYAUTOGUI_PREFIX + pyautogui_script(action)])
        if result.get("returncode") not in (0, None):
            raise ActionExecutionError(f"pyautogui failed in the VM: {str(result.get('error'))[-300:]}")

    def _settle(self) -> None:
        cfg = self.config
        if "settle" in self.client.extensions:
            self.last_settle = self.client.settle(cfg.settle_timeout_s, cfg.settle_stable_frames,
                                                  cfg.settle_interval_s, cfg.settle_change_timeout_s,
                                                  cfg.settle_launch_timeout_s)
            return
        frames: list[bytes] = []

        def stable() -> bool:
            frames.append(self.client.screenshot_png())
            return len(frames) >= 2 and frames[-1] == frames[-2]
        settled = wait_until(stable, cfg.settle_timeout_s, interval_s=cfg.settle_interval_s)
        self.last_settle = {"stable": bool(settled), "frames": len(frames)}

    def _observe(self, a11y: bool, screenshot: bool = True) -> Observation:
        self.provider.episode_ready()
        pixels = self._pixels() if screenshot else None
        tree = None
        if a11y:
            try:
                tree = linearize(self.client.accessibility_tree())
            except ServerError as exc:  # no accessibility on this desktop: an empty tree, not a crash
                logger.info("no accessibility tree on this desktop: %s", exc)
                tree = ""
        return Observation(screenshot=pixels, a11y_tree=tree)

    def _pixels(self) -> np.ndarray:
        if "frame" in self.client.extensions:
            width, height, data = self.client.frame()
            return np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3).copy()
        with Image.open(io.BytesIO(self.client.screenshot_png())) as image:
            return np.asarray(image.convert("RGB")).copy()

    def _alive(self) -> bool:
        """The provider's desktop runs, and on our own server so does its session (a desktop
        whose X server died still answers, with errors)."""
        if not self.provider.alive():
            return False
        client = self._client
        if client is None or "input" not in client.extensions:
            return True
        try:
            return bool(client.call_json("GET", "/gui-gym/info", timeout_s=5.0).get("running", True))
        except (InfraError, ServerError):
            return False

    def _abort(self, force: bool) -> None:
        if self._client is not None:
            self._client.abort()

    def _close(self) -> None:
        self.provider.stop()
        self._client = None

    def _check_screen(self) -> None:
        actual = self.client.screen_size()
        if actual != self.config.screen_size:
            raise InfraError(f"the desktop's screen is {actual[0]}x{actual[1]}, but the env was made with "
                             f"screen_size={self.config.screen_size}; pass screen_size={actual}")


def pyautogui_script(action: Action) -> str:
    """pyautogui code for one canonical action, for desktops that run it (OSWorld VMs).

    Typed text is written in pieces around ``<``, which pyautogui mistypes as ``>`` on
    OSWorld's keyboard map; ``<`` is sent as shift+comma instead (OSWorld does the same)."""
    if action.kind == "type" and "<" in action.text and action.x is None:
        lines = []
        for index, piece in enumerate(action.text.split("<")):
            if index:
                lines.append("pyautogui.hotkey('shift', ',')")
            if piece:
                lines.append(pyautogui_code.format(Action.type(piece)))
        return "\n".join(lines)
    if action.kind == "type" and action.x is not None:
        return "\n".join([pyautogui_code.format(Action.click(action.x, action.y)),
                          pyautogui_script(Action.type(action.text))])
    return pyautogui_code.format(action)
