"""The browser backend with real Chromium input on a loopback page that records every event."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
from PIL import Image

from gui_gym import Action
from gui_gym.backends.browser.backend import BrowserBackend, BrowserConfig, playwright_key
from gui_gym.backends.browser.playwright_driver import DRIVERS, QUIET_FLAGS, find_chromium
from gui_gym.errors import ActionExecutionError, MissingResourceError
from gui_gym.runtime.processes import descendants
from gui_gym.suites.http_server import LoopbackServer
from gui_gym.runtime.waiting import wait_until

RECORDER = """<!doctype html><html><head><style>
body{margin:0;font-family:sans-serif} #pad{position:absolute;left:0;top:0;width:600px;height:400px;background:#eef}
#field{position:absolute;left:650px;top:20px;width:300px} #slow{position:absolute;left:650px;top:80px}
#out{position:absolute;left:650px;top:140px} #tall{position:absolute;top:0;left:1000px;height:3000px;width:10px}
#pop{position:absolute;left:650px;top:200px}
</style></head><body>
<div id="pad"></div><input id="field" aria-label="Field"><button id="slow">Load later</button>
<a id="pop" href="/other" target="_blank">Open tab</a>
<p id="out"></p><div id="tall"></div>
<script>
window.events = [];
const log = e => window.events.push({type: e.type, x: e.clientX, y: e.clientY, button: e.button,
  detail: e.detail, key: e.key, ctrl: e.ctrlKey, shift: e.shiftKey, dy: e.deltaY, dx: e.deltaX});
for (const t of ['click','dblclick','contextmenu','mousedown','mouseup','keydown','keyup','wheel'])
  document.addEventListener(t, log, true);
document.getElementById('slow').addEventListener('click', async () => {
  const r = await fetch('/slow'); document.getElementById('out').textContent = await r.text();
});
</script></body></html>"""


DEFERRED = """<!doctype html><html><body style="margin:0">
<button id="timer">timer</button><button id="frame">frame</button><button id="port">port</button>
<button id="message">message</button><form action="/other"><button id="submit">submit</button></form>
<p id="out">nothing yet</p>
<script>
const show = text => () => { document.getElementById('out').textContent = text; };
document.getElementById('timer').onclick = () => setTimeout(show('after a timer'), 0);
document.getElementById('frame').onclick = () => requestAnimationFrame(show('after a frame'));
const channel = new MessageChannel();
channel.port1.onmessage = show('after a port message');
document.getElementById('port').onclick = () => channel.port2.postMessage(0);
window.addEventListener('message', show('after a window message'));
document.getElementById('message').onclick = () => window.postMessage('go', '*');
</script></body></html>"""
"""A page whose buttons change it only in a later task: each way an action's work is deferred."""


def app(environ, start_response):
    path = environ["PATH_INFO"]
    if path == "/deferred":
        body, ctype = DEFERRED.encode(), "text/html"
    elif path == "/slow":
        time.sleep(0.4)  # a slow server, so the backend must wait for the response
        body, ctype = b"arrived", "text/plain"
    elif path == "/other":
        body, ctype = b"<html><body><h1>Other tab</h1></body></html>", "text/html"
    elif path == "/redirect":  # a page of the env's own server that sends the browser elsewhere
        start_response("302 Found", [("Location", environ["QUERY_STRING"]), ("Content-Length", "0")])
        return [b""]
    else:
        body, ctype = RECORDER.encode(), "text/html"
    start_response("200 OK", [("Content-Type", ctype), ("Content-Length", str(len(body)))])
    return [body]


@pytest.fixture(scope="module")
def server():
    srv = LoopbackServer(app).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def backend(server):
    b = BrowserBackend(allowed_hosts=set(), viewport=(1200, 700))
    server.admit(b)
    b.start()
    yield b
    b.close()


@pytest.fixture()
def page(backend, server):
    backend.new_episode()
    backend.set_start_url(server.url + "/")
    return backend


def events(backend, *types):
    return [e for e in backend.evaluate("window.events") if not types or e["type"] in types]


