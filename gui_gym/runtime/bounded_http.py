"""HTTP calls with a total deadline and a size cap: the most a model endpoint can cost us.

httpx's timeout bounds each socket operation, not the call: a server that sends one byte
every half second never trips a 2 s read timeout and holds the call for as long as it likes,
and a 200 MB answer is read whole into memory. Here a call gets a deadline (a context
variable, so concurrent calls on one client keep theirs), and every connect, write and read of
the call waits at most the time left until it: past it the call fails with
`httpx.ReadTimeout` (or the connect/write variant), a `httpx.TransportError` that callers
already retry. The answer is read in chunks and refused as `AnswerTooLarge` once it passes
`max_bytes` (at once when its Content-Length says so), never held whole.

The deadline is applied below httpx, in the network backend of its connection pool, which
httpx does not expose; `DeadlineTransport` reaches it once, at construction, and the tests
pin that it holds (a trickling server on loopback).
"""

from __future__ import annotations

import contextvars
import time
import urllib.request
from typing import Any, Iterable
from urllib.parse import urlsplit

import httpcore
import httpx

_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("gui_gym_http_deadline", default=None)


_BODY_FRAMING = frozenset({"content-length", "content-encoding", "transfer-encoding"})
"""Headers of the wire body, not of the decoded one `request` returns."""


class AnswerTooLarge(ValueError):
    """An answer longer than the caller's `max_bytes`."""


def _left(timeout: float | None, expired: type[Exception]) -> float | None:
    """The socket timeout for one operation: its own, cut to what is left of the call."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("the call ran past its deadline")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream):
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname,
                                                      _left(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, backend: httpcore.NetworkBackend):
        self._backend = backend

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return _DeadlineStream(self._backend.connect_tcp(host, port, _left(timeout, httpcore.ConnectTimeout),
                                                         local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return _DeadlineStream(self._backend.connect_unix_socket(path, _left(timeout, httpcore.ConnectTimeout),
                                                                 socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """`httpx.HTTPTransport` whose sockets honour the deadline of `request` (same arguments)."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        pool = self._pool  # httpcore's pool, built by httpx with our settings (proxy, TLS, limits)
        pool._network_backend = _DeadlineBackend(pool._network_backend)


def make_client(base_url: str, *, headers: dict[str, str] | None = None, timeout_s: float) -> httpx.Client:
    """A client for one endpoint whose calls `request` can bound. The environment's proxy
    for `base_url` (``HTTPS_PROXY``, ``NO_PROXY``, ...) is honoured, as httpx would."""
    host = urlsplit(base_url).hostname or ""
    proxies = urllib.request.getproxies_environment()
    proxy = None if urllib.request.proxy_bypass_environment(host, proxies) else \
        proxies.get(urlsplit(base_url).scheme) or proxies.get("all")
    return httpx.Client(transport=DeadlineTransport(proxy=proxy), headers=headers, timeout=httpx.Timeout(timeout_s),
                        trust_env=False)


def request(client: httpx.Client, method: str, url: str, *, timeout_s: float, max_bytes: int,
            **kwargs: Any) -> httpx.Response:
    """One call that ends within `timeout_s` from start to last byte, with its body read (at
    most `max_bytes`, else `AnswerTooLarge`). `kwargs` go to `httpx.Client.stream`."""
    token = _DEADLINE.set(time.monotonic() + timeout_s)
    try:
        with client.stream(method, url, **kwargs) as response:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise AnswerTooLarge(f"the answer is {int(declared)} bytes long, more than the {max_bytes} accepted")
            chunks, size = [], 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > max_bytes:
                    raise AnswerTooLarge(f"the answer passed the {max_bytes} bytes accepted; the rest was not read")
                chunks.append(chunk)
            headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _BODY_FRAMING]
            return httpx.Response(response.status_code, headers=headers, content=b"".join(chunks),
                                  request=response.request)
    finally:
        _DEADLINE.reset(token)
