"""AndroidWorld's tasks, one module per app (composite tasks sit with their main app).

`TASKS` maps each task id (AndroidWorld's task name) to its class; `base.AndroidWorldTask` is
the shape they share.
"""

from __future__ import annotations

from gui_gym.suites.android.tasks import (audio_recorder, browser, calendar, camera, clock, contacts, expense, files,
                                         gallery_draw, information_specs, markor, media_players, osmand,
                                         recipe, sms, system)
from gui_gym.suites.android.tasks.base import AndroidWorldTask

_MODULES = (system, clock, contacts, files, expense, recipe, markor, sms, calendar, camera,
            audio_recorder, gallery_draw, media_players, osmand, browser,
            information_specs)

TASKS: dict[str, type[AndroidWorldTask]] = {cls.name: cls for module in _MODULES for cls in module.TASKS}
"""Task id (the AndroidWorld name) -> class."""

__all__ = ["AndroidWorldTask", "TASKS"]
