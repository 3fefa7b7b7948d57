"""`MiniWoBSuite`: MiniWoB++'s task pages, served from the installed package on loopback, each
episode started and scored by the page's own code.

An episode is what the package's own env makes of one: the page is opened, seeded with
``Math.seedrandom(seed)``, given its data mode and started with ``core.startEpisodeReal()``;
the instruction is ``core.getUtterance()``; the page's timer (``core.EPISODE_MAX_TIME``) ends
it as a failure when time runs out; the page's reward functions end it by setting MiniWoB's
``WOB_DONE_GLOBAL`` / ``WOB_RAW_REWARD_GLOBAL`` / ``WOB_REWARD_GLOBAL``. Unlike the package's
env, every episode opens the page afresh (the backend's new context), so no page state
carries over from one episode to the next; with the browser's ``keep_page`` the page of the
last episode is restarted in place, as the package's env does (faster, not isolated).
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from gui_gym.actions import Action
from gui_gym.backends.base import Backend
from gui_gym.errors import ActionExecutionError, InfraError, TaskConfigError
from gui_gym.suites.base import Episode, Task, TaskSuite
from gui_gym.suites.http_server import LoopbackServer
from gui_gym.suites.localweb.framework import static_file
from gui_gym.suites.miniwob import catalog, oracles
from gui_gym.suites.miniwob.page_js import EPISODE_STATE_JS, START_EPISODE_JS

log = logging.getLogger(__name__)

REWARDS: dict[str, str] = {
    "positive": "1 when the page's raw reward is above 0 (BrowserGym's success; MiniWoB's own tests), else 0",
    "perfect": "1 when the raw reward is exactly 1 (MiniWoB's get_binary_reward, used in most papers), else 0",
    "partial": "the raw reward, floored at 0 (partial credit kept; success only at full credit)",
}
"""How the page's raw reward (in [-1, 1]) becomes the env's score (in [0, 1])."""

DATA_MODES = ("train", "test")

TASK_SCREEN = (160, 210)
"""MiniWoB's task area (``#wrap``), what the package's env crops its screenshots to."""
FLIGHT_SCREEN = (375, 667)
"""The flight searches' task area."""


@dataclass
class MiniWoBConfig:
    """How the suite runs MiniWoB's pages; units in the names."""

    reward: str = "positive"
    """One of `REWARDS`."""
    data_mode: str = "train"
    """MiniWoB's data mode (``core.setDataMode``): a few tasks draw train or test problems;
    the package's env uses "train"."""
    time_limit_s: float | None = None
    """The episode's time limit on the page's clock; None keeps each task's own
    (``core.EPISODE_MAX_TIME``, 7 to 60 s), as the package's env does. BrowserGym lifts it
    (1000 s) for agents that think for seconds per step."""
    max_steps: int = 10
    """Step limit of every task (BrowserGym's MiniWoB benchmark uses 10); the env's
    ``max_steps=`` overrides it."""
    ready_timeout_s: float = 10.0
    """Bound on the page getting ready for an episode (flight tasks load an inner page)."""

    def __post_init__(self) -> None:
        if self.reward not in REWARDS:
            raise TaskConfigError(f"reward: expected one of {sorted(REWARDS)}, received {self.reward!r}")
        if self.data_mode not in DATA_MODES:
            raise TaskConfigError(f"data_mode: expected one of {list(DATA_MODES)}, received {self.data_mode!r}")
        if self.time_limit_s is not None and not self.time_limit_s > 0:
            raise TaskConfigError(f"time_limit_s: expected a positive number of seconds or None, received {self.time_limit_s!r}")
        if self.max_steps < 1:
            raise TaskConfigError(f"max_steps: expected >= 1, received {self.max_steps}")


def score_of(raw_reward: float, rule: str) -> float:
    """The env's score of an ended episode whose page gave `raw_reward`, under `rule`."""
    if rule == "positive":
        return 1.0 if raw_reward > 0 else 0.0
    if rule == "perfect":
        return 1.0 if raw_reward == 1.0 else 0.0
    return min(1.0, max(0.0, raw_reward))


def static_app(folder: Path) -> Callable:
    """A WSGI app serving the files under `folder` (GET only), nothing outside it."""
    def app(environ, start_response):
        if environ["REQUEST_METHOD"] not in ("GET", "HEAD"):
            start_response("405 Method Not Allowed", [("Content-Length", "0")])
            return [b""]
        response = static_file(folder, environ["PATH_INFO"].lstrip("/"))
        status = "200 OK" if response.status == 200 else "404 Not Found"
        start_response(status, [("Content-Type", response.content_type), ("Content-Length", str(len(response.body)))])
        return [b"" if environ["REQUEST_METHOD"] == "HEAD" else response.body]
    return app


