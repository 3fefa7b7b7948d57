"""The MiniWoB++ task set: the tasks the installed ``miniwob`` package registers, where each
one's page lies in the package, and the named subsets.

The task list is read from the package itself (its Gymnasium ids ``miniwob/<task>-v1``), so a
newer ``miniwob`` brings its new tasks; the page of a task is where the package's own env
opens it (``miniwob/<task>.html``, or ``flight/<site>/wrapper.html`` for the flight tasks).
Importing ``miniwob`` registers those ids and needs neither selenium nor a browser.

The categories are MiniWoB++'s own (its documentation's environment list), WebGUM's subset is
the one BrowserGym marks in its MiniWoB metadata, and ``browsergym`` is BrowserGym's MiniWoB
benchmark: every task but the three flight searches.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.extras import require_extra

log = logging.getLogger(__name__)

INSTALL_HINT = "install it with `pip install 'gui-gym[miniwob]'` (the PyPI package `miniwob`)"


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


CATEGORIES: dict[str, frozenset[str]] = {
    "original": _names("""
    bisect-angle book-flight choose-date choose-list circle-center click-button
    click-button-sequence click-checkboxes click-collapsible click-collapsible-2 click-color
    click-dialog click-dialog-2 click-link click-menu click-menu-2 click-option click-pie
    click-scroll-list click-shades click-shape click-tab click-tab-2 click-test click-test-2
    click-widget copy-paste copy-paste-2 count-shape count-sides drag-box drag-circle drag-cube
    drag-items drag-items-grid drag-shapes drag-sort-numbers email-inbox enter-date enter-password
    enter-text enter-text-2 enter-text-dynamic enter-time find-midpoint find-word focus-text
    focus-text-2 grid-coordinate guess-number highlight-text highlight-text-2 identify-shape
    login-user navigate-tree number-checkboxes read-table read-table-2 resize-textarea right-angle
    scroll-text scroll-text-2 search-engine simple-algebra simple-arithmetic social-media terminal
    text-editor text-transform tic-tac-toe use-autocomplete use-colorwheel use-colorwheel-2
    use-slider use-slider-2 use-spinner visual-addition"""),
    "nodelay": _names("""
    book-flight-nodelay choose-date-nodelay click-collapsible-2-nodelay click-collapsible-nodelay
    click-pie-nodelay use-autocomplete-nodelay"""),
    "additional": _names("""
    click-checkboxes-large click-checkboxes-soft click-checkboxes-transfer click-tab-2-hard
    email-inbox-forward-nl email-inbox-forward-nl-turk email-inbox-nl-turk login-user-popup
    multi-layouts multi-orderings social-media-all social-media-some"""),
    "debug": _names("""
    choose-date-easy choose-date-medium click-tab-2-easy click-tab-2-medium click-test-transfer
    email-inbox-delete email-inbox-forward email-inbox-important email-inbox-noscroll
    email-inbox-reply email-inbox-star-reply unicode-test"""),
    "flight": _names("flight.AA flight.Alaska flight.Alaska-auto"),
    "hidden-test": _names("""
    ascending-numbers buy-ticket daily-calendar drag-shapes-2 drag-single-shape draw-circle
    draw-line find-greatest form-sequence form-sequence-2 form-sequence-3 generate-number hot-cold
    odd-or-even order-food phone-book sign-agreement stock-market"""),
}
"""MiniWoB++'s task categories: the original World of Bits tasks, their no-delay versions,
the tasks MiniWoB++ added, easier debug versions, the flight searches (FormWoB ports), and
the tasks first kept as a hidden test set."""

UNLISTED = "unlisted"
"""The category of a task the installed package has and the lists above do not name."""

WEBGUM = _names("""
    book-flight choose-date choose-date-easy choose-date-medium choose-list click-button
    click-button-sequence click-checkboxes click-checkboxes-large click-checkboxes-soft
    click-checkboxes-transfer click-collapsible click-collapsible-2 click-color click-dialog
    click-dialog-2 click-link click-menu click-option click-pie click-scroll-list click-shades
    click-shape click-tab click-tab-2 click-tab-2-hard click-test click-test-2 click-widget
    count-shape email-inbox email-inbox-forward-nl email-inbox-forward-nl-turk email-inbox-nl-turk
    enter-date enter-password enter-text enter-text-dynamic enter-time focus-text focus-text-2
    grid-coordinate guess-number identify-shape login-user login-user-popup multi-layouts
    multi-orderings navigate-tree search-engine social-media social-media-all social-media-some
    tic-tac-toe use-autocomplete use-spinner""")
"""The 56 tasks WebGUM (Furuta et al., 2024) reports on."""

SUBSET_HELP = {
    "all": "every task of the installed package",
    "browsergym": "BrowserGym's MiniWoB benchmark: every task but the flight searches",
    "webgum": "the 56 tasks WebGUM reports on",
    "scripted": "the tasks this suite has a scripted solution for",
    **{name: f"MiniWoB++'s {name!r} category" for name in CATEGORIES},
}
"""Every subset name `resolve_tasks` takes, with what it holds."""

_GYM_ID = re.compile(r"miniwob/(?P<name>.+)-v(?P<version>\d+)")


@dataclass(frozen=True)
class MiniWoBTaskSpec:
    """One task of the installed package."""

    name: str
    """MiniWoB's name of the task (its "subdomain"): ``click-test``, ``flight.AA``."""
    page: str
    """Its page, relative to the package's ``html`` folder."""
    category: str
    nondeterministic: bool
    """Whether the package registers it as nondeterministic (state its page keeps between
    episodes, animations, clocks): what the package's own determinism tests skip."""

    @property
    def flight(self) -> bool:
        return self.name.startswith("flight.")


