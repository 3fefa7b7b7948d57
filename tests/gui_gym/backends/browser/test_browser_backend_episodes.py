"""The browser backend's episodes: a reused context leaves nothing of one episode to the next
(each kind of state a page can keep, on two servers), the env's own server tokens stay valid,
`strict_isolation` opens a fresh context, and text-only, JPEG and scaled observations."""

from __future__ import annotations

import io
import threading

import numpy as np
import pytest
from PIL import Image

from gui_gym.actions import Action
from gui_gym.backends.browser.backend import BrowserBackend
from gui_gym.suites.http_server import TOKEN_COOKIE_PREFIX, LoopbackServer

PLANT_JS = r"""
async () => {
  document.cookie = 'planted=js; max-age=3600; path=/';
  localStorage.setItem('planted', '1');
  sessionStorage.setItem('planted', '1');
  await new Promise((resolve, reject) => {
    const open = indexedDB.open('planted-db', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('s').put('v', 'k');
    open.onsuccess = () => { open.result.close(); resolve(); };
    open.onerror = () => reject(open.error);
  });
  const cache = await caches.open('planted-cache');
  await cache.put('/cached', new Response('x'));
  await fetch('/set-cookie');
  await fetch('/counted');
  history.pushState({}, '', '?pushed=1');
  window.name = 'planted';
  let worker = 'registered';
  try { await navigator.serviceWorker.register('/sw.js'); } catch (e) { worker = 'refused'; }
  return worker;
}
"""

PROBE_JS = r"""
async () => ({
  cookie: document.cookie,
  local: localStorage.length,
  session: sessionStorage.length,
  databases: (await indexedDB.databases()).map(d => d.name),
  caches: await caches.keys(),
  workers: (await navigator.serviceWorker.getRegistrations()).length,
  name: window.name,
  geolocation: (await navigator.permissions.query({name: 'geolocation'})).state,
  server: await (await fetch('/cookies')).text(),
})
"""


CLIPBOARD_PAGE = (b"<html><body><textarea id=a></textarea><textarea id=b></textarea>"
                  b"<div id=rich contenteditable><b>bold</b> words</div></body></html>")


class App:
    """A page, a Set-Cookie answer, a cacheable resource that counts its hits, the cookies the
    server received, and a service worker script."""

    def __init__(self) -> None:
        self.hits = 0
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        path = environ["PATH_INFO"]
        headers = [("Content-Type", "text/html")]
        body = b"<html><body><h1>page</h1></body></html>"
        if path == "/set-cookie":
            headers.append(("Set-Cookie", "planted_http=server; Max-Age=3600; Path=/; HttpOnly"))
            body = b"ok"
        elif path == "/counted":
            with self.lock:
                self.hits += 1
            headers = [("Content-Type", "text/plain"), ("Cache-Control", "max-age=3600")]
            body = b"cached"
        elif path == "/cookies":  # the cookies the server sees, its own token left out
            cookies = sorted(c.strip().split("=")[0] for c in environ.get("HTTP_COOKIE", "").split(";") if c.strip())
            headers = [("Content-Type", "text/plain"), ("Cache-Control", "no-store")]
            body = ",".join(c for c in cookies if not c.startswith(TOKEN_COOKIE_PREFIX)).encode()
        elif path == "/clipboard":
            body = CLIPBOARD_PAGE
        elif path == "/sw.js":
            headers = [("Content-Type", "text/javascript")]
            body = b"self.addEventListener('fetch', () => {});"
        start_response("200 OK", headers + [("Content-Length", str(len(body)))])
        return [body]


@pytest.fixture(scope="module")
def apps():
    first, second = App(), App()
    servers = [LoopbackServer(first).start(), LoopbackServer(second).start()]
    yield list(zip(servers, (first, second)))
    for srv in servers:
        srv.stop()


@pytest.fixture(scope="module")
def backend(apps):
    b = BrowserBackend(allowed_hosts=set(), viewport=(640, 400))
    for srv, _app in apps:
        srv.admit(b)
    b.start()
    yield b
    b.close()


CLEAN = {"cookie": "", "local": 0, "session": 0, "databases": [], "caches": [], "workers": 0,
         "name": "", "geolocation": "prompt", "server": ""}


def _plant_everywhere(backend, apps) -> None:
    backend._context.grant_permissions(["geolocation"])
    for srv, _app in apps:
        backend.goto(srv.url + "/")
        backend.evaluate(PLANT_JS)  # a service worker may register; the next episode must see none
        planted = backend.evaluate(PROBE_JS)
        assert planted["local"] == planted["session"] == 1 and planted["databases"] == ["planted-db"]
        assert planted["caches"] == ["planted-cache"] and planted["name"] == "planted"
        assert planted["server"] == "planted,planted_http" and planted["geolocation"] == "granted"
        assert backend.evaluate("history.length") >= 2


def _probe_everywhere(backend, apps) -> list[dict]:
    found = []
    for srv, app in apps:
        backend.goto(srv.url + "/")
        hits = app.hits
        found.append({**backend.evaluate(PROBE_JS), "cache_hit": backend.evaluate(
            "async () => (await fetch('/counted')).text()") == "cached" and app.hits == hits})
    return found


def test_a_warm_reset_leaves_no_state_of_any_kind_and_keeps_the_servers_tokens(backend, apps):
    backend.new_episode()
    context = backend._context
    _plant_everywhere(backend, apps)
    old_page = backend.page
    backend.new_episode()
    assert backend._context is context, "the context is reused"
    assert old_page.is_closed() and backend.page is not old_page and backend._context.pages == [backend.page]
    assert backend.page.url == "about:blank" and backend.evaluate("history.length") == 1
    for state in _probe_everywhere(backend, apps):  # each page loaded: the tokens still admit it
        assert {k: v for k, v in state.items() if k != "cache_hit"} == CLEAN
        assert state["cache_hit"] is False, "the HTTP cache was cleared: the resource came from the server"