class MiniWoBTask(Task):
    """One episode of a MiniWoB task. The instruction is the page's, known once `setup` ran."""

    def __init__(self, suite: "MiniWoBSuite", spec: catalog.MiniWoBTaskSpec, seed: int):
        self.suite, self.spec, self.seed = suite, spec, seed
        self.task_id, self.domain = spec.name, spec.category
        self.instruction = ""
        self.max_steps = suite.config.max_steps
        self.metadata = {"category": spec.category, "page": spec.page}
        self._token = secrets.token_hex(8)
        self._details: dict[str, Any] = {}

    @property
    def url(self) -> str:
        return f"{self.suite.server.url}/{self.spec.page}"

    @property
    def screen(self) -> tuple[int, int]:
        return FLIGHT_SCREEN if self.spec.flight else TASK_SCREEN

    def setup(self, backend: Backend) -> None:
        config = self.suite.config
        if self.suite.screen_per_task:
            backend.set_screen(self.screen)
        if backend.url == self.url:  # a page kept from the last episode (keep_page): restarted in place
            backend.start_url = self.url
        else:
            backend.set_start_url(self.url)
        started = backend.evaluate(START_EPISODE_JS, {
            "seed": self.seed, "mode": config.data_mode, "token": self._token,
            "timeLimitMs": None if config.time_limit_s is None else round(config.time_limit_s * 1000),
            "readyTimeoutMs": round(config.ready_timeout_s * 1000)})
        if "error" in started:
            raise InfraError(f"MiniWoB task {self.task_id!r} did not start: {started['error']}")
        self.instruction = started["utterance"]
        self.metadata["time_limit_s"] = started["timeLimitMs"] / 1000

    def state(self, backend: Backend) -> dict[str, Any]:
        """The episode as the page has it (see `EPISODE_STATE_JS`). A page that cannot be read
        (closed, mid-navigation) is one the agent has left."""
        try:
            return backend.evaluate(EPISODE_STATE_JS, self._token)
        except ActionExecutionError as exc:
            log.info("MiniWoB task %s: the episode's page cannot be read (%s); counted as left", self.task_id, exc)
            return {"left": True}

    def ended(self, backend: Backend, episode: Episode) -> bool:
        try:
            state = self.state(backend)
        except InfraError:
            return False  # the browser is gone: the env's observation reports it as such
        return state["left"] or state["done"]

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        state = self.state(backend)
        if state["left"]:
            self._details = {"done": False, "raw_reward": 0.0, "reward": 0.0, "reason": "left the task page"}
            return 0.0
        done = state["done"]
        raw = state["rawReward"] if done else 0.0  # MiniWoB: the reward is 0 until the episode is done
        self._details = {"done": done, "raw_reward": raw, "reward": state["reward"] if done else 0.0,
                         "reason": state["reason"]}
        return score_of(raw, self.suite.config.reward) if done else 0.0

    def evaluation_details(self) -> dict[str, Any]:
        return dict(self._details)

    @property
    def has_oracle(self) -> bool:
        return self.task_id in oracles.SOLUTIONS

    def oracle(self, backend: Backend) -> Iterator[Action]:
        if not self.has_oracle:
            raise NotImplementedError(f"MiniWoB task {self.task_id!r} has no scripted solution; "
                                      f"the tasks with one: {sorted(oracles.SOLUTIONS)}")
        return oracles.SOLUTIONS[self.task_id](backend, self.instruction)


class MiniWoBSuite(TaskSuite):
    """The MiniWoB tasks `tasks` selects (see `catalog.resolve_tasks`)."""

    name = "miniwob"
    needs = "Chromium and the miniwob package (pip install 'gui-gym[miniwob]')"
    """What `gui-bench list` says the env needs."""

    def __init__(self, tasks: str | Iterable[str] | None = None, config: MiniWoBConfig | None = None):
        self.config = config or MiniWoBConfig()
        self.screen_per_task = False
        """Each task shows the agent its own task area (set by the env's factory for a task set
        that mixes flight searches and the others)."""
        self.html_dir = catalog.html_dir()
        installed = catalog.installed_tasks()
        chosen = catalog.resolve_tasks(tasks, installed, oracles.SOLUTIONS)
        by_name = {spec.name: spec for spec in installed}
        self.specs = {name: by_name[name] for name in chosen}
        self.server = LoopbackServer(static_app(self.html_dir))

    @property
    def task_ids(self) -> list[str]:
        return list(self.specs)

    @property
    def flight_tasks(self) -> int:
        return sum(spec.flight for spec in self.specs.values())

    def describe(self, task_id: str) -> dict[str, Any]:
        self.check_task_id(task_id)
        spec = self.specs[task_id]
        return {"task_id": task_id, "domain": spec.category, "category": spec.category,
                "webgum": task_id in catalog.WEBGUM, "nondeterministic": spec.nondeterministic,
                "has_oracle": task_id in oracles.SOLUTIONS}

    def make_task(self, task_id: str, seed: int) -> Task:
        self.check_task_id(task_id)
        return MiniWoBTask(self, self.specs[task_id], seed)

    def report(self, results: list[dict[str, Any]]) -> str | None:
        """Success rate and mean score per task, by category (the summary has the per-category
        totals): the table MiniWoB results are read in."""
        rows: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for result in results:
            if result.get("score") is None:
                continue  # an error, not an episode: the summary counts those apart
            key = (str(result.get("category") or result.get("domain")), str(result.get("task_id")))
            rows.setdefault(key, []).append(result)
        if not rows:
            return None
        width = max(len(task) for _, task in rows)
        lines = [f"{'category':<12} {'task':<{width}}  episodes  success  mean score"]
        for (category, task), items in sorted(rows.items()):
            success = sum(bool(r.get("success")) for r in items) / len(items)
            mean = sum(float(r["score"]) for r in items) / len(items)
            lines.append(f"{category:<12} {task:<{width}}  {len(items):>8}  {success:>7.0%}  {mean:>10.3f}")
        return "\n".join(lines)

    def snapshot_origin(self) -> str | None:
        return self.server.url

    def start(self, backend: Backend) -> None:
        self.server.admit(backend)  # the env's browser only: the server refuses any other

    def close(self) -> None:
        self.server.stop()