def html_dir() -> Path:
    """The installed package's ``html`` folder (found without importing the package)."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.origin:
        require_extra("miniwob", "GUI/MiniWoB-v0")
    folder = Path(spec.origin).parent / "html"
    if not (folder / "core" / "core.js").is_file():
        raise MissingResourceError(f"the installed `miniwob` package has no task pages under {folder}; reinstall it: {INSTALL_HINT}")
    return folder


def page_of(name: str) -> str:
    """Where the package's own env opens task `name`."""
    if name.startswith("flight."):
        return f"flight/{name.removeprefix('flight.')}/wrapper.html"
    return f"miniwob/{name}.html"


def installed_tasks() -> list[MiniWoBTaskSpec]:
    """Every task the installed package registers (its newest version of each), in name order."""
    folder = html_dir()
    import gymnasium as gym

    importlib.import_module("miniwob")  # registers the package's ids, as gym.register_envs(miniwob) does
    versions: dict[str, tuple[int, bool]] = {}
    for env_id, env_spec in gym.registry.items():
        match = _GYM_ID.fullmatch(env_id)
        if match is None:
            continue
        name, version = match["name"], int(match["version"])
        if name not in versions or version > versions[name][0]:
            versions[name] = (version, bool(env_spec.nondeterministic))
    category_of = {name: category for category, names in CATEGORIES.items() for name in names}
    specs = []
    for name, (_, nondeterministic) in sorted(versions.items()):
        page = page_of(name)
        if not (folder / page).is_file():
            log.warning("miniwob registers %r but its page %s is not in the package; skipped", name, page)
            continue
        specs.append(MiniWoBTaskSpec(name, page, category_of.get(name, UNLISTED), nondeterministic))
    if not specs:
        raise MissingResourceError(f"the installed `miniwob` package registers no tasks; reinstall it: {INSTALL_HINT}")
    return specs


def subset(name: str, specs: Iterable[MiniWoBTaskSpec], scripted: Iterable[str]) -> list[str]:
    """The task names of subset `name` among `specs` (in their order)."""
    specs = list(specs)
    if name == "all":
        return [s.name for s in specs]
    if name == "browsergym":
        return [s.name for s in specs if not s.flight]
    members = {"webgum": WEBGUM, "scripted": frozenset(scripted)}.get(name) or CATEGORIES.get(name)
    if members is None:
        raise KeyError(name)
    return [s.name for s in specs if s.name in members]


def resolve_tasks(tasks: str | Iterable[str] | None, specs: Iterable[MiniWoBTaskSpec],
                  scripted: Iterable[str] = ()) -> list[str]:
    """The task names that `tasks` selects: None for all; a subset name, a task name, or a
    list (or comma-separated string) of either, in the order given, without repeats."""
    specs, scripted = list(specs), list(scripted)
    if tasks is None:
        return [s.name for s in specs]
    items = [t.strip() for t in tasks.split(",")] if isinstance(tasks, str) else list(tasks)
    known = [s.name for s in specs]
    chosen: list[str] = []
    for item in items:
        if not isinstance(item, str) or not item:
            raise TaskConfigError(f"tasks: expected task names or subset names, received {item!r}")
        if item in SUBSET_HELP:
            picked = subset(item, specs, scripted)
        elif item in known:
            picked = [item]
        else:
            close = difflib.get_close_matches(item, known + list(SUBSET_HELP), n=3)
            hint = f"; did you mean {close}?" if close else ""
            raise TaskConfigError(f"tasks: {item!r} is neither a task of the installed miniwob package nor a "
                                  f"subset ({', '.join(SUBSET_HELP)}){hint}")
        chosen += [name for name in picked if name not in chosen]
    if not chosen:
        raise TaskConfigError(f"tasks={tasks!r} selects no task of the installed miniwob package")
    return chosen
