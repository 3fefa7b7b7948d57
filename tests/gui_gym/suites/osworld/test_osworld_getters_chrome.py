"""OSWorld's Chrome page getters against a real Chromium: its DevTools port on loopback, a
page served on loopback, and the desktop probe run as the stand-in VM's /execute would run
it (here, on this machine, with the port given by GUI_GYM_DEVTOOLS_PORTS)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from tests.gui_gym.suites.osworld.test_osworld_setup import ctx, vm  # noqa: F401 - fixtures

from gui_gym.backends.browser.playwright_driver import find_chromium
from gui_gym.runtime.loopback import free_port
from gui_gym.suites.osworld.getters import get_getter
from gui_gym.runtime.waiting import wait_until

PAGE = """<!doctype html><html><head><title>Shop</title></head><body>
<div class="price">$ 12 </div><div class="price">$ 30</div><div class="route">SEA<span>|</span>NYC</div>
<h2 id="h">Total: 42</h2><input id="q" value=" cats "><a id="next" href="/b.html">next</a>
<p>Departure <b>Seattle</b></p></body></html>"""




@pytest.fixture
def browser(tmp_path: Path):
    executable = find_chromium()
    if executable is None:
        pytest.fail("Chromium is needed (scripts/setup.sh installs Debian's chromium)")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "a.html").write_text(PAGE)
    (tmp_path / "site" / "b.html").write_text("<html><head><title>B</title></head><body><p id='x'>second</p></body></html>")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(tmp_path / "site")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = free_port()
    url = f"http://127.0.0.1:{server.server_address[1]}/a.html"
    proc = subprocess.Popen([executable, "--headless=new", "--no-sandbox", f"--remote-debugging-port={port}",
                             "--remote-debugging-address=127.0.0.1", f"--user-data-dir={tmp_path / 'profile'}",
                             "--no-first-run", url], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)  # a launcher script may run the browser as its child
    try:
        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0
        assert wait_until(listening, 30), "Chromium did not open its DevTools port"
        yield port, url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
        server.shutdown()


@pytest.mark.slow
def test_page_getters_through_the_devtools_probe(vm, ctx, browser, tmp_path):  # noqa: F811
    port, url = browser
    env = {**os.environ, "GUI_GYM_DEVTOOLS_PORTS": str(port)}

    def run(command, shell):
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
        return {"status": "success", "output": done.stdout, "error": done.stderr, "returncode": done.returncode}
    vm.run = run
    original = vm._route
    address = url.removeprefix("http://")

    def route(method, path, request):
        if path == "/accessibility":
            return 200, {"AT": f'<desktop-frame><application name="Chromium"><entry name="Address and search bar">'
                               f'{address}</entry></application></desktop-frame>'}
        return original(method, path, request)
    vm._route = route

    def get(**config):
        return get_getter(config["type"])(ctx, config)
    assert wait_until(lambda: any(t["url"] == url for t in get(type="open_tabs_info")), 30)
    parsed = get(type="active_tab_html_parse", goto_prefix="http://", category="class",
                 class_multiObject={"price": {"0": "first", "1": "second", "5": "missing"}},
                 class_multiObject_child={"route": {"0": "from", "1": "to"}}, class_singleObject={"price": "one"})
    assert parsed == {"first": "$ 12", "second": "$ 30", "missing": "", "from": "SEA", "to": "NYC", "one": "$ 12"}
    assert get(type="active_tab_html_parse", goto_prefix="http://", category="xpath",
               xpathObject={"//h2[@id='h']": "total", "//nothing": "none"}) == {"total": "Total: 42", "none": ""}
    assert get(type="active_tab_html_parse", goto_prefix="http://", category="input",
               inputObject={"//input[@id='q']": "query"}) == {"query": "cats"}
    assert get(type="active_tab_html_parse", goto_prefix="http://", category="label",
               labelObject={"departure": "dep"}) == {"dep": "Departure Seattle"}
    info = get(type="active_tab_info", goto_prefix="http://")
    assert info["title"] == "Shop" and info["url"] == url and 'class="price"' in info["content"]
    assert info["content"].startswith("<!DOCTYPE html>")
    page = get(type="page_info", url=url.replace("a.html", "b.html"))
    assert page["title"] == "B" and "second" in page["content"]
    pdf = Path(get(type="pdf_from_url", path=url, dest="page.pdf")).read_bytes()
    assert pdf.startswith(b"%PDF") and len(pdf) > 1000
    facts = get(type="info_from_website", url=url, backups=["backup"], infos=[
        {"action": "inner_text", "selector": "#h"}, {"action": "attribute", "selector": "#q", "attribute": "value"},
        {"action": "click_and_inner_text", "selector": ["#next", "#x"]}])
    assert facts == ["Total: 42", " cats ", "second"]
    assert get(type="info_from_website", url=url, backups=["backup"], infos=[{"selector": "#absent"}]) == ["backup"]
