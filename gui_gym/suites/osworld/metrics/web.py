"""Browser metrics (Chrome tasks, OSWorld's ``chrome.py``): URLs of the active and open
tabs, bookmarks, cookies, history, search queries, shortcuts, font sizes, extensions, and
HTML files compared element by element (BeautifulSoup with lxml, as OSWorld).

URLs are compared as OSWorld's ``compare_urls`` does: scheme and host lower-cased, the
registrable domain without its public suffix (``airbnb.com`` and ``airbnb.com.sg`` are one;
a bare ``www`` is dropped; the port is dropped with it), a lone ``/`` path as none, query,
parameters and fragment kept. The public suffixes come from tldextract's bundled list (never
downloaded); OSWorld's tldextract fetches the current list, which differs only for
suffixes added since.
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
from typing import Any
from urllib.parse import ParseResult, urlparse, urlunparse

from gui_gym.suites.osworld.metrics.common import lists_equal, require

logger = logging.getLogger(__name__)


@functools.lru_cache(maxsize=1)
def _suffix_extractor() -> Any:
    tldextract = require("tldextract", "tldextract", "URL comparison")
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def normalize_url(url: str, full: bool = True) -> str:
    """OSWorld's URL normalisation (see the module docstring)."""
    if not re.match(r"^[a-zA-Z][a-zA-Z0-9+\-.]*://", url):
        url = f"http://{url}"
    parts = urlparse(url)
    extracted = _suffix_extractor()(parts.netloc.lower())
    subdomain = "" if extracted.subdomain == "www" else extracted.subdomain
    host = f"{subdomain}.{extracted.domain}" if subdomain else extracted.domain
    return urlunparse(ParseResult(scheme=parts.scheme.lower(), netloc=host,
                                  path=parts.path if parts.path != "/" else "",
                                  params=parts.params if full else "", query=parts.query if full else "",
                                  fragment=parts.fragment if full else ""))


def compare_urls(a: str | None, b: str | None, full: bool = True) -> bool:
    if a is None or b is None:
        return a == b
    return normalize_url(a, full) == normalize_url(b, full)


def _tab_url(info: Any) -> Any:
    return info.get("url", None) if isinstance(info, dict) else info


def is_expected_active_tab(result: Any, rule: dict[str, Any]) -> float:
    if not result:
        return 0.0
    if rule["type"] != "url":
        logger.info("is_expected_active_tab: unknown type %r", rule["type"])
        return 0.0
    return float(compare_urls(rule["url"], _tab_url(result)))


def is_expected_active_tab_approximate(result: Any, rule: dict[str, Any]) -> float:
    """The URLs are equal once their query strings are dropped (no other normalisation)."""
    if not result:
        return 0.0
    if rule["type"] != "url":
        logger.info("is_expected_active_tab_approximate: unknown type %r", rule["type"])
        return 0.0

    def bare(url: str) -> str:
        return urlunparse(urlparse(url)._replace(query=""))
    return float(bare(rule["url"]) == bare(_tab_url(result)))


def is_expected_url_pattern_match(result: Any, rules: dict[str, Any]) -> float:
    """Every regex in ``rules["expected"]`` is found in the URL (a string, or a dict's "url")."""
    if not result:
        return 0.0
    if isinstance(result, str):
        url = result
    elif isinstance(result, dict) and "url" in result:
        url = result["url"]
    else:
        return 0.0
    return float(all(re.search(pattern, url) for pattern in rules["expected"]))


def is_expected_installed_extensions(result: Any, expected: dict[str, Any]) -> float:
    if not result:
        return 0.0
    return float(set(expected["expected"]).issubset(set(result)))


def is_expected_tabs(result: Any, rule: dict[str, Any]) -> float:
    """The open tabs' URLs are the expected ones (as many, each with an equal URL, any order)."""
    if not result:
        return 0.0
    if rule["type"] != "url":
        logger.info("is_expected_tabs: unknown type %r", rule["type"])
        return 0.0
    return float(lists_equal(rule["urls"], [tab["url"] for tab in result], compare_urls))


