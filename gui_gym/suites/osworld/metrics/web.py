"""Browser metrics on URLs (Chrome tasks): regex patterns over the active URL and the
active tab compared with an expected URL. Standard library only."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit


def _url(result: Any) -> str | None:
    if isinstance(result, dict):
        return result.get("url")
    return result if isinstance(result, str) else None


def normalize_url(url: str) -> str:
    """Scheme and host lower-cased, ``www.`` and default ports dropped, no trailing slash,
    no fragment: two spellings of one page compare equal."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    if parts.port and parts.port not in (80, 443):
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme.lower(), host, parts.path.rstrip("/"), parts.query, ""))


def is_expected_url_pattern_match(result: Any, rules: dict[str, Any]) -> float:
    """Every regex in ``rules["expected"]`` is found in the URL."""
    url = _url(result)
    if not url:
        return 0.0
    return float(all(re.search(pattern, url) for pattern in rules["expected"]))


def is_expected_active_tab(result: Any, rule: dict[str, Any]) -> float:
    url = _url(result)
    if not url or rule.get("type") != "url":
        return 0.0
    return float(normalize_url(url) == normalize_url(rule["url"]))


def is_expected_active_tab_approximate(result: Any, rule: dict[str, Any]) -> float:
    """As `is_expected_active_tab`, ignoring the query string."""
    url = _url(result)
    if not url or rule.get("type") != "url":
        return 0.0
    return float(normalize_url(url).split("?", 1)[0] == normalize_url(rule["url"]).split("?", 1)[0])
