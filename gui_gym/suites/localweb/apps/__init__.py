"""The LocalWeb apps. Each package here exposes `APP` (a `WebApp`) and `TEMPLATES` (its task
template classes); `APP_MODULES` is the one list of them.

Every app has the same shape (docs/localweb.md says why):

- ``app.py``: the `WebApp`, its routes and the handlers that change the state;
- ``data.py``: the seeded state (a pure function of the seed) and its vocabularies;
- ``store.py`` (calendar, mail): the rules that read and change one state, when the handlers
  would otherwise carry them;
- ``markup.py`` (wiki): the wiki's markup language;
- ``views.py``: the page frame and shared pieces; ``views_<area>.py`` the pages of one area;
- ``base.py``: the app's template base (`<App>Template`), the checks its templates read and
  the oracle moves they share;
- ``tasks_easy.py``, ``tasks_medium.py``, ``tasks_hard.py``: the templates by difficulty;
- ``static/``: the app's stylesheet and script, inlined into its pages.

What two apps share lives below them, so no app imports another: the web framework
(`framework`), the oracle's moves on the shared widgets (`oracle_ui`), answer matching
(`answers`), the template contract (`templates`), and the people mail and calendar both draw
(`people`)."""

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
