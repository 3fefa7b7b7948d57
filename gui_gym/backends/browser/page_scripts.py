"""JavaScript the browser backend runs in pages it controls (written by us, never by agents).

The element list (`ELEMENTS_JS`) is our accessibility view: visible interactive elements plus
visible text leaves, each with a role, an accessible name and a viewport-clipped box. Its
indices are what element-index actions (``click(element=3)``) refer to; its text form is
`gui_gym.a11y_text`.
"""

from __future__ import annotations

INIT_JS = r"""
(() => {
  const hideCaret = () => {
    const style = document.createElement('style');
    style.textContent = '* { caret-color: transparent !important; }';
    (document.head || document.documentElement).appendChild(style);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', hideCaret);
  else hideCaret();
  window.__guiGymLastMutation = performance.now();
  window.addEventListener('beforeunload', () => { window.__guiGymLeaving = true; });
  // A new tab is opened asynchronously; flag it so the backend waits for it to appear.
  document.addEventListener('click', (event) => {
    const link = event.target.closest && event.target.closest('a[target]');
    if (link && link.href && !['_self', '_parent', '_top'].includes(link.target)) window.__guiGymPopup = true;
  }, true);
  const open = window.open;
  window.open = function (...args) { window.__guiGymPopup = true; return open.apply(this, args); };
  new MutationObserver(() => { window.__guiGymLastMutation = performance.now(); })
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  // Requests the page's scripts make, counted from the call: the browser reports a request to
  // the backend a moment after the call, and its end a moment before the page's own code has
  // read the response. Each ends a task after its body arrived, so that code runs first.
  window.__guiGymPending = 0;
  const done = () => setTimeout(() => { window.__guiGymPending -= 1; }, 0);
  const fetch = window.fetch;
  window.fetch = function (...args) {
    const response = fetch.apply(this, args);
    window.__guiGymPending += 1;
    response.then(r => r.clone().arrayBuffer()).catch(() => null).then(done);
    return response;
  };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    window.__guiGymPending += 1;
    this.addEventListener('loadend', done, {once: true});
    try { return send.apply(this, args); } catch (error) { window.__guiGymPending -= 1; throw error; }
  };
  // Work deferred to a later task (a timer, a frame callback, a message, a form submission's
  // navigation), counted in the top page (a same-origin frame counts there too): the readiness
  // check lets such work run first only when some was deferred since its last look.
  let top = window;
  try { if (window.top.__guiGymQueued !== undefined) top = window.top; } catch (error) { /* cross-origin */ }
  window.__guiGymQueued = 0;
  const queued = () => { top.__guiGymQueued += 1; };
  const deferring = (owner, name) => {
    const original = owner[name];
    owner[name] = function (...args) { queued(); return original.apply(this, args); };
  };
  deferring(window, 'setTimeout');
  deferring(window, 'requestAnimationFrame');
  deferring(window, 'postMessage');
  deferring(MessagePort.prototype, 'postMessage');
  deferring(HTMLFormElement.prototype, 'submit');
  document.addEventListener('submit', queued, true);
  // No peer connections: WebRTC sends UDP (STUN, media) that no request filter sees. This runs
  // in every frame and popup, an inline frame's first blank document included; workers have no
  // RTCPeerConnection. The browser's own policy (playwright_driver.WEBRTC_FLAGS) holds as well.
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection']) {
    if (!(name in window)) continue;
    const refused = function RTCPeerConnection() {
      throw new DOMException('WebRTC peer connections are disabled in gui-gym browsers', 'NotAllowedError');
    };
    Object.defineProperty(window, name, {value: refused, writable: false, configurable: false, enumerable: false});
  }
})();
"""

PASTE_GUARD_JS = r"""
(() => {
  // The browser's selection buffer (middle-click paste) outlives an episode: the backend leaves
  // it holding this marker at each reset (CLIPBOARD_RESET_JS), and no page pastes the marker.
  const marker = __MARKER__;
  window.addEventListener('paste', (event) => {
    if (event.clipboardData && event.clipboardData.getData('text/plain') === marker) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
})();
"""
"""Added to every page with the backend's marker in place of ``__MARKER__`` (a JSON string)."""

