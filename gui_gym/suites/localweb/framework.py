"""The small web framework LocalWeb's apps are written in.

Each app is a `WebApp`: a URL prefix, a state built from a seed, and its `Routes`, the one
routing scheme every app uses: ``@routes("GET", "/event/{event_id}/edit")`` on a method makes
it the handler of those requests. Pages are real HTML rendered by the handler, with the CSS
and JS of the app's ``static`` folder inlined (`assets`; the folder is served too); the app's
JSON API mutates its state on the server, so an evaluator reads what the agent really did, not
what the page shows.

The framework is plain WSGI (served by `gui_gym.suites.http_server.LoopbackServer`), keeps
every request in the state's log (milestones like "opened the product page" read it), and
serves nothing from outside the package.
"""

from __future__ import annotations

import html
import json
import mimetypes
import random
import re
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import parse_qs, urlencode

SHARED_STATIC = Path(__file__).parent / "static"


@dataclass
class Request:
    """One HTTP request, as an app sees it: `path` is relative to the app's prefix."""

    method: str
    path: str
    query: dict[str, str]
    form: dict[str, Any]
    raw_body: bytes = b""

    def arg(self, name: str, default: str = "") -> str:
        """A query or form value (form first)."""
        value = self.form.get(name, self.query.get(name, default))
        return value if isinstance(value, str) else json.dumps(value)


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)


def html_response(body: str, status: int = 200) -> Response:
    return Response(status, body.encode(), "text/html; charset=utf-8")


def json_response(data: Any, status: int = 200) -> Response:
    return Response(status, json.dumps(data).encode(), "application/json")


def app_url(prefix: str, path: str, **query: Any) -> str:
    """An absolute URL under an app's `prefix`; empty query values are left out."""
    params = {k: v for k, v in query.items() if v not in ("", None)}
    return f"{prefix}{path}" + (f"?{urlencode(params)}" if params else "")


def redirect(location: str) -> Response:
    return Response(303, b"", "text/plain", [("Location", location)])


def not_found(what: str = "page") -> Response:
    return html_response(page("Not found", f"<p>No such {html.escape(what)}.</p>"), 404)


def static_file(folder: Path, name: str) -> Response:
    """A file from `folder`; names that escape it are refused."""
    path = (folder / name).resolve()
    if not path.is_file() or folder.resolve() not in path.parents:
        return not_found("file")
    content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if content_type.startswith("text/") or content_type.endswith("javascript"):
        content_type += "; charset=utf-8"
    return Response(200, path.read_bytes(), content_type)


@dataclass(frozen=True)
class Assets:
    """An app's stylesheets and scripts, inlined into each of its pages (`assets`): a page
    loads in one request instead of one per file, which a reset and every step that opens a
    page would otherwise wait for (each request also passes the browser's access route).
    The files stay served under ``static/`` too."""

    styles: str = ""
    scripts: str = ""


def assets(*files: Path) -> Assets:
    """The `files` (``.css`` and ``.js``, run in this order at the end of the body, as
    ``defer`` scripts would run), read once."""
    styles, scripts = [], []
    for file in files:
        text = file.read_text(encoding="utf-8")
        closing = "</style" if file.suffix == ".css" else "</script"
        if closing in text.lower():
            raise ValueError(f"{file} holds {closing}>, which would end its inlined tag early")
        (styles if file.suffix == ".css" else scripts).append(text)
    return Assets("".join(f"<style>{text}</style>" for text in styles),
                  "".join(f"<script>{text}</script>" for text in scripts))


COMMON = assets(SHARED_STATIC / "common.css")


def page(title: str, body: str, *, app: str = "", app_assets: Assets = Assets(), nav: str = "") -> str:
    """A full HTML page with the shared stylesheet and the app's `app_assets` inlined; its
    empty icon spares the browser a favicon request per page."""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><link rel='icon' href='data:,'>"
        f"<title>{html.escape(title)}</title>{COMMON.styles}{app_assets.styles}</head>"
        f"<body class='app-{app}'>{nav}<main>{body}</main>{app_assets.scripts}</body></html>"
    )


def esc(value: Any) -> str:
    """HTML-escape any value for interpolation into markup."""
    return html.escape(str(value), quote=True)


def log_has(log: list[dict[str, Any]], path: str, method: str = "GET", **query: Any) -> bool:
    """Whether an app's request log (see `WebApp.handle`) holds a `method` request of `path`
    (a trailing slash aside) with at least these query values: the "visited" milestones."""
    return any(e["method"] == method and (e["path"] == path or e["path"].rstrip("/") == path) and
               all(e["query"].get(k) == str(v) for k, v in query.items()) for e in log)


def notice(text: str, markup: bool = False) -> str:
    """The one-shot status banner every app shows after a change ("" shows none). `text` is
    escaped unless `markup` says the caller built it (escaping what it interpolated)."""
    return f"<div class='notice' role='status'>{text if markup else esc(text)}</div>" if text else ""


Handler = Callable[..., Response]
"""``handler(app, request, state, *captures) -> Response``."""


