"""Which URLs a browser env may reach: one policy for the agent's navigations, for every
request, WebSocket and document the browser opens, and for the proxy that stops the rest.

- Only ``http`` and ``https`` may be navigated to. ``file:``, ``chrome:``, ``view-source:``,
  ``devtools:``, ``ftp:``, ``javascript:``, ``data:`` and every other scheme are refused, so an
  agent never opens a host file or the browser's own pages. A page's own ``data:`` and
  ``blob:`` resources (images, downloads it built) are not navigations and stay allowed.
- A restricted policy (``hosts`` given) reaches a host only at the ports allowed for it: an
  entry ``"example.com"`` allows that host at any port, ``"127.0.0.1:8123"`` one origin, and
  each server a suite registers (`AccessPolicy.allow_origin`) its own host and port. Two envs
  on one machine share the host 127.0.0.1 but not a port, so neither reaches the other.
- An unrestricted policy (``hosts=None``, live websites) checks the scheme only.

The check reads the URL as Chromium will: ``urlsplit`` lowercases the host, and a port that
is not a number or out of range makes the URL malformed (refused), not "the default port".
"""

from __future__ import annotations

from typing import Iterable
from urllib.parse import urlsplit

NAVIGABLE_SCHEMES = frozenset({"http", "https"})
SOCKET_SCHEMES = frozenset({"ws", "wss"})
INLINE_SCHEMES = frozenset({"data", "blob"})
"""Resources a page makes itself; they reach no server and no file."""
BROWSER_DOCUMENTS = ("about:blank", "about:srcdoc", "chrome-error://chromewebdata/")
"""Documents Chromium shows by itself: an empty page, an inline frame, the error page of a
failed or blocked navigation. Never a host file, never another server."""
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
OWN_SERVERS_ONLY: frozenset[str] = frozenset()
"""The allow-list of an env that serves its own pages: no host but the servers it registers."""


def origin_of(url: str) -> tuple[str, int]:
    """(host, port) of an http(s) or ws(s) URL; ValueError when it has neither a host nor a
    valid port."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"expected an http(s) or ws(s) URL, received {url!r}")
    host = parts.hostname
    if not host:
        raise ValueError(f"{url!r} names no host")
    return host, parts.port or DEFAULT_PORTS[scheme]  # .port raises ValueError when out of range


def _entry(entry: str) -> tuple[str, int | None]:
    """An allow-list entry: "host" (any port) or "host:port"."""
    parts = urlsplit("//" + entry.strip())
    if not parts.hostname or parts.path or parts.query or parts.username:
        raise ValueError(f"expected an allowed host as 'host' or 'host:port', received {entry!r}")
    return parts.hostname, parts.port


class AccessPolicy:
    """The URLs one browser env may reach (see the module docstring).

    Args:
        hosts: None for any host (the scheme rule still holds); otherwise the hosts ("host")
            and origins ("host:port") reachable besides the servers registered later.

    >>> policy = AccessPolicy(hosts=())
    >>> policy.allow_origin("http://127.0.0.1:8123/shop/")
    >>> policy.refusal("http://127.0.0.1:8123/shop/cart") is None
    True
    >>> policy.refusal("http://127.0.0.1:9000/")
    "127.0.0.1:9000 is not one of this env's servers (it reaches 127.0.0.1:8123)"
    >>> policy.refusal("file://127.0.0.1/etc/passwd")
    'only http and https URLs may be opened, received a file: URL'
    """

    def __init__(self, hosts: Iterable[str] | None = None):
        self.restricted = hosts is not None
        self._any_port: set[str] = set()
        self._origins: set[tuple[str, int]] = set()
        for entry in hosts or ():
            host, port = _entry(entry)
            if port is None:
                self._any_port.add(host)
            else:
                self._origins.add((host, port))

    def allow_origin(self, url: str) -> None:
        """Let the env reach the server at `url` (its host and port, nothing else)."""
        self._origins.add(origin_of(url))

    @property
    def reachable(self) -> list[str]:
        """The allowed hosts and origins, as the proxy's bypass list and messages spell them."""
        origins = [f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in sorted(self._origins)]
        return sorted(self._any_port) + origins

    def refusal(self, url: str, *, navigation: bool = True) -> str | None:
        """Why the browser may not open `url`, or None when it may. `navigation` is False
        for a page's subresources, which may also be ``data:`` and ``blob:`` URLs."""
        try:
            scheme = urlsplit(url).scheme.lower()
        except ValueError as exc:
            return f"the URL is malformed ({exc})"
        if scheme in INLINE_SCHEMES and not navigation:
            return None
        if scheme not in NAVIGABLE_SCHEMES and not (scheme in SOCKET_SCHEMES and not navigation):
            shown = f"a {scheme}: URL" if scheme else "a URL without a scheme"
            return f"only http and https URLs may be opened, received {shown}"
        try:
            host, port = origin_of(url)
        except ValueError as exc:
            return f"the URL is malformed ({exc})"
        if not self.restricted or host in self._any_port or (host, port) in self._origins:
            return None
        shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        return f"{shown} is not one of this env's servers (it reaches {', '.join(self.reachable) or 'none'})"

    def document_refusal(self, url: str) -> str | None:
        """Why a document the browser shows (a page or a frame, however it got there) must not
        be seen, or None when it may: the last line of defence for schemes no request filter
        sees (``chrome:``, ``view-source:``, ...)."""
        if not url or url in BROWSER_DOCUMENTS or url.startswith("about:blank"):
            return None  # "": a frame that has not navigated yet
        return self.refusal(url, navigation=False)