def test_click_kinds_press_the_right_buttons_at_the_right_pixels(page):
    page.execute(Action.click(100, 50))
    page.execute(Action.double_click(200, 60))
    page.execute(Action("triple_click", x=210, y=70))
    page.execute(Action.right_click(300, 80))
    page.execute(Action("click", x=310, y=90, button="middle"))
    clicks = events(page, "click", "dblclick", "contextmenu", "mousedown")
    assert {"type": "click", "x": 100, "y": 50} == {k: clicks[1][k] for k in ("type", "x", "y")}
    assert any(e["type"] == "dblclick" and (e["x"], e["y"]) == (200, 60) for e in clicks)
    assert max(e["detail"] for e in clicks if (e["x"], e["y"]) == (210, 70)) == 3
    assert any(e["type"] == "contextmenu" and (e["x"], e["y"]) == (300, 80) for e in clicks)
    assert any(e["type"] == "mousedown" and e["button"] == 1 and e["x"] == 310 for e in clicks)


def test_drag_mouse_down_up_and_long_press(page):
    page.execute(Action.drag(10, 10, 400, 300))
    page.execute(Action("mouse_down", x=50, y=50))
    page.execute(Action("mouse_up", x=60, y=60))
    page.execute(Action("long_press", x=70, y=70, duration_s=0.2))
    downs = [(e["x"], e["y"]) for e in events(page, "mousedown")]
    ups = [(e["x"], e["y"]) for e in events(page, "mouseup")]
    assert downs == [(10, 10), (50, 50), (70, 70)] and ups == [(400, 300), (60, 60), (70, 70)]


def test_scroll_moves_the_page_by_notches(page):
    page.execute(Action.scroll("down", 3, 500, 500))
    assert page.evaluate("window.scrollY") == 300
    page.execute(Action.scroll("up", 1))
    assert page.evaluate("window.scrollY") == 200


def test_a_sideways_scroll_past_the_edge_does_not_go_back_a_page(page, server):
    page.goto(server.url + "/other")
    page.goto(server.url + "/")
    for direction in ("right", "left", "right"):
        page.execute(Action.scroll(direction, 9, 300, 300))
        assert page.url == server.url + "/", direction


@pytest.mark.parametrize("text", ["echo 'a > b' > f", 'say "hi" | grep <x> & ok', "tab\there", "naïve ✓ 日本"])
def test_typing_reaches_the_field_exactly(page, text):
    page.execute(Action.click(700, 30))
    page.execute(Action.type(text))
    typed = page.evaluate("document.getElementById('field').value")
    assert typed == text.replace("\t", "") or typed == text


def test_type_at_a_point_clicks_the_field_first(page):
    page.execute(Action("type", text="here", x=700, y=30))
    assert page.evaluate("document.getElementById('field').value") == "here"


def test_keys_and_hotkeys_arrive_with_modifiers(page):
    page.execute(Action.click(700, 30))
    page.execute(Action.type("abc"))
    page.execute(Action.hotkey("ctrl", "a"))
    page.execute(Action.key("backspace"))
    assert page.evaluate("document.getElementById('field').value") == ""
    page.execute(Action("key_down", keys=("shift",)))
    page.execute(Action.type("x"))
    page.execute(Action("key_up", keys=("shift",)))
    keys = events(page, "keydown")
    assert any(e["key"] == "a" and e["ctrl"] for e in keys) and any(e["key"] == "Shift" for e in keys)


def test_settle_waits_for_the_pending_request(page):
    page.execute(Action.click(*center(page, "#slow")))
    assert page.evaluate("document.getElementById('out').textContent") == "arrived"


@pytest.mark.parametrize("button, shown", [("#timer", "after a timer"), ("#frame", "after a frame"),
                                           ("#port", "after a port message"), ("#message", "after a window message")])
