"""Any installed CUBE benchmark as a task suite: the suite of ``GUI/CUBE-v0``.

The suite owns the benchmark (a CUBE ``BenchmarkConfig``, made live at `start` and closed at
`close`); its task ids are the benchmark's, its facts the task metadata. A task's episode is
the CUBE task spawned from the benchmark with the instance seed as its ``TaskConfig`` seed,
opened on the `CubeBackend`; its score is CUBE's reward (`CubeBackend.finish`), its step
limit the task's ``recommended_max_steps`` (else `DEFAULT_MAX_STEPS`). Its oracle is the
benchmark's own debug agent, ``make_debug_agent`` of the ``debug`` module beside the
benchmark's (where ``cube test`` looks), for the tasks it knows. Its milestones come from
the task's privileged info when that holds a ``milestones`` list of ``{"description",
"reached"}`` (what gui-gym's own exported benchmarks give).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import logging
from typing import Any, Iterator

from gui_gym.action_formats.function_call import action_for
from gui_gym.actions import Action
from gui_gym.backends.base import Backend
from gui_gym.backends.cube import CubeBackend
from gui_gym.suites.base import Episode, Milestone, Task, TaskSuite

logger = logging.getLogger(__name__)

DEFAULT_MAX_STEPS = 30
"""The step limit of a task whose metadata recommends none."""


class CubeTask(Task):
    """One CUBE task instance: spawned and reset at `setup`."""

    def __init__(self, suite: "CubeSuite", task_id: str, seed: int):
        self.suite, self.task_id, self.seed = suite, task_id, seed
        metadata = suite.config.tasks()[task_id]
        self.domain = suite.name
        self.max_steps = metadata.recommended_max_steps or DEFAULT_MAX_STEPS
        self.instruction = ""
        self.metadata = {}
        self._details: dict[str, Any] = {}

    def setup(self, backend: Backend) -> None:
        assert isinstance(backend, CubeBackend)
        backend.open(self.suite.spawn(self.task_id, self.seed))
        self.instruction = _instruction(backend.observation)

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        assert isinstance(backend, CubeBackend)
        last = episode.last_action
        reward, info = backend.finish(last if last is not None and last.is_terminal else None)
        self._details = {key: value for key, value in info.items() if key != "profiling"}
        return reward

    def evaluation_details(self) -> dict[str, Any]:
        return {"cube": self._details} if self._details else {}

    def ended(self, backend: Backend, episode: Episode) -> bool:
        return isinstance(backend, CubeBackend) and backend.done

    def milestones(self) -> list[Milestone]:
        backend = self.suite.backend
        marks = backend.privileged().get("milestones") if backend is not None and backend.task is not None else None
        if not isinstance(marks, list):
            return []
        return [Milestone(str(mark.get("description", "")), lambda b, i=index: _reached(b, i))
                for index, mark in enumerate(marks) if isinstance(mark, dict)]

    def oracle(self, backend: Backend) -> Iterator[Action]:
        assert isinstance(backend, CubeBackend)
        agent = self.suite.debug_agent(self.task_id, self.seed)
        if agent is None:
            raise NotImplementedError(f"benchmark {self.suite.name!r} has no debug agent for task {self.task_id!r}")
        while not backend.done:
            try:
                call = agent(backend.observation, backend.task.action_set)
            except StopIteration:
                return
            yield action_for(call.name, call.arguments, backend.functions)


class CubeSuite(TaskSuite):
    """The tasks of CUBE benchmark `config` (a ``BenchmarkConfig`` instance)."""

    def __init__(self, config: Any):
        self.config = config
        self.name = config.name
        self.benchmark: Any = None
        self.backend: CubeBackend | None = None

    @property
    def task_ids(self) -> list[str]:
        return list(self.config.tasks())

    def describe(self, task_id: str) -> dict[str, Any]:
        self.check_task_id(task_id)
        metadata = self.config.tasks()[task_id].model_dump(exclude={"container_config"})
        metadata.pop("_type", None)
        return {"task_id": task_id, "domain": self.name, **{k: v for k, v in metadata.items() if k != "id"}}

    def make_task(self, task_id: str, seed: int) -> Task:
        self.check_task_id(task_id)
        return CubeTask(self, task_id, seed)

    def start(self, backend: Backend) -> None:
        assert isinstance(backend, CubeBackend)
        self.backend = backend
        self.config.install()
        self.benchmark = self.config.make()

    def spawn(self, task_id: str, seed: int) -> Any:
        """The CUBE task `task_id` with `seed` as its config's seed: the task config the
        benchmark's own ``get_task_configs`` makes (where a benchmark sets each task's tool)."""
        task_config = next(self.config.subset_from_list([task_id]).get_task_configs())
        return self.benchmark.spawn(task_config.model_copy(update={"seed": seed}))

    def debug_agent(self, task_id: str, seed: int) -> Any:
        """The benchmark's debug agent for `task_id` (instance `seed`), or None where it has none."""
        module_name = type(self.config).__module__.rpartition(".")[0] + ".debug"
        if importlib.util.find_spec(module_name) is None:
            return None
        make = importlib.import_module(module_name).make_debug_agent
        try:  # gui-gym's own take the instance seed (their oracle is played on it); CUBE's take the id only
            return make(task_id, seed=seed) if "seed" in inspect.signature(make).parameters else make(task_id)
        except (ValueError, KeyError) as exc:  # the debug agents know only their debug tasks
            logger.info("no debug agent in %s for %s: %s", module_name, task_id, exc)
            return None

    def close(self) -> None:
        if self.benchmark is not None:
            benchmark, self.benchmark = self.benchmark, None
            benchmark.close()


def _reached(backend: Backend, index: int) -> bool:
    assert isinstance(backend, CubeBackend)
    marks = backend.privileged().get("milestones") or []
    return index < len(marks) and bool(marks[index].get("reached"))


def _instruction(observation: Any) -> str:
    """The task's instruction: the content named so, else every text of the first observation."""
    texts = [content for content in observation.contents if isinstance(content.data, str)]
    named = [content.data for content in texts if content.name == "instruction"]
    return named[0] if named else "\n\n".join(content.to_markdown() for content in texts)
