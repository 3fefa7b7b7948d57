"""`GUI/Demo-v0`: three tiny pages on a loopback server, so the env contract is testable end
to end in seconds. Not a benchmark: LocalWeb is the embedded suite.

Tasks: press a button, fill and submit a form (name and colour drawn from the seed), and read
a code off the page (answered with an ``answer`` action). Success is read from the server's
state, never from the page, so a task cannot succeed without its state change.
"""

from __future__ import annotations

import html
import json
import random
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterator
from urllib.parse import parse_qs

from gui_gym.actions import Action
from gui_gym.backends.base import Backend
from gui_gym.suites.base import Episode, Milestone, Task, TaskSuite
from gui_gym.suites.http_server import LoopbackServer

if TYPE_CHECKING:
    from gui_gym.backends.browser.backend import BrowserBackend

COLORS = ("red", "green", "blue", "yellow")
NAMES = ("Ada", "Grace", "Linus", "Barbara", "Alan", "Edsger")

_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;margin:40px;font-size:18px}} button,input,select{{font-size:18px;margin:6px}}
#status{{margin-top:20px;color:#064}}</style></head><body><h1>{title}</h1>{body}</body></html>"""


_AFTER_POST = {"/press": "/pressed", "/submit": "/submitted"}


class DemoState:
    """Server-side state of the one episode a demo env runs at a time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.clear()

    def clear(self, code: str = "") -> None:
        self.pressed = 0
        self.submitted: dict[str, str] | None = None
        self.code = code


def make_app(state: DemoState) -> Callable:
    def app(environ, start_response):
        path, method = environ["PATH_INFO"], environ["REQUEST_METHOD"]
        if method == "POST":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            form = {k: v[0] for k, v in parse_qs(environ["wsgi.input"].read(length).decode()).items()}
            with state.lock:
                if path == "/press":
                    state.pressed += 1
                elif path == "/submit":
                    state.submitted = form
                else:
                    return _respond(start_response, "404 Not Found", "not found")
            return _respond(start_response, "303 See Other", "", [("Location", _AFTER_POST[path])])
        if path == "/button":
            body = '<form method="post" action="/press"><button id="go">Subscribe</button></form>'
        elif path == "/pressed":
            body = f'<p id="status">Subscribed ({state.pressed}).</p>'
        elif path == "/form":
            options = "".join(f'<option value="{c}">{c.title()}</option>' for c in COLORS)
            body = ('<form method="post" action="/submit"><label>Name <input id="name" name="name"></label><br>'
                    f'<label>Colour <select id="color" name="color"><option value="">choose</option>{options}</select></label><br>'
                    '<button id="send">Send</button></form>')
        elif path == "/submitted":
            body = f'<p id="status">Thanks, {html.escape((state.submitted or {}).get("name", ""))}.</p>'
        elif path == "/code":
            body = f'<p>Your one-time code is <b id="code">{state.code}</b>.</p>'
        elif path == "/state":
            payload = json.dumps({"pressed": state.pressed, "submitted": state.submitted})
            return _respond(start_response, "200 OK", payload, [("Content-Type", "application/json")])
        else:
            return _respond(start_response, "404 Not Found", "not found")
        return _respond(start_response, "200 OK", _PAGE.format(title=path.strip("/").title(), body=body),
                        [("Content-Type", "text/html; charset=utf-8")])
    return app


def _respond(start_response, status: str, body: str, headers: list[tuple[str, str]] | None = None):
    data = body.encode()
    start_response(status, [("Content-Length", str(len(data))), ("Cache-Control", "no-store"), *(headers or [])])
    return [data]


def _click(backend: "BrowserBackend", selector: str) -> Action:
    """A click at the centre of an element that the demo pages always show in view."""
    x, y, width, height = backend.locate(selector)
    return Action.click(x + width / 2, y + height / 2)


class _DemoTask(Task):
    def __init__(self, suite: "DemoSuite", task_id: str, instruction: str, path: str, max_steps: int = 10):
        self.suite, self.task_id, self.instruction, self.path = suite, task_id, instruction, path
        self.domain, self.max_steps, self.metadata = "demo", max_steps, {}

    def setup(self, backend: Backend) -> None:
        backend.set_start_url(self.suite.server.url + self.path)


class PressButton(_DemoTask):
    def __init__(self, suite: "DemoSuite", seed: int):
        super().__init__(suite, "demo.press-button", "Press the Subscribe button once.", "/button")

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        return float(self.suite.state.pressed == 1)

    def oracle(self, backend: Backend) -> Iterator[Action]:
        yield _click(backend, "#go")

    def milestones(self) -> list[Milestone]:
        return [Milestone("the button was pressed", lambda b: self.suite.state.pressed >= 1)]


class FillForm(_DemoTask):
    def __init__(self, suite: "DemoSuite", seed: int):
        rng = random.Random(seed)
        self.name, self.color = rng.choice(NAMES), rng.choice(COLORS)
        super().__init__(suite, "demo.fill-form",
                         f"Type the name {self.name}, choose the colour {self.color.title()}, then press Send.", "/form")

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        return float(self.suite.state.submitted == {"name": self.name, "color": self.color})

    def oracle(self, backend: Backend) -> Iterator[Action]:
        yield _click(backend, "#name")
        yield Action.type(self.name)
        yield _click(backend, "#color")
        for _ in range(COLORS.index(self.color) + 1):
            yield Action.key("down")
        yield Action.key("enter")
        yield _click(backend, "#send")

    def milestones(self) -> list[Milestone]:
        return [Milestone("the form was submitted", lambda b: self.suite.state.submitted is not None),
                Milestone("the submission is right", lambda b: self.evaluate(b, Episode(self.task_id, 0)) == 1.0)]


class ReadCode(_DemoTask):
    def __init__(self, suite: "DemoSuite", seed: int):
        self.code = f"{random.Random(seed).randrange(10**5, 10**6)}"
        super().__init__(suite, "demo.read-code", "What is the one-time code shown on the page? Answer with the code.", "/code", 5)

    def setup(self, backend: Backend) -> None:
        self.suite.state.code = self.code
        super().setup(backend)

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        return float((episode.answer or "").strip() == self.code)

    def oracle(self, backend: Backend) -> Iterator[Action]:
        yield Action.answer(self.code)


class DemoSuite(TaskSuite):
    name = "demo"
    TASKS: dict[str, Callable[["DemoSuite", int], Task]] = {
        "demo.press-button": PressButton, "demo.fill-form": FillForm, "demo.read-code": ReadCode,
    }

    def __init__(self) -> None:
        self.state = DemoState()
        self.server = LoopbackServer(make_app(self.state))

    @property
    def task_ids(self) -> list[str]:
        return list(self.TASKS)

    def make_task(self, task_id: str, seed: int) -> Task:
        self.check_task_id(task_id)
        self.state.clear()
        return self.TASKS[task_id](self, seed)

    def describe(self, task_id: str) -> dict[str, Any]:
        return {"task_id": task_id, "domain": "demo"}

    def snapshot_world(self, task: Task) -> Any:
        with self.state.lock:
            return {"pressed": self.state.pressed, "submitted": self.state.submitted, "code": self.state.code}

    def load_world(self, task: Task, world: Any) -> None:
        with self.state.lock:
            self.state.pressed, self.state.submitted, self.state.code = world["pressed"], world["submitted"], world["code"]

    def snapshot_origin(self) -> str | None:
        return self.server.url

    def start(self, backend: Backend) -> None:
        self.server.admit(backend)

    def close(self) -> None:
        self.server.stop()
