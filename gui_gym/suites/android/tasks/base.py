"""AndroidWorld's task shape (``TaskEval``) on gui-gym's `Task`.

An AndroidWorld task has a goal ``template`` filled from ``params``, ``generate_random_params``,
a ``complexity`` whose tenfold is the step budget, and three methods that talk to the device:
``initialize_task`` (the start state), ``is_successful`` (a score in [0, 1] read from device
state; composite tasks average their parts) and ``tear_down``. `AndroidWorldTask` keeps that
shape, so each task reads like its original, with AndroidWorld's base behaviour:

- set-up first sets the clock (no network time, 24-hour format, UTC, 15 October 2023 15:34)
  and puts back each of the task's apps' data snapshot (saved when the device was prepared;
  skipped, with a log line, when there is none); tear-down puts the snapshots back again and
  clears the recents screen;
- params come from the episode seed through a `random.Random`, and random choices made while
  setting up come from `self.rng`, seeded again from the same seed (AndroidWorld reseeds its
  global generator there), so an episode is reproducible;
- question-answering tasks read the agent's last ``answer`` (``device.interaction_cache``).

``setup`` runs ``initialize_task`` then returns to the home screen (the agent starts there),
``evaluate`` is ``is_successful`` once the agent said it is done (AndroidWorld scores an
episode that ran out of steps 0), ``teardown`` is ``tear_down``.
"""

from __future__ import annotations

import datetime
import logging
import random
from abc import abstractmethod
from typing import Any, ClassVar

from gui_gym.backends.base import Backend
from gui_gym.suites.android.device import DEVICE_TIME, Device
from gui_gym.suites.base import Episode, Task

logger = logging.getLogger(__name__)


class AndroidWorldTask(Task):
    """One task in AndroidWorld's shape. Subclasses set the class attributes and implement
    `is_successful`; `initialize_task` / `tear_down` extend the defaults (call super)."""

    name: ClassVar[str]
    """The AndroidWorld task name (also the gui-gym task id)."""
    template: ClassVar[str] = ""
    complexity: ClassVar[float]
    app_names: ClassVar[tuple[str, ...]] = ()
    source: ClassVar[str] = "androidworld"
    """"androidworld" for AndroidWorld's own tasks, "gui-gym" for tasks added here."""
    fidelity: ClassVar[str] = ""
    """Empty when set-up and check are AndroidWorld's; else what differs, and why."""
    needs: ClassVar[tuple[str, ...]] = ()
    """What the task needs beyond its apps ("emulator console", ...), for listings."""
    device_time: ClassVar[datetime.datetime] = DEVICE_TIME

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        self.rng = random.Random(params.get("seed"))
        self.task_id = self.name
        self.instruction = self.goal
        self.domain = self.domain_name()
        self.max_steps = int(10 * self.complexity)
        self.metadata = {"params": self.params, "complexity": self.complexity, "source": self.source}

    @classmethod
    def domain_name(cls) -> str:
        """The app a single-app task is about; "android" for tasks over several or none."""
        apps = [a for a in cls.app_names if a != "clipper"]
        return apps[0] if len(apps) == 1 else "android"

    @classmethod
    def from_seed(cls, seed: int) -> "AndroidWorldTask":
        params = cls.generate_random_params(random.Random(seed))
        params["seed"] = seed
        return cls(params)

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {}

    @property
    def goal(self) -> str:
        return self.template.format(**self.params)

    # ---- AndroidWorld's methods ------------------------------------------------------------

    def initialize_device_time(self, device: Device) -> None:
        device.setup_datetime(self.device_time)

    def initialize_apps(self, device: Device) -> None:
        """Each app's data as it was saved when the device was prepared."""
        for name in self.app_names:
            if name and name != "clipper" and not device.restore_app_snapshot(name):
                logger.info("no data snapshot of %s on the device; its data is left as it is", name)

    def initialize_task(self, device: Device) -> None:
        """Bring the device to the task's start state (the home screen follows)."""
        self.initialize_device_time(device)
        self.initialize_apps(device)
        self.rng = random.Random(self.params.get("seed"))

    @abstractmethod
    def is_successful(self, device: Device) -> float:
        """Score in [0, 1] read from the device."""

    def tear_down(self, device: Device) -> None:
        self.initialize_apps(device)
        try:
            device.close_recents()
        except Exception:  # noqa: BLE001 - AndroidWorld carries on too; the next set-up resets state
            logger.exception("could not close the recent apps; continuing")

    # ---- the Task contract -----------------------------------------------------------------

    def setup(self, backend: Backend) -> None:
        device = Device(backend)
        self.initialize_task(device)
        device.go_home()

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        """``is_successful`` when the agent ended the episode (done, fail or answer); 0 when it
        ran out of steps, as AndroidWorld counts only episodes its agent finished."""
        last = episode.last_action
        if last is None or not last.is_terminal:
            return 0.0
        return float(self.is_successful(Device(backend, interaction_cache=last_answer(episode))))

    def teardown(self, backend: Backend) -> None:
        self.tear_down(Device(backend))


class CompositeTask(AndroidWorldTask):
    """Several tasks in one goal (AndroidWorld's composite tasks): each part is set up after
    this task's own set-up and torn down after its tear-down; the score is their mean."""

    def parts(self) -> list[AndroidWorldTask]:
        """The part tasks, with the params this task gives them."""
        raise NotImplementedError

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        self._parts = self.parts()
        for part in self._parts:
            part.initialize_task(device)

    def is_successful(self, device: Device) -> float:
        return sum(part.is_successful(device) for part in self._parts) / len(self._parts)

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        for part in self._parts:
            part.tear_down(device)


def last_answer(episode: Episode) -> str | None:
    """The text of the agent's last ``answer`` action (AndroidWorld keeps the latest), else the
    text of a final ``done`` (how UI-TARS' ``finished(content=...)`` answers)."""
    for action in reversed(episode.actions):
        if action.kind == "answer" and action.text is not None:
            return action.text
    return episode.answer
