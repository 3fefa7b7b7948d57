"""Parity with OSWorld's ``metrics/chrome.py`` and ``utils.py::compare_urls`` (desktop-env
1.0.2) on URLs (schemes, hosts, ports, public suffixes, paths, queries, fragments), tab
lists, bookmarks, cookies, history, shortcuts, font sizes, extensions and HTML files."""

from __future__ import annotations

import itertools

import pytest
from tests.osworld_reference import Parity

from gui_gym.suites.osworld.metrics import web

URLS = ["https://www.airbnb.com", "https://airbnb.com.sg/", "http://www.airbnb.com/", "airbnb.com", "https://m.airbnb.com",
        "https://www.drugs.com/npc/", "https://www.drugs.com/npc", "https://drugs.com/npc/?a=1", "https://drugs.com/npc/#top",
        "https://EXAMPLE.org:8080/a/b", "https://example.org/a/b", "https://example.co.uk/a", "https://example.com/a",
        "chrome://settings/appearance", "file:///home/user/a.html", "https://user@site.io/x;p?q=1#f", "HTTPS://Site.IO/x;p?q=1#f",
        "https://www.google.com/search?q=cats", "https://google.com/search?q=dogs", "", "localhost:8000/page"]


def run(parity: Parity, cases: list) -> None:
    failures = parity.check(cases)
    assert not failures, "\n".join(failures)


def test_compare_urls_and_url_checks(osworld_ref):
    utils, chrome = osworld_ref.metrics("utils"), osworld_ref.metrics("chrome")
    pairs = list(itertools.product(URLS, URLS))
    run(Parity("compare_urls", web.compare_urls, utils.compare_urls),
        [(f"{a}~{b}~{f}", (a, b), {"full": f}) for a, b in pairs for f in (True, False)] + [("none", (None, None), {})])
    results = [*URLS[:12], None, {"url": URLS[5]}, {"title": "x"}, ["x"]]
    cases = [(f"{r!r}~{u}", (r, {"type": "url", "url": u}), {}) for r in results for u in URLS[:12]]
    cases += [("type", (URLS[0], {"type": "title", "url": URLS[0]}), {})]
    for name in ("is_expected_active_tab", "is_expected_active_tab_approximate"):
        run(Parity(name, getattr(web, name), getattr(chrome, name)), cases)
    patterns = [[r"q=cats"], [r"google", r"search"], [r"^https://www\.drugs\.com/np[cp]/"], [r"airbnb\.com$"], []]
    run(Parity("is_expected_url_pattern_match", web.is_expected_url_pattern_match, chrome.is_expected_url_pattern_match),
        [(f"{r!r}~{i}", (r, {"expected": p}), {}) for r in results for i, p in enumerate(patterns)])
    run(Parity("is_expected_search_query", web.is_expected_search_query, chrome.is_expected_search_query),
        [(f"{u}", ({"url": u}, {"expect": {"pattern": r"q=ca"}}), {}) for u in URLS] + [("none", (None, {}), {})])


