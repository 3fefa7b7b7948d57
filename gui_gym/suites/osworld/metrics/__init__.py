"""OSWorld metric functions, written for gui-gym, found by name.

Each family lives in its own module and is imported only when one of its metrics runs, so a
heavy optional dependency (openpyxl, python-docx, ...) is needed only by the tasks that use
it. `has_metric` says whether a ``func`` (with its options) is implemented here; `get_metric`
returns it. With ``fallback=True`` a ``func`` we have not written is taken from an installed
``desktop-env`` package (OSWorld's own code): only the one module of
``desktop_env/evaluators/metrics/`` that defines it is loaded, from its file, so neither the
package's ``__init__`` nor its other metric modules (and their pinned dependencies) are
imported. ``desktop-env`` is never a dependency of gui-gym.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gui_gym.errors import MissingResourceError

FAMILIES: dict[str, tuple[str, ...]] = {
    "general": ("exact_match", "match_in_list", "is_in_list", "literal_match", "fuzzy_match",
                "check_include_exclude", "check_direct_json_object", "check_list", "check_csv", "check_json",
                "file_contains", "check_line_number", "run_sqlite3", "check_accessibility_tree"),
    "text": ("compare_text_file", "diff_text_file", "compare_python_pure_text", "compare_config",
             "compare_answer", "compare_result_files", "is_extension_installed", "check_json_settings",
             "check_json_keybindings"),
    "table": ("compare_table", "compare_csv", "compare_conference_city_in_order"),
    "docs": ("compare_docx_files", "compare_docx_files_and_ignore_new_lines", "compare_docx_tables",
             "compare_docx_images", "fuzzy_place_math", "compare_unique_train_records", "compare_references",
             "find_default_font", "compare_image_text"),
    "docs_format": ("compare_line_spacing", "compare_font_names", "compare_subscript_contains",
                    "has_page_numbers_in_footers", "is_first_line_centered", "contains_page_break",
                    "check_italic_font_size_14", "evaluate_strike_through_last_paragraph", "check_tabstops",
                    "check_highlighted_words", "evaluate_colored_words_in_tables"),
    "slides": ("compare_pptx_files", "check_presenter_console_disable", "check_auto_saving_time",
               "check_image_stretch_and_center", "check_slide_orientation_Portrait",
               "evaluate_presentation_fill_to_rgb_distance", "check_left_panel", "check_transition",
               "check_page_number_colors"),
    "images": ("compare_image_list", "check_brightness_decrease_and_structure_sim",
               "check_saturation_increase_and_structure_sim", "check_file_exists_and_structure_sim",
               "check_triangle_position", "check_structure_sim", "check_structure_sim_with_threshold",
               "check_structure_sim_resized", "check_contrast_increase_and_structure_sim", "check_config_status",
               "check_image_size", "check_palette_and_structure_sim", "check_textbox_on_leftside",
               "check_image_mirror", "check_green_background", "check_image_file_size", "compare_images"),
    "audio": ("compare_audios", "check_mp3_meta"),
    "media": ("is_vlc_playing", "is_vlc_recordings_folder", "is_vlc_fullscreen", "check_qt_bgcone",
              "check_qt_max_volume", "check_qt_minimal_view", "check_play_and_exit",
              "check_one_instance_when_started_from_file", "check_global_key_play_pause", "check_qt_slider_colours",
              "compare_videos"),
    "web": ("is_expected_url_pattern_match", "is_expected_active_tab", "is_expected_active_tab_approximate",
            "is_expected_installed_extensions", "is_expected_tabs", "is_expected_bookmarks",
            "is_expected_search_query", "compare_htmls", "is_cookie_deleted", "is_shortcut_on_desktop",
            "check_history_deleted", "check_font_size", "is_added_to_steam_cart"),
    "files": ("compare_pdfs", "compare_pdf_images", "check_pdf_pages", "compare_zip_files", "compare_archive",
              "compare_epub"),
    "mail": ("check_thunderbird_prefs", "check_thunderbird_filter", "check_thunderbird_folder"),
    "desktop": ("check_gnome_favorite_apps", "is_utc_0", "check_moved_jpgs", "is_in_vm_clickboard"),
    "code": ("check_python_file_by_test_suite",),
}
"""Module (under this package) -> the metric functions it defines."""

METRICS: dict[str, str] = {name: module for module, names in FAMILIES.items() for name in names}
"""Metric name -> its module."""

OPTION_CHECKS: dict[str, tuple[str, str]] = {"compare_table": ("table", "supports_compare_table")}
"""Metrics implemented for some options only -> (module, predicate over the options)."""

DESKTOP_ARGUMENTS: dict[str, str] = {"check_python_file_by_test_suite": "run_python"}
"""Metrics that run something on the desktop -> the keyword the evaluator gives the runner in."""

SPECIAL = frozenset({"infeasible"})
"""Names the evaluator itself handles (OSWorld's FAIL rule), not metric functions."""

FALLBACK_MODULE_PREFIX = "gui_gym_desktop_env_fallback"


def has_metric(name: str, options: dict[str, Any] | None = None) -> bool:
    """Whether gui-gym implements metric `name` for these `options`."""
    if name in SPECIAL:
        return True
    if name not in METRICS:
        return False
    if name in OPTION_CHECKS:
        module, predicate = OPTION_CHECKS[name]
        return bool(getattr(_module(module), predicate)(options or {}))
    return True


def get_metric(name: str, fallback: bool = False) -> Callable[..., float]:
    """The metric function `name`; from ``desktop-env`` when we lack it and `fallback`."""
    if name in METRICS:
        return getattr(_module(METRICS[name]), name)
    if fallback:
        return desktop_env_metric(name)
    raise NotImplementedError(
        f"OSWorld metric {name!r} is not implemented in gui-gym ({len(METRICS)} are); install OSWorld's "
        "desktop-env package in a separate environment and pass metric_fallback=True to use its version")


def run_metric(name: str, fallback: bool, args: list[Any], options: dict[str, Any]) -> Any:
    """Metric `name` on `args` (what the getters found) with its `options`: what the
    evaluator's bounded worker runs (`gui_gym.runtime.bounded_call`)."""
    return get_metric(name, fallback=fallback)(*args, **options)


def _module(name: str):
    return importlib.import_module(f"{__name__}.{name}")


def desktop_env_metric(name: str) -> Callable[..., float]:
    """OSWorld's own metric `name`, loaded from the one file of ``desktop_env`` that defines
    it, without importing the ``desktop_env`` package."""
    spec = importlib.util.find_spec("desktop_env")
    if spec is None or not spec.submodule_search_locations:
        raise MissingResourceError(
            f"OSWorld metric {name!r} is not implemented in gui-gym and the desktop-env package is not "
            "installed (pip install desktop-env, ideally in its own environment: it pins old numpy/torch)")
    folder = Path(next(iter(spec.submodule_search_locations))) / "evaluators" / "metrics"
    pattern = re.compile(rf"^def {re.escape(name)}\s*\(", re.MULTILINE)
    for path in sorted(folder.glob("*.py")):
        if path.name != "__init__.py" and pattern.search(path.read_text(encoding="utf-8", errors="replace")):
            module_name = f"{FALLBACK_MODULE_PREFIX}.{path.stem}"
            module = sys.modules.get(module_name)
            if module is None:
                file_spec = importlib.util.spec_from_file_location(module_name, path)
                module = importlib.util.module_from_spec(file_spec)
                file_spec.loader.exec_module(module)
                sys.modules[module_name] = module
            return getattr(module, name)
    raise MissingResourceError(f"OSWorld metric {name!r} is neither in gui-gym nor in desktop-env at {folder}")
