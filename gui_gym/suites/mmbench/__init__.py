"""MMBench-GUI offline levels as suites: the official data (`data`, `screenspot`), the
questions and targets as one-step tasks (`tasks`), the answer formats (`choice_format`,
`point_format`, `answers`) and the official scoring and breakdown (`scoring`); what the bundled
sample's maker (`gui_gym.benchmarks.samples.mmbench`) asks of a page (`page_facts`). The ``GUI/MMBench-GUI-L1-v0`` and
``GUI/MMBench-GUI-L2-v0`` entry points are `gui_gym.envs.mmbench`."""

from __future__ import annotations

from gui_gym.suites.mmbench.scoring import breakdown, breakdown_tables

__all__ = ["breakdown", "breakdown_tables"]
