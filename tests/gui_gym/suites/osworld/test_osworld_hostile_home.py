"""The hostile-home family (issue 46): nothing the evaluation runs, reads or writes can be steered
by what the agent left on the desktop. For every getter type and every postconfig step kind the
369 verified tasks use (each with the first task config that uses it), on one sandbox desktop:

- a getter runs once on the home as it is, recording every desktop path it reads; then with
  nothing at those paths (the control), and then with a link (to a decoy holding the file the
  home had, or ``FORGED``), a FIFO and a folder at each of them, modules named like the
  standard library's planted in the home, the Desktop, the folders of those paths and the
  user's site-packages (with a ``.pth`` file). Each hostile run must read what the control
  read, and no planted module may run;
- a postconfig step runs on an empty home (the control), then with a link, a hard link, a FIFO
  and a folder where it writes or opens, and the modules planted: it does what it did, or is
  refused (the evaluation then scores 0 with a warning, test_osworld_evaluator_attacks.py),
  never writes through a link or into a hard link's other name, and no planted module runs.

The huge-file, zip-bomb and SQL-view part of the family is in the getters' own tests.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gui_gym.backends.desktop import DesktopBackend, DesktopConfig
from gui_gym.suites.osworld.context import EpisodeContext
from gui_gym.suites.osworld.evaluator import _get
from gui_gym.suites.osworld.held_files import held_downloads
from gui_gym.suites.osworld.loader import OSWorldTaskSpec, SetupStep, parse_task
from gui_gym.suites.osworld.setup import SetupRunner
from tests.gui_gym.suites.osworld.hostile_home import (
    FORGED, episode, make_in_the_way, plant_modules, planted_ran, sh, stash_modules, unplant_modules)

pytestmark = pytest.mark.slow

GETTER_TYPES_USED = (
    "accessibility_tree", "active_tab_html_parse", "active_tab_info", "active_tab_url_parse",
    "active_url_from_accessTree", "audio_in_slide", "background_image_in_slide", "bookmarks", "cache_file",
    "chrome_appearance_mode_ui", "chrome_font_size", "cloud_file", "content_from_vm_file", "cookie_data",
    "data_delete_automacally", "default_search_engine", "default_video_player", "enable_do_not_track",
    "enable_safe_browsing", "find_installed_extension_name", "find_unpacked_extension_path", "gimp_config_file",
    "googledrive_file", "gotoRecreationPage_and_get_html_content", "history", "info_from_website",
    "list_directory", "new_startup_page", "open_tabs_info", "page_info", "pdf_from_url", "profile_name", "rule",
    "rule_relativeTime", "shortcuts_on_desktop", "url_dashPart", "url_path_parse", "vlc_config",
    "vlc_playing_info", "vm_command_error", "vm_command_line", "vm_file", "vm_screen_size", "vm_terminal_output",
    "vm_wallpaper", "vm_window_size", "vscode_config")
"""The getter types of the verified tasks (checked against the data below): 47."""
POSTCONFIG_KINDS_USED = ("activate_window", "close_window", "command", "download", "execute", "launch", "open",
                         "sleep")
"""The postconfig step kinds of the verified tasks: 8."""
CHECKER_LINE = {"type": "vm_command_line", "command": "python /home/user/Desktop/script.py", "shell": "true"}
"""multi_apps/da922383's getter, which runs a checker script its postconfig downloaded: the shape
of every task that runs a Python script on the desktop (the first ``vm_command_line`` is a ``cat``)."""
CHECKER = b"import json\nprint(json.dumps([1, 1]))\n"
BY_KIND = frozenset({"active_tab_info", "page_info", "pdf_from_url", "info_from_website",
                     "gotoRecreationPage_and_get_html_content", "active_tab_html_parse", "accessibility_tree",
                     "vm_terminal_output"})
"""Getters whose value changes from one run to the next on any home: a web page loaded again
(the sandbox has no network: a PDF's creation time, a timeout) or the screen's accessibility
tree. Their outcomes are compared by kind; a forged answer is still caught (`FORGED`)."""
USERS_OWN_PYTHON = {"vm_command_error": "multi_apps/69acbb55's python -c asks whether the user's own Python "
                                        "imports a package the agent was to install: it measures the user's "
                                        "site-packages and working folder, so it runs as OSWorld runs it"}
"""Getters that no planted module is put against, and why."""
IN_THE_WAY_OF_READS = {"list_directory": ("link", "fifo")}
"""What is put where a getter reads: a link, a FIFO and a folder; where it lists a folder, a
folder the agent made is what it lists."""
IN_THE_WAY_OF_WRITES = {"download": ("link", "hardlink", "fifo", "folder"), "open": ("link", "fifo")}
"""What is put where a step writes or opens. A hard link or a folder where a file is opened is a
file or folder the agent made, which opens as OSWorld opens it."""


@pytest.fixture(scope="module")
def desktop():
    backend = DesktopBackend(DesktopConfig(provider="local", screen_size=(1024, 768), shell="openbox"))  # the evaluation is the same on either desktop; openbox boots in a quarter of the time
    backend.start()
    stash_modules(backend)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def verified(osworld_tasks) -> dict[str, dict[str, tuple[OSWorldTaskSpec, Any]]]:
    """The first (task, getter config) of each getter type and (task, step) of each postconfig kind."""
    found: dict[str, dict[str, tuple[OSWorldTaskSpec, Any]]] = {"getters": {}, "steps": {}}
    for path in sorted((osworld_tasks / "examples").glob("*/*.json")):
        spec = parse_task(json.loads(path.read_text()), path)
        for getter in spec.evaluator.getters:
            found["getters"].setdefault(getter["type"], (spec, getter))
        for step in spec.evaluator.postconfig:
            found["steps"].setdefault(step.type, (spec, step))
    return found


def test_the_family_covers_every_getter_type_and_postconfig_step_kind_of_the_verified_tasks(verified):
    assert sorted(verified["getters"]) == sorted(GETTER_TYPES_USED) and len(GETTER_TYPES_USED) == 47
    assert sorted(verified["steps"]) == sorted(POSTCONFIG_KINDS_USED) and len(POSTCONFIG_KINDS_USED) == 8


def outcome(ctx: EpisodeContext, run: Callable[[], Any], by_kind: bool = False) -> Any:
    """What the evaluation got: the value (host files by their bytes) or the error's type."""
    try:
        value = run()
    except Exception as exc:
        return ("raises", type(exc).__name__)

    def read(item: Any) -> Any:
        if isinstance(item, str) and item.startswith((str(ctx.scratch), str(ctx.cache.root))):
            return ("file", Path(item).read_bytes() if Path(item).is_file() else None)
        if isinstance(item, (list, tuple)):
            return [read(i) for i in item]
        if isinstance(item, dict):
            return {k: read(v) for k, v in item.items()}
        return item
    found = read(value)
    assert FORGED not in repr(found).encode()
    return ("value", type(value).__name__) if by_kind else found


def decoy_of(path: str) -> str:
    return f"{posixpath.dirname(path)}/.decoy-{posixpath.basename(path)}"


@pytest.mark.parametrize("kind", GETTER_TYPES_USED)
def test_a_getter_reads_a_hostile_home_as_one_with_nothing_in_its_way(desktop, verified, kind, tmp_path):
    spec, config = verified["getters"][kind]
    if kind == "vm_command_line":
        desktop.client.upload("/home/user/Desktop/script.py", CHECKER)
    ctx = episode(desktop, spec, tmp_path / "cache")
    touched: list[str] = []
    reading = ctx.get_file

    def recording(path: str, **options: Any) -> bytes | None:
        touched.append(ctx.desktop_path(path))
        return reading(path, **options)
    ctx.get_file = recording  # type: ignore[method-assign]
    if kind == "list_directory":
        touched.append(ctx.desktop_path(config["path"]))
    run_getter = (lambda: _get(ctx, CHECKER_LINE)) if kind == "vm_command_line" else (lambda: _get(ctx, config))
    outcome(ctx, run_getter)  # the home as it is: which paths it reads
    paths = sorted(set(touched))
    originals = {path: desktop.client.get_file(path) for path in paths}
    folders = sorted({posixpath.dirname(p) for p in paths})
    try:
        sh(desktop, " ; ".join(f"rm -rf '{p}'" for p in paths) or "true")
        control = outcome(ctx, run_getter, kind in BY_KIND)
        for in_the_way in IN_THE_WAY_OF_READS.get(kind, ("link", "fifo", "folder")) if paths else ("nothing",):
            for path in paths:
                if kind == "list_directory":  # a folder to list, if the link were followed
                    sh(desktop, f"mkdir -p '{decoy_of(path)}' && touch '{decoy_of(path)}/FORGED'")
                else:
                    desktop.client.upload(decoy_of(path), originals[path] or FORGED)
                make_in_the_way(desktop, path, in_the_way, decoy_of(path))
            if kind not in USERS_OWN_PYTHON:
                plant_modules(desktop, folders)
            try:
                hostile = outcome(ctx, run_getter, kind in BY_KIND)
                ran = planted_ran(desktop)
            finally:
                unplant_modules(desktop, folders)
                sh(desktop, " ; ".join(f"rm -rf '{p}' '{decoy_of(p)}'" for p in paths) or "true")
            assert (in_the_way, ran, hostile) == (in_the_way, "", control)
    finally:
        for path, data in originals.items():
            if data is not None:
                desktop.client.upload(path, data)
        ctx.close()


def run_step(ctx: EpisodeContext, step: SetupStep, hold: frozenset[str]) -> Any:
    return outcome(ctx, lambda: SetupRunner(ctx, hold).run([step]))


@pytest.mark.parametrize("kind", POSTCONFIG_KINDS_USED)
def test_a_postconfig_step_on_a_hostile_home_does_what_it_does_on_an_empty_one_or_is_refused(
        desktop, verified, kind, tmp_path):
    spec, step = verified["steps"][kind]
    shapes = [(spec, step, held_downloads(spec.evaluator))]
    if kind in ("download", "open"):  # the first of each is a gold file kept on the host: written to the desktop too
        shapes.append((spec, step, frozenset()))
    for number, (task, shape_step, hold) in enumerate(shapes):
        stand_ins = {entry["url"]: b"downloaded\n" for entry in shape_step.parameters.get("files", [])}
        ctx = episode(desktop, task, tmp_path / f"cache{number}", stand_ins)
        targets = [ctx.desktop_path(entry["path"]) for entry in shape_step.parameters.get("files", [])]
        targets += [ctx.desktop_path(shape_step.parameters["path"])] if kind == "open" else []
        folders = sorted({posixpath.dirname(p) for p in targets})
        try:
            sh(desktop, " ; ".join(f"rm -rf '{p}'" for p in targets) or "true")
            control = run_step(ctx, shape_step, hold)
            written = {path: desktop.client.get_file(path) for path in targets}
            for in_the_way in IN_THE_WAY_OF_WRITES[kind] if targets else ("nothing",):
                for path in targets:
                    desktop.client.upload(decoy_of(path), b"AGENT")
                    make_in_the_way(desktop, path, in_the_way, decoy_of(path))
                plant_modules(desktop, folders)
                try:
                    hostile = run_step(ctx, shape_step, hold)
                    ran = planted_ran(desktop)
                    decoys = {path: desktop.client.get_file(decoy_of(path)) for path in targets}
                    now = {path: desktop.client.get_file(path) for path in targets}
                finally:
                    unplant_modules(desktop, folders)
                    sh(desktop, " ; ".join(f"rm -rf '{p}' '{decoy_of(p)}'" for p in targets) or "true")
                assert set(decoys.values()) <= {b"AGENT"}, (in_the_way, decoys)
                refused = hostile == ("raises", "ServerError")
                assert hostile == control or (refused and in_the_way != "hardlink"), (in_the_way, hostile, control)
                if kind == "download" and not refused and not hold:
                    assert now == written, (in_the_way, now, written)
                if kind != "command":  # pip, which the command runs, reads the user's site-packages (docs/security.md)
                    assert ran == "", (in_the_way, ran)
        finally:
            sh(desktop, " ; ".join(f"rm -rf '{p}'" for p in targets) or "true")
            ctx.close()
