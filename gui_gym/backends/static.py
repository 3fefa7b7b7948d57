"""A backend over recorded screenshots: offline benchmarks (MMBench-GUI L1/L2, ScreenSpot,
AndroidControl-style replay) as Gymnasium episodes.

There is no live screen. A suite shows a recorded screenshot with `show`; the agent's
actions are recorded in `actions`, never executed, and the suite's evaluator scores them
against the recording's annotations. Recordings differ in size (a phone screen, a 4K
desktop), so the screen size follows the screenshot shown, and `screenshot_space` admits
RGB images of any size: the env takes it in place of a fixed-shape Box. Images of any size fit
no fixed shared-memory buffer, so an async vector env of such an id is made with
``vector_kwargs={"shared_memory": False}`` (observations then travel pickled through the pipes);
with shared memory, making it fails at once with the reason.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.error import CustomSpaceError
from gymnasium.vector.utils import create_shared_memory
from PIL import Image

from gui_gym.actions import Action
from gui_gym.backends.base import Backend, Observation
from gui_gym.errors import MissingResourceError, TaskConfigError


class ScreenshotSpace(spaces.Space):
    """RGB screenshots (uint8, HxWx3) of any size. `sample` draws noise of `sample_size`.

    >>> space = ScreenshotSpace(sample_size=(4, 3), seed=0)
    >>> space.sample().shape
    (3, 4, 3)
    >>> space.contains(np.zeros((720, 1280, 3), np.uint8))
    True
    """

    def __init__(self, sample_size: tuple[int, int] = (1280, 720), seed: int | None = None):
        width, height = sample_size
        if width <= 0 or height <= 0:
            raise ValueError(f"sample_size must be positive (width, height), received {sample_size}")
        super().__init__(shape=None, dtype=np.uint8, seed=seed)
        self.sample_size = (int(width), int(height))

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        return (isinstance(x, np.ndarray) and x.dtype == np.uint8 and x.ndim == 3
                and x.shape[2] == 3 and x.shape[0] > 0 and x.shape[1] > 0)

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        if mask is not None or probability is not None:
            raise NotImplementedError("ScreenshotSpace.sample does not take a mask or probability")
        width, height = self.sample_size
        return self.np_random.integers(0, 256, (height, width, 3), dtype=np.uint8)

    def __repr__(self) -> str:
        return f"ScreenshotSpace(any HxWx3 uint8; samples {self.sample_size[0]}x{self.sample_size[1]})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ScreenshotSpace) and other.sample_size == self.sample_size


@create_shared_memory.register(ScreenshotSpace)
def _refuse_shared_memory(space: ScreenshotSpace, n: int = 1, ctx: Any = None) -> None:
    raise CustomSpaceError(f"{space!r}: screenshots of any size fit no fixed shared-memory buffer; make the async "
                           "vector env with vector_kwargs={'shared_memory': False}")


def load_screenshot(path: str | Path) -> np.ndarray:
    """A screenshot file as a read-only HxWx3 uint8 RGB array."""
    path = Path(path)
    if not path.is_file():
        raise MissingResourceError(f"screenshot {path} does not exist")
    try:
        with Image.open(path) as image:
            array = np.asarray(image.convert("RGB"))
    except OSError as exc:
        raise TaskConfigError(f"screenshot {path} is not a readable image: {exc}") from exc
    array.flags.writeable = False
    return array


class StaticBackend(Backend):
    """Recorded screenshots as a screen.

    Args:
        screen_size: (width, height) reported before the first screenshot is shown (the
            size `ScreenshotSpace.sample` draws).
        cache_size: decoded screenshots kept in memory, so consecutive episodes on one
            recording (several questions about one screen) decode it once.

    >>> backend = StaticBackend()
    >>> backend.new_episode()
    >>> backend.show(np.zeros((20, 30, 3), np.uint8))
    >>> backend.screen_size
    (30, 20)
    >>> backend.execute(Action.click(3, 4)); backend.actions
    [Action(kind='click', x=3.0, y=4.0)]
    """

    step_timeout_s = None
    """No deadline: nothing here can block, so no watchdog is started per call."""

    snapshot_kind = "replay"
    """A recording shows what the actions so far select: replaying them is exact."""

    def __init__(self, screen_size: tuple[int, int] = (1280, 720), cache_size: int = 8):
        super().__init__()
        width, height = screen_size
        if width <= 0 or height <= 0:
            raise ValueError(f"screen_size must be positive (width, height), received {screen_size}")
        if cache_size < 0:
            raise ValueError(f"cache_size must be >= 0, received {cache_size}")
        self.default_size = (int(width), int(height))
        self.cache_size = cache_size
        self.screenshot_space = ScreenshotSpace(self.default_size)
        self.actions: list[Action] = []
        """What the agent did this episode, in order: recorded, not executed."""
        self.source: str | None = None
        """Where the screenshot on screen came from (a file path), for logs and results."""
        self._screenshot: np.ndarray | None = None
        self._a11y_tree: str | None = None
        self._cache: OrderedDict[Path, np.ndarray] = OrderedDict()

    @property
    def screen_size(self) -> tuple[int, int]:
        if self._screenshot is None:
            return self.default_size
        height, width = self._screenshot.shape[:2]
        return int(width), int(height)

    def show(self, screenshot: np.ndarray | str | Path, a11y_tree: str | None = None) -> None:
        """Put a recorded screenshot (an HxWx3 uint8 array or an image file) on screen."""
        if isinstance(screenshot, (str, Path)):
            self.source = str(screenshot)
            self._screenshot = self._load(Path(screenshot))
        elif self.screenshot_space.contains(screenshot):
            self.source = None
            self._screenshot = screenshot
        else:
            shape = getattr(screenshot, "shape", None)
            raise TaskConfigError(
                f"expected a screenshot as an HxWx3 uint8 array or an image path, received "
                f"{type(screenshot).__name__}{'' if shape is None else f' of shape {shape}'}")
        self._a11y_tree = a11y_tree

    def _load(self, path: Path) -> np.ndarray:
        if path in self._cache:
            self._cache.move_to_end(path)
            return self._cache[path]
        array = load_screenshot(path)
        if self.cache_size:
            self._cache[path] = array
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return array

    def _start(self) -> None:
        """Nothing runs: the screen is a file."""

    def _new_episode(self) -> None:
        self.actions = []
        self._screenshot = None
        self._a11y_tree = None
        self.source = None

    def _execute(self, action: Action) -> None:
        self.actions.append(action)

    def _observe(self, a11y: bool, screenshot: bool = True) -> Observation:
        pixels = self._screenshot
        if not screenshot:
            pixels = None
        elif pixels is None:
            width, height = self.default_size
            pixels = np.zeros((height, width, 3), np.uint8)
        return Observation(screenshot=pixels, a11y_tree=self._a11y_tree if a11y else None)

    def _alive(self) -> bool:
        return True

    def _close(self) -> None:
        self._cache.clear()
        self._screenshot = None