def is_expected_bookmarks(result: Any, rule: dict[str, Any]) -> float:
    """Bookmarks (Chrome's ``roots``): the bookmark bar's folder names or site URLs as a set,
    or a "Liked Authors" folder holding one URL from each of ``urls`` (a list entry means
    any of them)."""
    if not result:
        return 0.0
    bar = result["bookmark_bar"]["children"]
    kind = rule["type"]
    if kind == "bookmark_bar_folders_names":
        return float({b["name"] for b in bar if b["type"] == "folder"} == set(rule["names"]))
    if kind == "bookmark_bar_websites_urls":
        return float({b["url"] for b in bar if b["type"] == "url"} == set(rule["urls"]))
    if kind == "liked_authors_websites_urls":
        folder = next((b for b in bar if b["type"] == "folder" and b["name"] == "Liked Authors"), None)
        if folder is None:
            return 0.0
        urls = [b["url"] for b in folder["children"] if b["type"] == "url"]
        options = [[u] if isinstance(u, str) else u for u in rule["urls"]]
        return float(any(set(combination) == set(urls) for combination in itertools.product(*options)))
    raise TypeError(f"{kind} not support yet!")


def is_expected_search_query(result: Any, rules: dict[str, Any]) -> float:
    if not result:
        return 0.0
    return float(re.search(rules["expect"]["pattern"], result["url"]) is not None)


def compare_htmls(result: Any, expected: Any, **options: Any) -> float:
    """The two HTML files' trees (BeautifulSoup with lxml), walked together: every string is
    equal, every tag has the same name, stripped text and attributes (``ignore_sdnum``: a
    tag whose attributes differ only in ``sdnum`` ends the comparison of that tag)."""
    bs4 = require("bs4", "beautifulsoup4", "compare_htmls")
    with open(result, encoding="utf-8") as a, open(expected, encoding="utf-8") as b:
        first, second = bs4.BeautifulSoup(a, "lxml"), bs4.BeautifulSoup(b, "lxml")
    ignore_sdnum = options.get("ignore_sdnum", None)

    def same(x: Any, y: Any) -> bool:
        if not (isinstance(x, bs4.Tag) and isinstance(y, bs4.Tag)):
            return x == y
        if x.name != y.name or x.text.strip() != y.text.strip():
            return False
        if x.attrs != y.attrs:
            if ignore_sdnum:
                return ({k: v for k, v in x.attrs.items() if k != "sdnum"}
                        == {k: v for k, v in y.attrs.items() if k != "sdnum"})
            return False
        return True
    return float(all(same(x, y) for x, y in zip(first.descendants, second.descendants)))


def is_cookie_deleted(result: Any, rule: dict[str, Any]) -> float:
    """No cookie's host (the second column of Chrome's cookies table) is one of the domains."""
    if rule["type"] != "domains":
        raise TypeError(f"{rule['type']} not support yet!")
    hosts = [cookie[1] for cookie in result]
    return float(not any(compare_urls(domain, host) for domain in rule["domains"] for host in hosts))


def is_shortcut_on_desktop(result: Any, rule: dict[str, Any]) -> float:
    """Some ``.desktop`` file on the desktop has the line ``Name=<name>`` (or ``Exec=``)."""
    if rule["type"] == "name":
        return float(any(f"Name={rule['name']}\n" in content for content in result.values()))
    if rule["type"] == "exec":
        return float(any(f"Exec={rule['exec']}\n" in content for content in result.values()))
    raise TypeError(f"{rule['type']} not support yet!")


def check_history_deleted(result: Any, rule: dict[str, Any]) -> float:
    """No history URL contains one of the keywords."""
    if rule["type"] != "keywords":
        raise TypeError(f"{rule['type']} not support yet!")
    return float(not any(keyword in item[0] for keyword in rule["keywords"] for item in result))


def check_font_size(result: Any, rule: dict[str, Any]) -> float:
    size = result["default_font_size"]
    if rule["type"] == "value":
        return float(size == rule["value"])
    if rule["type"] == "range":
        return float(rule["min"] < size < rule["max"])
    raise TypeError(f"{rule['type']} not support yet!")


def is_added_to_steam_cart(result: Any, rule: dict[str, Any]) -> float:
    """Every item name appears in the active tab's HTML."""
    return float(all(item in result["content"] for item in rule["items"]))
