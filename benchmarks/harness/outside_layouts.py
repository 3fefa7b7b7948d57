"""The layouts other tools read, written beside a run's own task folders once an episode is
final: Online-Mind2Web's v2 layout for every web episode (``mind2web/``, read by the
benchmark's evaluation script and by ``gui-bench judge``), OSWorld's for every episode of an
OSWorld run (``osworld/``, read by OSWorld's ``show_result.py``, monitor and leaderboard
scripts). Their screenshots are hard links to the task folder's. Written by whoever finishes
the episode (a worker, the parent for a worker that died, the Ray driver) and, for a run killed
before that, by `gui_gym.benchmarks.harness.summary.finalize`.
"""

from __future__ import annotations

from gui_gym.benchmarks.harness import mind2web_layout, osworld_layout
from gui_gym.benchmarks.harness.osworld_layout import OSWorldLayout
from gui_gym.benchmarks.harness.results import Job, ResultsStore
from gui_gym.records import RESULT_FILE


def write_episode_layouts(store: ResultsStore, job: Job, osworld: OSWorldLayout | None, *,
                          keep_written: bool = False) -> None:
    """Every outside layout of `job`'s recorded episode that applies (none before its result).
    `keep_written`: leave a layout already there as it is (it may hold a judge's verdicts)."""
    folder, web = store.task_dir(job.key), store.mind2web_dir(job.key)
    if not (keep_written and (web / RESULT_FILE).is_file()):
        mind2web_layout.write_from_episode(folder, web, reference_length=job.meta.get("reference_length"))
    if osworld is not None:
        osworld_layout.write_from_episode(folder, osworld, store.root, job.meta.get("domain"),
                                          keep_written=keep_written)
