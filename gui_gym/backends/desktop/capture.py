"""Screen capture and settling by screen stability, inside our desktop server.

OSWorld's runner sleeps a fixed time after every action (and 60 s after reset); we watch the
screen instead. `settle` waits (briefly) for the screen to change from the frame taken just
before the action, then until `stable_frames` consecutive frames are identical, all bounded
by `timeout_s`. Frames for settling are taken without the pointer, so a pointer that moved
does not count as the application having answered; screenshots for the agent have the
pointer drawn, as OSWorld's have.
"""

from __future__ import annotations

import io
import threading
import time
import zlib
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

    def mark_baseline(self) -> None:
        """Remember the screen as it is before an action, for the next `settle`."""
        self.baseline = self.frame_hash()

    def settle(self, stable_frames: int = 3, interval_s: float = 0.04, change_timeout_s: float = 0.3,
               timeout_s: float = 3.0) -> SettleResult:
        """Wait until the screen answered the last action and stopped moving (bounded)."""
        started = time.monotonic()
        deadline = started + timeout_s
        change_deadline = started + min(change_timeout_s, timeout_s)
        baseline, self.baseline = self.baseline, None
        current = self.frame_hash()
        frames = 1
        changed = baseline is None or current != baseline
        while not changed and time.monotonic() < change_deadline:
            time.sleep(interval_s)
            current = self.frame_hash()
            frames += 1
            changed = current != baseline
        same = 1
        while same < stable_frames and time.monotonic() < deadline:
            time.sleep(interval_s)
            latest = self.frame_hash()
            frames += 1
            same = same + 1 if latest == current else 1
            current = latest
        return SettleResult(changed, same >= stable_frames, time.monotonic() - started, frames)