def test_tabs_bookmarks_and_profile_checks(osworld_ref):
    chrome = osworld_ref.metrics("chrome")
    tab_sets = [[{"url": u, "title": ""} for u in urls] for urls in (
        ["https://www.lonelyplanet.com", "https://www.airbnb.com", "https://www.tripadvisor.com"],
        ["https://lonelyplanet.com/", "https://airbnb.com.sg", "https://www.tripadvisor.com"],
        ["https://www.lonelyplanet.com", "https://www.airbnb.com"], [], ["https://www.airbnb.com"] * 3)]
    expected = [["https://www.lonelyplanet.com", "https://www.airbnb.com", "https://www.tripadvisor.com"],
                ["https://www.airbnb.com", "https://www.airbnb.com", "https://x.com"]]
    run(Parity("is_expected_tabs", web.is_expected_tabs, chrome.is_expected_tabs),
        [(f"{i}~{j}", (t, {"type": "url", "urls": e}), {}) for i, t in enumerate(tab_sets) for j, e in enumerate(expected)]
        + [("type", (tab_sets[0], {"type": "title", "urls": []}), {})])

    def bar(*children):
        return {"bookmark_bar": {"children": list(children)}}
    folder = {"type": "folder", "name": "Liked Authors", "children": [
        {"type": "url", "url": "https://a.org/1"}, {"type": "url", "url": "https://b.org/2"}]}
    marks = [bar(folder, {"type": "url", "url": "https://x.org"}, {"type": "folder", "name": "Work", "children": []}),
             bar({"type": "url", "url": "https://x.org"}), bar(), []]
    rules = [{"type": "bookmark_bar_folders_names", "names": ["Liked Authors", "Work"]},
             {"type": "bookmark_bar_websites_urls", "urls": ["https://x.org"]},
             {"type": "liked_authors_websites_urls", "urls": [["https://a.org/1", "https://a.org/one"], "https://b.org/2"]},
             {"type": "liked_authors_websites_urls", "urls": ["https://a.org/1"]}, {"type": "other"}]
    run(Parity("is_expected_bookmarks", web.is_expected_bookmarks, chrome.is_expected_bookmarks),
        [(f"{i}~{j}", (m, r), {}) for i, m in enumerate(marks) for j, r in enumerate(rules)])
    cookies = [[(0, ".amazon.com", "x"), (1, "www.google.com", "y")], [(0, "news.ycombinator.com", "z")], []]
    domains = [{"type": "domains", "domains": [".amazon.com"]}, {"type": "domains", "domains": ["google.com", "x.org"]},
               {"type": "names"}]
    run(Parity("is_cookie_deleted", web.is_cookie_deleted, chrome.is_cookie_deleted),
        [(f"{i}~{j}", (c, d), {}) for i, c in enumerate(cookies) for j, d in enumerate(domains)])
    history = [[("https://www.youtube.com/watch?v=1", "t", 1)], [("https://example.org", "t", 1)], []]
    run(Parity("check_history_deleted", web.check_history_deleted, chrome.check_history_deleted),
        [(f"{i}-{k}", (h, {"type": k, "keywords": ["youtube"]}), {}) for i, h in enumerate(history) for k in ("keywords", "x")])
    shortcuts = [{"a.desktop": "[Desktop Entry]\nName=Google Drive\nExec=xdg-open https://drive.google.com\n"}, {}]
    rules = [{"type": "name", "name": "Google Drive"}, {"type": "exec", "exec": "xdg-open https://drive.google.com"},
             {"type": "name", "name": "Google"}, {"type": "url"}]
    run(Parity("is_shortcut_on_desktop", web.is_shortcut_on_desktop, chrome.is_shortcut_on_desktop),
        [(f"{i}-{j}", (s, r), {}) for i, s in enumerate(shortcuts) for j, r in enumerate(rules)])
    sizes = [{"default_font_size": 16}, {"default_font_size": 22}]
    rules = [{"type": "value", "value": 16}, {"type": "range", "min": 16, "max": 24}, {"type": "x"}]
    run(Parity("check_font_size", web.check_font_size, chrome.check_font_size),
        [(f"{i}-{j}", (s, r), {}) for i, s in enumerate(sizes) for j, r in enumerate(rules)])
    run(Parity("is_expected_installed_extensions", web.is_expected_installed_extensions,
               chrome.is_expected_installed_extensions),
        [(f"{i}-{j}", (s, {"expected": e}), {}) for i, s in enumerate([["A", "B"], ["A"], [], None])
         for j, e in enumerate([["A"], ["A", "C"], []])])
    pages = [{"content": "<div>Dota 2</div><div>Team Fortress</div>"}, {"content": ""}]
    run(Parity("is_added_to_steam_cart", web.is_added_to_steam_cart, chrome.is_added_to_steam_cart),
        [(f"{i}-{j}", (p, {"items": it}), {}) for i, p in enumerate(pages) for j, it in enumerate([["Dota 2"], ["Dota 2", "X"], []])])


HTML = {
    "a": "<html><body><h1 class='t'>Title</h1><p>Some <b>bold</b> text</p><td sdnum='1033;0;0'>5</td></body></html>",
    "same": "<html><body><h1 class='t'>Title</h1><p>Some <b>bold</b> text</p><td sdnum='1033;0;0'>5</td></body></html>",
    "space": "<html><body><h1 class='t'>Title </h1><p>Some <b>bold</b> text</p><td sdnum='1033;0;0'>5</td></body></html>",
    "sdnum": "<html><body><h1 class='t'>Title</h1><p>Some <b>bold</b> text</p><td sdnum='1033;0;1'>5</td></body></html>",
    "attr": "<html><body><h1 class='u'>Title</h1><p>Some <b>bold</b> text</p><td sdnum='1033;0;0'>5</td></body></html>",
    "text": "<html><body><h1 class='t'>Title</h1><p>Other <b>bold</b> text</p><td sdnum='1033;0;0'>5</td></body></html>",
    "shorter": "<html><body><h1 class='t'>Title</h1></body></html>",
}


@pytest.fixture(scope="module")
def html_files(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("parity-html")
    out = {}
    for name, content in HTML.items():
        out[name] = str(folder / f"{name}.html")
        (folder / f"{name}.html").write_text(content, encoding="utf-8")
    return out


def test_compare_htmls(osworld_ref, html_files):
    chrome = osworld_ref.metrics("chrome")
    cases = [(f"{a}~{b}-{o}", (html_files[a], html_files[b]), opts) for a in html_files for b in html_files
             for o, opts in enumerate([{}, {"ignore_sdnum": True}])]
    run(Parity("compare_htmls", web.compare_htmls, chrome.compare_htmls), cases)
