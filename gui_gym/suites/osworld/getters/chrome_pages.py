"""The browser on the desktop, as OSWorld's Chrome getters reach it: its open pages and
their content, through the DevTools port OSWorld's tasks open (9222, forwarded to 1337).

OSWorld connects Playwright from its host to ``<vm>:9222``. The desktop's port is not
reachable from here (the local sandbox has its own network), so `cdp_probe.py`, a
standard-library script, runs on the desktop through the server's ``/execute`` and speaks
the DevTools protocol there, in isolated Python from a folder the agent does not own
(`EpisodeContext.desktop_python`: a ``json.py`` the agent left in its home is not imported);
page scripts replace Playwright's selectors (`page_query` builds them): CSS selectors do not reach into shadow DOM, and ``text=`` picks the first
deepest element whose text contains the label (case and spacing ignored), close to but
not exactly Playwright's text engine (docs/osworld.md).
"""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path
from typing import Any

from gui_gym.suites.osworld.context import EpisodeContext
from gui_gym.runtime.waiting import wait_until

logger = logging.getLogger(__name__)

PROBE = Path(__file__).with_name("cdp_probe.py")
LAUNCH_COMMAND = ["google-chrome", "--remote-debugging-port=1337"]
LAUNCH_TIMEOUT_S = 20.0
PAGE_TIMEOUT_S = 60.0
PROBE_TIMEOUT_S = 300.0
PDF_OPTIONS = {"paperWidth": 8.5, "paperHeight": 11, "marginTop": 0, "marginBottom": 0, "marginLeft": 0,
               "marginRight": 0, "printBackground": False, "scale": 1, "preferCSSPageSize": False,
               "displayHeaderFooter": False}
"""Playwright's ``page.pdf()`` defaults (Letter, no margins, no backgrounds)."""


class BrowserUnavailable(Exception):
    """No browser answers on the desktop's DevTools ports (or the request failed there)."""


def probe(ctx: EpisodeContext, request: dict[str, Any]) -> Any:
    """Run one request of `cdp_probe.py` on the desktop; its value."""
    result = ctx.desktop_python(PROBE.read_text(), json.dumps(request), timeout_s=PROBE_TIMEOUT_S)
    lines = [line for line in (result.get("output") or "").splitlines() if line.startswith("{")]
    if not lines:
        raise BrowserUnavailable(f"the DevTools probe gave no answer: {str(result.get('error'))[-300:]}")
    answer = json.loads(lines[-1])
    if not answer.get("ok"):
        raise BrowserUnavailable(answer.get("error", "unknown error"))
    return answer["value"]


def ensure_browser(ctx: EpisodeContext) -> None:
    """Start Chrome with its debugging port when none answers (OSWorld does so in several
    getters), and wait until it answers."""
    try:
        probe(ctx, {"op": "tabs"})
        return
    except BrowserUnavailable:
        logger.info("no browser on the desktop's DevTools port: starting %s", LAUNCH_COMMAND)
    ctx.client.launch(LAUNCH_COMMAND)

    def answers() -> bool:
        try:
            probe(ctx, {"op": "tabs"})
            return True
        except BrowserUnavailable:
            return False
    if not wait_until(answers, LAUNCH_TIMEOUT_S, interval_s=0.5):
        raise BrowserUnavailable(f"{LAUNCH_COMMAND[0]} did not open its DevTools port within {LAUNCH_TIMEOUT_S} s")


def tabs(ctx: EpisodeContext) -> list[dict[str, str]]:
    """The open pages: id, url, title."""
    return probe(ctx, {"op": "tabs"})


def evaluate(ctx: EpisodeContext, target: str, expression: str) -> Any:
    return probe(ctx, {"op": "evaluate", "target": target, "expression": expression, "timeout_s": PAGE_TIMEOUT_S})


def visit(ctx: EpisodeContext, url: str, steps: list[str], settle_s: float = 0.5) -> dict[str, Any]:
    """Open `url` in a new tab, run `steps` (letting the page settle after each), close it:
    ``{"loaded": bool, "value": the last step's value}``."""
    return probe(ctx, {"op": "visit", "url": url, "steps": steps, "settle_s": settle_s, "timeout_s": PAGE_TIMEOUT_S})


def print_pdf(ctx: EpisodeContext, url: str) -> bytes:
    return base64.b64decode(probe(ctx, {"op": "pdf", "url": url, "pdf": PDF_OPTIONS, "timeout_s": PAGE_TIMEOUT_S}))


PAGE_INFO = ("(() => { const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';"
             " return {title: document.title, url: location.href, content: doctype + document.documentElement.outerHTML}; })()")
"""Playwright's ``page.title()``, ``page.url`` and ``page.content()``."""

QUERY_HELPERS = r"""
const texts = (css) => Array.from(document.querySelectorAll(css)).map(e => (e.textContent || '').trim());
const directTexts = (css) => { const e = document.querySelector(css); return e ? Array.from(e.childNodes)
  .filter(n => n.nodeType === Node.TEXT_NODE).map(n => n.textContent.trim()).filter(Boolean) : []; };
const onlyChild = (css, child) => Array.from(document.querySelectorAll(css)).map(e => e.querySelector(child))
  .filter(Boolean).map(c => (child === 'span' ? c.innerText : c.textContent).trim());
const byXpath = (xp) => { try { const r = document.evaluate(xp, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
  return r.snapshotLength ? {count: r.snapshotLength, first: r.snapshotItem(0)} : {count: 0, first: null}; }
  catch (e) { return {count: 0, first: null}; } };
const xpathText = (xp) => { const r = byXpath(xp); return r.first ? (r.first.textContent === null ? null
  : r.first.textContent.trim()) : null; };
const inputValue = (xp) => { const r = byXpath(xp); return r.first ? (r.first.value || '').trim() : null; };
const norm = (s) => (s || '').replace(/\s+/g, ' ').trim().toLowerCase();
const byText = (label) => { const want = norm(label); let found = null;
  for (const e of document.body ? document.body.querySelectorAll('*') : []) {
    if (norm(e.textContent).includes(want) && !Array.from(e.children).some(c => norm(c.textContent).includes(want))) {
      found = e; break; } }
  return found ? (found.textContent || '').trim() : ''; };
"""


def page_query(queries: dict[str, tuple[str, ...]]) -> str:
    """A page script answering named queries: ``{name: (helper, *arguments)}`` with helpers
    texts(css), directTexts(css), onlyChild(css, tag), xpathText(xpath), inputValue(xpath),
    byText(label), url()."""
    calls = []
    for name, (helper, *arguments) in queries.items():
        call = "location.href" if helper == "url" else f"{helper}({', '.join(json.dumps(a) for a in arguments)})"
        calls.append(f"{json.dumps(name)}: {call}")
    return "(() => {" + QUERY_HELPERS + "return {" + ", ".join(calls) + "}; })()"
