"""``GUI/Android-v0`` (AndroidWorld's tasks on a phone or emulator over adb) and
``GUI/AndroidControl-v0`` (AndroidControl's recorded episodes, step by step, offline): the
Android suites (`gui_gym.suites.android`) on the Android backends (`gui_gym.backends.android`).

``GUI/Android-v0`` runs AndroidWorld's 116 tasks on a running emulator or phone, or on
emulators it starts itself (``provider="emulator"``, see docs/android.md), with success read
from device state over adb. ``GUI/AndroidControl-v0`` needs nothing but files: by default the
small bundled sample, else a folder in the layout `gui_gym.suites.android.androidcontrol`
documents.
"""

from __future__ import annotations

import os
from typing import Any

from gui_gym.backends.android.backend import AndroidBackend, AndroidConfig
from gui_gym.env import GUIEnv
from gui_gym.errors import TaskConfigError
from gui_gym.extras import require_extra
from gui_gym.suites.android import AndroidControlSuite, AndroidWorldSuite


def make_env(androidworld_tasks: str | os.PathLike | None = None, provider: str = "device",
             apk_dir: str | os.PathLike | None = None, prepare: bool | None = None, **kwargs: Any):
    """Entry point of ``GUI/Android-v0``. `provider` "device": a phone or emulator already on
    an adb server (`AndroidConfig` fields: serial, adb_host, adb_port, screen_size, timeouts);
    "emulator": one gui-gym starts and stops (`EmulatorConfig` fields: avd, sdk_root, ...).
    `apk_dir` (or $GUI_GYM_ANDROIDWORLD_APKS): AndroidWorld's APKs, installed when the device
    is prepared; `prepare`: prepare it at start (default: when an emulator boots without its
    ready snapshot). `androidworld_tasks` (AndroidWorld's task_metadata.json, or
    $GUI_GYM_ANDROIDWORLD_TASKS) and `GUIEnv` kwargs. Actions default to AndroidWorld's
    JSONAction (``action_format="androidworld"``); the observation adds ``app``, the package
    in focus, and ``a11y_tree`` with ``observe_a11y=True``. Needs the android extra (adbutils),
    checked before any adb server is asked for."""
    require_extra("android", "GUI/Android-v0")
    config = AndroidConfig.pop_from(kwargs)
    if provider == "emulator":
        from gui_gym.backends.android.emulator import EmulatorBackend, EmulatorConfig

        backend = EmulatorBackend(config, EmulatorConfig.pop_from(kwargs))
    elif provider == "device":
        backend = AndroidBackend(config)
    else:
        raise TaskConfigError(f"provider must be 'device' or 'emulator', received {provider!r}")
    suite_options = {k: kwargs.pop(k) for k in ("first_run_tap_timeout_s",) if k in kwargs}
    kwargs.setdefault("action_format", "androidworld")
    return GUIEnv(backend, AndroidWorldSuite(androidworld_tasks, apk_dir=apk_dir, prepare=prepare, **suite_options),
                  **kwargs)


def make_androidcontrol_env(data_dir: str | os.PathLike | None = None, mode: str = "high", **kwargs: Any):
    """Entry point of ``GUI/AndroidControl-v0``: episodes under `data_dir` (or
    $GUI_GYM_ANDROIDCONTROL_DIR, else the bundled sample), `mode` "high" (goal only) or "low"
    (the step instruction), and `GUIEnv` kwargs. Screenshots keep their recorded size.
    Actions default to AndroidControl's JSON, whose input_text does not press Enter."""
    suite = AndroidControlSuite(data_dir, mode)
    kwargs.setdefault("action_format", "androidworld")
    kwargs["format_context"] = {"input_text_submits": False, **(kwargs.get("format_context") or {})}
    return GUIEnv(suite.make_backend(), suite, **kwargs)
