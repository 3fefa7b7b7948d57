"""Ask the browser on this desktop something through its DevTools port, and print the
answer as one JSON line. Run on the desktop (``python3 -I -c <this file> '<request json>'``) by
`chrome_pages.py`, never imported: standard library only, so that it runs with any Python
3 an OSWorld VM has. Chrome (or Chromium) listens on the DevTools port OSWorld's tasks give it
(9222, forwarded to 1337 by socat; 1337 is tried too).

Requests: ``{"op": "tabs"}`` (the open pages: url, title, id); ``{"op": "evaluate",
"target": id, "expression": js}``; ``{"op": "visit", "url": u, "expression": js}`` or
``"steps": [js, ...]`` (a new tab, loaded until the page and its network are quiet, then
each script in turn, letting the page settle after each, then the tab is closed; the last
script's value), with ``settle_s`` and ``timeout_s``; ``{"op": "pdf", "url": u, "pdf":
{printToPDF parameters}}`` (the page printed to PDF, base64). Answers: ``{"ok": true, "value": ...}`` or ``{"ok": false,
"error": "..."}``.
"""

import base64
import json
import os
import socket
import struct
import sys
import time
import urllib.parse
import urllib.request

PORTS = tuple(int(p) for p in os.environ.get("GUI_GYM_DEVTOOLS_PORTS", "9222,1337").split(","))
"""OSWorld's DevTools ports (``GUI_GYM_DEVTOOLS_PORTS`` overrides them, for tests)."""


def http(port, path, method="GET", answer_json=True):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read().decode()
    return json.loads(body or "null") if answer_json else body


def port():
    for candidate in PORTS:
        try:
            http(candidate, "/json/version")
            return candidate
        except OSError:
            continue
    raise OSError("no browser answers on the DevTools ports 9222 and 1337")


class Socket:
    """A minimal WebSocket client (RFC 6455: masked text frames out, any frames in)."""

    def __init__(self, url, timeout_s):
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout_s)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                           f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise OSError("the browser closed the DevTools connection")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise OSError(f"DevTools refused the connection: {head[:200]!r}")
        self.next_id = 0

    def _read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise OSError("the browser closed the DevTools connection")
            data += chunk
        return data

    def _frame(self):
        first, second = self._read(2)
        length = second & 0x7F
        if length == 126:
            length = struct.unpack(">H", self._read(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", self._read(8))[0]
        mask = self._read(4) if second & 0x80 else None
        payload = self._read(length)
        if mask:
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        return first & 0x0F, bool(first & 0x80), payload

    def call(self, method, params=None):
        self.next_id += 1
        message = json.dumps({"id": self.next_id, "method": method, "params": params or {}}).encode()
        header = bytes([0x81]) + (bytes([0x80 | len(message)]) if len(message) < 126 else
                                  bytes([0x80 | 126]) + struct.pack(">H", len(message)) if len(message) < 65536 else
                                  bytes([0x80 | 127]) + struct.pack(">Q", len(message)))
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(message)))
        while True:
            parts = []
            while True:
                opcode, final, payload = self._frame()
                if opcode == 8:
                    raise OSError("the browser closed the DevTools connection")
                if opcode in (0, 1, 2):
                    parts.append(payload)
                    if final:
                        break
            reply = json.loads(b"".join(parts).decode())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(reply["error"].get("message", str(reply["error"])))
                return reply.get("result", {})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("text", "the page's script failed"))
        return result.get("result", {}).get("value")

    def close(self):
        self.sock.close()


def pages(devtools):
    return [t for t in http(devtools, "/json/list") if t.get("type") == "page"]


def connect(devtools, target_id, timeout_s):
    for target in pages(devtools):
        if target["id"] == target_id:
            return Socket(target["webSocketDebuggerUrl"], timeout_s)
    raise LookupError(f"no page {target_id}")


def settle(ws, settle_s, timeout_s):
    """Wait until the document is loaded and no resource has started for `settle_s` (a
    stand-in for Playwright's network idle), at most `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    last_count, quiet_since = -1, time.monotonic()
    while time.monotonic() < deadline:
        state = ws.evaluate("[document.readyState, performance.getEntriesByType('resource').length]") or ["", 0]
        if state[1] != last_count:
            last_count, quiet_since = state[1], time.monotonic()
        if state[0] == "complete" and time.monotonic() - quiet_since >= settle_s:
            return True
        time.sleep(0.1)
    return False


def visit(devtools, request):
    target = http(devtools, "/json/new?" + urllib.parse.quote(request["url"], safe=":/?&=%#"), method="PUT")
    timeout_s, settle_s = request.get("timeout_s", 60), request.get("settle_s", 0.5)
    ws = Socket(target["webSocketDebuggerUrl"], timeout_s)
    try:
        loaded = settle(ws, settle_s, timeout_s)
        if request["op"] == "pdf":
            return ws.call("Page.printToPDF", request.get("pdf", {}))["data"]
        value = None
        for step in request.get("steps") or [request["expression"]]:
            value = ws.evaluate(step)
            time.sleep(settle_s)
            loaded = settle(ws, settle_s, timeout_s) and loaded
        return {"loaded": loaded, "value": value}
    finally:
        ws.close()
        try:
            http(devtools, f"/json/close/{target['id']}", answer_json=False)
        except OSError:
            pass


def main():
    request = json.loads(sys.argv[1])
    try:
        devtools = port()
        if request["op"] == "tabs":
            value = [{"id": t["id"], "url": t.get("url", ""), "title": t.get("title", "")} for t in pages(devtools)]
        elif request["op"] == "evaluate":
            ws = connect(devtools, request["target"], request.get("timeout_s", 60))
            try:
                value = ws.evaluate(request["expression"])
            finally:
                ws.close()
        elif request["op"] in ("visit", "pdf"):
            value = visit(devtools, request)
        else:
            raise ValueError(f"unknown request {request['op']!r}")
        print(json.dumps({"ok": True, "value": value}))
    except Exception as exc:
        print(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {exc}"}))


if __name__ == "__main__":
    main()