class Routes:
    """An app's routing table. A pattern is a path relative to the app, each segment literal,
    ``{name}`` (any one segment, passed as text) or ``{name:int}`` (digits, passed as an
    int); the method is an HTTP method or "*" for any. A request goes to the matching route
    with the fewest captures (``/users/invite`` before ``/users/{user_id:int}``); none
    matching is a 404.

    >>> routes = Routes()
    >>> @routes("GET", "/event/{event_id}/edit")
    ... def edit(app, request, state, event_id):
    ...     return html_response(event_id)
    >>> routes.match("GET", ["event", "e7", "edit"])[1]
    ['e7']
    """

    def __init__(self) -> None:
        self._table: list[tuple[str, tuple[str, ...], Handler]] = []

    def __call__(self, method: str, pattern: str) -> Callable[[Handler], Handler]:
        """Declare the decorated function the handler of `method` requests to `pattern`."""
        def add(handler: Handler) -> Handler:
            self.add(method, pattern, handler)
            return handler
        return add

    def add(self, method: str, pattern: str, handler: Handler) -> None:
        segments = tuple(p for p in pattern.split("/") if p)
        for segment in segments:
            if segment.startswith("{") and not re.fullmatch(r"\{\w+(:int)?\}", segment):
                raise ValueError(f"route {pattern!r}: expected a capture like {{name}} or {{name:int}}, "
                                 f"received {segment!r}")
        self._table.append((method, segments, handler))
        self._table.sort(key=lambda row: sum(s.startswith("{") for s in row[1]))  # stable: literal routes first

    def match(self, method: str, parts: list[str]) -> tuple[Handler, list[Any]] | None:
        """The handler of a request and its captures, or None."""
        for allowed, segments, handler in self._table:
            if allowed not in ("*", method) or len(segments) != len(parts):
                continue
            captures: list[Any] = []
            for segment, part in zip(segments, parts):
                if segment == part:
                    continue
                if segment.endswith(":int}") and part.isdigit():
                    captures.append(int(part))
                elif segment.startswith("{") and not segment.endswith(":int}"):
                    captures.append(part)
                else:
                    break
            else:
                return handler, captures
        return None


class WebApp(ABC):
    """One LocalWeb app. Subclasses set `name` (its URL prefix), `title` and `routes`."""

    name: str
    title: str
    routes: Routes
    static_dir: Path | None = None

    @abstractmethod
    def initial_state(self, seed: int) -> dict[str, Any]:
        """A fresh state for one episode. Must be a pure function of `seed`."""

    def handle(self, request: Request, state: dict[str, Any]) -> Response:
        """Answer `request` with its route's handler, reading and mutating `state`."""
        found = self.routes.match(request.method, [p for p in request.path.split("/") if p])
        if found is None:
            return not_found()
        handler, captures = found
        return handler(self, request, state, *captures)

    def serve_static(self, name: str) -> Response:
        if self.static_dir is None:
            return not_found("file")
        return static_file(self.static_dir, name)


class AppServer:
    """WSGI front: routes ``/<app>/...`` to the app with the current episode state, and
    ``/static/...`` to the shared assets. `states` is owned by the suite and swapped on
    every reset."""

    def __init__(self, apps: Iterable[WebApp], portal: Callable[[], str]):
        self.apps = {app.name: app for app in apps}
        self.portal = portal
        self.states: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()
        """Held while an app handles a request, so evaluators never read half an update."""

    def reset(self, seed: int, apps: Iterable[str] | None = None) -> None:
        """Fresh state for every app (or only `apps`), all from `seed`."""
        for name in apps if apps is not None else self.apps:
            state = self.apps[name].initial_state(seed)
            state.setdefault("log", [])
            self.states[name] = state

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> list[bytes]:
        request = _read_request(environ)
        head, _, rest = request.path.lstrip("/").partition("/")
        if head == "static":
            response = static_file(SHARED_STATIC, rest)
        elif head in self.apps:
            app = self.apps[head]
            state = self.states.get(head)
            request.path = "/" + rest
            if rest.startswith("static/"):
                response = app.serve_static(rest[len("static/"):])
            else:
                with self.lock:
                    if state is None:
                        self.reset(0, [head])
                        state = self.states[head]
                    state["log"].append({"method": request.method, "path": request.path, "query": request.query})
                    response = app.handle(request, state)
        elif head == "":
            response = html_response(self.portal())
        else:
            response = not_found()
        headers = [("Content-Type", response.content_type), ("Content-Length", str(len(response.body))),
                   ("Cache-Control", "no-store"), *response.headers]
        start_response(f"{response.status} {_REASONS.get(response.status, 'OK')}", headers)
        return [response.body]


_REASONS = {200: "OK", 201: "Created", 303: "See Other", 400: "Bad Request", 404: "Not Found",
            409: "Conflict", 422: "Unprocessable Entity"}


def _read_request(environ: dict[str, Any]) -> Request:
    query = {k: v[-1] for k, v in parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True).items()}
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length) if length else b""
    form: dict[str, Any] = {}
    content_type = environ.get("CONTENT_TYPE", "")
    if body and content_type.startswith("application/json"):
        try:
            loaded = json.loads(body)
            form = loaded if isinstance(loaded, dict) else {"_": loaded}
        except json.JSONDecodeError:
            form = {}
    elif body:
        form = {k: v[-1] for k, v in parse_qs(body.decode(errors="replace"), keep_blank_values=True).items()}
    path = environ.get("PATH_INFO", "/").encode("latin-1", "replace").decode("utf-8", "replace")  # WSGI: bytes as latin-1
    return Request(environ["REQUEST_METHOD"], path, query, form, body)


def seeded(seed: int, salt: str) -> random.Random:
    """An RNG for one purpose (`salt`) of one seed, independent of the others."""
    return random.Random(f"{salt}:{seed}")
