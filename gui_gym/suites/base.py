"""The task contract: setup, evaluate, an optional oracle, teardown (BrowserGym's split,
without its exec).

A `TaskSuite` owns the task set and any resources its tasks share (a local web server, a
dataset); it makes one `Task` instance per episode from a task id and an instance seed, so
parametric tasks are reproducible: the same (task_id, seed) is the same episode.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.backends.base import Backend
from gui_gym.errors import TaskConfigError

SHOWN_TASK_IDS = 10
"""How many of a suite's task ids an unknown-id error lists when none is close."""

@dataclass
class Episode:
    """What the agent did so far; evaluators read it (e.g. the answer, or a final FAIL)."""

    task_id: str
    seed: int
    actions: list[Action] = field(default_factory=list)

    @property
    def last_action(self) -> Action | None:
        return self.actions[-1] if self.actions else None

    @property
    def answer(self) -> str | None:
        """The agent's final answer: the text of a terminal answer/done action."""
        last = self.last_action
        if last is not None and last.kind in ("answer", "done") and last.text:
            return last.text
        return None


@dataclass(frozen=True)
class Milestone:
    """One ordered, checkable step towards success (PAGE's criteria, exactly known)."""

    description: str
    check: Callable[[Backend], bool]


class Task(ABC):
    """One episode's task. Subclasses set the attributes in `__init__`."""

    task_id: str
    instruction: str
    domain: str
    max_steps: int
    metadata: dict[str, Any]

    def setup(self, backend: Backend) -> None:
        """Bring the screen and any server state to the task's start."""

    @abstractmethod
    def evaluate(self, backend: Backend, episode: Episode) -> float:
        """Score in [0, 1] of the final state (and answer)."""

    def oracle(self, backend: Backend) -> Iterator[Action]:
        """A solution, one action at a time, resolved against the live screen. Generators
        are lazy, so each action is computed after the previous one has been executed."""
        raise NotImplementedError(f"task {self.task_id!r} has no oracle solution")

    @property
    def has_oracle(self) -> bool:
        return type(self).oracle is not Task.oracle

    def evaluation_details(self) -> dict[str, Any]:
        """What the last `evaluate` found beyond the score (a benchmark's own raw reward, its
        reason), put in the final step's ``info["evaluation"]``; empty when there is nothing."""
        return {}

    def milestones(self) -> list[Milestone]:
        """Ordered milestones; empty when the task does not know its own."""
        return []

    def ended(self, backend: Backend, episode: Episode) -> bool:
        """Whether the task is over after the step just taken, though the agent did not say
        done/fail/answer (one-step tasks: any output ends them, even one that did not parse)."""
        return False

    def teardown(self, backend: Backend) -> None:
        """Undo what setup did outside the backend's episode reset."""


class TaskSuite(ABC):
    """A benchmark's task set."""

    name: str

    @property
    @abstractmethod
    def task_ids(self) -> list[str]:
        """Every task id, in a stable order."""

    @abstractmethod
    def make_task(self, task_id: str, seed: int) -> Task:
        """The task instance `task_id` with parameters drawn from `seed`."""

    def describe(self, task_id: str) -> dict[str, Any]:
        """Static facts about a task for listings and filters (domain, difficulty, ...)."""
        return {"task_id": task_id}

    def report(self, results: list[dict[str, Any]]) -> str | None:
        """The benchmark's own breakdown tables over finished episodes (each a dict with
        task_id, score and the task's `describe` facts), as text; None when the suite has
        none beyond the harness's summary."""
        return None

    @property
    def snapshot_refusal(self) -> str | None:
        """Why this suite's episodes cannot be snapshotted (None: they can, when the backend
        can). A suite on the live web says so: replaying on a site that changed is not exact."""
        return None

    def snapshot_world(self, task: Task) -> Any:
        """The server-side state of `task`'s episode now, as JSON-able data (None: the suite
        keeps none). A snapshot carries it, and a restore must reproduce it exactly."""
        return None

    def load_world(self, task: Task, world: Any) -> None:
        """Make `task`'s server-side state the `world` that `snapshot_world` returned. A
        restore replays the actions and then loads the world, so what the replay could not
        reproduce of it (a request log that depends on typing speed) is the original's."""

    def snapshot_origin(self) -> str | None:
        """The URL of the server this suite runs for the env (None: none). A snapshot names
        it by a placeholder, so a restore into another env uses that env's own server."""
        return None

    def start(self, backend: Backend) -> None:
        """Start shared resources (servers); called once, after the backend starts."""

    def close(self) -> None:
        """Stop shared resources; safe to call twice."""

    def check_task_id(self, task_id: str) -> None:
        if task_id not in self.task_ids:
            import difflib

            close = difflib.get_close_matches(str(task_id), self.task_ids, n=3)
            shown = self.task_ids[:SHOWN_TASK_IDS]
            more = f" and {len(self.task_ids) - len(shown)} more" if len(self.task_ids) > len(shown) else ""
            hint = f"did you mean {close}?" if close else f"the suite's ids are {shown}{more}"
            raise TaskConfigError(f"unknown task id {task_id!r} in suite {self.name!r}; {hint}")
