"""Keyboard and mouse input on an X display through the XTEST extension, in-process.

Our desktop server carries out canonical actions with this module instead of spawning
``xdotool`` or ``python -c "import pyautogui..."`` per action: one persistent connection,
no process start per step, and text typed by looking each character up in the server's own
keyboard map. Shift is pressed exactly when the character sits on the shifted level of its
key, which avoids the failure modes of both tools on bare Xvfb (``xdotool type`` losing
characters, pyautogui typing ``>`` for ``<`` because the keymap has both on one key).
Characters absent from the map (non-Latin text) are typed by binding a spare keycode to
them for the duration of one key press, then restoring it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from Xlib import XK, X
from Xlib import display as xdisplay
from Xlib.ext import xtest

from gui_gym.actions import Action
from gui_gym.errors import ActionExecutionError

XK.load_keysym_group("xf86")

KEY_NAMES: dict[str, str] = {
    "enter": "Return", "esc": "Escape", "tab": "Tab", "backspace": "BackSpace",
    "delete": "Delete", "insert": "Insert", "home": "Home", "end": "End",
    "pageup": "Prior", "pagedown": "Next", "up": "Up", "down": "Down", "left": "Left",
    "right": "Right", "ctrl": "Control_L", "shift": "Shift_L", "alt": "Alt_L",
    "meta": "Super_L", "capslock": "Caps_Lock", "numlock": "Num_Lock",
    "scrolllock": "Scroll_Lock", "printscreen": "Print", "prntscrn": "Print",
    "prtsc": "Print", "pause": "Pause", "apps": "Menu", "menu": "Menu", " ": "space",
    "volumeup": "XF86_AudioRaiseVolume", "volumedown": "XF86_AudioLowerVolume",
    "volumemute": "XF86_AudioMute", "playpause": "XF86_AudioPlay", "nexttrack": "XF86_AudioNext",
    "prevtrack": "XF86_AudioPrev", "stop": "XF86_AudioStop", "altgr": "ISO_Level3_Shift",
    "hanguel": "Hangul", "hangul": "Hangul",
}
"""Canonical key names (see `gui_gym.actions.normalize_key`) -> X keysym names."""

_CHAR_KEYSYMS = {"\n": XK.XK_Return, "\r": XK.XK_Return, "\t": XK.XK_Tab, "\b": XK.XK_BackSpace}
BUTTONS = {"left": 1, "middle": 2, "right": 3}
SCROLL_BUTTONS = {"up": 4, "down": 5, "left": 6, "right": 7}
DOUBLE_CLICK_GAP_S = 0.03
DRAG_STEPS = 10
TYPING_GAP_S = 0.01
"""Pause between typed characters. Applications drop or reorder keys that arrive in one
burst while they are busy (LibreOffice after an Enter); xdotool waits 12 ms, pyautogui
100 ms."""


def char_keysym(char: str) -> int:
    """The X keysym of one character: Latin-1 keysyms equal the code point, the rest are
    ``0x01000000 + code point``."""
    if char in _CHAR_KEYSYMS:
        return _CHAR_KEYSYMS[char]
    code = ord(char)
    return code if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF else 0x01000000 | code


def key_keysym(key: str) -> int:
    """The keysym of a canonical key name: a named key, ``f1``..``f35``, or one character."""
    if key in KEY_NAMES:
        keysym = XK.string_to_keysym(KEY_NAMES[key])
    elif len(key) == 1:
        keysym = char_keysym(key)
    elif key[0] == "f" and key[1:].isdigit():
        keysym = XK.string_to_keysym(key.upper())
    else:
        keysym = XK.string_to_keysym(key)
    if not keysym:
        raise ActionExecutionError(f"no X key named {key!r}")
    return keysym


class X11Input:
    """Input on one X display. Not thread-safe: the server serialises calls."""

    def __init__(self, display_name: str | None = None):
        self.display = xdisplay.Display(display_name)
        if not self.display.has_extension("XTEST"):
            raise RuntimeError("the X server has no XTEST extension")
        self.root = self.display.screen().root
        self._shift = self.display.keysym_to_keycode(XK.XK_Shift_L)
        self._keymap: dict[int, tuple[int, bool]] = {}
        self._spare: int | None = None
        self._load_keymap()

    def close(self) -> None:
        self.display.close()

    @property
    def pointer(self) -> tuple[int, int]:
        reply = self.root.query_pointer()
        return reply.root_x, reply.root_y

    def perform(self, action: Action) -> None:
        """Carry out one non-terminal canonical action (waits are the caller's)."""
        kind = action.kind
        if action.element is not None:
            raise ActionExecutionError(f"{kind}: the desktop has no element indices; give x, y")
        if kind in ("click", "double_click", "triple_click", "right_click"):
            button = "right" if kind == "right_click" else action.button or "left"
            count = {"double_click": 2, "triple_click": 3}.get(kind, 1)
            self.move(action.x, action.y)
            for i in range(count):
                if i:
                    time.sleep(DOUBLE_CLICK_GAP_S)
                self._button(BUTTONS[button], True)
                self._button(BUTTONS[button], False)
        elif kind == "move":
            self.move(action.x, action.y)
        elif kind in ("mouse_down", "mouse_up"):
            if action.x is not None:
                self.move(action.x, action.y)
            self._button(BUTTONS[action.button or "left"], kind == "mouse_down")
        elif kind == "long_press":
            self.move(action.x, action.y)
            self._button(1, True)
            time.sleep(action.duration_s or 1.0)
            self._button(1, False)
        elif kind in ("drag", "swipe") and action.to_x is not None:
            self.drag(action.x, action.y, action.to_x, action.to_y)
        elif kind == "scroll":
            if action.x is not None:
                self.move(action.x, action.y)
            for _ in range(action.amount):
                self._button(SCROLL_BUTTONS[action.direction], True)
                self._button(SCROLL_BUTTONS[action.direction], False)
        elif kind == "type":
            if action.x is not None:
                self.move(action.x, action.y)
                self._button(1, True)
                self._button(1, False)
            self.type_text(action.text)
        elif kind == "key" or kind == "hotkey":
            self.press_keys(action.keys)
        elif kind in ("key_down", "key_up"):
            self._key(self._key_code(action.keys[0])[0], kind == "key_down")
        else:
            raise ActionExecutionError(f"a desktop cannot carry out a {kind!r} action")
        self.display.sync()

    # ---- primitives ---------------------------------------------------------------------

    def move(self, x: float, y: float) -> None:
        xtest.fake_input(self.display, X.MotionNotify, x=round(x), y=round(y))
        self.display.sync()

    def drag(self, x: float, y: float, to_x: float, to_y: float) -> None:
        """Press at (x, y), move in small steps (so apps see a drag), release at the end."""
        self.move(x, y)
        self._button(1, True)
        for step in range(1, DRAG_STEPS + 1):
            self.move(x + (to_x - x) * step / DRAG_STEPS, y + (to_y - y) * step / DRAG_STEPS)
            time.sleep(0.01)
        self._button(1, False)

    def press_keys(self, keys: Iterable[str]) -> None:
        """Press `keys` in order and release them in reverse: a chord, or one key. A single
        character on a shifted level gets shift added."""
        codes: list[int] = []
        for key in keys:
            code, shifted = self._key_code(key)
            if shifted and self._shift not in codes:
                codes.append(self._shift)
            codes.append(code)
        for code in codes:
            self._key(code, True)
        for code in reversed(codes):
            self._key(code, False)

    def type_text(self, text: str) -> None:
        for index, char in enumerate(text):
            if index:
                time.sleep(TYPING_GAP_S)
            keysym = char_keysym(char)
            entry = self._keymap.get(keysym)
            if entry is None:
                self._type_unmapped(keysym, char)
                continue
            code, shifted = entry
            if shifted:
                self._key(self._shift, True)
            self._key(code, True)
            self._key(code, False)
            if shifted:
                self._key(self._shift, False)
        self.display.sync()

    # ---- internals ------------------------------------------------------------------------

    def _button(self, button: int, down: bool) -> None:
        xtest.fake_input(self.display, X.ButtonPress if down else X.ButtonRelease, button)
        self.display.sync()

    def _key(self, code: int, down: bool) -> None:
        xtest.fake_input(self.display, X.KeyPress if down else X.KeyRelease, code)
        self.display.sync()

    def _key_code(self, key: str) -> tuple[int, bool]:
        keysym = key_keysym(key)
        if len(key) == 1 and keysym in self._keymap:
            return self._keymap[keysym]
        code = self.display.keysym_to_keycode(keysym)
        if not code:
            if keysym in self._keymap:
                return self._keymap[keysym]
            raise ActionExecutionError(f"the keyboard map has no key for {key!r}")
        return code, False

    def _load_keymap(self) -> None:
        """keysym -> (keycode, needs shift), preferring unshifted positions; and one keycode
        with no symbols at all, kept for characters the map lacks."""
        first = self.display.display.info.min_keycode
        count = self.display.display.info.max_keycode - first + 1
        self._keymap.clear()
        for offset, syms in enumerate(self.display.get_keyboard_mapping(first, count)):
            code = first + offset
            if not any(syms):
                self._spare = code if self._spare is None else self._spare
                continue
            for level in (0, 1):
                if level < len(syms) and syms[level]:
                    current = self._keymap.get(syms[level])
                    if current is None or (current[1] and level == 0):
                        self._keymap[syms[level]] = (code, level == 1)

    def _type_unmapped(self, keysym: int, char: str) -> None:
        if self._spare is None:
            raise ActionExecutionError(f"cannot type {char!r}: no free keycode to map it to")
        self.display.change_keyboard_mapping(self._spare, [(keysym, keysym)])
        self.display.sync()
        time.sleep(0.02)  # clients refresh their keymap on MappingNotify before the press
        self._key(self._spare, True)
        self._key(self._spare, False)
        time.sleep(0.02)
        self.display.change_keyboard_mapping(self._spare, [(0, 0)])
        self.display.sync()
