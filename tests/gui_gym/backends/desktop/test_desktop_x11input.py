"""Key names and characters to X keysyms (typing itself is tested end to end in
test_desktop_sandbox)."""

from __future__ import annotations

import pytest
from Xlib import XK

from gui_gym.backends.desktop.inside.x11input import char_keysym, key_keysym
from gui_gym.errors import ActionExecutionError


@pytest.mark.parametrize("char, keysym", [("a", ord("a")), ("<", XK.XK_less), ("|", XK.XK_bar), ("\n", XK.XK_Return),
                                          ("\t", XK.XK_Tab), ("é", 0xE9), ("€", 0x010020AC), ("ж", 0x01000436)])
def test_characters(char: str, keysym: int):
    assert char_keysym(char) == keysym


@pytest.mark.parametrize("key, name", [("enter", "Return"), ("esc", "Escape"), ("pagedown", "Next"), ("ctrl", "Control_L"),
                                       ("meta", "Super_L"), ("f11", "F11"), (" ", "space"), ("volumeup", "XF86_AudioRaiseVolume")])
def test_key_names(key: str, name: str):
    assert key_keysym(key) == XK.string_to_keysym(name)


def test_unknown_key_is_an_action_error():
    with pytest.raises(ActionExecutionError, match=r"no X key named 'hyperdrive'"):
        key_keysym("hyperdrive")
