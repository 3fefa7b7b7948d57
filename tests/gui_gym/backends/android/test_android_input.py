"""Canonical actions as Android `input` commands: text escaping, key codes, gesture geometry, app names."""

from __future__ import annotations

import pytest

from tests.fakes.device_shell import android_input_text
from gui_gym.backends.android.input import (direction_swipe, key_command, keycode, resolve_package, screen_swipe, scroll_swipe,
                                            text_commands)
from gui_gym.errors import ActionExecutionError


@pytest.mark.parametrize("text, commands", [
    ("hello", [["input", "text", "hello"]]),
    ("hello world", [["input", "text", "hello%sworld"]]),
    ("it's \"q\" <b>&|;$x`", [["input", "text", "it's%s\"q\"%s<b>&|;$x`"]]),
    ("100%sure", [["input", "text", "100%"], ["input", "text", "sure"]]),
    ("50% off", [["input", "text", "50%%soff"]]),
    ("a\nb", [["input", "text", "a"], ["input", "keyevent", "KEYCODE_ENTER"], ["input", "text", "b"]]),
    ("name\tx\n", [["input", "text", "name"], ["input", "keyevent", "KEYCODE_TAB"], ["input", "text", "x"],
                   ["input", "keyevent", "KEYCODE_ENTER"]]),
    ("%s", [["input", "text", "%"], ["input", "text", "s"]]),
])
def test_text_commands(text, commands):
    assert text_commands(text) == commands


@pytest.mark.parametrize("text", ["hello world", "it's <b>&|</b>", "100%sure %s", "50% off", "%%s", "a  b", "s%s%"])
def test_what_android_types_is_the_text(text):
    typed = "".join(android_input_text(argv[2]) for argv in text_commands(text))
    assert typed == text


def test_non_ascii_text_is_refused_with_the_reason():
    with pytest.raises(ActionExecutionError, match=r"printable ASCII only; the text holds 'é'"):
        text_commands("José")


@pytest.mark.parametrize("key, argv", [
    ("enter", ["input", "keyevent", "KEYCODE_ENTER"]),
    ("backspace", ["input", "keyevent", "KEYCODE_DEL"]),
    ("a", ["input", "keyevent", "KEYCODE_A"]),
    ("f5", ["input", "keyevent", "KEYCODE_F5"]),
    (",", ["input", "text", ","]),
    (" ", ["input", "keyevent", "KEYCODE_SPACE"]),
])
def test_key_command(key, argv):
    assert key_command(key) == argv


def test_unknown_key_names_the_known_ones():
    with pytest.raises(ActionExecutionError, match="Android has no key code for 'printscreen'"):
        keycode("printscreen")


def test_scroll_at_the_default_amount_is_androidworlds_scroll():
    """google-research/android_world env/actuation.py:138-167: start at the region's centre
    ((min + max) // 2), end at its edge against the direction (down: y_min, up: y_max,
    right: x_min, left: x_max). The expected paths are those on a 1080x2400 screen and on an
    element box [100, 301] x [500, 901]."""
    assert scroll_swipe((0, 0, 1080, 2400), "down", 5) == (540, 1200, 540, 0)
    assert scroll_swipe((0, 0, 1080, 2400), "up", 5) == (540, 1200, 540, 2400)
    assert scroll_swipe((100, 500, 301, 901), "right", 5) == (200, 700, 100, 700)
    assert scroll_swipe((100, 500, 301, 901), "left", 5) == (200, 700, 301, 700)
    # other amounts go that share of the way, at most to the edge
    assert scroll_swipe((0, 0, 1000, 2000), "down", 2) == (500, 1000, 500, 600)
    assert scroll_swipe((0, 0, 1000, 2000), "up", 50) == (500, 1000, 500, 2000)


def test_screen_swipe_is_androidworlds_swipe():
    """env/actuation.py:169-191: through the middle, from edge to edge (0 and the full width
    or height); its "left" is the finger moving right, which the format reads as "right"."""
    assert screen_swipe("up", (1080, 2400)) == (540, 2400, 540, 0)
    assert screen_swipe("down", (1080, 2400)) == (540, 0, 540, 2400)
    assert screen_swipe("right", (1080, 2400)) == (0, 1200, 1080, 1200)
    assert screen_swipe("left", (1080, 2400)) == (1080, 1200, 0, 1200)


def test_direction_swipe_moves_the_finger_and_stays_on_screen():
    assert direction_swipe((500, 1000), "up", (1000, 2000)) == (500, 1000, 500, 400)
    assert direction_swipe((900, 1000), "right", (1000, 2000)) == (900, 1000, 999, 1000)


@pytest.mark.parametrize("name, package", [
    ("com.android.settings", "com.android.settings"),
    ("Clock", "com.google.android.deskclock"),
    ("clock app", "com.google.android.deskclock"),
    ("Settings", "com.android.settings"),
    ("markor", "net.gsantner.markor"),
])
def test_resolve_package(name, package):
    installed = ["com.android.settings", "com.google.android.deskclock", "net.gsantner.markor", "com.android.deskclock"]
    assert resolve_package(name, installed) == package


def test_resolve_package_errors():
    with pytest.raises(ActionExecutionError, match="no installed app matches 'Snapchat'"):
        resolve_package("Snapchat", ["com.android.settings"])
    with pytest.raises(ActionExecutionError, match="ambiguous"):
        resolve_package("notes", ["a.b.notesplus", "c.d.mynotes"])