CLIPBOARD_RESET_JS = r"""
(() => {
  // Run with a user gesture (Playwright evaluates with one) on the reset's blank page. The
  // clipboard: a copy whose data is empty replaces every format it held. The selection buffer
  // can only be replaced by a selection the user makes: the backend selects this box's marker
  // with the keyboard next (Ctrl+A), and the box goes when that key is released.
  document.addEventListener('copy', (event) => {
    event.clipboardData.setData('text/plain', '');
    event.preventDefault();
  }, {once: true});
  const emptied = document.execCommand('copy');
  const box = document.createElement('textarea');
  box.value = __MARKER__;
  box.addEventListener('keyup', () => { box.remove(); window.getSelection().removeAllRanges(); }, {once: true});
  document.body.appendChild(box);
  box.focus();
  return emptied;
})()
"""
"""Also with the marker in place of ``__MARKER__``."""

NO_ANIMATIONS_JS = r"""
(() => {
  // Transitions never start and animations end at once (their end state and events stay),
  // so settling never waits for motion.
  const add = () => {
    const style = document.createElement('style');
    style.textContent = '*, *::before, *::after { transition: none !important; ' +
      'animation-duration: 0s !important; animation-delay: 0s !important; scroll-behavior: auto !important; }';
    (document.head || document.documentElement).appendChild(style);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', add);
  else add();
})();
"""

READY_JS = r"""
async () => {
  // Work the action deferred (a form submission, a timer of 0) runs first: one macrotask. Only
  // when some was deferred since the last check (or the page was not counted), because right
  // after input the renderer runs a macrotask only after its next frame (~8 ms on average).
  if (window.__guiGymQueued === undefined || window.__guiGymQueued !== window.__guiGymChecked) {
    await new Promise(resolve => setTimeout(resolve, 0));
    window.__guiGymChecked = window.__guiGymQueued;  // after: this check's own timer counted too
  }
  if (window.__guiGymPopup) { window.__guiGymPopup = false; return 'popup'; }
  if (window.__guiGymLeaving || document.readyState !== 'complete' || window.__guiGymPending > 0) return false;
  const finiteRunning = document.getAnimations().some(a => {
    if (a.playState !== 'running') return false;
    const end = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming().endTime : Infinity;
    return Number.isFinite(end);
  });
  if (finiteRunning) return false;
  return performance.now() - (window.__guiGymLastMutation || 0) >= 16;
}
"""

SCROLL_STATE_JS = r"""
([x, y]) => {
  // Scroll offsets of the page and of every scroll container under the point.
  const offsets = [window.scrollX, window.scrollY];
  for (let el = document.elementFromPoint(x, y); el; el = el.parentElement) offsets.push(el.scrollLeft, el.scrollTop);
  return offsets.join(',');
}
"""

AWAIT_SCROLL_JS = r"""
async ([x, y, before, frames]) => {
  // Wheel scrolling is applied asynchronously: wait (a few frames at most) until it lands.
  const state = () => {
    const offsets = [window.scrollX, window.scrollY];
    for (let el = document.elementFromPoint(x, y); el; el = el.parentElement) offsets.push(el.scrollLeft, el.scrollTop);
    return offsets.join(',');
  };
  for (let i = 0; i < frames; i++) {
    await new Promise(resolve => requestAnimationFrame(resolve));
    if (state() !== before) return true;
  }
  return false;
}
"""

