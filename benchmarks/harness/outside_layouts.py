"""The layouts other tools read, written beside a run's own task folders once an episode is
final: Online-Mind2Web's v2 layout for every web episode (``mind2web/``, read by the
benchmark's evaluation script and by ``gui-bench judge``), OSWorld's for every episode of an
OSWorld run (``osworld/``, read by OSWorld's ``show_result.py``, monitor and leaderboard
scripts), AndroidWorld's checkpoint files for every episode of an AndroidWorld run
(``androidworld/``, read by AndroidWorld's ``run.py``). Screenshots are hard links to the task
folder's. Written by whoever finishes the episode (a worker, the parent for a worker that
died, the Ray driver) and, for a run killed before that, by
`gui_gym.benchmarks.harness.summary.finalize`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gui_gym.benchmarks.harness import androidworld_layout, mind2web_layout, osworld_layout
from gui_gym.benchmarks.harness.osworld_layout import OSWorldLayout
from gui_gym.benchmarks.harness.results import Job, ResultsStore, slug
from gui_gym.records import RESULT_FILE


@dataclass(frozen=True)
class RunLayouts:
    """Which layouts a run writes besides Online-Mind2Web's (every web episode gets that one):
    OSWorld's under these names, AndroidWorld's recording this agent name."""

    osworld: OSWorldLayout | None = None
    androidworld_agent: str | None = None

    @classmethod
    def of_run(cls, run: dict[str, Any], where: str = "run.json") -> RunLayouts:
        """The layouts of the run `run.json` describes (its env id, agent and OSWorld names)."""
        osworld = OSWorldLayout.from_dict(run["osworld_layout"], where) if run.get("osworld_layout") else None
        android = slug(str(run.get("agent"))) if run.get("env_id") in androidworld_layout.ANDROIDWORLD_ENV_IDS else None
        return cls(osworld, android)


def write_episode_layouts(store: ResultsStore, job: Job, layouts: RunLayouts, *, keep_written: bool = False) -> None:
    """Every outside layout of `job`'s recorded episode that applies (none before its result).
    `keep_written`: leave a layout already there as it is (it may hold a judge's verdicts)."""
    folder, web = store.task_dir(job.key), store.mind2web_dir(job.key)
    if not (keep_written and (web / RESULT_FILE).is_file()):
        mind2web_layout.write_from_episode(folder, web, reference_length=job.meta.get("reference_length"))
    if layouts.osworld is not None:
        osworld_layout.write_from_episode(folder, layouts.osworld, store.root, job.meta.get("domain"),
                                          keep_written=keep_written)
    if layouts.androidworld_agent is not None and not (
            keep_written and androidworld_layout.episode_file(store.root, job.task_id, job.seed).is_file()):
        androidworld_layout.write_from_episode(folder, store.root, layouts.androidworld_agent)
