"""A loopback server speaking the OpenAI chat-completions protocol, answering from a script.

Agents and judges are tested against it with their real HTTP clients. What it answers comes
from a queue of scripted replies or from a function of the request, so one server serves a
fixed script (a UI-TARS episode) or a rule (a judge answering by what it was asked). Failures
are scripted the same way: an HTTP status, a malformed body, an answer held back until the
test releases it (a client timeout, without sleeping), an answer trickled one byte at a time (a
server that never trips a read timeout), or an answer of any size, made as it is sent.

    with ChatServer(["Action: click(start_box='(10,20)')"]) as server:
        client = OpenAIClient(model="fake-model", base_url=server.base_url)
        ...
        server.requests[0].body["messages"]

Endpoints: ``POST /v1/chat/completions`` (also without ``/v1``; ``stream: true`` answers as
server-sent events), ``GET /v1/models``. With `api_key` set, a request without
``Authorization: Bearer <api_key>`` gets 401, as hosted APIs answer.
"""

from __future__ import annotations

import collections
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable, Union


@dataclass(frozen=True)
class Reply:
    """One scripted answer: `content` as the assistant message, or an error `status`, or a
    raw `body` (anything JSON, or a str sent as is); `hold` keeps the answer back until the
    event is set (or the server stops); `chunk_bytes` and `chunk_delay_s` send the body in
    pieces with a pause after each (a server that trickles, or streams a huge body), and the
    bytes the client took before it hung up are counted in ``ChatServer.sent_bytes``;
    `trickle_s` sends the whole response (status line included) one byte every that many
    seconds; `pad_to_bytes` sends a completion whose content is that many bytes of "a",
    generated chunk by chunk (`chunked`: without a Content-Length)."""

    content: str | None = None
    status: int = 200
    body: Any = None
    hold: threading.Event | None = None
    chunk_bytes: int | None = None
    chunk_delay_s: float = 0.0
    trickle_s: float | None = None
    pad_to_bytes: int | None = None
    chunked: bool = False


