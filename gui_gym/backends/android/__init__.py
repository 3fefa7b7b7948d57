"""The Android backend: a phone or emulator driven over adb, as AndroidWorld's harness drives it.

`backend` is `AndroidBackend` (screenshots, input, the element list, settling; see its
docstring); the rest serve it and the Android suites: `elements` (uiautomator dumps read as
AndroidWorld's elements), `input` (taps, swipes, text and keys as adb shell commands), `sync`
(adb's file sync protocol), `console` (the emulator console), `emulator` (`EmulatorBackend`:
an emulator gui-gym starts and stops itself) and `replay` (`ReplayBackend`: recorded screens,
for AndroidControl's offline evaluation).
"""

from gui_gym.backends.android.backend import AndroidBackend, AndroidConfig

__all__ = ["AndroidBackend", "AndroidConfig"]
