"""OSWorld's Chrome getters that read pages: the open tabs, the active tab's content and
elements, a page visited for the check, a page printed to PDF, facts read off a website.

They reach the browser on the desktop through `chrome_pages` and return what OSWorld's
return, fallbacks included ("Load timeout" titles, ``backups``, empty results)."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import unquote

from gui_gym.suites.osworld.context import EpisodeContext
from gui_gym.suites.osworld.getters import chrome_pages
from gui_gym.suites.osworld.getters.chrome import get_active_url_from_accessTree
from gui_gym.suites.osworld.getters.chrome_pages import PAGE_INFO, BrowserUnavailable, page_query

logger = logging.getLogger(__name__)

EMPTY_PDF = b"%PDF-1.4\n%EOF\n"
"""What OSWorld writes when it cannot print the page."""


def get_open_tabs_info(ctx: EpisodeContext, config: dict[str, Any]) -> list[dict[str, str]]:
    """Title and URL of every open page ([] when no browser can be reached or started)."""
    try:
        chrome_pages.ensure_browser(ctx)
        return [{"title": t["title"], "url": t["url"]} for t in chrome_pages.tabs(ctx)]
    except BrowserUnavailable as exc:
        logger.info("open_tabs_info: %s", exc)
        return []


def _page_info(ctx: EpisodeContext, url: str) -> dict[str, Any]:
    visited = chrome_pages.visit(ctx, url, [PAGE_INFO])
    info = visited["value"]
    if not visited["loaded"]:
        info = {**info, "title": "Load timeout"}
    return info


def get_active_tab_info(ctx: EpisodeContext, config: dict[str, Any]) -> dict[str, Any] | None:
    """The active tab's address loaded again in a new tab: title, URL, HTML ("Load
    timeout" as title when it does not settle; None when it cannot be loaded)."""
    url = get_active_url_from_accessTree(ctx, config)
    if url is None:
        return None
    try:
        return _page_info(ctx, url)
    except BrowserUnavailable as exc:
        logger.info("active_tab_info: %s", exc)
        return None


def get_page_info(ctx: EpisodeContext, config: dict[str, Any]) -> dict[str, Any]:
    url = config["url"]
    try:
        chrome_pages.ensure_browser(ctx)
        return _page_info(ctx, url)
    except BrowserUnavailable as exc:
        logger.info("page_info: %s", exc)
        return {"title": "Connection failed", "url": url, "content": ""}


def get_pdf_from_url(ctx: EpisodeContext, config: dict[str, Any]) -> str:
    """The page at ``path`` printed to PDF (Playwright's ``page.pdf`` defaults) as ``dest``;
    a nearly empty PDF when it cannot be printed, as OSWorld writes."""
    target = ctx.scratch / config["dest"]
    try:
        chrome_pages.ensure_browser(ctx)
        target.write_bytes(chrome_pages.print_pdf(ctx, config["path"]))
    except BrowserUnavailable as exc:
        logger.info("pdf_from_url: %s", exc)
        target.write_bytes(EMPTY_PDF)
    return str(target)


INFO_SCRIPTS = {
    "inner_text": "(() => {{ const e = document.querySelector({0}); if (!e) throw new Error('no element'); return e.innerText; }})()",
    "attribute": "(() => {{ const e = document.querySelector({0}); if (!e) throw new Error('no element'); "
                 "return e.getAttribute({1}); }})()",
    "click": "(() => {{ const e = document.querySelector({0}); if (!e) throw new Error('no element'); e.click(); return true; }})()",
}