def test_settle_lets_work_the_action_deferred_run_first(page, server, button, shown):
    # The readiness check yields a task to the page only when the page deferred work since the
    # last check: every way of deferring must count, or the step would see the page unchanged.
    # The element list the check gathers once ready is the state it judged settled.
    page.goto(server.url + "/deferred")
    page.expects_a11y = True
    try:
        page.execute(Action.click(*center(page, button)))
        assert f'"{shown}"' in page.observe(a11y=True).a11y_tree
    finally:
        page.expects_a11y = False
    page.execute(Action.click(*center(page, "#submit")))  # a form submission's navigation, too
    assert urlsplit(page.url).path == "/other"


def test_element_index_click_and_a11y_tree(page):
    obs = page.observe(a11y=True)
    lines = obs.a11y_tree.splitlines()
    field = next(line for line in lines if 'textbox "Field"' in line)
    index = int(field.split("]")[0][1:])
    page.execute(Action("type", element=index, text="via index"))
    assert page.evaluate("document.getElementById('field').value") == "via index"
    with pytest.raises(ActionExecutionError, match="element index 999"):
        page.execute(Action.click_element(999))


def test_observation_is_a_fresh_rgb_array_with_url(page, server):
    a, b = page.observe(), page.observe()
    assert a.screenshot.shape == (700, 1200, 3) and a.screenshot.dtype == np.uint8
    assert a.screenshot is not b.screenshot and np.array_equal(a.screenshot, b.screenshot)
    assert a.url == server.url + "/"


def test_new_tab_becomes_the_active_page_and_history_works(page, server):
    page.execute(Action.click(*center(page, "#pop")))
    assert page.url == server.url + "/other"
    page.execute(Action.goto(server.url + "/other?x=1"))
    page.execute(Action("navigate_back"))
    assert page.url == server.url + "/other"


HOST_FILE_ATTACKS = ["file://127.0.0.1/etc/passwd", "file:///etc/passwd", "file://localhost/etc/passwd",
                     "chrome://version/", "chrome://127.0.0.1/", "devtools://devtools/bundled/inspector.html",
                     "ftp://127.0.0.1/", "javascript:document.title='x'", "data:text/html,<h1>root:x:0:0</h1>"]


def _shows_host_file(backend) -> bool:
    obs = backend.observe(a11y=True)
    return "root:x:0:0" in obs.a11y_tree or not obs.url.startswith("http://127.0.0.1:")


def test_only_http_and_https_open_and_no_host_file_reaches_the_page(page, server):
    before = page.observe().screenshot
    for url in HOST_FILE_ATTACKS + [f"view-source:{server.url}/"]:
        with pytest.raises(ActionExecutionError, match="only http and https URLs may be opened"):
            page.execute(Action.goto(url))
        assert not _shows_host_file(page), url
    assert np.array_equal(page.observe().screenshot, before)
    # Past the action's check (a navigation the agent caused some other way): the request route
    # refuses file: URLs, and a document no route sees is blanked before anyone observes it.
    for url in ("file://127.0.0.1/etc/passwd", "file:///etc/passwd"):
        with pytest.raises(Exception, match="ERR_BLOCKED_BY_CLIENT"):
            page.page.goto(url)
        assert "root:x:0:0" not in page.observe(a11y=True).a11y_tree
    page.page.goto("chrome://version/")
    obs = page.observe(a11y=True)
    assert obs.url == "about:blank" and "Chromium" not in obs.a11y_tree
    assert {"file://127.0.0.1/etc/passwd", "file:///etc/passwd", "chrome://version/"} <= set(page.blocked_requests)


