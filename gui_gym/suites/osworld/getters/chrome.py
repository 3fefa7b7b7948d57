"""OSWorld's Chrome getters: the browser's profile files (preferences, bookmarks, history,
cookies, local state), the active tab's address read from the accessibility tree, and the
pages themselves through the desktop's DevTools port (`chrome_pages`).

Each returns what OSWorld's returns, fallbacks included (a preference file it cannot read
gives OSWorld's default answer). Profile files are read where OSWorld reads them, under
``~/.config/google-chrome/`` (the local provider's Chromium keeps its profile there). They are
the agent's files: each is parsed in the evaluator's bounded worker (JSON with
`json_document`, SQLite with `sqlite_rows.table_rows`), never in this process, and a bound it
goes past scores the task 0 with a warning, never OSWorld's fallback.
Chromium stands in for Google Chrome on the local provider: the address bar is looked for in
an accessibility application named "Google Chrome", else "Chromium".
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from gui_gym.errors import LimitExceededError
from gui_gym.suites.osworld.context import EpisodeContext
from gui_gym.suites.osworld.getters import chrome_pages, sqlite_rows
from gui_gym.suites.osworld.getters.chrome_pages import BrowserUnavailable
from gui_gym.suites.osworld.metrics.common import require

logger = logging.getLogger(__name__)

PROFILE = ".config/google-chrome"
ADDRESS_BAR = "application[name={app}] entry[name=Address\\ and\\ search\\ bar]"
BROWSER_APPS = ("Google\\ Chrome", "Chromium")


def _profile_file(ctx: EpisodeContext, name: str) -> bytes | None:
    return ctx.get_file(f"{ctx.home}/{PROFILE}/{name}", parsed_on_host=True)


def json_document(content: bytes) -> Any:
    """The JSON value of `content` (run in the bounded worker: the file is the agent's)."""
    return json.loads(content)


def _json_file(ctx: EpisodeContext, name: str) -> Any:
    content = _profile_file(ctx, name)
    if content is None:
        raise FileNotFoundError(f"the desktop has no {PROFILE}/{name}")
    return ctx.bounded(f"{__name__}:json_document", content)


def _preference(ctx: EpisodeContext, read: Any, fallback: Any) -> Any:
    """`read(preferences)`, or OSWorld's fallback when the file cannot be read (but a file
    past a bound is the agent's doing: LimitExceededError, the task scores 0)."""
    try:
        return read(_json_file(ctx, "Default/Preferences"))
    except LimitExceededError:
        raise
    except Exception as exc:  # noqa: BLE001 - OSWorld answers its default then
        logger.info("Chrome preferences: %s", exc)
        return fallback


def get_default_search_engine(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    return _preference(ctx, lambda d: d.get("default_search_provider_data", {}).get("template_url_data", {})
                       .get("short_name", "Google"), "Google")


def get_profile_name(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    return _preference(ctx, lambda d: d.get("profile", {}).get("name", None), None)


def get_chrome_font_size(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    defaults = {"default_fixed_font_size": 13, "default_font_size": 16, "minimum_font_size": 13}
    return _preference(ctx, lambda d: d.get("webkit", {}).get("webprefs", defaults),
                       {"default_fixed_font_size": 13, "default_font_size": 16})


def get_enable_do_not_track(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    return _preference(ctx, lambda d: "true" if d.get("enable_do_not_track", {}) else "false", "false")


def get_enable_enhanced_safety_browsing(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    return _preference(ctx, lambda d: "true" if d.get("safebrowsing", {}).get("enhanced", {}) else "false", "Google")


def get_enable_safe_browsing(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    def read(d: dict[str, Any]) -> str:
        safe = d.get("safebrowsing", {})
        return "true" if bool(safe.get("enhanced", False)) or bool(safe.get("enabled", False)) else "false"
    return _preference(ctx, read, "false")


def get_new_startup_page(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """"true" when Chrome opens the new-tab page at start (no session settings, or
    ``restore_on_startup`` 5)."""
    def read(d: dict[str, Any]) -> str:
        if "session" not in d:
            return "true"
        return "true" if d.get("session", {}).get("restore_on_startup", {}) == 5 else "false"
    return _preference(ctx, read, "Google")


def get_find_unpacked_extension_path(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    return _preference(ctx, lambda d: [e["path"] for e in d.get("extensions", {}).get("settings", {}).values()], "Google")


def get_find_installed_extension_name(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    return _preference(ctx, lambda d: [e["manifest"]["name"] for e in d.get("extensions", {}).get("settings", {}).values()],
                       "Google")


def get_data_delete_automacally(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    return _preference(ctx, lambda d: "true" if d["profile"].get("default_content_setting_values", None) is not None
                       else "false", "Google")


def get_bookmarks(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    content = _profile_file(ctx, "Default/Bookmarks")
    if not content:
        return []
    return ctx.bounded(f"{__name__}:json_document", content).get("roots", {})


def _sqlite_rows(ctx: EpisodeContext, name: str, dest: str, table: str, columns: str) -> Any:
    """The rows of `table` (OSWorld's ``fetchall()``), or None when the file or the table is
    not there or not a database; LimitExceededError past a bound (`sqlite_rows`)."""
    try:
        content = _profile_file(ctx, name)
        path = ctx.scratch / dest
        path.write_bytes(content)
        return sqlite_rows.from_answer(ctx.bounded(f"{sqlite_rows.__name__}:table_rows", str(path), table, columns))
    except LimitExceededError:
        raise  # the evaluator scores it 0 with its warning
    except Exception as exc:  # noqa: BLE001 - OSWorld returns None then
        logger.info("Chrome %s: %s", name, exc)
        return None


def get_cookie_data(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """Every row of the ``cookies`` table of ``Default/Cookies`` (OSWorld's path; newer
    Chromes keep cookies in ``Default/Network/Cookies``, and then there is nothing here)."""
    return _sqlite_rows(ctx, "Default/Cookies", config["dest"], "cookies", "*")


def get_history(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    return _sqlite_rows(ctx, "Default/History", config["dest"], "urls", "url, title, last_visit_time")


def get_shortcuts_on_desktop(ctx: EpisodeContext, config: dict[str, Any]) -> dict[str, str]:
    """The ``.desktop`` files on the desktop: name -> content (all of them together within
    ``max_host_parse_bytes``, `EpisodeContext.get_files`)."""
    desktop = f"{ctx.home}/Desktop"
    tree = ctx.list_directory(desktop) or {}
    names = [f["name"] for f in tree.get("directory_tree", tree).get("children", []) if f["name"].endswith(".desktop")]
    files = ctx.get_files([f"{desktop}/{name}" for name in names])
    return {name: files[f"{desktop}/{name}"].decode("utf-8") for name in names}


def _color_scheme(ctx: EpisodeContext) -> str:
    """The appearance mode the preferences hold: light, dark or system."""
    def read(d: dict[str, Any]) -> str:
        theme = d.get("browser", {}).get("theme", {})
        raw = theme.get("color_scheme2", theme.get("color_scheme", None))
        names = {0: "system", 1: "light", 2: "dark", "0": "system", "1": "light", "2": "dark", "system": "system",
                 "default": "system", "light": "light", "dark": "dark"}
        key = raw.strip().lower() if isinstance(raw, str) else int(raw) if isinstance(raw, (int, float)) else None
        if d.get("extensions", {}).get("theme", {}).get("system_theme", None) in (0, "0", False):
            return "light"
        return names.get(key, "system")
    return _preference(ctx, read, "system")


APPEARANCE_PROBE = r"""(() => { const modes = []; const lower = (s) => String(s || '').toLowerCase();
  const ui = document.querySelector('settings-ui'); const prefs = ui && ui.prefs ? ui.prefs : null;
  const pick = (p) => { try { return p.split('.').reduce((o, k) => o[k], prefs).value; } catch (e) { return undefined; } };
  for (const path of ['browser.theme.color_scheme', 'browser.theme.color_scheme2']) { const v = pick(path);
    if (v === 1 || lower(v) === 'light') modes.push('light'); if (v === 2 || lower(v) === 'dark') modes.push('dark');
    if (v === 0 || ['system', 'default', 'device'].includes(lower(v))) modes.push('system'); }
  const flag = pick('extensions.theme.system_theme'); if (flag === 0 || flag === false) modes.push('light');
  if (flag === 1 || flag === true) modes.push('dark');
  return modes.includes('light') ? 'light' : modes.includes('dark') ? 'dark' : modes.includes('system') ? 'system' : null; })()"""


def get_chrome_appearance_mode_ui(ctx: EpisodeContext, config: dict[str, Any]) -> str:
    """The appearance mode as Chrome's settings page shows it (light, dark, system), else
    as the preferences hold it. Not in desktop-env 1.0.2; written after OSWorld's later
    getter of that name."""
    try:
        mode = chrome_pages.visit(ctx, "chrome://settings/appearance", [APPEARANCE_PROBE], settle_s=1.0)["value"]
    except BrowserUnavailable as exc:
        logger.info("appearance from the settings page: %s", exc)
        mode = None
    return mode if mode in ("light", "dark", "system") else _color_scheme(ctx)


def get_active_url_from_accessTree(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:  # noqa: N802
    """``goto_prefix`` (default ``https://``) + the address bar's text, or None."""
    etree = require("lxml.etree", "lxml", "active_url_from_accessTree")
    css = require("lxml.cssselect", "cssselect", "active_url_from_accessTree")
    try:
        tree = etree.fromstring(ctx.client.accessibility_tree().encode())
    except Exception as exc:  # noqa: BLE001 - OSWorld answers None without a tree
        logger.info("active_url_from_accessTree: %s", exc)
        return None
    elements: list[Any] = []
    for app in BROWSER_APPS:
        elements = css.CSSSelector(ADDRESS_BAR.format(app=app))(tree)
        if elements:
            break
    if not elements or not elements[-1].text:
        return None
    return f"{config.get('goto_prefix', 'https://')}{elements[0].text}"


def get_active_tab_url_parse(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """The active URL's query parameters ``parse_keys`` (first values; renamed by ``replace``;
    split at commas with ``split_list``)."""
    url = get_active_url_from_accessTree(ctx, config)
    if url is None:
        return None
    query = parse_qs(urlparse(url).query)
    found = {key: query.get(key, [""])[0] for key in config["parse_keys"]}
    for old, new in config.get("replace", {}).items():
        found[new] = found.pop(old)
    if config.get("split_list", False):
        found = {key: value.split(",") for key, value in found.items()}
    return found


def get_url_dashPart(ctx: EpisodeContext, config: dict[str, Any]) -> Any:  # noqa: N802
    """The ``partIndex``-th "/"-separated part of the active URL (without its query with
    ``needDeleteId``), as a string or ``{key: part}``."""
    url = get_active_url_from_accessTree(ctx, config)
    if url is None:
        return None
    try:
        index = int(config["partIndex"])
    except (TypeError, ValueError):
        return None
    parts = url.split("/")
    if index >= len(parts):
        return None
    part = parts[index].split("?")[0] if config.get("needDeleteId", False) else parts[index]
    if config["returnType"] == "string":
        return part
    if config["returnType"] == "json":
        return {config["key"]: part}
    return None


def get_url_path_parse(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """Macy's product-listing URL read as OSWorld reads it: facet names and values in
    consecutive comma-separated path parts, plus the mens-clothing, shirts and short-sleeve
    flags."""
    url = get_active_url_from_accessTree(ctx, config)
    if url is None:
        return None
    path = unquote(urlparse(url).path)
    result: dict[str, Any] = {"mens_clothing": True if "mens-clothing" in path else None}
    parts = path.strip("/").split("/")
    facets: dict[str, Any] = {}
    shirts, short_sleeve = "shirts" in path, "short-sleeve" in path
    for i in range(len(parts) - 1):
        if "," in parts[i] and "," in parts[i + 1]:
            for key, value in zip((k.strip() for k in parts[i].split(",")), (v.strip() for v in parts[i + 1].split(","))):
                if key == "Price_discount_range":
                    facets[key] = [item.strip() for item in value.split("|")] if value else None
                else:
                    facets[key] = value if value else None
                if key == "Product_department" and value in ("shirts", "Shirts", "Shirt"):
                    shirts = True
                if key == "Sleeve_length" and value in ("short-sleeve", "Short Sleeve"):
                    short_sleeve = True
            break
    for name in ("Men_regular_size_t", "Price_discount_range"):
        facets.setdefault(name, None)
    result["shirts"] = shirts if shirts else None
    result["short_sleeve"] = short_sleeve if short_sleeve else None
    for key in config["parse_keys"]:
        if key in facets:
            if key == "Price_discount_range":
                value = facets[key]
                result[key] = ("50_PERCENT_ off & more" if value is not None and "50_PERCENT_ off & more" in value
                               and "30_PERCENT_ off & more" not in value and "20_PERCENT_ off & more" not in value
                               else "not_50_PERCENT_ off & more")
            else:
                result[key] = facets[key]
    return result