def get_info_from_website(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """Facts read off ``url``: for each of ``infos``, an element's inner text or attribute,
    after clicking through the selectors before the last for the ``click_and_*`` actions;
    ``backups`` when anything fails."""
    import json

    try:
        chrome_pages.ensure_browser(ctx)
        found = []
        for info in config.get("infos", []):
            action = info.get("action", "inner_text")
            selectors = info["selector"] if action.startswith("click_and_") else [info["selector"]]
            steps = [INFO_SCRIPTS["click"].format(json.dumps(s)) for s in selectors[:-1]]
            last = action.removeprefix("click_and_")
            if last not in ("inner_text", "attribute"):
                raise NotImplementedError(f"The action {action} is not supported yet.")
            steps.append(INFO_SCRIPTS[last].format(json.dumps(selectors[-1]), json.dumps(info.get("attribute"))))
            found.append(chrome_pages.visit(ctx, config["url"], steps)["value"])
        return found
    except (BrowserUnavailable, NotImplementedError) as exc:
        logger.info("info_from_website: %s; using the backups", exc)
        return config.get("backups", None)


def _same_page(a: str, b: str) -> bool:
    return unquote(a).rstrip("/") == unquote(b).rstrip("/")


def get_active_tab_html_parse(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """Texts of elements of the open page whose URL is the active tab's address, by
    ``category`` (class, label, xpath, input, class&url), into OSWorld's result keys."""
    url = get_active_url_from_accessTree(ctx, config)
    if not isinstance(url, str):
        return None
    try:
        chrome_pages.ensure_browser(ctx)
        target = next((t for t in chrome_pages.tabs(ctx) if _same_page(t["url"], url)), None)
        if target is None:
            return {}
        queries = _html_queries(config)
        answers = chrome_pages.evaluate(ctx, target["id"], page_query(queries)) if queries else {}
    except BrowserUnavailable as exc:
        logger.info("active_tab_html_parse: %s", exc)
        return {}
    return _html_result(config, answers)


def _html_queries(config: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    queries: dict[str, tuple[str, ...]] = {}
    category = config["category"]
    if category in ("class", "class&url"):
        for name in config.get("class_multiObject", {}):
            queries[f"texts:{name}"] = ("texts", "." + name)
    if category == "class":
        for name in config.get("class_multiObject_child", {}):
            queries[f"direct:{name}"] = ("directTexts", "." + name)
        for name in config.get("class_multiObject_only_child", {}):
            queries[f"h3:{name}"] = ("onlyChild", "." + name, "h3")
        for name in (*config.get("class_multiObject_search_exist", {}), *config.get("class_singleObject", {})):
            queries[f"texts:{name}"] = ("texts", "." + name)
    if category == "class&url":
        for name in config.get("class_multiObject_li", {}):
            queries[f"li:{name}"] = ("onlyChild", "." + name + " li.catAllProducts", "span")
        queries["url"] = ("url",)
    if category == "label":
        for label in config.get("labelObject", {}):
            queries[f"label:{label}"] = ("byText", label)
    if category == "xpath":
        for xpath in config.get("xpathObject", {}):
            queries[f"xpath:{xpath}"] = ("xpathText", xpath)
    if category == "input":
        for xpath in config.get("inputObject", {}):
            queries[f"input:{xpath}"] = ("inputValue", xpath)
    return queries


def _indexed(found: dict[str, Any], keys: dict[str, str], texts: list[str]) -> None:
    for order, key in keys.items():
        index = int(order)
        found[key] = texts[index] if len(texts) > index else ""


def _html_result(config: dict[str, Any], answers: dict[str, Any]) -> dict[str, Any]:
    """OSWorld's result keys from the page's answers."""
    found: dict[str, Any] = {}
    category = config["category"]
    if category == "class":
        for name, keys in config.get("class_multiObject", {}).items():
            _indexed(found, keys, answers[f"texts:{name}"])
        for name, keys in config.get("class_multiObject_child", {}).items():
            _indexed(found, keys, answers[f"direct:{name}"])
        for name, keys in config.get("class_multiObject_only_child", {}).items():
            _indexed(found, keys, answers[f"h3:{name}"])
        for name, wanted in config.get("class_multiObject_search_exist", {}).items():
            texts = answers[f"texts:{name}"]
            for item in wanted:
                if item != "is_other_exist":
                    found[item] = item in texts
            if "is_other_exist" in wanted:
                if any(text not in wanted for text in texts):
                    found["is_other_exist"] = True
                found.setdefault("is_other_exist", False)
        for name, key in config.get("class_singleObject", {}).items():
            texts = answers[f"texts:{name}"]
            found[key] = texts[0] if texts else ""
    elif category == "label":
        for label, key in config.get("labelObject", {}).items():
            found[key] = answers[f"label:{label}"] or ""
    elif category == "xpath":
        for xpath, key in config.get("xpathObject", {}).items():
            found[key] = answers[f"xpath:{xpath}"] or ""
    elif category == "input":
        for xpath, key in config.get("inputObject", {}).items():
            found[key] = answers[f"input:{xpath}"] or ""
    elif category == "class&url":
        for prefix, option in (("texts", "class_multiObject"), ("li", "class_multiObject_li")):
            for name, wanted in config.get(option, {}).items():
                texts = answers[f"{prefix}:{name}"]
                for item in wanted:
                    if any(item.lower() == text.lower() for text in texts):
                        found[item.lower()] = True
                if any(all(text.lower() not in item.lower() for item in wanted) for text in texts):
                    found["is_other_exist"] = True
                found.setdefault("is_other_exist", False)
        page_url = answers["url"].lower()
        for key in config.get("url_include_expected", []):
            found.setdefault(key.lower(), key.lower() in page_url)
        for key, value in config.get("url_include_expected_multichoice", {}).items():
            found.setdefault(value.lower(), key.lower() in page_url)
    return found


RECREATION_STEPS = [
    "(() => { const i = document.querySelector('input#hero-search-input'); if (!i) throw new Error('no search box');"
    " i.focus(); const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;"
    " set.call(i, 'Diamond'); i.dispatchEvent(new Event('input', {bubbles: true})); return true; })()",
    "(() => { const b = document.querySelector('button.nav-search-button'); if (!b) throw new Error('no search button');"
    " b.click(); return true; })()",
    "new Promise(r => setTimeout(r, 10000)).then(() => { const hit = document.querySelector('.search-result-highlight--success');"
    " if (!hit) throw new Error('no search result'); const link = hit.closest('a') || hit.querySelector('a');"
    " if (link && link.href) { location.href = link.href; } else { hit.click(); } return true; })",
    "(() => { for (const s of ['button.next-available', \"button[class*='next-available']\", \"button[class*='next']\","
    " '.next-available', \"[data-testid*='next']\"]) { const b = document.querySelector(s); if (b) { b.click(); break; } }"
    " return true; })()",
]
"""OSWorld's walk through recreation.gov: search "Diamond", open the first result (OSWorld
follows the popup the click opens; here its link is followed in the same tab), then the
"next available" button."""


def get_gotoRecreationPage_and_get_html_content(ctx: EpisodeContext, config: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
    """The text of the ``class`` element (the ``order``-th, or the first) on the campsite
    page reached as OSWorld reaches it; ``__EVALUATION_FAILED__`` where it is missing."""
    import json

    name = config["class"]
    css = json.dumps("." + name)
    order = int(config["order"]) if "order" in config else 0
    read = (f"(() => {{ const all = document.querySelectorAll({css}); const e = all[{order}];"
            " return e ? (e.textContent || '').trim() : null; })()")
    try:
        chrome_pages.ensure_browser(ctx)
        value = chrome_pages.visit(ctx, "https://www.recreation.gov/", [*RECREATION_STEPS, read], settle_s=1.0)["value"]
    except BrowserUnavailable as exc:
        logger.info("gotoRecreationPage_and_get_html_content: %s", exc)
        return {"expected": {"error": "__EVALUATION_FAILED__", "error_message": str(exc)}}
    if config["selector"] != "class":
        return {"expected": {}}
    return {"expected": {name: value if value is not None else "__EVALUATION_FAILED__"}}