class _Listener:
    """A loopback port that counts the connections it is offered (a server of another env)."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def close(self):
        self.sock.close()


def test_another_server_on_loopback_is_out_of_reach_by_any_route(page, server):
    other = LoopbackServer(app).start()  # another env's server: same host, another port
    spy = _Listener()
    try:
        with pytest.raises(ActionExecutionError, match=r"is not one of this env's servers \(it reaches 127.0.0.1:"):
            page.execute(Action.goto(other.url + "/other"))
        assert page.url == server.url + "/"
        spy_url = f"127.0.0.1:{spy.port}"
        outcome = page.evaluate("""async ([other, spy]) => {
            const closed = url => new Promise(done => { const ws = new WebSocket(url);
              ws.onopen = () => done('open'); ws.onerror = ws.onclose = () => done('refused'); });
            const fetched = await fetch(other + '/other').then(() => 'fetched', () => 'refused');
            const link = document.createElement('link'); link.rel = 'preconnect'; link.href = 'http://' + spy;
            document.head.appendChild(link);
            const image = new Image(); image.src = 'http://' + spy + '/pixel.png';
            const worker = new Worker(URL.createObjectURL(new Blob([
              `const ws = new WebSocket('ws://${spy}/'); ws.onerror = ws.onclose = () => postMessage('refused');` +
              `ws.onopen = () => postMessage('open');`])));
            const fromWorker = await new Promise(done => { worker.onmessage = e => done(e.data); });
            return [fetched, await closed('ws://' + spy + '/'), fromWorker];
        }""", [other.url, spy_url])
        page.execute(Action.wait(0.5))  # time for a preconnect to try
        with pytest.raises(Exception, match="ERR_"):  # a redirect's next hop: the route never sees it
            page.page.goto(f"{server.url}/redirect?http://{spy_url}/")
        assert outcome == ["refused", "refused", "refused"] and spy.accepted == 0
        assert any(url.startswith(other.url) for url in page.blocked_requests)
        assert f"ws://{spy_url}/" in page.blocked_requests
    finally:
        other.stop()
        spy.close()


PEER_CONNECTION_JS = """async ([stun, turn]) => {
  // A peer connection whose ICE servers are loopback ports: gathering sends STUN binding
  // requests to `stun` (UDP) and opens TURN over TCP to `turn`. `window.probeGathered` ends
  // when every try has (or says it has not, after 30 s).
  const pc = new RTCPeerConnection({iceServers: [{urls: stun}, {urls: turn, username: 'u', credential: 'p'}]});
  pc.createDataChannel('probe');
  const gathered = new Promise(done => {
    pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') done('gathered'); };
  });
  window.probeGathered = Promise.race([gathered, new Promise(done => setTimeout(() => done('still gathering'), 30000))]);
  await pc.setLocalDescription(await pc.createOffer());
  return 'gathering';
}"""
REFUSALS_JS = """async ([stun, turn]) => {
  const tries = {main: window};
  const frame = document.createElement('iframe');  // a new frame's first, blank document
  document.body.appendChild(frame);
  tries.frame = frame.contentWindow;
  const outcomes = {};
  for (const [name, scope] of Object.entries(tries)) {
    try { new scope.RTCPeerConnection({iceServers: [{urls: stun}, {urls: turn, username: 'u', credential: 'p'}]});
          outcomes[name] = 'connection made'; }
    catch (error) { outcomes[name] = error.name + ': ' + error.message; }
  }
  frame.remove();
  return outcomes;
}"""


class _UdpListener:
    """A loopback UDP port that counts what arrives (a STUN server that never answers)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.received = 0

    def drain(self) -> int:
        """Datagrams arrived so far (loopback delivers at send, so a sent one is already here)."""
        while True:
            try:
                self.sock.recv(2048)
            except BlockingIOError:
                return self.received
            self.received += 1

    def close(self):
        self.sock.close()


def _gather_behind_the_init_script(page, stun: str, turn: str) -> str:
    """PEER_CONNECTION_JS in an isolated world of the page, where the init script's refusal does not
    reach: what a script that got past it could do. Only the browser's own policy stands there."""
    cdp = page.context.new_cdp_session(page)
    try:
        frame_id = cdp.send("Page.getFrameTree")["frameTree"]["frame"]["id"]
        world = cdp.send("Page.createIsolatedWorld", {"frameId": frame_id, "worldName": "past-the-init-script"})
        answers = [cdp.send("Runtime.evaluate", {"expression": expression, "contextId": world["executionContextId"],
                                                 "awaitPromise": True, "returnByValue": True})
                   for expression in (f"({PEER_CONNECTION_JS})({json.dumps([stun, turn])})", "window.probeGathered")]
    finally:
        cdp.detach()
    return " then ".join(str(answer["result"].get("value", answer)) for answer in answers)


