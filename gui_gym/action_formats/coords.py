"""Model coordinate spaces and the exact way back to screen pixels.

A VLM rarely answers in the pixels of the screen: Qwen2.5-VL (and UI-TARS-1.5 built on it)
sees the screenshot after `smart_resize` and answers in that resized image's pixels; older
UI-TARS answers on a 0-1000 grid; some models answer in 0-1. Getting this mapping wrong by a
few percent is the most common reason a grounding model "misses", so it lives here, once,
with the resize reproduced exactly as Qwen2.5-VL's image processor computes it.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass

from gui_gym.errors import ActionParseError

IMAGE_FACTOR = 28
MIN_PIXELS = 100 * 28 * 28
MAX_PIXELS = 16384 * 28 * 28
MAX_ASPECT_RATIO = 200
MODES = ("absolute", "smart_resize", "relative1000", "normalized")


def smart_resize(height: int, width: int, factor: int = IMAGE_FACTOR,
                 min_pixels: int = MIN_PIXELS, max_pixels: int = MAX_PIXELS) -> tuple[int, int]:
    """The (height, width) Qwen2.5-VL's processor resizes an image to.

    Both sides are rounded to a multiple of `factor`; if the area then exceeds `max_pixels`
    the image is scaled down (sides floored to the factor), if it falls short of
    `min_pixels` it is scaled up (sides ceiled), keeping the aspect ratio.

    >>> smart_resize(1080, 1920)
    (1092, 1932)
    """
    if height <= 0 or width <= 0:
        raise ActionParseError(f"smart_resize: expected a positive height and width, received {height}x{width}")
    if max(height, width) / min(height, width) > MAX_ASPECT_RATIO:
        raise ActionParseError(
            f"smart_resize: aspect ratio must be at most {MAX_ASPECT_RATIO}, "
            f"received {max(height, width) / min(height, width):.1f} ({width}x{height})"
        )
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h_bar = math.floor(height / beta / factor) * factor
        w_bar = math.floor(width / beta / factor) * factor
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


@dataclass(frozen=True)
class CoordinateMapping:
    """How a model's coordinates relate to the pixels of the screen it was shown.

    `screen_size` is (width, height) of the screenshot given to the model. Modes:
    ``absolute`` (already screen pixels), ``smart_resize`` (pixels of the smart-resized
    image, UI-TARS-1.5 / Qwen2.5-VL), ``relative1000`` (0-1000 grid, older UI-TARS),
    ``normalized`` (0-1).

    >>> m = CoordinateMapping("smart_resize", screen_size=(1920, 1080))
    >>> m.to_screen(966, 546)
    (960.0, 540.0)
    >>> CoordinateMapping("relative1000", screen_size=(1920, 1080)).to_screen(500, 500)
    (960.0, 540.0)
    """

    mode: str = "absolute"
    screen_size: tuple[int, int] | None = None
    factor: int = IMAGE_FACTOR
    min_pixels: int = MIN_PIXELS
    max_pixels: int = MAX_PIXELS

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ActionParseError(f"unknown coordinate mode {self.mode!r}; expected one of {list(MODES)}")
        if self.screen_size is None:
            if self.mode != "absolute":
                raise ActionParseError(
                    f"coordinates in mode {self.mode!r} need screen_size=(width, height) of the "
                    "screenshot the model saw"
                )
            return
        try:
            width, height = (operator.index(v) for v in self.screen_size)
        except (TypeError, ValueError):
            width = height = 0
        if width <= 0 or height <= 0 or any(isinstance(v, bool) for v in self.screen_size):
            raise ActionParseError(
                f"screen_size must be (width, height) in positive ints, received {self.screen_size!r}"
            )
        object.__setattr__(self, "screen_size", (width, height))

    @property
    def model_size(self) -> tuple[float, float]:
        """(width, height) of the space the model answers in."""
        if self.mode == "absolute":
            raise ActionParseError("absolute coordinates have no separate model space")
        width, height = self.screen_size  # type: ignore[misc]
        if self.mode == "smart_resize":
            h_bar, w_bar = smart_resize(height, width, self.factor, self.min_pixels, self.max_pixels)
            return float(w_bar), float(h_bar)
        return (1000.0, 1000.0) if self.mode == "relative1000" else (1.0, 1.0)

    def to_screen(self, x: float, y: float) -> tuple[float, float]:
        """Model space -> screen pixels."""
        if self.mode == "absolute":
            return float(x), float(y)
        (model_w, model_h), (width, height) = self.model_size, self.screen_size  # type: ignore[misc]
        return x * width / model_w, y * height / model_h

    def to_model(self, x: float, y: float) -> tuple[float, float]:
        """Screen pixels -> model space (the inverse of `to_screen`)."""
        if self.mode == "absolute":
            return float(x), float(y)
        (model_w, model_h), (width, height) = self.model_size, self.screen_size  # type: ignore[misc]
        return x * model_w / width, y * model_h / height
