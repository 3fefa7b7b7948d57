"""OSWorld getters: what an evaluator compares, fetched from the desktop or the task.

``get_<type>(ctx, config)`` as in OSWorld, for every type in `GETTER_TYPES` (all the types the
OSWorld-Verified tasks use): files (`files`), rules, commands and the desktop (`general`),
Chrome's profile and address bar (`chrome`) and its pages (`chrome_tabs`), Google Drive
(`drive`), and apps (`apps`). Each module is imported when one of its getters runs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

FAMILIES: dict[str, tuple[str, ...]] = {
    "files": ("vm_file", "cloud_file", "local_file", "cache_file", "content_from_vm_file"),
    "general": ("rule", "rule_relativeTime", "vm_command_line", "vm_command_error", "vm_terminal_output",
                "accessibility_tree", "list_directory", "vm_screen_size", "vm_window_size", "vm_wallpaper"),
    "chrome": ("default_search_engine", "profile_name", "chrome_font_size", "enable_do_not_track",
               "enable_enhanced_safety_browsing", "enable_safe_browsing", "new_startup_page",
               "find_unpacked_extension_path", "find_installed_extension_name", "data_delete_automacally",
               "bookmarks", "cookie_data", "history", "shortcuts_on_desktop", "chrome_appearance_mode_ui",
               "active_url_from_accessTree", "active_tab_url_parse", "url_dashPart", "url_path_parse"),
    "chrome_tabs": ("open_tabs_info", "active_tab_info", "page_info", "pdf_from_url", "info_from_website",
                    "active_tab_html_parse", "gotoRecreationPage_and_get_html_content"),
    "drive": ("googledrive_file",),
    "apps": ("vlc_config", "vlc_playing_info", "default_video_player", "gimp_config_file", "vscode_config",
             "audio_in_slide", "background_image_in_slide"),
}
"""Module (under this package) -> the getter types it defines."""


GETTER_TYPES = frozenset(kind for kinds in FAMILIES.values() for kind in kinds)
"""Every getter type implemented here."""


def get_getter(kind: str) -> Callable[..., Any]:
    """The getter function of a type (its module imported on first use); KeyError if none."""
    for module, kinds in FAMILIES.items():
        if kind in kinds:
            return getattr(importlib.import_module(f"{__name__}.{module}"), f"get_{kind}")
    raise KeyError(kind)


NETWORK_GETTERS = frozenset({"cloud_file"})
"""Getters that fetch files from the internet (unless their files are cached)."""
WEB_GETTERS = frozenset({"active_tab_info", "page_info", "pdf_from_url", "info_from_website",
                         "gotoRecreationPage_and_get_html_content", "googledrive_file"})
"""Getters that load web pages (they need the internet whatever is cached)."""