@pytest.mark.parametrize("allowed_hosts", [(), ("127.0.0.1",), None], ids=["own-servers", "live-allowed-hosts", "live"])
def test_webrtc_sends_no_udp_and_pages_get_no_peer_connection(server, allowed_hosts):
    """Issue 36: a page's RTCPeerConnection sent STUN packets to another loopback port, which no
    request filter sees. Pages are refused a peer connection; past that refusal the browser's
    policy sends no UDP; TURN over TCP passes the proxy, which refuses hosts not allowed."""
    stun, spy = _UdpListener(), _Listener()
    urls = [f"stun:127.0.0.1:{stun.port}", f"turn:127.0.0.1:{spy.port}?transport=tcp"]
    backend = BrowserBackend(allowed_hosts=None if allowed_hosts is None else set(allowed_hosts), viewport=(800, 600))
    server.admit(backend)
    try:
        backend.start()
        backend.new_episode()
        backend.set_start_url(server.url + "/")
        refused = "NotAllowedError: WebRTC peer connections are disabled in gui-gym browsers"
        assert backend.evaluate(REFUSALS_JS, urls) == {"main": refused, "frame": refused}
        # Gathering ends within seconds; it never ended in a worker left in a loopback-only network
        # namespace (fixed: local_cluster.private_network). The claim is the UDP count.
        assert _gather_behind_the_init_script(backend.page, *urls) in ("gathering then gathered",
                                                                       "gathering then still gathering")
        assert stun.drain() == 0, "a STUN packet left the browser"
        if allowed_hosts == ():  # 127.0.0.1 at the spy's port is not allowed: the proxy refuses it
            assert spy.accepted == 0
    finally:
        backend.close()
        stun.close()
        spy.close()


def test_the_webrtc_probe_sees_a_browser_without_the_policy_send_udp():
    """The control: the same probe in a Chromium launched without WEBRTC_FLAGS or the init
    script, so the test above can fail."""
    stun = _UdpListener()
    driver = DRIVERS.acquire()
    try:
        args = list(QUIET_FLAGS) + (["--no-sandbox"] if os.geteuid() == 0 else [])
        chromium = driver.playwright.chromium.launch(executable_path=find_chromium(), args=args)
        try:
            page = chromium.new_page()
            page.set_content("<p>a page</p>")
            urls = [f"stun:127.0.0.1:{stun.port}", "turn:127.0.0.1:9?transport=tcp"]
            assert page.evaluate(f"({PEER_CONNECTION_JS})({json.dumps(urls)})") == "gathering"
            # Once skipped here as "stalled": the worker had been left in a Ray test's loopback-only
            # network namespace, where gathering never ends (fixed: local_cluster.private_network).
            assert wait_until(lambda: stun.drain() > 0, timeout_s=30), "the control browser sent no STUN packet"
        finally:
            chromium.close()
    finally:
        DRIVERS.release(driver)
        stun.close()


def test_a_failed_navigation_is_the_agents_error_page_not_an_infra_error(backend, server):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_url = f"http://127.0.0.1:{closed.getsockname()[1]}/"
    closed.close()
    backend.allow_server(closed_url)  # reachable by the policy, but nothing listens there
    backend.new_episode()
    for _ in range(3):  # the error page swaps the renderer; observing it raced with that
        backend.set_start_url(server.url + "/")
        with pytest.raises(ActionExecutionError, match="ERR_CONNECTION_REFUSED"):
            backend.execute(Action.goto(closed_url))
        assert backend.observe(a11y=True).screenshot.shape == (700, 1200, 3) and backend.healthy


def test_requests_off_loopback_are_blocked(page):
    with pytest.raises(ActionExecutionError, match="blocked"):
        page.execute(Action.goto("http://203.0.113.9/"))
    page.evaluate("fetch('http://203.0.113.9/x').catch(() => null)")
    page.execute(Action.wait(0))
    assert any("203.0.113.9" in url for url in page.blocked_requests)


