"""The LocalWeb apps. Each module here exposes `APP` (a `WebApp`) and `TEMPLATES` (its task
template classes); `APP_MODULES` is the one list of them."""

from __future__ import annotations

import importlib
from typing import Iterable

from gui_gym.suites.localweb.framework import WebApp
from gui_gym.suites.localweb.templates import TaskTemplate

APP_MODULES = ("shop", "mail", "calendar", "admin", "wiki")


def load_apps(names: Iterable[str] | None = None) -> tuple[list[WebApp], list[type[TaskTemplate]]]:
    """The apps named (default: all) and their templates."""
    names = APP_MODULES if names is None else tuple(names)
    unknown = set(names) - set(APP_MODULES)
    if unknown:
        raise ValueError(f"unknown LocalWeb app(s) {sorted(unknown)}; expected some of {list(APP_MODULES)}")
    apps, templates = [], []
    for name in names:
        module = importlib.import_module(f"{__name__}.{name}")
        apps.append(module.APP)
        templates.extend(module.TEMPLATES)
    return apps, templates
