"""What every exported family shares: its description (`Family`), the task, its config, and
the benchmark's runtime pair.

A family is one ``GUI/*`` id (or a few, MMBench-GUI's two levels) with fixed ``gym.make``
arguments. Its CUBE task ids are the suite's task ids; its metadata says what the suite says
(domain, difficulty, ...), the step limit of the task's instance with seed 0 as the
recommended maximum, and ``split="test"`` (no suite has a train split of its own). A
`GUITaskConfig`'s seed is the task's instance seed (None: 0): the parameters of a parametric
task, what a native episode's ``info["seed"]`` and gui-bench's results record. The same task,
instance seed and actions give the same episode and score through CUBE as natively.

Each task owns its env for its lifetime (made at ``reset``, closed at ``close``): a fresh
browser and app server, desktop sandbox or recording per task, hence ``reset_isolation``
NEW_INSTANCE; such tasks share nothing, so CUBE may run them in parallel threads. A family on
a device that outlives its tasks (Android: the phone the benchmark config names) declares
``shared_device``: its ``reset_isolation`` is APP_LEVEL (each task's set-up puts the apps'
state back on the running phone, as AndroidWorld does), its tasks take turns on the device
(`gui_gym.cube.tool`), and its task list is read from its suite without making an env (an
env on a device asks the device for its screen size when made).

Privileged info (never shown to the agent): the task's progress and subtask marks, its
ordered milestones with which hold now (`GUITool.marks`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar

from cube.benchmark import Benchmark, BenchmarkMetadata, ResetIsolation
from cube.core import Content, Observation, StructuredContent
from cube.task import RuntimeContext, Task, TaskConfig, TaskMetadata

from gui_gym.cube.tool import GUITool, GUIToolConfig
from gui_gym.registration import make

VERSION = "0.1.0"


class GUITaskMetadata(TaskMetadata):
    """A task's metadata: CUBE's, plus the env id that plays it and the suite's facts."""

    env_id: str
    facts: dict[str, Any] = {}


@dataclass(frozen=True)
class Family:
    """One exported family: its CUBE name, env id(s), ``gym.make`` arguments and action kinds;
    `shared_device` and `suite` for a family on a device (see the module's docstring)."""

    name: str
    description: str
    env_ids: tuple[str, ...]
    kinds: tuple[str, ...]
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    requirements: dict[str, Any] = field(default_factory=dict)
    shared_device: bool = False
    suite: Callable[[], Any] | None = None
    """Makes the suite the task list is read from, where making the env would contact a device."""

    def tool_config(self, env_id: str) -> GUIToolConfig:
        return GUIToolConfig(env_id=env_id, env_kwargs=dict(self.env_kwargs), kinds=list(self.kinds),
                             shared_device=self.shared_device)

    def task_metadata(self) -> dict[str, TaskMetadata]:
        """Every task of the family's envs, read from their suites (no screen starts)."""
        tasks: dict[str, TaskMetadata] = {}
        for env_id in self.env_ids:
            with self._suite_of(env_id) as (suite, max_steps):
                for task_id in suite.task_ids:
                    facts = suite.describe(task_id)
                    limit = max_steps or suite.make_task(task_id, 0).max_steps
                    tasks[task_id] = GUITaskMetadata(
                        id=task_id, env_id=env_id, recommended_max_steps=limit, facts=_plain(facts),
                        abstract_description=", ".join(str(facts[k]) for k in ("domain", "difficulty") if facts.get(k)))
        return tasks

    def benchmark_metadata(self, num_tasks: int) -> BenchmarkMetadata:
        isolation = ResetIsolation.APP_LEVEL if self.shared_device else ResetIsolation.NEW_INSTANCE
        return BenchmarkMetadata(
            name=self.name, version=VERSION, description=self.description, authors=["gui-gym"], license="Apache-2.0",
            requirements=dict(self.requirements), num_tasks=num_tasks, tags=list(self.tags), reset_isolation=isolation)

    @contextmanager
    def _suite_of(self, env_id: str) -> Iterator[tuple[Any, int | None]]:
        """(the suite of `env_id`, the env's step limit): from `suite` when given, else from
        an env made for the purpose (closed after)."""
        if self.suite is not None:
            yield self.suite(), self.env_kwargs.get("max_steps")
            return
        env = make(env_id, dict(self.env_kwargs))
        try:
            yield env.unwrapped.suite, env.unwrapped.max_steps
        finally:
            env.close()


class GUITask(Task[GUITaskMetadata, GUITool]):
    """One episode of a gui-gym task, on the tool's env."""

    seed: int = 0

    def reset(self) -> tuple[Observation, dict[str, Any]]:
        self.tool.reset()
        return self.tool.open(self.metadata.id, self.seed)

    def finished(self, obs: Observation | None = None) -> bool:
        return self.tool.ended

    def evaluate(self, obs: Observation | None = None) -> tuple[float, dict[str, Any]]:
        return self.tool.score()

    def get_privileged_info(self) -> Content:
        return StructuredContent(name="marks", data=self.tool.marks())

    def close(self) -> None:
        self.tool.close()


class GUITaskConfig(TaskConfig[GUITaskMetadata]):
    """Makes a `GUITask`; each family subclasses it and names itself in `family` (CUBE wants
    one task-config class per benchmark)."""

    family: ClassVar[Family]

    def make(self, runtime_context: RuntimeContext | None = None) -> GUITask:
        tool = self.tool_config or self.family.tool_config(self.metadata.env_id)
        if isinstance(tool, GUIToolConfig) and tool.env_id != self.metadata.env_id:
            tool = tool.model_copy(update={"env_id": self.metadata.env_id})
        return GUITask(metadata=self.metadata, tool_config=tool, runtime_context=runtime_context,
                       seed=0 if self.seed is None else self.seed)


class GUIBenchmark(Benchmark):
    """The runtime pair: nothing shared to start or stop (each task brings its own env)."""

    def _setup(self) -> None:
        pass

    def close(self) -> None:
        pass


def _plain(facts: dict[str, Any]) -> dict[str, Any]:
    """A suite's facts as JSON-able metadata (tuples as lists; other objects as text)."""
    def plain(value: Any) -> Any:
        if isinstance(value, (str, int, float, bool)) or value is None:
            return value
        if isinstance(value, (list, tuple)):
            return [plain(item) for item in value]
        if isinstance(value, dict):
            return {str(key): plain(item) for key, item in value.items()}
        return str(value)
    return plain(facts)
