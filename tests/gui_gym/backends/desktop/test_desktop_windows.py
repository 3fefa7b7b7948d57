"""Opening a file waits for its window to be drawn, and no longer: a sparse window (an empty
document in a plain editor shows a handful of colours) counts as drawn once it is more than a
flat fill, instead of holding the open for its whole timeout. The real desktop path runs in
the OSWorld sample's tests (sample-editor-write-todo opens an empty file in mousepad)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gui_gym.backends.desktop.inside import windows
from gui_gym.backends.desktop.inside.capture import SettleResult

WINDOW = windows.Window("0x1", "mousepad.Mousepad", "~/todo.txt - Mousepad", (64, 38, 1216, 781))


class FakeCapture:
    """A screen whose window shows `shown` colours, one answer per poll."""

    def __init__(self, shown: list[int]):
        self.shown, self.polls, self.settled = shown, 0, False

    def colors(self, *geometry: int) -> int:
        assert geometry == WINDOW.geometry
        self.polls += 1
        return self.shown[min(self.polls, len(self.shown)) - 1]

    def settle(self, **kwargs) -> SettleResult:
        self.settled = True
        return SettleResult(changed=True, stable=True, elapsed_s=0.0, frames=1)


@pytest.fixture
def opened(tmp_path, monkeypatch):
    (tmp_path / "todo.txt").write_text("")
    launched = []
    session = SimpleNamespace(env={}, launch=launched.append, home=tmp_path, openable=lambda path: path.is_file())
    monkeypatch.setattr(windows, "find_window", lambda env, name: WINDOW if name == "todo.txt" else None)
    monkeypatch.setattr(windows, "SPARSE_WINDOW_S", 0.2)

    def open_with(shown: list[int]) -> FakeCapture:
        capture = FakeCapture(shown)
        assert windows.open_file(session, capture, str(tmp_path / "todo.txt"), timeout_s=600) == WINDOW
        assert launched[-1] == [*windows.opener(tmp_path / "todo.txt")] and capture.settled
        return capture

    return open_with


@pytest.mark.timeout(60)
def test_a_sparse_window_counts_as_drawn_once_it_is_not_a_flat_fill(opened):
    capture = opened([1, 1, 1, 5])  # mapped, then the empty editor's five colours for good
    assert capture.polls > 4  # it waited for more colours first, briefly


@pytest.mark.timeout(60)
def test_a_rich_window_is_drawn_at_once(opened):
    assert opened([1, 3, 12]).polls == 3