def test_strict_isolation_opens_a_fresh_context_per_episode(backend, apps):
    backend.config.strict_isolation = True
    try:
        backend.new_episode()
        context = backend._context
        _plant_everywhere(backend, apps)
        backend.new_episode()
        assert backend._context is not context and backend.evaluate("history.length") == 1
        for state in _probe_everywhere(backend, apps):
            assert {k: v for k, v in state.items() if k != "cache_hit"} == CLEAN and not state["cache_hit"]
    finally:
        backend.config.strict_isolation = False


def _click(backend, selector: str, button: str = "left") -> None:
    x, y = backend.evaluate(f"(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect(); "
                            "return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    backend.execute(Action.click(x, y, button))


def _pasted(backend) -> dict:
    """What ctrl+v and a middle click paste, each into an empty box, and ctrl+v into rich text."""
    _click(backend, "#a")
    backend.execute(Action.hotkey("ctrl", "v"))
    _click(backend, "#b", "middle")
    _click(backend, "#rich")
    backend.execute(Action.key("end"))
    backend.execute(Action.hotkey("ctrl", "v"))
    return backend.evaluate("({clipboard: document.querySelector('#a').value, selection: document.querySelector('#b').value, "
                            "rich: document.querySelector('#rich').textContent, "
                            "bold: document.querySelectorAll('#rich b').length})")


@pytest.mark.parametrize("strict", [False, True])
def test_nothing_copied_or_selected_in_one_episode_pastes_in_the_next(backend, apps, strict):
    """The attack: the clipboard and the selection buffer (middle-click paste) belong to the
    browser process, which the env keeps, so text copied in one episode pasted in the next,
    strict_isolation or not. The control: in the episode itself both paste as a user expects."""
    url = apps[0][0].url + "/clipboard"
    backend.config.strict_isolation = strict
    try:
        backend.new_episode()
        backend.goto(url)
        _click(backend, "#rich")
        backend.execute(Action.hotkey("ctrl", "a"))
        backend.execute(Action.hotkey("ctrl", "c"))  # rich text: HTML and plain text
        _click(backend, "#b")
        backend.execute(Action.type("secret-42"))
        backend.execute(Action.hotkey("shift", "home"))  # selected: the selection buffer
        backend.evaluate("document.querySelector('#b').value = ''")
        assert _pasted(backend) == {"clipboard": "bold words", "selection": "secret-42",
                                    "rich": "bold wordsbold words", "bold": 2}  # the HTML pasted too
        backend.new_episode()
        backend.goto(url)
        assert _pasted(backend) == {"clipboard": "", "selection": "", "rich": "bold words", "bold": 1}
        _click(backend, "#a")
        backend.execute(Action.type("fresh"))
        backend.execute(Action.hotkey("shift", "home"))
        _click(backend, "#b", "middle")
        assert backend.evaluate("document.querySelector('#b').value") == "fresh"  # this episode's own selection
    finally:
        backend.config.strict_isolation = False


def test_a_server_registered_later_gets_a_fresh_context_it_can_reach(backend, apps):
    backend.new_episode()
    context = backend._context
    late = LoopbackServer(App()).start()
    try:
        late.admit(backend)
        backend.new_episode()
        assert backend._context is not context  # the proxy's bypass list is fixed per context
        backend.goto(late.url + "/")
        assert backend.evaluate("document.querySelector('h1').textContent") == "page"
    finally:
        late.stop()


def test_text_only_jpeg_and_scaled_observations(apps):
    srv = apps[0][0]
    shots = {}
    for name, options in {"png": {}, "jpeg": {"screenshot_format": "jpeg", "jpeg_quality": 70},
                          "scaled": {"screenshot_size": (320, 200)}}.items():
        b = BrowserBackend(allowed_hosts=set(), viewport=(640, 400), **options)
        srv.admit(b)
        try:
            b.new_episode()
            b.goto(srv.url + "/")
            b.evaluate("window.scrollTo(0, 0)")
            text_only = b.observe(a11y=True, screenshot=False)
            assert text_only.screenshot is None and text_only.extra == {} and "heading" in text_only.a11y_tree
            shots[name] = b.observe()
        finally:
            b.close()
    png, jpeg, scaled = shots["png"], shots["jpeg"], shots["scaled"]
    assert png.screenshot.shape == jpeg.screenshot.shape == (400, 640, 3) and scaled.screenshot.shape == (200, 320, 3)
    assert Image.open(io.BytesIO(jpeg.extra["jpeg"])).format == "JPEG"
    assert np.abs(png.screenshot.astype(int) - jpeg.screenshot.astype(int)).mean() < 4  # lossy, same picture
    half = np.asarray(Image.fromarray(png.screenshot).resize((320, 200), Image.BILINEAR)).astype(int)
    assert np.abs(half - scaled.screenshot.astype(int)).mean() < 8  # the whole viewport, at half size


@pytest.mark.parametrize("options, field", [({"screenshot_format": "webp"}, "screenshot_format"),
                                            ({"jpeg_quality": 0}, "jpeg_quality"),
                                            ({"screenshot_size": (0, 10)}, "screenshot_size")])
def test_bad_screenshot_settings_name_the_field(options, field):
    with pytest.raises(ValueError, match=field):
        BrowserBackend(**options)
