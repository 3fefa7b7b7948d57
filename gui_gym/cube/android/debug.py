"""``cube test gui-gym-android``: debug tasks whose solution follows from the task's own
definition, played by an agent that reads the screen it is shown.

Opening an app is ``open_app`` with the app the task's parameters name (its instance seed
picks it); turning Wi-Fi or Bluetooth on or off is opening Settings and clicking the row named
after the radio, when the task's start state is not its goal (the Verify variants start in
it). The agent finds that row by name in the observation's element list, so it clicks what
the CUBE task shows, as any agent would; then CUBE's ``final_step`` says done.

Why not the other families' replay of a native episode (`gui_gym.cube.debug`): a phone is one
screen for every env on it, so a native run played beside the CUBE task would play on the
CUBE task's own device. The agent knows Settings with the radios on its first page (the test
phone's, and Android before 12); on a newer one the row is a page further and the agent
stops, naming the row it did not find.
"""

from __future__ import annotations

from typing import Any

from cube.core import Observation

from gui_gym.a11y_text import parse_elements
from gui_gym.cube.android.benchmark import AndroidBenchmarkConfig
from gui_gym.cube.debug import Step, StepAgent, fixed
from gui_gym.suites.android import AndroidWorldSuite
from gui_gym.suites.android.tasks.base import AndroidWorldTask
from gui_gym.suites.android.tasks.system import OpenAppTaskEval

DEBUG_TASKS = ["OpenAppTaskEval", "SystemWifiTurnOn"]
SETTINGS_ROWS = {"wifi": "Wi-Fi", "bluetooth": "Bluetooth"}
"""The Settings row of each radio a toggle task turns (its ``service``)."""


def get_debug_benchmark() -> AndroidBenchmarkConfig:
    """The debug tasks, on the device the environment names ($ANDROID_SERIAL, $ANDROID_ADB_SERVER_PORT, ...)."""
    return AndroidBenchmarkConfig().subset_from_list(DEBUG_TASKS)


def make_debug_agent(task_id: str, seed: int = 0) -> StepAgent:
    """The agent for task `task_id` with instance seed `seed`: its plan, then CUBE's stop.
    TaskConfigError for an unknown task, NotImplementedError for one whose solution it does
    not know."""
    return StepAgent([*plan(AndroidWorldSuite().make_task(task_id, seed)), fixed("final_step")])


def plan(task: AndroidWorldTask) -> list[Step]:
    """The steps that solve `task`, read from its definition."""
    if isinstance(task, OpenAppTaskEval):
        return [fixed("open_app", {"text": task.params["app_name"]})]
    row = SETTINGS_ROWS.get(getattr(task, "service", ""))
    if row is not None:
        if task.start == task.target:
            return []
        return [fixed("open_app", {"text": "Settings"}), _click_named(row)]
    raise NotImplementedError(f"the debug agent of gui-gym-android knows no solution of {task.task_id}; "
                              f"it knows OpenAppTaskEval and the Wi-Fi and Bluetooth toggles")


def _click_named(name: str) -> Step:
    """A click on the first element of the shown element list named `name`."""
    def step(obs: Observation) -> tuple[str, dict[str, Any]]:
        tree = next((content.data for content in obs.contents if content.name == "a11y_tree"), "")
        found = [element.index for element in parse_elements(tree) if element.name == name]
        if not found:
            raise LookupError(f"no element named {name!r} on the screen; the debug agent expects Settings to list "
                              f"it on its first page")
        return "click", {"element": found[0]}
    return step