ELEMENTS_JS = r"""
(screen) => {
  const INTERACTIVE = 'a[href],button,input:not([type=hidden]),select,textarea,summary,label[for],' +
    '[role=button],[role=link],[role=checkbox],[role=radio],[role=tab],[role=menuitem],' +
    '[role=option],[role=switch],[role=combobox],[role=textbox],[role=slider],[role=treeitem],' +
    '[onclick],[tabindex]:not([tabindex="-1"]),[contenteditable=""],[contenteditable=true]';
  const ROLES = {A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox',
    SUMMARY: 'button', H1: 'heading', H2: 'heading', H3: 'heading', H4: 'heading',
    H5: 'heading', H6: 'heading', IMG: 'img', LI: 'listitem', TD: 'cell', TH: 'columnheader',
    LABEL: 'label', OPTION: 'option', NAV: 'navigation', P: 'paragraph'};
  const INPUT_ROLES = {checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button',
    reset: 'button', range: 'slider', search: 'searchbox', number: 'spinbutton'};
  // Boxes are clipped to the screen the agent sees: the viewport, or its top-left `screen`.
  const vw = screen ? Math.min(screen[0], window.innerWidth) : window.innerWidth;
  const vh = screen ? Math.min(screen[1], window.innerHeight) : window.innerHeight;
  const clean = s => (s || '').replace(/\s+/g, ' ').trim().slice(0, 100);
  const roleOf = el => el.getAttribute('role') ||
    (el.tagName === 'INPUT' ? (INPUT_ROLES[el.type] || 'textbox') : ROLES[el.tagName] || 'text');
  const nameOf = el => {
    const aria = el.getAttribute('aria-label');
    if (aria) return clean(aria);
    const by = el.getAttribute('aria-labelledby');
    if (by) { const t = by.split(/\s+/).map(id => document.getElementById(id)).filter(Boolean)
      .map(n => n.innerText).join(' '); if (clean(t)) return clean(t); }
    if (el.labels && el.labels.length) {
      // The label's own words: a control nested in its label must not lend it its text.
      const label = el.labels[0].cloneNode(true);
      label.querySelectorAll('select, input, textarea, button').forEach(c => c.remove());
      const own = clean(label.textContent);
      if (own) return own;
    }
    for (const attr of ['alt', 'title', 'placeholder']) { const v = el.getAttribute(attr); if (v) return clean(v); }
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return clean(el.name || '');
    return clean(el.innerText || el.textContent);
  };
  const ownText = el => clean(Array.from(el.childNodes).filter(n => n.nodeType === 3)
    .map(n => n.textContent).join(' '));
  const box = el => {
    const r = el.getBoundingClientRect();
    const x1 = Math.max(0, r.left), y1 = Math.max(0, r.top);
    const x2 = Math.min(vw, r.right), y2 = Math.min(vh, r.bottom);
    if (x2 - x1 < 1 || y2 - y1 < 1) return null;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none' || parseFloat(cs.opacity) === 0) return null;
    const top = document.elementFromPoint((x1 + x2) / 2, (y1 + y2) / 2);
    if (top && !(el.contains(top) || top.contains(el) || (el.labels && Array.from(el.labels).some(l => l.contains(top))))) return null;
    return [Math.round(x1), Math.round(y1), Math.round(x2 - x1), Math.round(y2 - y1)];
  };
  const out = [];
  if (!document.body) return out;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT);
  for (let el = walker.currentNode; el && out.length < 500; el = walker.nextNode()) {
    const interactive = el.matches(INTERACTIVE);
    if (!interactive) {
      if (['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(el.tagName)) continue;
      if (!ownText(el) && el.tagName !== 'IMG') continue;
      if (el.parentElement && el.parentElement.closest(INTERACTIVE)) continue;
    }
    const bbox = box(el);
    if (!bbox) continue;
    const item = {role: roleOf(el), name: interactive || el.tagName === 'IMG' ? nameOf(el) : ownText(el),
                  tag: el.tagName.toLowerCase(), bbox, interactive};
    if (el.id) item.id = el.id;
    if ('value' in el && el.tagName !== 'BUTTON' && el.tagName !== 'LI' && typeof el.value === 'string') item.value = clean(el.value);
    if (el.type === 'checkbox' || el.type === 'radio') item.checked = el.checked;
    else if (el.getAttribute('aria-checked')) item.checked = el.getAttribute('aria-checked') === 'true';
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') item.disabled = true;
    if (el.getAttribute('aria-expanded')) item.expanded = el.getAttribute('aria-expanded') === 'true';
    if (el.getAttribute('aria-selected') === 'true' || (el.tagName === 'OPTION' && el.selected)) item.selected = true;
    if (document.activeElement === el) item.focused = true;
    item.index = out.length;
    out.push(item);
  }
  return out;
}
"""

READY_WITH_ELEMENTS_JS = ("async (screen) => { const ready = await (" + READY_JS.strip() + ")(); "
                          "return ready === true ? {ready, elements: (" + ELEMENTS_JS.strip() + ")(screen)} : {ready}; }")
"""READY_JS, and when the page is ready the element list too (ELEMENTS_JS's `screen`
argument): one round trip for both."""


BOX_JS = "(el) => { if (!el.getClientRects().length) return null; const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }"
"""An element's box in viewport pixels, or null when it is not rendered (``display: none``)."""


def on_element(expression: str) -> str:
    """A page function ``([selector, nth, timeoutMs]) => {found, value}`` that waits (polling
    every 16 ms, up to timeoutMs) for the `nth` element matching the CSS `selector`, then
    returns `expression` (a function of the element) applied to it."""
    return ("async ([selector, nth, timeoutMs]) => { const deadline = performance.now() + timeoutMs; let el; "
            "while (!(el = document.querySelectorAll(selector)[nth])) { "
            "if (performance.now() >= deadline) return {found: false}; "
            "await new Promise(resolve => setTimeout(resolve, 16)); } "
            "return {found: true, value: (" + expression.strip() + ")(el)}; }")