@dataclass
class Request:
    """A request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list((self.body or {}).get("messages", []))

    def images(self) -> list[str]:
        """Every image URL sent in the messages, in order."""
        urls = []
        for message in self.messages:
            content = message.get("content")
            if isinstance(content, list):
                urls += [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]
        return urls


Script = Union[Iterable[Union[str, Reply]], Callable[[Request], Union[str, Reply]]]


@dataclass
class _State:
    replies: collections.deque = field(default_factory=collections.deque)
    responder: Callable[[Request], Union[str, Reply]] | None = None
    requests: list[Request] = field(default_factory=list)
    sent_bytes: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class ChatServer:
    """An OpenAI-compatible chat server on ``127.0.0.1`` at a free port.

    Args:
        script: replies in order (strings or `Reply`), or a function of the `Request`.
        models: model ids listed by ``/v1/models``.
        api_key: when set, requests must carry it as a bearer token.
    """

    def __init__(self, script: Script = (), *, models: Iterable[str] = ("fake-model",), api_key: str | None = None):
        self.models = list(models)
        self.api_key = api_key
        self._state = _State()
        if callable(script):
            self._state.responder = script
        else:
            self._state.replies.extend(script)
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def requests(self) -> list[Request]:
        """Chat-completion requests received so far (``/models`` calls are not listed)."""
        with self._state.lock:
            return list(self._state.requests)

    @property
    def sent_bytes(self) -> list[int]:
        """Body bytes sent per chunked reply, until the client hung up."""
        with self._state.lock:
            return list(self._state.sent_bytes)

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("ChatServer not started")
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def push(self, *replies: "str | Reply") -> None:
        """Queue more scripted replies."""
        with self._state.lock:
            self._state.replies.extend(replies)

    def start(self) -> "ChatServer":
        if self._server is None:
            self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
            self._server.daemon_threads = True
            self._thread = threading.Thread(target=self._server.serve_forever, name="fake-chat", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._stopping.set()
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = self._thread = None

    def __enter__(self) -> "ChatServer":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _next_reply(self, request: Request) -> Reply:
        state = self._state
        with state.lock:
            state.requests.append(request)
            if state.responder is None:
                if not state.replies:
                    return Reply(status=500, body={"error": {"message": "the fake chat server has no scripted reply left"}})
                reply = state.replies.popleft()
        if state.responder is not None:
            reply = state.responder(request)
        return Reply(content=reply) if isinstance(reply, str) else reply


def completion(content: str, model: str) -> dict[str, Any]:
    """A chat.completion body as OpenAI-compatible servers send it."""
    return {"id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


def _handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # or each kept-alive reply's body waits ~40 ms for the client's delayed ACK

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            pass

        def do_GET(self) -> None:
            if not self._authorized():
                return
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "fake"}
                                                            for m in server.models]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not self._authorized():
                return
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                body = json.loads(raw or b"null")
            except json.JSONDecodeError:
                self._send(400, {"error": {"message": "request body is not JSON"}})
                return
            if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
                self._send(400, {"error": {"message": "expected a JSON object with a 'messages' list"}})
                return
            reply = server._next_reply(Request("POST", self.path, dict(self.headers), body))
            if reply.hold is not None:
                while not reply.hold.wait(0.05):
                    if server._stopping.is_set():
                        return
            if reply.trickle_s is not None:
                self._trickle(completion(reply.content or "", str(body.get("model"))), reply.trickle_s)
            elif reply.pad_to_bytes is not None:
                self._send_padded(reply.pad_to_bytes, reply.chunked)
            elif reply.body is not None or reply.status != 200:
                self._send(reply.status, reply.body if reply.body is not None else {"error": {"message": "scripted"}},
                           reply)
            elif body.get("stream"):
                self._stream(reply.content or "", str(body.get("model")))
            else:
                self._send(200, completion(reply.content or "", str(body.get("model"))), reply)

        def _authorized(self) -> bool:
            if server.api_key is None or self.headers.get("Authorization") == f"Bearer {server.api_key}":
                return True
            self._send(401, {"error": {"message": "invalid API key", "type": "invalid_request_error"}})
            return False

        def _send(self, status: int, payload: Any, reply: Reply | None = None) -> None:
            data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
            chunk = reply.chunk_bytes if reply is not None and reply.chunk_bytes else len(data) or 1
            sent = 0
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                for start in range(0, len(data), chunk):
                    if server._stopping.is_set():
                        return
                    self.wfile.write(data[start:start + chunk])
                    self.wfile.flush()
                    sent += len(data[start:start + chunk])
                    if reply is not None and reply.chunk_delay_s:
                        time.sleep(reply.chunk_delay_s)  # the trickle this reply scripts
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (a timeout test)
            finally:
                if reply is not None and reply.chunk_bytes:
                    with server._state.lock:
                        server._state.sent_bytes.append(sent)

        def _trickle(self, payload: Any, delay_s: float) -> None:
            data = json.dumps(payload).encode()
            raw = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
                   .encode() + data)
            try:
                for byte in raw:
                    if server._stopping.wait(delay_s):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up: what the test wants
            self.close_connection = True

        def _send_padded(self, size: int, chunked: bool) -> None:
            head, tail = b'{"choices": [{"message": {"role": "assistant", "content": "', b'"}}]}'
            block = b"a" * 2**16
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", str(len(head) + size + len(tail)))
                self.end_headers()
                frame = (lambda b: b"%x\r\n%s\r\n" % (len(b), b)) if chunked else (lambda b: b)
                self.wfile.write(frame(head))
                for start in range(0, size, len(block)):
                    self.wfile.write(frame(block[:min(len(block), size - start)]))
                self.wfile.write(frame(tail) + (b"0\r\n\r\n" if chunked else b""))
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True

        def _stream(self, content: str, model: str) -> None:
            chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": content}, "finish_reason": None}]},
                      {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
            data = "".join(f"data: {json.dumps({'object': 'chat.completion.chunk', 'model': model, **c})}\n\n"
                           for c in chunks) + "data: [DONE]\n\n"
            encoded = data.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(encoded)))
            self.end_headers()
            self.wfile.write(encoded)

    return Handler