def test_unknown_browser_path_is_a_clear_error(monkeypatch):
    with pytest.raises(MissingResourceError, match="executable_path points at '/nonexistent/chrome'"):
        find_chromium("/nonexistent/chrome")
    monkeypatch.setenv("GUI_GYM_CHROMIUM", "/nope")
    with pytest.raises(MissingResourceError, match="GUI_GYM_CHROMIUM points at '/nope'"):
        find_chromium()



def test_overrides_leave_the_callers_config_as_it_was():
    config = BrowserConfig(viewport=(800, 600), allowed_hosts={"127.0.0.1"})
    backend = BrowserBackend(config, viewport=(400, 300))
    assert backend.config.viewport == (400, 300) and backend.config.allowed_hosts == frozenset({"127.0.0.1"})
    assert config.viewport == (800, 600) and config.allowed_hosts == {"127.0.0.1"}
    with pytest.raises(TypeError, match="no_such_field"):
        BrowserBackend(config, no_such_field=1)

PLAYWRIGHTS_OWN = """
import os
from gui_gym.backends.browser.backend import BrowserBackend
from gui_gym.backends.browser.playwright_driver import find_chromium
backend = BrowserBackend(allowed_hosts=set(), viewport=(400, 300))
try:
    backend.start()
    print(find_chromium(), os.readlink(f"/proc/{backend.browser_pid}/exe"))
finally:
    backend.close()
"""


