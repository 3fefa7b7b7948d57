"""What can be read of a browser page's state, as plain data: the URL, cookies, web storage,
form fields, focus and scroll.

A page's script state (a JavaScript variable, an open menu built by a handler) cannot be
read, so an episode snapshot on the browser is a replay of the episode's actions (see
`gui_gym.snapshots`); this record is taken when the snapshot is, and again after the replay,
and the two must be equal for the restore to count as exact. It never holds a server's token
cookie (`secret_cookies`): each env admits its browser to its own servers with its own
secret, so a snapshot carries none and a second env restores it with its own.
"""

from __future__ import annotations

from typing import Any

PAGE_STATE_JS = """() => {
  const describe = (el) => el && el !== document.body && el !== document.documentElement
    ? [el.tagName.toLowerCase(), el.id || el.getAttribute('name') || '', [...el.parentNode.children].indexOf(el)]
    : null;
  const fields = [...document.querySelectorAll('input, select, textarea')].map((el) => ({
    field: describe(el), type: el.type || '',
    value: el.type === 'password' ? (el.value ? '\\u2022'.repeat(el.value.length) : '') : el.value,
    checked: !!el.checked,
    selected: el.tagName === 'SELECT' ? [...el.selectedOptions].map((o) => o.index) : null,
  }));
  const storage = (area) => {
    try { return Object.fromEntries(Object.keys(area).sort().map((k) => [k, area.getItem(k)])); }
    catch (e) { return null; }  // an opaque origin (about:blank, data:) has no storage
  };
  const scrolled = [...document.querySelectorAll('*')].filter((el) => el.scrollTop || el.scrollLeft)
    .map((el) => [describe(el), el.scrollLeft, el.scrollTop]);
  return {url: location.href, title: document.title, scroll: [window.scrollX, window.scrollY],
          scrolled, focused: describe(document.activeElement), fields,
          local_storage: storage(window.localStorage), session_storage: storage(window.sessionStorage)};
}"""
"""The page's readable state. Password fields are recorded by length only."""


def capture(page: Any, secret_cookies: set[str]) -> dict[str, Any]:
    """The readable state of a Playwright `page` (None: no page open) and its context's
    cookies, less those named in `secret_cookies`."""
    if page is None:
        return {"page": None, "cookies": []}
    cookies = [{key: cookie[key] for key in ("name", "value", "domain", "path")}
               for cookie in page.context.cookies() if cookie["name"] not in secret_cookies]
    cookies.sort(key=lambda c: (c["domain"], c["path"], c["name"]))
    return {"page": page.evaluate(PAGE_STATE_JS), "cookies": cookies,
            "pages": len(page.context.pages)}
