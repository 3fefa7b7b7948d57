"""The replay backend: recorded screens in order, one action kept per step."""

from __future__ import annotations

import pytest
from PIL import Image

from gui_gym.actions import Action
from gui_gym.backends.android.elements import BoundingBox, UIElement
from gui_gym.backends.android.replay import RecordedScreen, ReplayBackend
from gui_gym.errors import ActionExecutionError


@pytest.fixture
def screens(tmp_path):
    out = []
    for n, colour in enumerate(("red", "green", "blue")):
        path = tmp_path / f"{n}.png"
        Image.new("RGB", (20, 40), colour).save(path)
        button = UIElement(text="OK", bbox_pixels=BoundingBox(x_min=0, x_max=10, y_min=0, y_max=20), is_clickable=True)
        out.append(RecordedScreen(path, (button,), app=f"app{n}"))
    return out


@pytest.fixture
def backend(screens):
    b = ReplayBackend((20, 40))
    b.start()
    b.load(screens)
    return b


def test_each_observation_after_the_first_moves_one_screen_on(backend):
    first = backend.observe(a11y=True)
    assert first.app == "app0" and tuple(first.screenshot[0, 0]) == (255, 0, 0)
    assert first.a11y_tree == '[0] View "OK" clickable bounds=[0,0,10,20]'
    assert backend.observe(a11y=False).a11y_tree is None
    backend.execute(Action.click(3, 4))
    backend.execute(Action.click(5, 5))  # a second action in the same step does not count
    assert backend.observe().app == "app2"
    assert backend.observe().app == "app2"  # past the end the last screen stays
    assert backend.predictions == [None, Action.click(3, 4), None]
    assert backend.actions == [Action.click(3, 4), Action.click(5, 5)]  # all of them, as the static backend keeps


def test_element_indices_resolve_to_the_centre(backend):
    backend.observe()
    backend.execute(Action.click_element(0))
    backend.observe()
    assert backend.predictions == [Action.click(5, 10)]
    with pytest.raises(ActionExecutionError, match="element index 3 does not exist"):
        backend.execute(Action.click_element(3))


def test_screens_keep_their_size(screens, tmp_path):
    backend = ReplayBackend((10, 20))
    assert backend.screen_size == (10, 20)  # nothing shown yet
    backend.load(screens)
    assert backend.screen_size == (20, 40)  # known before the first observation
    assert backend.observe().screenshot.shape == (40, 20, 3)
    small = tmp_path / "small.png"
    Image.new("RGB", (5, 7), "white").save(small)
    backend.load([RecordedScreen(small)])
    assert backend.observe().screenshot.shape == (7, 5, 3) and backend.observe().app is None


def test_bad_input():
    with pytest.raises(ValueError, match=r"screen_size must be positive \(width, height\), received \(0, 5\)"):
        ReplayBackend((0, 5))
    with pytest.raises(ValueError, match="at least one recorded screen"):
        ReplayBackend((1, 1)).load([])
