"""Screen capture and settling by screen stability, inside our desktop server.

OSWorld's runner sleeps a fixed time after every action (and 60 s after reset); we watch the
desktop instead. `settle` waits until `stable_frames` consecutive frames are identical while
no process of the desktop is running (an app still working through queued input has not
answered yet, even if its window looks still), after the screen changed from the frame taken
just before the action or the desktop got busy, or a short `change_timeout_s` passed
without either; all bounded by `timeout_s`. Frames for settling are taken without the pointer, so a pointer that moved
does not count as the application having answered; screenshots for the agent have the
pointer drawn, as OSWorld's have.
"""

from __future__ import annotations

import io
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import mss
from PIL import Image


@dataclass(frozen=True)
class SettleResult:
    """How a settle ended: `changed` when the screen changed after the action, `stable`
    when it then held still for the asked number of frames."""

    changed: bool
    stable: bool
    elapsed_s: float
    frames: int

    def to_dict(self) -> dict[str, object]:
        return {"changed": self.changed, "stable": self.stable, "elapsed_s": self.elapsed_s,
                "frames": self.frames}


class ScreenCapture:
    """Grabs the X display named by $DISPLAY. Thread-safe (one lock)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._plain = mss.MSS()
        self._with_cursor = mss.MSS(with_cursor=True)
        self.baseline: int | None = None

    @property
    def size(self) -> tuple[int, int]:
        monitor = self._plain.monitors[1]
        return monitor["width"], monitor["height"]

    def close(self) -> None:
        self._plain.close()
        self._with_cursor.close()

    def rgb(self, cursor: bool = True) -> tuple[int, int, bytes]:
        """(width, height, RGB24 bytes) of the whole screen."""
        with self._lock:
            grabber = self._with_cursor if cursor else self._plain
            shot = grabber.grab(grabber.monitors[1])
            return shot.width, shot.height, shot.rgb

    def png(self, compress_level: int = 1) -> bytes:
        width, height, data = self.rgb(cursor=True)
        out = io.BytesIO()
        Image.frombytes("RGB", (width, height), data).save(out, format="PNG", compress_level=compress_level)
        return out.getvalue()

    def frame_hash(self) -> int:
        """A checksum of the screen without the pointer."""
        with self._lock:
            shot = self._plain.grab(self._plain.monitors[1])
            return zlib.crc32(shot.bgra)

    def colors(self, left: int, top: int, width: int, height: int, step: int = 7) -> int:
        """How many distinct colours a sample of the given screen rectangle shows: 1 for a
        window that is mapped but not painted yet."""
        screen_w, screen_h = self.size
        left, top = max(0, left), max(0, top)
        width, height = min(width, screen_w - left), min(height, screen_h - top)
        if width <= 0 or height <= 0:
            return 0
        with self._lock:
            shot = self._plain.grab({"left": left, "top": top, "width": width, "height": height})
            pixels = shot.bgra
        return len({pixels[i:i + 3] for i in range(0, len(pixels), 4 * step)})

    def mark_baseline(self) -> None:
        """Remember the screen as it is before an action, for the next `settle`."""
        self.baseline = self.frame_hash()

    def settle(self, stable_frames: int = 3, interval_s: float = 0.04, change_timeout_s: float = 0.3,
               timeout_s: float = 3.0, busy: Callable[[], bool] | None = None,
               launching: Callable[[bool], bool] | None = None, launch_timeout_s: float = 0.0) -> SettleResult:
        """Wait until the desktop answered the last action and came to rest (bounded).

        At rest: `stable_frames` identical frames in a row while `busy` (the desktop's
        processes are running) stays false. Before that, the screen must have changed from
        the baseline or the desktop must have been busy, unless `change_timeout_s` passes
        with neither (an action with no visible effect). While `launching` (given whether the
        screen changed) says a program the action started is still starting (ctrl+alt+t: the
        terminal's processes start before any window shows), the wait goes on, up to
        `launch_timeout_s`: the step returns once the screen shows what the action started,
        not in a pause of the start."""
        started = time.monotonic()
        deadline = started + timeout_s
        change_deadline = started + min(change_timeout_s, timeout_s)
        baseline, self.baseline = self.baseline, None
        current = self.frame_hash()
        frames, same = 1, 1
        shown = baseline is None or current != baseline
        changed = shown
        while True:
            now = time.monotonic()
            if launching is not None and launching(shown):
                change_deadline = deadline = max(deadline, started + launch_timeout_s)
                changed = False
            if same >= stable_frames and (changed or now >= change_deadline):
                return SettleResult(changed, True, now - started, frames)
            if now >= deadline:
                return SettleResult(changed, False, now - started, frames)
            time.sleep(interval_s)
            latest, working = self.frame_hash(), busy is not None and busy()
            frames += 1
            shown = shown or latest != baseline
            changed = changed or working or shown
            same = same + 1 if latest == current and not working else 1
            current = latest