def test_playwrights_own_download_launches_its_full_chromium_not_the_headless_shell(tmp_path):
    """Playwright picks its headless shell for a headless browser, and the shell ignores the
    WebRTC policy flag (docs/security.md). A download laid out as Playwright's, holding only the
    full Chromium (this machine's): the env launches it; asking for the shell would fail."""
    import playwright

    browsers = json.loads((Path(playwright.__file__).parent / "driver" / "package" / "browsers.json").read_text())
    revision = next(b["revision"] for b in browsers["browsers"] if b["name"] == "chromium")
    folder = tmp_path / f"chromium-{revision}"
    (folder / "chrome-linux64").mkdir(parents=True)
    (folder / "chrome-linux64" / "chrome").symlink_to(find_chromium())
    env = {k: v for k, v in os.environ.items() if k != "GUI_GYM_CHROMIUM"} | {"PLAYWRIGHT_BROWSERS_PATH": str(tmp_path)}
    # a process of its own: this module's Playwright driver read the browsers' folder at its start
    done = subprocess.run([sys.executable, "-c", PLAYWRIGHTS_OWN], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    found, exe = done.stdout.split()
    assert found == "None" and "headless" not in exe, done.stdout  # Playwright's own download, its full build


def test_key_names_map_to_playwright():
    assert [playwright_key(k) for k in ("ctrl", "enter", "pagedown", "f5", " ", "a")] == \
        ["Control", "Enter", "PageDown", "F5", "Space", "a"]
    with pytest.raises(ActionExecutionError, match="no key named 'hyper'"):
        playwright_key("hyper")


def center(backend, selector):
    x, y, w, h = backend.locate(selector)
    return x + w / 2, y + h / 2


def test_evaluate_on_waits_for_the_nth_match_and_names_a_missing_one(page):
    # An element a timer adds later is waited for, as a locator would; the nth match is the one used.
    page.evaluate("() => setTimeout(() => { for (const n of ['first', 'second']) {"
                  " const p = document.createElement('p'); p.className = 'late'; p.textContent = n;"
                  " document.body.appendChild(p); } }, 150)")
    assert page.evaluate_on("p.late", "el => el.textContent", nth=1) == "second"
    assert page.evaluate_on("#field", "el => el.getAttribute('aria-label')") == "Field"
    page.config.settle_timeout_s, before = 0.2, page.config.settle_timeout_s
    try:
        with pytest.raises(ActionExecutionError, match=r"no element #2 matches 'p\.late' within 0\.2 s"):
            page.evaluate_on("p.late", "el => el.textContent", nth=2)
    finally:
        page.config.settle_timeout_s = before
    # A navigation replaces the document while the element is waited for: found in the new one.
    page.evaluate("() => setTimeout(() => { location.href = '/other'; }, 100)")
    assert page.evaluate_on("h1", "el => el.textContent") == "Other tab"


def test_page_scripts_element_list_is_json_clean(page):
    assert json.loads(json.dumps(page.elements()))


def test_a_screen_smaller_than_the_viewport_and_a_page_kept_across_episodes(server):
    b = BrowserBackend(allowed_hosts=frozenset(), viewport=(1200, 700), screen=(600, 400), keep_page=True)
    other = LoopbackServer(app)
    try:
        server.admit(b)
        b.start()
        b.new_episode()
        b.set_start_url(server.url + "/")
        assert b.screen_size == (600, 400)
        b.execute(Action.scroll("down", 3))  # the #tall column makes the page scroll
        wheel = events(b, "wheel")[-1]
        assert (wheel["x"], wheel["y"]) == (300, 200)  # the screen's centre, not the viewport's
        obs = b.observe(a11y=True)
        full = b.page.screenshot()  # the whole viewport, where the page is scrolled to
        whole = np.asarray(Image.open(io.BytesIO(full)).convert("RGB"))
        assert obs.screenshot.shape == (400, 600, 3) and np.array_equal(obs.screenshot, whole[:400, :600])
        assert b.evaluate("window.scrollY") == 300
        assert all(e["bbox"][0] + e["bbox"][2] <= 600 and e["bbox"][1] + e["bbox"][3] <= 400 for e in b.elements())
        assert 'textbox "Field"' not in obs.a11y_tree  # it sits at x=650, off the screen
        b.set_screen((300, 200))  # another task's screen, from the next observation on
        assert b.screen_size == (300, 200) and b.observe().screenshot.shape == (200, 300, 3)
        with pytest.raises(ValueError, match="screen must fit the 1200x700 viewport"):
            b.set_screen((1300, 100))
        page = b.page
        server.admit(b)  # admitted again: nothing new to send, the page is still kept
        b.new_episode()  # kept: the same page, still scrolled, its script state intact
        assert b.page is page and b.evaluate("window.scrollY") == 300 and events(b, "wheel")
        assert b.start_url is None and b.blocked_requests == []
        other.admit(b)
        b.new_episode()  # a server admitted since: a fresh context, which sends it its token
        assert b.page is not page and b.url == "about:blank"
        b.goto(other.url + "/")
        assert "403" not in b.evaluate("document.body.innerText") and b.blocked_requests == []
        page = b.page
        b.config.keep_page = False
        b.new_episode()
        assert b.page is not page and b.url == "about:blank"
    finally:
        b.close()
        other.stop()


def test_a_held_driver_serves_the_next_user_and_stops_when_the_hold_ends():
    """`PlaywrightDrivers.held` (each test module holds its driver, tests/conftest.py): inside
    the block a driver outlives its last user and the next acquire gets it; after the block it
    stops, and without a hold a driver stops with its last user. In a thread of its own, so
    this module's held driver is not the one counted."""

    def drivers() -> int:
        return sum(b"run-driver" in command_line(pid) for pid in descendants(os.getpid()))

    def command_line(pid: int) -> bytes:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return b""

    seen: dict = {}

    def scenario() -> None:
        before = drivers()
        with DRIVERS.held():
            first = DRIVERS.acquire()
            DRIVERS.release(first)
            seen["kept"] = drivers() - before
            second = DRIVERS.acquire()
            DRIVERS.release(second)
            seen["same"] = second is first
        seen["after hold"] = wait_until(lambda: drivers() == before, timeout_s=10)
        third = DRIVERS.acquire()
        DRIVERS.release(third)
        seen["unheld"] = third is not first and wait_until(lambda: drivers() == before, timeout_s=10)

    worker = threading.Thread(target=scenario)
    worker.start()
    worker.join(120)
    assert seen == {"kept": 1, "same": True, "after hold": True, "unheld": True}
